/**
 * The one gate for every file examctl writes under a name the user gave: what is at the name
 * decides how it is written (docs/security.md, "Outputs").
 */
import { closeSync, constants, createWriteStream, fstatSync, open as openFd, type Stats } from 'node:fs';
import { lstat, open, readlink, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { promisify } from 'node:util';
import { ReplacementFile, removeStaleTemps, type AtomicFileOptions } from './atomic-file.js';
import { isBusyError } from './busy-retry.js';
import { kindOf } from './regular-file.js';

/** What a command writes its output through, whichever way the gate chose. */
export interface OutputFile {
  readonly writer: { write(chunk: string | Buffer): Promise<void> };
  /** Replaced: renames the finished file into place. In place: the last bytes reach the reader. */
  commit(): Promise<void>;
  /** Replaced: the old file stays. In place: what was written is there; nothing more is. */
  discard(): Promise<void>;
}

/** A name the gate neither replaces nor writes into, said as what is there (no code: callers quote the words). */
function refused(kind: string): Error {
  return new Error(
    `it is ${kind}; examctl writes a regular file (replaced whole), a FIFO, a character device or a descriptor such as /dev/stdout (written in place)`,
  );
}

interface OutputFileOptions extends AtomicFileOptions {
  platform?: NodeJS.Platform;
  /** Opens an existing file for writing and closes it again (Windows' busy check; tests inject a failing one). */
  probe?: (path: string) => Promise<void>;
}

/** `/proc/<pid>/fd`, `/proc/<pid>/task/<tid>/fd` (realpath resolves `self`) or `/dev/fd`. */
const DESCRIPTOR_DIR = /^(?:\/proc\/(\d+)(?:\/task\/\d+)?|\/dev)\/fd$/;

type Destination =
  | { kind: 'replace'; path: string }
  | { kind: 'in-place'; path: string }
  | { kind: 'descriptor'; fd: number; entry: Stats };

/**
 * Where `path` leads, its links followed one by one: a link into a descriptor directory names a
 * descriptor (realpath would pass through it to the file the descriptor is open on, and a
 * rename there would leave the descriptor's reader with nothing).
 */
async function destinationOf(path: string): Promise<Destination> {
  let current = path;
  for (let hop = 0; hop < 40; hop++) {
    const dir = await realpath(dirname(current)).catch(() => dirname(current));
    current = join(dir, basename(current));
    const descriptor = DESCRIPTOR_DIR.exec(dir);
    const entry = await (descriptor === null ? lstat : stat)(current).catch(() => undefined);
    if (descriptor !== null) {
      const fd = Number(basename(current));
      if (entry === undefined || !Number.isInteger(fd))
        throw Object.assign(new Error(`${current}: no such descriptor`), { code: 'EBADF' });
      if (descriptor[1] !== undefined && Number(descriptor[1]) !== process.pid)
        throw refused("another process's descriptor");
      return { kind: 'descriptor', fd, entry };
    }
    if (entry === undefined || entry.isFile()) return { kind: 'replace', path: current };
    if (entry.isFIFO() || entry.isCharacterDevice()) return { kind: 'in-place', path: current };
    if (!entry.isSymbolicLink()) throw unwritable(path, entry);
    current = resolve(dir, await readlink(current));
  }
  throw Object.assign(new Error(`${path}: too many symbolic links`), { code: 'ELOOP' });
}

function unwritable(path: string, entry: Stats): Error {
  // A directory keeps the system's own words (EISDIR), as every other place that meets one says it.
  if (entry.isDirectory()) return Object.assign(new Error(`${path} is a directory`), { code: 'EISDIR' });
  return refused(kindOf(entry));
}

/** Another user's entry at an output's name or on its way (trusted-place.ts, plantedEntryProblem): not written. */
export class PlantedEntryError extends Error {}

/** Opens the output at `path` (absolute) at once, so an unwritable name fails before any work. */
export async function openOutputFile(path: string, options: OutputFileOptions = {}): Promise<OutputFile> {
  const planted = await (await import('./trusted-place.js')).plantedEntryProblem(path);
  if (planted !== undefined) throw new PlantedEntryError(planted);
  const destination =
    (options.platform ?? process.platform) === 'win32' ? { kind: 'replace' as const, path } : await destinationOf(path);
  if (destination.kind === 'descriptor') return descriptorOutput(path, destination.fd, destination.entry);
  if (destination.kind === 'in-place') return streamOutput(await openInPlace(path, destination.path));
  await checkReplaceable(destination.path, options);
  // A run killed while writing here left its temp file: the next write to the name cleans up.
  await removeStaleTemps(destination.path);
  return ReplacementFile.open(destination.path, options);
}

/**
 * A FIFO or character device, opened without waiting (O_NONBLOCK: a FIFO no one reads fails at
 * once instead of blocking for ever) and judged on the handle, so an entry swapped meanwhile is
 * judged as what was opened.
 */
async function openInPlace(named: string, path: string): Promise<Writable> {
  const openNow = promisify(openFd);
  let fd = await openNow(path, constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOCTTY).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENXIO') throw refused('a FIFO no process reads; start its reader first');
      throw error;
    },
  );
  const entry = fstatSync(fd);
  // A pipe through the event loop: a full pipe waits for its reader.
  if (entry.isFIFO()) {
    // node:net on use, not at every start.
    const { Socket } = await import('node:net');
    return new Socket({ fd, readable: false, writable: true });
  }
  closeSync(fd);
  if (!entry.isCharacterDevice()) throw unwritable(named, entry);
  // A device through the thread pool, opened again without O_NONBLOCK (a slow terminal would
  // refuse a write, not wait); the same device, or refused.
  fd = await openNow(path, constants.O_WRONLY | constants.O_NOCTTY);
  const again = fstatSync(fd);
  if (again.rdev !== entry.rdev || !again.isCharacterDevice()) {
    closeSync(fd);
    throw unwritable(named, again);
  }
  return createWriteStream('', { fd });
}

