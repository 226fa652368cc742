/**
 * `--file -`: the input comes on stdin. A run reads its input more than once (the structure
 * pass, then the send; schedule push also looks ahead for its warnings), and stdin can be read
 * only once, so it is copied to a private temporary file first and read from there like any
 * file, under the name `stdin` in messages and reports. The copy is removed when the command ends.
 */
import { close, constants, createWriteStream, open } from 'node:fs';
import { mkdtemp, open as openFile, rm, stat } from 'node:fs/promises';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { InterruptedError, UsageError } from './errors.js';
import { kindOf } from './regular-file.js';

export const STDIN_NAME = 'stdin';

export interface StdinFile {
  path: string;
  remove(): Promise<void>;
}

export async function spoolStdin(stdin: NodeJS.ReadableStream, isTTY: boolean, signal?: AbortSignal): Promise<StdinFile> {
  if (isTTY) throw new UsageError('--file -: stdin is a terminal; pipe the file in (examctl ... --file - < users.csv)');
  const dir = await mkdtemp(join(tmpdir(), 'examctl-stdin-'));
  const path = join(dir, STDIN_NAME);
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    await pipeline(stdin, createWriteStream(path, { mode: 0o600 }), ...(signal === undefined ? [] : [{ signal }]));
  } catch (error) {
    await remove();
    if (signal?.aborted) throw new InterruptedError('interrupted while reading the input: nothing was sent');
    throw error;
  }
  return { path, remove };
}

/**
 * What `--file` names, judged once before the command runs (before anything is read or a store
 * opened). A pipe (a FIFO, or a process substitution's `/dev/fd/N`) can be read only once, so
 * its path is returned to be read like `--file -`. A device (`/dev/tty`, `/dev/zero`,
 * `/dev/urandom`) or a socket that cannot be opened is refused (exit 2): a terminal would wait
 * for typing that the structure pass and the send pass each need whole, the others never end.
 * Anything else (a regular file, a missing one) is left to the reader: undefined.
 *
 * `stat`, not `lstat`: `/dev/stdin` and `/dev/fd/N` resolve to the descriptor's own file (what
 * fstat of it says: a file or pipe redirected to stdin keeps working), a link the user made to
 * its target. The path is not opened to fstat it: opening a FIFO would hand a writer waiting in
 * its own open a reader that then leaves, and its first write would die of SIGPIPE.
 */
export async function pipePath(file: string, cwd: string): Promise<string | undefined> {
  const path = resolve(cwd, file);
  const entry = await stat(path).catch(() => undefined);
  if (entry === undefined) return undefined;
  if (entry.isFIFO() || (entry.isSocket() && (await opensForReading(path)))) return path;
  if (entry.isCharacterDevice() || entry.isBlockDevice() || entry.isSocket()) {
    throw new UsageError(`--file: ${file} is ${kindOf(entry)}, not a file; to type or paste records use --file -`);
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
 * Copies a named pipe like stdin. Opening a FIFO waits for its writer inside libuv's thread pool,
 * where no signal reaches it: Ctrl-C or SIGTERM (`signal`) ends the wait by opening the FIFO for
 * writing ourselves, which completes the pending open, and the copy stops as interrupted. The
 * read goes through a socket on the pipe (epoll, not a blocked thread), so a writer that never
 * writes is left at once too. `onWait` is called when the writer is not there at once.
 */
export async function spoolPipe(file: string, signal: AbortSignal | undefined, onWait: () => void): Promise<StdinFile> {
  const interrupted = (): InterruptedError => new InterruptedError(`interrupted while waiting for ${file}: nothing was sent`);
  if (signal?.aborted) throw interrupted();
  const fd = await new Promise<number>((resolve, reject) => {
    let opened = false;
    const release = (): void => {
      if (opened) return;
      open(file, constants.O_WRONLY | constants.O_NONBLOCK, (error, writer) => {
        if (error === null) close(writer, () => undefined);
        // ENXIO: our open is not waiting in the kernel yet; try again until it is (or it completed).
        else if (!opened) setTimeout(release, 10);
      });
    };
    signal?.addEventListener('abort', release, { once: true });
    open(file, constants.O_RDONLY, (error, reader) => {
      opened = true;
      signal?.removeEventListener('abort', release);
      if (error !== null) return reject(error);
      if (signal?.aborted) {
        close(reader, () => undefined);
        return reject(interrupted());
      }
      resolve(reader);
    });
    setImmediate(() => {
      if (!opened) onWait();
    });
  });
  const socket = new Socket({ fd, readable: true, writable: false });
  try {
    return await spoolStdin(socket, false, signal);
  } finally {
    socket.destroy();
  }
}
