/**
 * The output gate (src/system/output-file.ts, docs/security.md, "Outputs"): a regular file is
 * replaced whole; a FIFO, a character device or a descriptor is written in place and stays what
 * it was; anything else is refused, exit 2, naming the path and what it is. Each case in a scratch
 * folder of its own; the devices are made with mknod, which only root may do.
 */
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, lstatSync, openSync, readSync } from 'node:fs';
import { copyFile, mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { runCli } from '../../src/cli/run-cli.js';
import { openOutputFile } from '../../src/system/output-file.js';
import { testDeps, withTempDir } from '../cli/helpers.js';

const ROOT = process.getuid?.() === 0;
const POSIX = process.platform !== 'win32';

/** Opens a FIFO's reading end without waiting for a writer, so a writer finds a reader there. */
function fifoReader(path: string): { drain(): string } {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  return {
    drain() {
      const buffer = Buffer.alloc(1 << 20);
      let length = 0;
      for (;;) {
        const read = readSync(fd, buffer, length, buffer.length - length, null);
        if (read === 0) break;
        length += read;
      }
      closeSync(fd);
      return buffer.subarray(0, length).toString('utf8');
    },
  };
}

async function cli(dir: string, argv: string[]) {
  const io = testDeps(dir);
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

async function templateText(dir: string): Promise<string> {
  const plain = await cli(dir, ['template', 'users']);
  expect(plain.code).toBe(0);
  return plain.stdout;
}

describe.skipIf(!POSIX)('the output gate: a FIFO is written in place', () => {
  it('template --out FIFO: the reader gets the text, the FIFO stays a FIFO, no temp file beside it', () =>
    withTempDir(async (dir) => {
      const fifo = join(dir, 'out.fifo');
      execFileSync('mkfifo', [fifo]);
      const reader = fifoReader(fifo);
      const written = await cli(dir, ['template', 'users', '--out', fifo]);
      expect(written.code, written.stderr).toBe(0);
      expect(reader.drain()).toBe(await templateText(dir));
      expect(lstatSync(fifo).isFIFO()).toBe(true);
      expect((await readdir(dir)).sort()).toEqual(['.config', 'out.fifo']);
    }));

  it('review-session show --out FIFO: the session document reaches the reader', () =>
    withTempDir(async (dir) => {
      expect((await cli(dir, ['--store', 'store', 'local', 'init'])).code).toBe(0);
      const world = JSON.parse(await readFile(join(__dirname, '../../fixtures/world.json'), 'utf8')) as {
        ReviewSessions: Array<{ ExternalId: string }>;
      };
      const session = world.ReviewSessions[0]!.ExternalId;
      const fifo = join(dir, 'session.fifo');
      execFileSync('mkfifo', [fifo]);
      const reader = fifoReader(fifo);
      const shown = await cli(dir, [
        '--store',
        'store',
        'review-session',
        'show',
        session,
        '-o',
        'json',
        '--out',
        fifo,
      ]);
      expect(shown.code, shown.stderr).toBe(0);
      expect(JSON.parse(reader.drain())).toEqual(expect.any(Object));
      expect(lstatSync(fifo).isFIFO()).toBe(true);
    }));

  it('synced export --out FIFO and --report FIFO write into it', () =>
    withTempDir(async (dir) => {
      await copyFile(join(__dirname, '../../fixtures/users.csv'), join(dir, 'users.csv'));
      const local = ['--target', 'local', '--store', 'store'];
      // A FIFO named like a report: the report's format is its extension.
      const report = join(dir, 'report.json');
      execFileSync('mkfifo', [report]);
      const reportReader = fifoReader(report);
      const synced = await cli(dir, ['user', 'sync', '--file', 'users.csv', ...local, '--report', 'report.json']);
      expect(synced.code, synced.stderr).toBe(0);
      expect(JSON.parse(reportReader.drain())).toMatchObject({ summary: expect.any(Object) });
      expect(lstatSync(report).isFIFO()).toBe(true);
      const fifo = join(dir, 'memory.fifo');
      execFileSync('mkfifo', [fifo]);
      const reader = fifoReader(fifo);
      const exported = await cli(dir, ['synced', 'export', ...local, '--out', fifo]);
      expect(exported.code, exported.stderr).toBe(0);
      expect(JSON.parse(reader.drain())).toMatchObject({ format: 'examctl-sync-memory' });
      expect(lstatSync(fifo).isFIFO()).toBe(true);
    }));

  it('a FIFO no process reads is refused at once, exit 2, naming it; nothing waits', () =>
    withTempDir(async (dir) => {
      const fifo = join(dir, 'out.fifo');
      execFileSync('mkfifo', [fifo]);
      const refused = await cli(dir, ['template', 'users', '--out', 'out.fifo']);
      expect(refused.code).toBe(2);
      expectCoded(refused.stderr, 'E2000', 'out.fifo', 'FIFO');
      expect(lstatSync(fifo).isFIFO()).toBe(true);
    }));
});

describe.skipIf(!POSIX)('the output gate: a regular file is replaced whole, through a link the user made', () => {
  it('--out a link to a file: the file gets the text, the link stays a link', () =>
    withTempDir(async (dir) => {
      await mkdir(join(dir, 'real'));
      await writeFile(join(dir, 'real', 'users.csv'), 'old');
      await symlink(join('real', 'users.csv'), join(dir, 'latest.csv'));
      expect((await cli(dir, ['template', 'users', '--out', 'latest.csv'])).code).toBe(0);
      expect(lstatSync(join(dir, 'latest.csv')).isSymbolicLink()).toBe(true);
      expect(await readFile(join(dir, 'real', 'users.csv'), 'utf8')).toBe(await templateText(dir));
      expect(await readdir(join(dir, 'real'))).toEqual(['users.csv']);
    }));
});

describe.skipIf(!POSIX)('the output gate refuses what it can neither replace nor write into, exit 2', () => {
  it('a socket and a directory: named, with what each is', () =>
    withTempDir(async (dir) => {
      // Named like a report: a report's format is its extension.
      const socket = join(dir, 'out.csv');
      await copyFile(join(__dirname, '../../fixtures/users.csv'), join(dir, 'users.csv'));
      const server = createServer();
      await new Promise<void>((listening) => server.listen(socket, listening));
      try {
        const refused = await cli(dir, ['template', 'users', '--out', 'out.csv']);
        expect(refused.code).toBe(2);
        expectCoded(refused.stderr, 'E2000', 'out.csv', 'socket', 'regular file');
        expect(lstatSync(socket).isSocket()).toBe(true);
        const report = await cli(dir, [
          'user',
          'sync',
          '--file',
          'users.csv',
          '--target',
          'local',
          '--store',
          'store',
          '--report',
          'out.csv',
        ]);
        expect(report.code).toBe(2);
        expectCoded(report.stderr, 'E2000', `report ${socket}`, 'socket');
      } finally {
        server.close();
      }
      await mkdir(join(dir, 'out.json'));
      const directory = await cli(dir, ['schema', 'users', '--out', 'out.json']);
      expect(directory.code).toBe(2);
      expectCoded(directory.stderr, 'E2000', 'out.json', 'EISDIR');
    }));

  it.skipIf(!ROOT)(
    'a block device (made with mknod: needs root, skipped otherwise): refused, still a block device',
    () =>
      withTempDir(async (dir) => {
        const block = join(dir, 'loop');
        execFileSync('mknod', [block, 'b', '7', '200']);
        const refusedOut = await cli(dir, ['template', 'users', '--out', 'loop']);
        expect(refusedOut.code).toBe(2);
        expectCoded(refusedOut.stderr, 'E2000', 'loop', 'device');
        expect(lstatSync(block).isBlockDevice()).toBe(true);
      }),
  );
});

describe.skipIf(!POSIX || !ROOT)(
  'the output gate: a character device is written in place (made with mknod: needs root, skipped otherwise)',
  () => {
    it('/dev/null made here: written, exit 0, still a character device', () =>
      withTempDir(async (dir) => {
        const device = join(dir, 'null');
        execFileSync('mknod', [device, 'c', '1', '3']);
        const written = await cli(dir, ['template', 'users', '--out', 'null']);
        expect(written.code, written.stderr).toBe(0);
        expect(lstatSync(device).isCharacterDevice()).toBe(true);
        expect((await readdir(dir)).sort()).toEqual(['.config', 'null']);
      }));

    it('/dev/full made here: every writer fails loudly (exit 3 for --out, the report refused), the device stays', () =>
      withTempDir(async (dir) => {
        const device = join(dir, 'full.csv');
        execFileSync('mknod', [device, 'c', '1', '7']);
        const template = await cli(dir, ['template', 'users', '--out', 'full.csv']);
        expect(template.code).toBe(3);
        expectCoded(template.stderr, 'E3000', 'full.csv', 'ENOSPC');
        const store = await cli(dir, ['--store', 'store', 'local', 'init']);
        expect(store.code, store.stderr).toBe(0);
        const exported = await cli(dir, ['--store', 'store', 'local', 'export', '--out', 'full.csv']);
        expect(exported.code).toBe(3);
        await copyFile(join(__dirname, '../../fixtures/users.csv'), join(dir, 'users.csv'));
        const report = await cli(dir, [
          'user',
          'sync',
          '--file',
          'users.csv',
          '--target',
          'local',
          '--store',
          'store',
          '--report',
          'full.csv',
        ]);
        expect(report.code, report.stderr).toBe(3);
        expectCoded(report.stderr, 'E3040', 'report full.csv', 'ENOSPC', 'every record was processed');
        expect(lstatSync(device).isCharacterDevice()).toBe(true);
        const file = await openOutputFile(device);
        await expect(file.writer.write('x')).rejects.toMatchObject({ code: 'ENOSPC' });
        await expect(file.commit()).rejects.toMatchObject({ code: 'ENOSPC' });
        expect(lstatSync(device).isCharacterDevice()).toBe(true);
      }));
  },
);
