import { copyFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { examctlStep as examctl } from '../support/in-process.js';
import { lineWith } from '../support/facts.js';
import { withTempDir } from './helpers.js';

/**
 * The sync memory's place and where it came from (`--sync-dir`, `EXAMCTL_SYNC_DIR`, else built in beside the runs
 * directory), as the settings line says each setting's source (docs/remote.md, "Where each setting comes from"),
 * and as doctor's sync memory check names it.
 */

const USERS = resolve(__dirname, '../../fixtures/users.csv');

describe('where the sync memory came from', () => {
  it('the settings line names the folder and its source; doctor too', () =>
    withTempDir(async (dir) => {
      await copyFile(USERS, join(dir, 'users.csv'));
      const runs = join(dir, 'runs');
      const env = { EXAMCTL_RUNS_DIR: runs };
      const sync = ['--store', join(dir, 'store'), 'user', 'sync', '--file', 'users.csv'];

      const typed = await examctl([...sync, '--sync-dir', 'typed'], dir, env);
      expect(typed.code, typed.stderr).toBe(0);
      expect(lineWith(typed.stderr, 'target: ')).toContain(`; sync memory ${join(dir, 'typed')} (--sync-dir)`);
      const doctorTyped = await examctl(['--store', join(dir, 'store'), 'doctor', '--sync-dir', 'typed'], dir, env);
      expect(lineWith(doctorTyped.stdout, 'sync memory', join(dir, 'typed'), '(--sync-dir):')).toBeTruthy();

      const fromEnv = { ...env, EXAMCTL_SYNC_DIR: join(dir, 'env') };
      const variable = await examctl(sync, dir, fromEnv);
      expect(variable.code, variable.stderr).toBe(0);
      expect(lineWith(variable.stderr, 'target: ')).toContain(`; sync memory ${join(dir, 'env')} (EXAMCTL_SYNC_DIR)`);
      const doctorEnv = await examctl(['--store', join(dir, 'store'), 'doctor'], dir, fromEnv);
      expect(lineWith(doctorEnv.stdout, 'sync memory', join(dir, 'env'), '(EXAMCTL_SYNC_DIR):')).toBeTruthy();

      // The default: said where the line is said anyway (a profile's settings), and by doctor.
      expect((await examctl(['config', 'set-profile', 'school', '--timezone', 'UTC'], dir, env)).code).toBe(0);
      const built = await examctl([...sync, '--profile', 'school'], dir, env);
      expect(built.code, built.stderr).toBe(0);
      expect(lineWith(built.stderr, 'target: ')).toContain(`; sync memory ${join(dir, 'synced')} (built-in)`);
      const doctorBuilt = await examctl(['--store', join(dir, 'store'), 'doctor'], dir, env);
      expect(lineWith(doctorBuilt.stdout, 'sync memory', join(dir, 'synced'), '(built-in):')).toBeTruthy();
    }));
});
