/**
 * `--file -` and a named pipe, copied to a private temporary file (private-temp.ts) because a run
 * reads its input more than once (docs/cli.md, "The local store" says the rest).
 */
import { closeSync, constants, createWriteStream, open, openSync, readSync } from 'node:fs';
import { open as openFile, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { InterruptedError, UsageError } from './errors.js';
import { kindOf } from './regular-file.js';
import { makePrivateTempDir } from './private-temp.js';

export const STDIN_NAME = 'stdin';

interface StdinFile {
  path: string;
  remove(): Promise<void>;
}

export async function spoolStdin(
  stdin: NodeJS.ReadableStream,
  signal?: AbortSignal,
  pipe?: string,
): Promise<StdinFile> {
  const dir = await makePrivateTempDir('stdin');
  const path = join(dir, STDIN_NAME);
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    await pipeline(stdin, createWriteStream(path, { mode: 0o600 }), ...(signal === undefined ? [] : [{ signal }]));
  } catch (error) {
    await remove();
    if (signal?.aborted)
      throw new InterruptedError(
        pipe === undefined
          ? 'interrupted while reading the input: nothing was sent'
          : `interrupted while waiting for ${pipe}: nothing was sent`,
      );
    throw error;
  }
  return { path, remove };
}

/**
 * What `--file` names, judged by `stat`, never opened (docs/security.md, "A hostile file"): a pipe's path
 * (copied like `--file -`), a device refused, else undefined.
 */
export async function pipePath(file: string, cwd: string): Promise<string | undefined> {
  const path = resolve(cwd, file);
  const entry = await stat(path).catch(() => undefined);
  if (entry === undefined) return undefined;
  if (entry.isFIFO() || (entry.isSocket() && (await opensForReading(path)))) return path;
  if (entry.isCharacterDevice() || entry.isBlockDevice() || entry.isSocket()) {
    throw new UsageError(`--file: ${file} is ${kindOf(entry)}, not a file; to type or paste records use --file -`, {
      code: 'E2102',
    });
  }
  return undefined;
}

/**
 * A socket as stdin (`/dev/fd/0` where the system lets it be opened again, as a dup) is read
 * like a pipe; a socket file, or Linux's /proc link to one, cannot be opened (ENXIO) and never
 * waits. No O_NONBLOCK: on a dup it would switch the shared descriptor of stdin.
 */
async function opensForReading(path: string): Promise<boolean> {
  const handle = await openFile(path, 'r').catch(() => undefined);
  await handle?.close();
  return handle !== undefined;
}

/**
 * Copies a named pipe like stdin (docs/security.md, "A hostile file": refused or waited for with no
 * writer). Opened with O_NONBLOCK (a socket as stdin as it is, see opensForReading) and read
 * through a socket on it, so `signal` ends a wait at once; `canWait` false refuses a pipe with no
 * writer, else `onWait` is called (writerOpened: where a FIFO without one reads as ended at once).
 */
export async function spoolPipe(
  file: string,
  named: string,
  signal: AbortSignal | undefined,
  wait: { canWait: boolean; onWait: () => void },
): Promise<StdinFile> {
  const fifo = (await stat(file)).isFIFO();
  const fd = await promisify(open)(file, constants.O_RDONLY | (fifo ? constants.O_NONBLOCK : 0));
  const first = Buffer.alloc(1);
  let read: number | undefined;
  try {
    read = fifo ? readSync(fd, first) : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
  }
  if (read === 0) closeSync(fd);
  if (read === 0 && !wait.canWait) {
    throw new UsageError(
      `--file: ${named} is a named pipe (FIFO) with no writer, and nobody can start one here (no terminal, --no-input or CI=true): start its writer first, or give a regular file`,
      { code: 'E2102' },
    );
  }
  if (read === 0) wait.onWait();
  // Linux reports no end on a FIFO opened O_NONBLOCK while no writer held it until a writer has
  // come: bytes a departed writer left (another reader kept them) would never end. A writer of
  // our own, opened and closed at once, counts as one seen.
  if (read === 1) closeSync(openSync(file, constants.O_WRONLY | constants.O_NONBLOCK));
  // node:net on use: only a FIFO or socket is read through it, and a start should not load it.
  const { Socket } = await import('node:net');
  const socket = new Socket({
    fd: read === 0 ? await writerOpened(file, signal) : fd,
    readable: true,
    writable: false,
  });
  const bytes =
    read === 1
      ? Readable.from(
          (async function* () {
            yield first;
            yield* socket;
          })(),
        )
      : socket;
  return spoolStdin(bytes, signal, file).finally(() => socket.destroy());
}

/**
 * Opens a FIFO for reading once its writer comes: the open waits in libuv's thread pool, where no
 * signal reaches it, so Ctrl-C or SIGTERM (`signal`) ends the wait by opening the FIFO for writing
 * ourselves, which completes the pending open, and the copy stops as interrupted.
 */
function writerOpened(file: string, signal: AbortSignal | undefined): Promise<number> {
  const interrupted = (): InterruptedError =>
    new InterruptedError(`interrupted while waiting for ${file}: nothing was sent`);
  if (signal?.aborted) return Promise.reject(interrupted());
  return new Promise<number>((resolveOpen, reject) => {
    let opened = false;
    const release = (): void => {
      if (opened) return;
      open(file, constants.O_WRONLY | constants.O_NONBLOCK, (error, writer) => {
        if (error === null) closeSync(writer);
        // ENXIO: our open is not waiting in the kernel yet; try again until it is (or it completed).
        else if (!opened) setTimeout(release, 10);
      });
    };
    signal?.addEventListener('abort', release, { once: true });
    open(file, constants.O_RDONLY, (error, reader) => {
      opened = true;
      signal?.removeEventListener('abort', release);
      if (error !== null) return reject(error);
      if (!signal?.aborted) return resolveOpen(reader);
      closeSync(reader);
      reject(interrupted());
    });
  });
}
