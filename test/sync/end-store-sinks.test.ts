import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { lineWith } from '../support/facts.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { stateServerPerTest } from '../support/state-server.js';
import { ROOT } from '../durability/helpers.js';
import { deltaEndIds, dropEndDelta } from '../support/end-store.js';

/**
 * A state service that refuses the run's end store (docs/ci.md): the failure is the run's error
 * in every sink, as a refusal's is: the `--json` document's `error`, the JUnit file's "the run
 * stopped" case and the GitHub annotation (found by a trial: all three said the run was fine).
 */

const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role,Hierarchies';
const server = stateServerPerTest();

function writeUsers(dir: string, ids: readonly string[]): void {
  writeFileSync(
    join(dir, 'users.csv'),
    `${[HEADER, ...ids.map((id) => `${id},First,Last ${id},${id}@example.test,name-${id},Candidate,`)].join('\n')}\n`,
  );
}

async function cli(dir: string, env: Record<string, string>, argv: string[]) {
  const io = testDeps(
    dir,
    {},
    {
      EXAMCTL_RUNS_DIR: join(dir, 'runs'),
      EXAMCTL_LOCK_TIMEOUT_MS: '0',
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: dir,
      ...env,
    },
  );
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

const sync = (dir: string, env: Record<string, string>, ...flags: string[]) =>
  cli(dir, env, [
    'user',
    'sync',
    '--file',
    'users.csv',
    '--target',
    'local',
    '--store',
    'store',
    '--changed-only',
    '--json',
    ...flags,
  ]);

/** The run's end store refused: exit 3, and each sink says why (docs/ci.md, "What examctl does under CI"). */
function expectStoppedEverywhere(
  failed: { code: number; stdout: string; stderr: string },
  dir: string,
  total: number,
  memory: string,
): void {
  expect(failed.code, failed.stderr).toBe(3);
  expectCoded(failed.stderr, 'E3050', memory);
  // One document on stdout: the run's report, with why it stopped.
  const doc = JSON.parse(failed.stdout) as {
    error?: { exitCode: number; message: string };
    summary: { total: number; failed: number };
  };
  expect(doc.error).toMatchObject({
    exitCode: 3,
    message: expect.stringContaining(memory),
  });
  expect(doc.summary).toMatchObject({ total, failed: 0 });
  const junit = readFileSync(join(dir, 'stu.xml'), 'utf8');
  expect(junit).toMatch(/<testsuite [^>]*failures="1"/);
  expect(junit).toContain('the run stopped (exit 3)');
  expect(lineWith(junit, '<failure message="E3050: ', memory)).toBeTruthy();
  expect(lineWith(failed.stderr, '::error title=examctl: the run stopped::E3050: ', memory)).toMatch(/^::error /);
}

describe('an end store the state service refuses', () => {
  it('exit 3, and the JSON error, the JUnit stopped case and the ::error annotation say the memory was not saved', () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_SYNC_DIR: server.address('sinks') };
      const twelve = deltaEndIds('es');
      writeUsers(dir, twelve);
      const first = await sync(dir, env);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).not.toContain('::error');
      writeUsers(dir, [...twelve, 'es-13']);
      dropEndDelta(server);
      const failed = await sync(dir, env, '--report', 'stu.xml');
      expectStoppedEverywhere(failed, dir, 13, env.EXAMCTL_SYNC_DIR);
    }));

  it('schedule push --changed-only: the same in every sink', () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_SYNC_DIR: server.address('schedules'), EXAMCTL_NOW: '2026-11-21T10:00:00Z' };
      expect((await cli(dir, env, ['local', 'init', '--store', 'store'])).code).toBe(0);
      const fixture = readFileSync(join(ROOT, 'fixtures', 'sittings.csv'), 'utf8');
      // Each sitting five times again with other candidates, so the run's end (with the store's heads) is under half the memory: stored as a delta.
      const copy = (letter: string) =>
        fixture
          .split('\n')
          .slice(1)
          .join('\n')
          .replaceAll(/^S-/gm, `S${letter}-`)
          .replaceAll(',stu-', `,st${letter.toLowerCase()}-`)
          .replaceAll('@students', `@${letter.toLowerCase()}.students`);
      const sittings = fixture + ['B', 'C', 'D', 'E', 'F'].map(copy).join('');
      writeFileSync(join(dir, 'sittings.csv'), sittings);
      const push = (...flags: string[]) =>
        cli(dir, env, [
          'schedule',
          'push',
          '--file',
          'sittings.csv',
          '--target',
          'local',
          '--store',
          'store',
          '--upsert',
          '--changed-only',
          '--json',
          ...flags,
        ]);
      const first = await push();
      expect(first.code, first.stderr).toBe(0);
      writeFileSync(join(dir, 'sittings.csv'), sittings.replace('stu-2002,Ben,Okafor', 'stu-2002,Ben,Okafor-Smith'));
      dropEndDelta(server);
      const failed = await push('--report', 'stu.xml');
      expectStoppedEverywhere(
        failed,
        dir,
        (JSON.parse(first.stdout) as { summary: { total: number } }).summary.total,
        env.EXAMCTL_SYNC_DIR,
      );
    }));
});

describe('collection add with its memory on a state service', () => {
  it('writes each collection ahead: after an end store refused, runs resume stores it, or the next run knows it sent it', () =>
    withTempDir(async (dir) => {
      const add = (memory: string, id: string, ...flags: string[]) =>
        cli(dir, { EXAMCTL_SYNC_DIR: server.address(memory) }, [
          'collection',
          'add',
          '--title',
          `T ${id}`,
          '--external-id',
          id,
          '--target',
          'local',
          '--store',
          'store',
          '--existing',
          'ok',
          '--yes',
          ...flags,
        ]);
      const refusedEnd = async (memory: string, first: string, id: string) => {
        expect((await add(memory, first)).code).toBe(0);
        // Its end is stored whole (its population record is new): the POST after its start's and its intent's.
        server.fail('POST', 409, 1, '', 2);
        const failed = await add(memory, id);
        expect(failed.code, failed.stderr).toBe(3);
        expectCoded(failed.stderr, 'E3050', '(collections)', memory);
        return /runs resume (\S+) stores it/.exec(failed.stderr)![1]!;
      };
      const run = await refusedEnd('resumed', 'c1', 'c2');
      expect(
        (await cli(dir, { EXAMCTL_SYNC_DIR: server.address('resumed') }, ['runs', 'resume', run, '--yes'])).code,
      ).toBe(0);
      expect((await add('resumed', 'c2')).stderr).toContain('1 ok: 1 unchanged');
      await refusedEnd('next', 'c3', 'c4');
      const again = await add('next', 'c4', '--json');
      expect(again.code, again.stderr).toBe(1);
      expect(again.stdout).toMatch(
        /examctl sent it there in run \S+ with no definite answer.*examctl synced adopt-collections/,
      );
    }));
});
