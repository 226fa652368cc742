import { describe, expect, it } from 'vitest';
import { failedCheck } from '../support/coded-message.js';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { storeCli, testDeps, withTempDir } from './helpers.js';
import { runCli } from '../../src/cli/run-cli.js';

const USERS = resolve(__dirname, '../../fixtures/users.csv');

/** A check that fails on what a run would refuse with says that refusal's code (docs/errors.md), as the run would. */
describe('examctl doctor: a failed check carries the code a run would end with', () => {
  it('a damaged sync memory: E2507 on its line and in --json checks[].code, exit 3', () =>
    withTempDir(async (dir) => {
      const cli = storeCli(dir);
      await writeFile(join(dir, 'users.csv'), await readFile(USERS));
      expect((await cli(['user', 'sync', '--file', 'users.csv', '--changed-only'])).code).toBe(0);
      const [folder] = await readdir(join(dir, 'synced'));
      const memory = join(dir, 'synced', folder!, 'users.ndjson');
      const lines = (await readFile(memory, 'utf8')).split('\n');
      lines[3] = lines[3]!.replace('"stu-', '"stX-');
      await writeFile(memory, lines.join('\n'));
      const night = await cli(['user', 'sync', '--file', 'users.csv', '--changed-only', '--json']);
      expect(JSON.parse(night.stdout).error.code).toBe('E2507');
      const text = await cli(['doctor']);
      expect(text.code).toBe(3);
      failedCheck(text.stdout, 'sync memory', 'E2507', 'users.ndjson:4');
      const json = await cli(['doctor', '--json']);
      expect(json.code).toBe(3);
      const check = JSON.parse(json.stdout).checks.find((entry: { name: string }) => entry.name === 'sync memory');
      expect(check).toMatchObject({ status: 'fail', code: 'E2507' });
      expect(check.detail).toContain('users.ndjson:4');
    }));

  it('a remote target with no token and nothing listening: token E2008 and reachable E3002, as a send would end', () =>
    withTempDir(async (dir) => {
      const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'synced') });
      // Port 1 on loopback refuses at once.
      const code = await runCli(
        ['--target', 'remote', '--base-url', 'http://127.0.0.1:1', 'doctor', '--json'],
        io.deps,
      );
      expect(code).toBe(3);
      const checks = JSON.parse(io.stdout.text).checks as { name: string; status: string; code?: string }[];
      expect(checks.filter((check) => check.status === 'fail').map(({ name, code }) => [name, code])).toEqual([
        ['token', 'E2008'],
        ['reachable', 'E3002'],
      ]);
    }));
});
