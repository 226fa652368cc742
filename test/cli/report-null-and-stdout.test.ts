import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, openSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { BIN, examctl } from '../support/cli.js';
import { testDeps, withTempDir } from './helpers.js';

/** --report to the null device, and never to standard output under --json (trial 5: f16). */
const USERS = 'ExternalId,FirstName,LastName,Role\nu-1,A,B,Candidate\n';

describe('--report on a device', () => {
  it('--report /dev/null is written (the null device takes any format)', () =>
    withTempDir(async (dir) => {
      writeFileSync(join(dir, 'users.csv'), USERS);
      const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
      expect(
        await runCli(
          ['--store', 'store', 'user', 'sync', '--file', 'users.csv', '--dry-run', '--report', '/dev/null'],
          io.deps,
        ),
        io.stderr.text,
      ).toBe(0);
      expect(io.stderr.text).toContain('report written to /dev/null');
    }));

  // Root may write in /dev: run as nobody, who may not, the null device is written all the same (a FIFO, a device: in place).
  it.skipIf(process.getuid?.() !== 0 || !existsSync('/usr/sbin/runuser'))(
    '--report /dev/null of a user who cannot write in /dev',
    () =>
      withTempDir(async (dir) => {
        chmodSync(dir, 0o755);
        writeFileSync(join(dir, 'users.csv'), USERS);
        const home = join(dir, 'h');
        const argv = [
          '-u',
          'nobody',
          '--',
          process.execPath,
          BIN,
          '--store',
          join(home, 's'),
          'user',
          'sync',
          '--file',
          'users.csv',
          '--dry-run',
          '--report',
          '/dev/null',
        ];
        const run = spawnSync('/usr/sbin/runuser', argv, {
          cwd: dir,
          env: { PATH: process.env.PATH ?? '', HOME: home, EXAMCTL_CONFIG_DIR: join(home, 'cfg') },
          encoding: 'utf8',
        });
        expect(run.status, run.stderr).toBe(0);
        expect(run.stderr).toContain('report written to /dev/null');
      }),
  );

  // Spawned: the process's own standard output (a pipe here) is the subject.
  it.skipIf(process.platform === 'win32')(
    '--json with a report that is standard output (a link to /dev/stdout): exit 2, one document on stdout',
    () =>
      withTempDir(async (dir) => {
        writeFileSync(join(dir, 'users.csv'), USERS);
        symlinkSync('/dev/stdout', join(dir, 'x.json'));
        const run = await examctl(
          ['--store', 'store', '--json', 'user', 'sync', '--file', 'users.csv', '--dry-run', '--report', 'x.json'],
          dir,
        );
        expect(run.code).toBe(2);
        expect(JSON.parse(run.stdout)).toMatchObject({
          error: {
            message: expect.stringContaining('--report x.json is stdout under --json: give the output another name'),
          },
        });
        const plain = await examctl(
          ['--store', 'store', 'user', 'sync', '--file', 'users.csv', '--dry-run', '--report', 'x.json'],
          dir,
        );
        expect(plain.code, plain.stderr).toBe(0);
        expect(JSON.parse(plain.stdout)).toMatchObject({ command: 'user sync' });
      }),
  );

  // trial6 10: stdout is the null device too, so no document is there for a report to join.
  it.skipIf(process.platform === 'win32')('--json --report /dev/null with stdout on /dev/null: written, exit 0', () =>
    withTempDir(async (dir) => {
      writeFileSync(join(dir, 'users.csv'), USERS);
      const argv = [
        BIN,
        '--store',
        'store',
        '--json',
        'user',
        'sync',
        '--file',
        'users.csv',
        '--dry-run',
        '--report',
        '/dev/null',
      ];
      const run = spawnSync(process.execPath, argv, {
        cwd: dir,
        env: { ...process.env, HOME: dir },
        stdio: ['ignore', openSync('/dev/null', 'w'), 'pipe'],
        encoding: 'utf8',
      });
      expect(run.status, run.stderr).toBe(0);
    }),
  );
});
