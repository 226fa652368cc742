/**
 * `--sync-dir` (or EXAMCTL_SYNC_DIR) that looks like an address of another scheme than http(s)
 * (`ftp://`, a typo such as `htps://`) is refused, exit 2, naming the value and what is taken;
 * it was taken as a relative folder named `ftp:`.
 */
import { describe, expect, it } from 'vitest';
import { copyFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';

const TAKEN =
  "is not an address examctl reads a sync memory from: give a directory, or a state service's http:// or https:// address";

describe('--sync-dir with a scheme other than http(s)', () => {
  it.each([
    ['--sync-dir', 'ftp://backup.example.test/synced'],
    ['--sync-dir', 'htps://state.example.test/examctl'],
    ['EXAMCTL_SYNC_DIR', 'sftp://state.example.test/x'],
  ])('%s %s: exit 2 naming it, nothing made, nothing sent', (how, value) =>
    withTempDir(async (dir) => {
      await copyFile(join(__dirname, '../../fixtures/users.csv'), join(dir, 'users.csv'));
      const flags = how === '--sync-dir' ? ['--sync-dir', value] : [];
      const io = testDeps(dir, {}, how === '--sync-dir' ? {} : { EXAMCTL_SYNC_DIR: value });
      expect(
        await runCli(
          ['user', 'sync', '--file', 'users.csv', '--target', 'local', '--store', 'store', ...flags],
          io.deps,
        ),
      ).toBe(2);
      const scheme = value.slice(0, value.indexOf(':'));
      expect(io.stderr.text).toContain(`${how} ${value}: ${scheme}:// ${TAKEN}`);
      expect((await readdir(dir)).filter((name) => name.endsWith(':') || name === 'store')).toEqual([]);
      const exported = testDeps(dir, {}, how === '--sync-dir' ? {} : { EXAMCTL_SYNC_DIR: value });
      expect(
        await runCli(
          ['synced', 'export', '--target', 'local', '--store', 'store', ...flags, '--out', 'm.json'],
          exported.deps,
        ),
      ).toBe(2);
      expect(exported.stderr.text).toContain(TAKEN);
    }),
  );
});
