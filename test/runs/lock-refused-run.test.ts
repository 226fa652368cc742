import { copyFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { ownLockInfo } from '../../src/system/lock.js';
import { testDeps } from '../cli/helpers.js';
import { withTempDir } from '../support/temp-dir.js';

/**
 * A run refused by the store's lock (E3020) before it sent anything: its items name the code, the
 * lock's message is said once (the run's error); the sync memory keeps none of its rows; listed
 * `refused`, not `interrupted`, and `runs resume` without an id does not take it (docs/runs.md, "States").
 */
async function refusedRun(dir: string) {
  await copyFile(resolve(__dirname, '../../fixtures/users.csv'), join(dir, 'users.csv'));
  const env = {
    EXAMCTL_RUNS_DIR: join(dir, 'runs'),
    EXAMCTL_SYNC_DIR: join(dir, 'synced'),
    EXAMCTL_LOCK_TIMEOUT_MS: '50',
  };
  const cli = async (argv: string[]) => {
    const io = testDeps(dir, {}, env);
    return { code: await runCli(argv, io.deps), stdout: io.stdout.text, stderr: io.stderr.text };
  };
  expect((await cli(['--store', 'store', 'local', 'init'])).code).toBe(0);
  const lock = join(dir, 'store', 'LOCK');
  await writeFile(lock, `${JSON.stringify(ownLockInfo('held-by-test'))}\n`);
  const sync = await cli(['--store', 'store', 'user', 'sync', '--file', 'users.csv', '--json']);
  expect(sync.code).toBe(3);
  return { cli, lock, doc: JSON.parse(sync.stdout) };
}

describe('a run the store lock refused before it sent anything', () => {
  it('its items name E3020, the lock is said once, the sync memory keeps none of its rows', () =>
    withTempDir(async (dir) => {
      const { cli, lock, doc } = await refusedRun(dir);
      expect(doc.error.code).toBe('E3020');
      expect(doc.error.message).toContain(lock);
      expect(doc.summary).toMatchObject({ total: 20, ok: 0, skipped: 20 });
      for (const item of doc.items) {
        expect(item.errors).toHaveLength(1);
        expect(item.errors[0].message).toContain('E3020');
        expect(item.errors[0].code).toBe(9025);
        expect(item.errors[0].message).not.toContain(lock);
      }
      // The human summary says the lock's message once: the run's error line.
      const human = await cli(['--store', 'store', 'user', 'sync', '--file', 'users.csv']);
      expect(human.code).toBe(3);
      expect(human.stderr.split(lock).length - 1).toBe(1);
      const shown = JSON.parse((await cli(['runs', 'show', 'last', '--json'])).stdout);
      expect(new Set(shown.items.map((item: { errors: { code: number }[] }) => item.errors[0]!.code))).toEqual(
        new Set([9025]),
      );
      expect(
        shown.items.filter((item: { errors: { message: string }[] }) => item.errors[0]!.message.includes(lock)),
      ).toEqual([]);
      const [memory] = JSON.parse((await cli(['synced', 'show', '--json'])).stdout).memories;
      expect(memory).toMatchObject({ remembered: 0, unsettled: 0 });
    }));
  it('is listed refused, passed over by runs resume; named by its id, it sends its file once the lock is gone', () =>
    withTempDir(async (dir) => {
      const { cli, lock } = await refusedRun(dir);
      const listed = JSON.parse((await cli(['runs', 'list', '--json'])).stdout) as {
        runs: { id: string; state: string }[];
      };
      expect(listed.runs.map((run) => run.state)).toEqual(['refused']);
      expect((await cli(['runs', 'list'])).stdout).toMatch(/^\S+  refused +user sync .*\(run the file again\)$/m);
      const resume = await cli(['runs', 'resume']);
      expect(resume.stderr).not.toContain('resuming run');
      expect(resume.stderr).toContain('no interrupted run');
      await rm(lock);
      const named = await cli(['runs', 'resume', listed.runs[0]!.id, '--json']);
      expect(named.code, named.stderr).toBe(0);
      expect(JSON.parse(named.stdout).summary).toMatchObject({ ok: 20, skipped: 0 });
      expect(JSON.parse((await cli(['runs', 'list', '--json'])).stdout).runs[0].state).toBe('finished');
    }));
});
