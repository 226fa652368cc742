/**
 * Every temporary file lives in one private folder (src/system/private-temp.ts): 0700, the
 * user's own, and the next run removes what a killed run left there (private copies of names and
 * links), never a live run's folder.
 */
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { BIN, PINNED_NOW } from '../support/cli.js';
import { childEnv } from '../support/child-env.js';
import { withTempDir } from '../support/temp-dir.js';

const USERS = readFileSync(join(__dirname, '../../fixtures/users.csv'), 'utf8');

/** `examctl user sync --file -` with the users on stdin, run to its end (or its kill). */
function syncFromStdin(dir: string, env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [BIN, '--target', 'local', '--store', 'store', 'user', 'sync', '--file', '-'], {
    cwd: dir,
    env: { ...childEnv(dir), EXAMCTL_NOW: PINNED_NOW, ...env },
    input: USERS,
    encoding: 'utf8',
  });
}

describe.skipIf(process.platform === 'win32')('the private temp folder', () => {
  it('a run killed with SIGKILL leaves its stdin copy; the next run removes it, keeps a live run’s and another machine’s, and the folder is 0700', () =>
    withTempDir(async (dir) => {
      const temp = join(dir, '.local', 'state', 'examctl', 'tmp');
      const killed = syncFromStdin(dir, { EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:1:SIGKILL' });
      expect(killed.signal).toBe('SIGKILL');
      const left = readdirSync(temp);
      expect(left).toEqual([`${killed.pid}@${hostname()}@stdin-${left[0]!.slice(-6)}`]);
      expect(readFileSync(join(temp, left[0]!, 'stdin'), 'utf8')).toBe(USERS);
      expect(statSync(temp).mode & 0o777).toBe(0o700);
      // A live process's folder (this test's child, alive until the end): never removed.
      const live = spawn(process.execPath, ['-e', 'process.stdin.resume()'], { stdio: ['pipe', 'ignore', 'ignore'] });
      try {
        const kept = [`${live.pid}@${hostname()}@stdin-live00`, `${killed.pid}@another-machine@stdin-theirs`];
        for (const name of kept) {
          mkdirSync(join(temp, name));
          writeFileSync(join(temp, name, 'stdin'), 'in use');
        }
        const next = syncFromStdin(dir);
        expect(next.status, next.stderr).toBe(0);
        expect(readdirSync(temp).sort()).toEqual([...kept].sort());
      } finally {
        live.kill();
      }
    }));

  it('a file, FIFO or link at the private temp name (either place) is exit 2 naming it and what it is, nothing sent (issue 81)', () =>
    withTempDir(async (dir) => {
      const own = join(dir, '.local', 'state', 'examctl', 'tmp');
      mkdirSync(join(dir, 'tmp'));
      // The fallback in the temp dir (TMPDIR), used when the first place cannot be made (a file where its folder goes).
      const fallback = join(dir, 'tmp', `examctl-${process.getuid!()}`);
      const plants: [string, string, () => void][] = [
        [own, 'a FIFO', () => spawnSync('mkfifo', [own])],
        [own, 'a file', () => writeFileSync(own, 'another user’s')],
        [own, 'a symbolic link', () => symlinkSync(join(dir, 'elsewhere'), own)],
        [fallback, 'a FIFO', () => (writeFileSync(join(dir, '.local', 'state'), ''), spawnSync('mkfifo', [fallback]))],
      ];
      for (const [at, kind, plant] of plants) {
        spawnSync('rm', ['-rf', join(dir, '.local'), fallback, join(dir, 'store')]);
        mkdirSync(join(dir, '.local', 'state', 'examctl'), { recursive: true });
        if (at === fallback) spawnSync('rm', ['-rf', join(dir, '.local', 'state')]);
        plant();
        const run = syncFromStdin(dir, { TMPDIR: join(dir, 'tmp') });
        expect([run.status, run.stderr], kind).toEqual([2, expect.stringContaining(`${at}: the private temp folder`)]);
        expect(run.stderr).toContain(`(${kind}, owner: uid`);
        expect(run.stderr).not.toContain('internal error');
        expect(existsSync(join(dir, 'store'))).toBe(false);
      }
    }));
});