/**
 * A descriptor of this process: written through that descriptor, at its own position (a file
 * the shell opened with `>>` is appended to). Standard output and error through the process's
 * own streams, which already hold them (a pipe there is non-blocking).
 */
function descriptorOutput(path: string, fd: number, entry: Stats): OutputFile {
  if (entry.isDirectory()) throw unwritable(path, entry);
  if (fd === 1 || fd === 2) return streamOutput(fd === 1 ? process.stdout : process.stderr, false);
  return streamOutput(createWriteStream('', { fd, autoClose: false }));
}

/** An in-place output over a stream; `owned`: the stream is ended at commit, else only drained. */
function streamOutput(stream: Writable, owned = true): OutputFile {
  let failure: Error | undefined;
  // Kept for the stream's life: a failed write is also emitted as an error after its callback.
  stream.on('error', (error) => (failure ??= error));
  const write = (chunk: string | Buffer) =>
    new Promise<void>((resolveWrite, reject) => {
      if (failure !== undefined) return reject(failure);
      stream.write(chunk, (error) => (error == null ? resolveWrite() : reject(error)));
    });
  const commit = async () => {
    if (owned) await finished(stream.end());
    if (failure !== undefined) throw failure;
  };
  return { writer: { write }, commit, discard: async () => void (owned && stream.destroy()) };
}

/**
 * Refuses, before anything is sent, a file Windows could not replace once every record went, held
 * open (Excel) or read-only (docs/windows.md, "Excel and held files"); POSIX replaces either.
 */
export async function checkReplaceable(
  path: string,
  check: Pick<OutputFileOptions, 'platform' | 'probe'> = {},
): Promise<void> {
  if ((check.platform ?? process.platform) !== 'win32') return;
  const info = await stat(path).catch(() => undefined);
  if (info === undefined) return;
  if (info.isDirectory()) throw unwritable(path, info);
  try {
    await (check.probe ?? (async (file) => (await open(file, 'r+')).close()))(path);
  } catch (error) {
    if (!isBusyError(error)) return;
    const code = (error as NodeJS.ErrnoException).code;
    // No cause: callers that put a system error into words follow causes to a code (EBUSY), which would drop the hint.
    throw new Error(
      `the existing file cannot be replaced (${code}): another program holds it open (close it in Excel) or it is read-only`,
    );
  }
}
