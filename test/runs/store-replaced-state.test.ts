import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { copyFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { runCli } from '../../src/cli/run-cli.js';
import type { IntegrationApi } from '../../src/port/integration-api.js';
import { StoreReplacedError } from '../../src/system/errors.js';
import { testDeps, withTempDir } from '../cli/helpers.js';

/**
 * A run stopped because its local store was replaced under it (StoreReplacedError, exit 3) is no
 * run to resume onto the store there now: `runs list` says `store-replaced` and what to do
 * (docs/runs.md, "States"), where it said `interrupted`.
 */
describe('a run whose store was replaced under it', () => {
  it('is listed store-replaced, with what to do, not interrupted', () =>
    withTempDir(async (dir) => {
      await copyFile(resolve(__dirname, '../../fixtures/users.csv'), join(dir, 'users.csv'));
      const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'synced') };
      const replaced = new StoreReplacedError(
        `${dir}/store was replaced (local init --force) under this run: stopped; run the file again`,
      );
      const api = {
        upsertUser: async () => Promise.reject(replaced),
        close: async () => undefined,
      } as unknown as IntegrationApi;
      const cli = async (argv: string[]) => {
        const io = testDeps(dir, { openApi: async () => api }, env);
        return { code: await runCli(argv, io.deps), stdout: io.stdout.text, stderr: io.stderr.text };
      };
      const sync = await cli(['--json', '--store', 'store', 'user', 'sync', '--file', 'users.csv']);
      expect(sync.code, sync.stderr).toBe(3);
      expectCoded(sync.stderr, 'E3031', 'store', 'local init --force');
      const listed = await cli(['--json', 'runs', 'list']);
      expect((JSON.parse(listed.stdout) as { runs: { state: string }[] }).runs.map((run) => run.state)).toEqual([
        'store-replaced',
      ]);
      const row = await cli(['runs', 'list']);
      expect(row.stdout).toMatch(/^\S+  store-replaced  user sync .*  \(run the file again\)\n$/);
    }));
});
