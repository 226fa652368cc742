/**
 * The other JSON inputs read by the one bounded scanner: a profile's config.json, an id list and a
 * sync memory export, each deep far past the stack or holding a token given by mistake, end in a
 * refusal (exit 2) that names the file and line and quotes nothing of it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { configPath, loadConfig } from '../../src/context/config-file.js';
import { readIdList } from '../../src/input/id-list.js';
import { readDocument } from '../../src/sync/memory-document.js';
import { UsageError } from '../../src/system/errors.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { runCli } from '../../src/cli/run-cli.js';

const TOKEN = 'tok_9fQ2xLm7Vb4Rn8Kd';
const DEEP = `{"a": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`;

async function refusal(run: () => Promise<unknown>): Promise<UsageError> {
  const error = await run().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UsageError);
  expect((error as UsageError).exitCode).toBe(2);
  return error as UsageError;
}

describe('JSON documents beside the records', () => {
  it('config.json: deep, or a token, is refused naming the file, the line and the column', () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_CONFIG_DIR: join(dir, 'config') };
      await mkdir(env.EXAMCTL_CONFIG_DIR, { recursive: true });
      await writeFile(configPath(env), DEEP);
      const deep = (await refusal(() => loadConfig(env))).message;
      expect(deep.startsWith(`${configPath(env)}:1: `)).toBe(true);
      expect(deep).toContain('64 levels (column 70)');
      await writeFile(configPath(env), `\n${TOKEN}`);
      const leaked = await refusal(() => loadConfig(env));
      expect(leaked.message).toBe(`${configPath(env)}:2: not valid JSON: expected a value at column 1`);
    }));

  it('an id list holding a token names its line, and the token not at all', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'ids.json'), `["inv-1",\n ${TOKEN}]`);
      const error = await refusal(() => readIdList(join(dir, 'ids.json'), { displayName: 'ids.json' }));
      expect(error.message).toBe('ids.json:2: not valid JSON: expected a value at column 2');
      await writeFile(join(dir, 'ids.json'), `["inv-1",\n "inv-2"]`);
      expect((await readIdList(join(dir, 'ids.json'))).map((entry) => [entry.id, entry.source.line])).toEqual([
        ['inv-1', 1],
        ['inv-2', 2],
      ]);
    }));

  it('a sync memory export nested deep is refused as no memory examctl can use', async () => {
    const error = await refusal(async () => readDocument(DEEP, 'night.json'));
    expect(error).toMatchObject({
      code: 'E2507',
      message: expect.stringMatching(/^night\.json: .*64 levels \(column 70\)/),
    });
    expect((await refusal(async () => readDocument(TOKEN, 'night.json'))).message).not.toContain(TOKEN.slice(0, 3));
  });

  it('a key given twice (the last would win) in config.json, a --schedule file or a world seed: refused with the file, line and key', () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_CONFIG_DIR: join(dir, 'config') };
      await mkdir(env.EXAMCTL_CONFIG_DIR, { recursive: true });
      const profile = (url: string) => `{"baseUrl": "${url}", "tokenFile": "/t"}`;
      await writeFile(
        configPath(env),
        `{"version": 1, "profiles": {\n"a": ${profile('https://one.test')},\n"a": ${profile('https://two.test')}}}`,
      );
      const run = (argv: string[]) => {
        const io = testDeps(dir, {}, env);
        return runCli(argv, io.deps).then((code) => ({ code, stdout: io.stdout.text, stderr: io.stderr.text }));
      };
      const listed = await run(['config', 'list']);
      expect(listed.code).toBe(2);
      expectCoded(listed.stderr, 'E2100', `${configPath(env)}:3: `, 'key "a"', 'line 2');
      // The way out: a command that rewrites the file reads it as before (the last wins) and writes it once.
      expect((await run(['config', 'set-profile', 'a', '--base-url', 'https://two.test'])).code).toBe(0);
      expect((await loadConfig(env)).profiles.a?.baseUrl).toBe('https://two.test');
      await writeFile(
        configPath(env),
        `{"version": 1, "profiles": {"a": ${profile('https://one.test')}, "b": ${profile('https://b.test')},\n"a": ${profile('https://two.test')}}}`,
      );
      expect((await run(['config', 'remove', 'b'])).code).toBe(0);
      expect(Object.entries((await loadConfig(env)).profiles).map(([name, { baseUrl }]) => [name, baseUrl])).toEqual([
        ['a', 'https://two.test'],
      ]);
      expect((await run(['local', 'init', '--store', 'st'])).code).toBe(0);
      const world = JSON.parse((await run(['local', 'export', '--store', 'st'])).stdout) as {
        Assessments: { ExternalId: string }[];
      };
      await writeFile(
        join(dir, 'schedule.json'),
        '{\n  "Title": "Mathematics 1",\n  "Title": "old title, to delete"\n}\n',
      );
      await writeFile(
        join(dir, 'sittings.csv'),
        `ScheduleExtId,AssessmentExtId,StartDateTime,EndDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email\nS-DUP,${world.Assessments[0]!.ExternalId},2026-12-14T09:00:00Z,2026-12-14T12:00:00Z,G-DUP,Group,c-1,Ann,Lee,ann@x.test\n`,
      );
      const pushed = await run([
        'schedule',
        'push',
        '--file',
        'sittings.csv',
        '--store',
        'st',
        '--schedule',
        'schedule.json',
      ]);
      expect(pushed.code).toBe(2);
      expectCoded(pushed.stderr, 'E2100', 'schedule.json:3: ', 'key "Title"', 'line 2');
      expect((await run(['local', 'export', '--store', 'st'])).stdout).not.toContain('S-DUP');
      await writeFile(
        join(dir, 'world.json'),
        `${JSON.stringify(world, null, 2).replace(/\n\}$/, ',\n  "Users": []\n}')}\n`,
      );
      const seeded = await run(['local', 'init', '--store', 'st', '--seed', 'world.json', '--force']);
      expect(seeded.code).toBe(2);
      expectCoded(seeded.stderr, 'E2100', 'world.json:', 'key "Users"');
    }));
});
