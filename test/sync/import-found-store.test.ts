import { copyFile, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';

/**
 * `synced import` finds its store as every command does (docs/cli.md, "The local store"): without
 * --store, `.examctl-store` here or in a parent. A memory of another store is refused (E2504),
 * nothing written, naming the --store that imports it where it belongs (docs/sync.md).
 */
describe('synced import without --store', () => {
  it('a store found in a parent is not the memory’s: E2504 naming --store <its store>, nothing written; with it, imported', () =>
    withTempDir(async (dir) => {
      const night = join(dir, 'night');
      await mkdir(night);
      await copyFile(resolve(__dirname, '../../fixtures/users.csv'), join(night, 'users.csv'));
      const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'synced') };
      const cli = async (cwd: string, argv: string[]) => {
        const io = testDeps(cwd, {}, env);
        return { code: await runCli(argv, io.deps), stdout: io.stdout.text, stderr: io.stderr.text };
      };
      expect((await cli(dir, ['local', 'init'])).code).toBe(0);
      expect((await cli(night, ['--store', 'store', 'user', 'sync', '--file', 'users.csv'])).code).toBe(0);
      expect((await cli(night, ['--store', 'store', 'synced', 'export', '--out', 'mem.json'])).code).toBe(0);

      const refused = await cli(night, ['synced', 'import', 'mem.json', '--json']);
      expect(refused.code).toBe(2);
      const error = JSON.parse(refused.stdout).error;
      expect(error.code).toBe('E2504');
      expect(error.message).toContain(join(dir, '.examctl-store'));
      expect(error.message).toContain(`--store ${join(night, 'store')}`);
      expect(refused.stderr).toContain(`found in a parent directory: ${join(dir, '.examctl-store')}`);
      const shown = JSON.parse((await cli(night, ['synced', 'show', '--json'])).stdout);
      expect(shown.memories.map((memory: { target: { store: string } }) => memory.target.store)).toEqual([
        join(night, 'store'),
      ]);

      const imported = await cli(night, ['--store', 'store', 'synced', 'import', 'mem.json', '--json']);
      expect(imported.code, imported.stderr).toBe(0);
      expect(JSON.parse(imported.stdout).target).toEqual({ kind: 'local', store: join(night, 'store') });
    }));
});
