/**
 * `--out` naming a descriptor of the process itself (`/dev/stdout`, `/dev/fd/N`, a link to
 * `/proc/self/fd/1`) is written through that descriptor, never replaced by a regular file
 * (docs/security.md, "Outputs"). The process's own descriptors are the subject: spawned.
 */
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, lstatSync, openSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { BIN, PINNED_NOW, examctl } from '../support/cli.js';
import { childEnv } from '../support/child-env.js';
import { withTempDir } from '../support/temp-dir.js';

/** Runs examctl with `stdio` as given; resolves with its exit code and whatever its pipes carried. */
function run(
  args: string[],
  cwd: string,
  stdio: Array<'pipe' | 'ignore' | number>,
): Promise<{ code: number | null; pipes: string[] }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { ...childEnv(cwd), EXAMCTL_NOW: PINNED_NOW },
    stdio,
  });
  const pipes = stdio.map(() => '');
  child.stdio.forEach((stream, index) =>
    (stream as Readable | null)?.setEncoding('utf8').on('data', (chunk: string) => (pipes[index] += chunk)),
  );
  return new Promise((resolveRun) => child.on('close', (code) => resolveRun({ code, pipes })));
}

describe.skipIf(process.platform !== 'linux')('--out naming a descriptor of examctl itself', () => {
  it('/dev/stdout and a link to /proc/self/fd/1: the text arrives on stdout, the links stay links', () =>
    withTempDir(async (dir) => {
      const plain = await examctl(['template', 'users'], dir);
      expect(plain.code).toBe(0);
      const devStdout = await examctl(['template', 'users', '--out', '/dev/stdout'], dir);
      expect(devStdout.code, devStdout.stderr).toBe(0);
      expect(devStdout.stdout).toBe(plain.stdout);
      expect(lstatSync('/dev/stdout').isSymbolicLink()).toBe(true);
      await symlink('/proc/self/fd/1', join(dir, 'out.csv'));
      const linked = await examctl(['template', 'users', '--out', 'out.csv'], dir);
      expect(linked.code, linked.stderr).toBe(0);
      expect(linked.stdout).toBe(plain.stdout);
      expect(readlinkSync(join(dir, 'out.csv'))).toBe('/proc/self/fd/1');
    }));

  it('stdout redirected to a file: the same file is written (no rename: same inode), and --out /dev/fd/3 (a descriptor the caller gave)', () =>
    withTempDir(async (dir) => {
      const plain = await examctl(['template', 'users'], dir);
      const target = join(dir, 'redirected.csv');
      const fd = openSync(target, 'w');
      const { ino } = statSync(target);
      try {
        const redirected = await run(['template', 'users', '--out', '/dev/stdout'], dir, ['ignore', fd, 'pipe']);
        expect(redirected.code, redirected.pipes[2]).toBe(0);
      } finally {
        closeSync(fd);
      }
      expect(readFileSync(target, 'utf8')).toBe(plain.stdout);
      expect(statSync(target).ino).toBe(ino);
      const third = await run(['schema', 'users', '--out', '/dev/fd/3'], dir, ['ignore', 'pipe', 'pipe', 'pipe']);
      expect(third.code, third.pipes[2]).toBe(0);
      expect(JSON.parse(third.pipes[3]!)).toEqual(expect.any(Object));
      expect(third.pipes[1]).toBe('');
    }));

  it.skipIf(spawnSync('script', ['--version']).status !== 0)(
    'a terminal (/dev/tty under util-linux script): written, exit 0',
    () =>
      withTempDir(async (dir) => {
        const command = `"${process.execPath}" "${BIN}" template users --out /dev/tty; echo "exit $?"`;
        const shown = spawnSync('script', ['-qec', command, '/dev/null'], {
          cwd: dir,
          env: { ...childEnv(dir), EXAMCTL_NOW: PINNED_NOW },
          encoding: 'utf8',
        });
        expect(shown.stdout).toMatch(/ExternalId,[^]*exit 0/);
      }),
  );

  it("another process's descriptor is refused, exit 2, naming what it is", () =>
    withTempDir(async (dir) => {
      const refused = await examctl(['template', 'users', '--out', `/proc/${process.pid}/fd/1`], dir);
      expect(refused.code).toBe(2);
      expectCoded(refused.stderr, 'E2000', `/proc/${process.pid}/fd/1`, 'another process');
    }));
});
