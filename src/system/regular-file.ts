import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/*
 * The one way examctl opens a file of its own state: only a regular file (docs/security.md, "Only
 * regular files are opened"); O_NOFOLLOW where examctl creates the file itself. Windows has
 * neither flag and no FIFOs in the file system.
 */

export const NONBLOCK = constants.O_NONBLOCK ?? 0;
export const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** A path that is there but is not a regular file: refused, naming what it is. */
export class NotRegularFileError extends Error {
  readonly code = 'ENOTREG';
  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(`${path} is ${kind}, not a regular file: refused`);
  }
}

/** The most a settings file read whole may hold (config, map file): a 700 MB file is refused unread. */
export const SETTINGS_FILE_MAX_BYTES = 4 * 1024 * 1024;

/** A regular file longer than its reader allows (a token file of megabytes): refused, not read. */
export class FileTooLargeError extends Error {
  readonly code = 'EFBIG';
  constructor(
    readonly path: string,
    readonly maxBytes: number,
  ) {
    super(`${path} is larger than ${maxBytes} bytes: refused, not read`);
  }
}

export interface RegularOpenOptions {
  /** Flags beside O_NONBLOCK/O_NOFOLLOW; default read-only. */
  flags?: number;
  /** Follow a symbolic link (a config file a user links from elsewhere); default false. */
  followLinks?: boolean;
  /** Judges the opened handle before a byte is read (trusted-place.ts); throwing closes it. */
  check?: (handle: FileHandle, stat: Stats) => Promise<void>;
}

/** Opens `path` as a regular file, or throws NotRegularFileError (or the open's own: ENOENT, ELOOP). */
export async function openRegularFile(path: string, options: RegularOpenOptions = {}): Promise<FileHandle> {
  return (await openChecked(path, options)).handle;
}

async function openChecked(path: string, options: RegularOpenOptions): Promise<{ handle: FileHandle; stat: Stats }> {
  const flags = (options.flags ?? constants.O_RDONLY) | NONBLOCK | (options.followLinks ? 0 : NOFOLLOW);
  const handle = await open(path, flags).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ELOOP' && !options.followLinks) throw new NotRegularFileError(path, 'a symbolic link');
    throw error;
  });
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new NotRegularFileError(path, kindOf(stat));
    await options.check?.(handle, stat);
    return { handle, stat };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

/** The whole of a regular file as UTF-8 text (see openRegularFile). */
export async function readRegularFile(path: string): Promise<string> {
  return (await readRegularFileWithStat(path)).bytes.toString('utf8');
}

/**
 * The bytes of a regular file, read on the event loop, links not followed: for a small file read before
 * every batch while the disk is fast (a store's CURRENT, docs/store.md), where a thread-pool round trip
 * per step would cost more than the read.
 */
export function readRegularFileSync(path: string): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NONBLOCK | NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new NotRegularFileError(path, 'a symbolic link');
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new NotRegularFileError(path, kindOf(stat));
    // The size fstat gave, in one read where it fits: readFileSync's options and its second read
    // to find the end cost every batch (CURRENT is replaced by a rename, never grown in place).
    const bytes = Buffer.allocUnsafe(stat.size);
    let read = 0;
    while (read < bytes.length) {
      const got = readSync(fd, bytes, read, bytes.length - read, read);
      if (got === 0) break;
      read += got;
    }
    return read === bytes.length ? bytes : bytes.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

export interface RegularReadOptions extends Omit<RegularOpenOptions, 'flags'> {
  /** Refuse (FileTooLargeError) rather than read a file longer than this. */
  maxBytes?: number;
  /** Given the SHA-256 of the bytes read (a run journal records it). */
  same?: { sha256?: string };
}

/**
 * The bytes of a regular file and the fstat of the very handle they were read from: a caller
 * that judges the file (its mode) judges what it read, not a path another user could have
 * swapped between a stat and a read.
 */
export async function readRegularFileWithStat(
  path: string,
  options: RegularReadOptions = {},
): Promise<{ bytes: Buffer; stat: Stats }> {
  const { maxBytes, same, ...open } = options;
  const { handle, stat } = await openChecked(path, open);
  const read = (bytes: Buffer) => {
    if (same) same.sha256 = createHash('sha256').update(bytes).digest('hex');
    return { bytes, stat };
  };
  try {
    if (maxBytes === undefined) return read(await handle.readFile());
    if (stat.size > maxBytes) throw new FileTooLargeError(path, maxBytes);
    // What fstat said; a file grown since gets more, up to one byte past the limit.
    let buffer = Buffer.allocUnsafe(stat.size + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) buffer = Buffer.concat([buffer], Math.min(2 * length, maxBytes + 1));
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > maxBytes) throw new FileTooLargeError(path, maxBytes);
    }
    return read(buffer.subarray(0, length));
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** What a file system entry that is not a regular file is, in words. */
export function kindOf(
  entry: Pick<Stats, 'isFIFO' | 'isSymbolicLink' | 'isCharacterDevice' | 'isBlockDevice' | 'isSocket' | 'isDirectory'>,
): string {
  if (entry.isFIFO()) return 'a FIFO';
  if (entry.isSymbolicLink()) return 'a symbolic link';
  if (entry.isCharacterDevice() || entry.isBlockDevice()) return 'a device';
  if (entry.isSocket()) return 'a socket';
  if (entry.isDirectory()) return 'a directory';
  return 'not a regular file';
}
