import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/*
 * The one way examctl opens a file of its own state (run journals and locks, the store's
 * files, the config): only a regular file. A FIFO planted there would block the open (and a
 * read) with no writer, past Ctrl-C and SIGTERM; a device could be read for ever. So the open
 * never waits (O_NONBLOCK, which a regular file ignores), does not follow a symbolic link where
 * examctl creates the file itself (O_NOFOLLOW), and the opened file is checked with fstat
 * before a byte is read. Windows has neither flag and no FIFOs in the file system.
 */

const NONBLOCK = constants.O_NONBLOCK ?? 0;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

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

export interface RegularOpenOptions {
  /** Flags beside O_NONBLOCK/O_NOFOLLOW; default read-only. */
  flags?: number;
  /** Follow a symbolic link (a config file a user links from elsewhere); default false. */
  followLinks?: boolean;
  /** The mode of a file the flags create (O_CREAT); default 0o666 less the umask. */
  mode?: number;
}

/** Opens `path` as a regular file, or throws NotRegularFileError (or the open's own error: ENOENT, ELOOP for a link). */
export async function openRegularFile(path: string, options: RegularOpenOptions = {}): Promise<FileHandle> {
  const flags = (options.flags ?? constants.O_RDONLY) | NONBLOCK | (options.followLinks ? 0 : NOFOLLOW);
  let handle: FileHandle;
  try {
    handle = await open(path, flags, options.mode ?? 0o666);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP' && !options.followLinks) throw new NotRegularFileError(path, 'a symbolic link');
    throw error;
  }
  const stat = await handle.stat().catch(async (error: unknown) => {
    await handle.close().catch(() => undefined);
    throw error;
  });
  if (!stat.isFile()) {
    await handle.close().catch(() => undefined);
    throw new NotRegularFileError(path, kindOf(stat));
  }
  return handle;
}

/** The whole of a regular file as UTF-8 text (see openRegularFile). */
export async function readRegularFile(path: string, options: Omit<RegularOpenOptions, 'flags'> = {}): Promise<string> {
  return (await readRegularFileBytes(path, options)).toString('utf8');
}

/** The bytes of a regular file (see openRegularFile), for a caller that decodes them itself (a BOM). */
export async function readRegularFileBytes(path: string, options: Omit<RegularOpenOptions, 'flags'> = {}): Promise<Buffer> {
  const handle = await openRegularFile(path, options);
  try {
    return await handle.readFile();
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** What a file system entry that is not a regular file is, in words. */
export function kindOf(entry: { isFIFO(): boolean; isSymbolicLink(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean; isDirectory(): boolean }): string {
  if (entry.isFIFO()) return 'a FIFO';
  if (entry.isSymbolicLink()) return 'a symbolic link';
  if (entry.isCharacterDevice() || entry.isBlockDevice()) return 'a device';
  if (entry.isSocket()) return 'a socket';
  if (entry.isDirectory()) return 'a directory';
  return 'not a regular file';
}
