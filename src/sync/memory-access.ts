import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { link, mkdir, open, readdir, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fsyncDirectory } from '../system/atomic-file.js';
import { DSYNC_FLAG } from '../system/durable-write.js';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreLockedError, UsageError } from '../system/errors.js';
import { kindOf, NOFOLLOW, NONBLOCK, NotRegularFileError } from '../system/regular-file.js';
import {
  assertDirectoryTrusted,
  currentTrustContext,
  entryProblem,
  UntrustedPlaceError,
} from '../system/trusted-place.js';
import { RunJournalWriteError } from '../runs/run-errors.js';
import { LOCK_FILE, StoreLock, describeHolder, lockHolder, ownLockInfo, type LockInfo } from '../system/lock.js';
import { describeSystemError } from '../system/system-error-words.js';

/**
 * Who may use a target's sync memory at once: feeders' markers and a decider's LOCK, each side
 * claiming FIRST and then looking for the other's (docs/sync.md, "Two runs on one target").
 */

const FEEDING_PREFIX = 'feeding-';

/** Called once when a run starts waiting for another: the CLI says so on stderr. */
export type OnWait = (message: string) => void;
const deciderWaits = (decider: LockInfo | 'unreadable', dir: string): string =>
  `waiting for ${describeHolder(decider)}: it decides from the sync memory of this target (${dir})`;

/** The holder of a LOCK or marker at `path` while it lives; a stale one is none, removed when `remove`. */
async function liveHolder(path: string, remove: boolean): Promise<LockInfo | 'unreadable' | undefined> {
  const found = await lockHolder(path);
  if (found === undefined || found.live) return found?.holder;
  if (remove) await unlink(path).catch(() => undefined);
  return undefined;
}

/** The live feeders' markers in `dir`; a marker of a process that is gone (killed) is removed. */
export async function liveFeeders(dir: string): Promise<(LockInfo | 'unreadable')[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const live: (LockInfo | 'unreadable')[] = [];
  for (const name of names) {
    const holder = name.startsWith(FEEDING_PREFIX) ? await liveHolder(join(dir, name), true) : undefined;
    if (holder !== undefined) live.push(holder);
  }
  return live;
}

/** Backoff between two looks: short at first (a run that just ends), at most 50 ms. */
async function pause(attempt: number, deadline: number): Promise<void> {
  const delay = Math.min(2 * 1.5 ** attempt, 50);
  await sleep(Math.max(1, Math.min(delay, deadline - Date.now())) + Math.random() * delay);
}

/** The marker, 0600; the directory made again if `synced forget` removed it meanwhile. Unwritable: exit 3. */
async function createMarker(dir: string, path: string, text: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(path, text, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    throw new RunJournalWriteError(
      `cannot write ${path} (the sync memory's feeding marker): ${describeSystemError(error, 'directory')}`,
    );
  }
}

/** A feeding run's marker: present from before the memory is read until the run's last line is on disk. */
export class FeedingMarker {
  private constructor(private readonly path: string) {}

  /** Waits while a live run decides from the memory (at most `timeoutMs`), then refuses with exit 3 naming it. */
  static async enter(dir: string, timeoutMs: number, onWait?: OnWait): Promise<FeedingMarker> {
    const deadline = Date.now() + timeoutMs;
    for (let attempt = 0; ; attempt++) {
      const token = `${process.pid}-${randomBytes(8).toString('hex')}`;
      const path = join(dir, `${FEEDING_PREFIX}${token}`);
      await createMarker(dir, path, `${JSON.stringify(ownLockInfo(token))}\n`);
      const decider = await liveHolder(join(dir, LOCK_FILE), false);
      if (decider === undefined) return new FeedingMarker(path);
      await unlink(path).catch(() => undefined);
      if (Date.now() >= deadline) {
        throw new StoreLockedError(
          `sync memory ${dir} is locked by ${describeHolder(decider)}, a run that decides from it; gave up after ${timeoutMs} ms (EXAMCTL_LOCK_TIMEOUT_MS). ` +
            `Wait for it to end. If that process no longer runs, remove ${join(dir, LOCK_FILE)}.`,
          { code: 'E3021' },
        );
      }
      if (attempt === 0) onWait?.(deciderWaits(decider, dir));
      await pause(attempt, deadline);
    }
  }

  async leave(): Promise<void> {
    await unlink(this.path).catch(() => undefined);
  }
}

/** The LOCK of a run that decides, taken while no live run feeds: waits up to `timeoutMs`, then exit 3. */
export async function lockForDeciding(dir: string, timeoutMs: number, onWait?: OnWait): Promise<StoreLock> {
  const deadline = Date.now() + timeoutMs;
  // Said once: each attempt that does not return waits, so the first (attempt 0) says why.
  for (let attempt = 0; ; attempt++) {
    const decider = await liveHolder(join(dir, LOCK_FILE), false);
    if (decider !== undefined && attempt === 0) onWait?.(deciderWaits(decider, dir));
    const lock = new StoreLock(dir, Math.max(0, deadline - Date.now()), 'sync memory');
    try {
      await lock.acquire();
    } catch (error) {
      if (error instanceof StoreLockedError) {
        throw new StoreLockedError(
          `${error.message} Another run on this target decides from the same memory: wait for it to end.`,
          { code: 'E3021' },
        );
      }
      throw error;
    }
    const feeders = await liveFeeders(dir);
    if (feeders.length === 0) return lock;
    await lock.release();
    const who = describeHolder(feeders[0]!) + (feeders.length > 1 ? ` and ${feeders.length - 1} more` : '');
    if (Date.now() >= deadline) {
      throw new StoreLockedError(
        `another run is feeding this memory: wait for it to end (sync memory ${dir}, fed by ${who}; gave up after ${timeoutMs} ms, EXAMCTL_LOCK_TIMEOUT_MS).`,
        { code: 'E3021' },
      );
    }
    if (decider === undefined && attempt === 0)
      onWait?.(`waiting for ${who}: it is feeding the sync memory of this target (${dir}); this run decides from it`);
    await pause(attempt, deadline);
  }
}

/* How a memory file is reached, judged and opened: docs/security.md, "Other local users", "Sync memory". */

/** Refuses (exit 2) a sync or memory directory another user owns or can write (missing: where it would be made). */
export async function assertTrustedMemoryDir(syncDir: string, dir: string): Promise<void> {
  const context = currentTrustContext();
  await assertDirectoryTrusted('the sync directory', syncDir, context);
  await assertDirectoryTrusted('the sync memory', dir, context, { noLink: true, ownerOnly: true });
}

/** Makes the memory directory (0700) in a sync directory that passed the rule, and judges what is there after. */
export async function makeTrustedMemoryDir(syncDir: string, dir: string): Promise<void> {
  await assertTrustedMemoryDir(syncDir, dir);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new RunJournalWriteError(
      `cannot create the sync memory directory ${dir}: ${describeSystemError(error, 'directory')}`,
    );
  }
  await assertTrustedMemoryDir(syncDir, dir);
}

const linkRefused = (file: string) =>
  new UntrustedPlaceError('the sync memory', file, `${file} is a symbolic link: refused, never followed`);

/** A memory file is judged on its handle: a FIFO, another user's file or one others can write is exit 2 naming it. */
function judgeMemoryFile(file: string, stat: Stats): void {
  if (!stat.isFile()) throw new UsageError(`the sync memory ${new NotRegularFileError(file, kindOf(stat)).message}`);
  const problem = entryProblem(file, stat, currentTrustContext(), { ownerOnly: true });
  if (problem !== undefined) throw new UntrustedPlaceError('the sync memory', file, problem);
}

/** A memory file's header line (at most `limit` bytes), undefined without a file: sync, as a scan reads many. */
export function readMemoryHead(file: string, limit: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | NONBLOCK | NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw linkRefused(file);
    throw new UsageError(`cannot read the sync memory ${file}: ${describeSystemError(error, 'file')}`);
  }
  try {
    judgeMemoryFile(file, fstatSync(fd));
    const bytes = Buffer.alloc(limit);
    const read = readSync(fd, bytes, 0, limit, 0);
    return bytes.subarray(0, bytes.subarray(0, read).indexOf(0x0a) + 1);
  } finally {
    closeSync(fd);
  }
}

/** A memory file is appended to durably (O_DSYNC), by several feeders at once (O_APPEND). */
const APPEND_FLAGS = constants.O_RDWR | constants.O_APPEND | DSYNC_FLAG;

/** Opens a memory file, read-only or to append (made holding `born` when absent), with what it held then. */
export async function openMemoryFile(file: string, mode: 'read' | 'append', born?: Buffer) {
  const base = NONBLOCK | NOFOLLOW;
  for (let attempt = 0; ; attempt++) {
    let handle: FileHandle;
    try {
      handle = await open(file, (mode === 'read' ? constants.O_RDONLY : APPEND_FLAGS) | base);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw linkRefused(file);
      const why = `the sync memory ${file}: ${describeSystemError(error, 'file')}`;
      // Readable but not writable (read-only, immutable): exit 3.
      if (mode === 'append' && ['EACCES', 'EPERM', 'EROFS'].includes(code ?? ''))
        throw new RunJournalWriteError(`cannot write ${why}`);
      if (code !== 'ENOENT') throw new UsageError(`cannot read ${why}`);
      if (mode === 'read') return undefined;
      if (born !== undefined && attempt < 3 && (await createBorn(file, born))) continue;
      try {
        handle = await open(file, APPEND_FLAGS | constants.O_CREAT | constants.O_EXCL | base, 0o600);
      } catch (created) {
        // Another feeder made it between the two opens: open theirs (ours, same user) as it is.
        if ((created as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 3) continue;
        throw new RunJournalWriteError(
          `cannot create the sync memory ${file}: ${describeSystemError(created, 'directory')}`,
        );
      }
    }
    try {
      judgeMemoryFile(file, await handle.stat());
      // A handle just opened reads from 0 (O_APPEND moves only writes).
      return { handle, bytes: await handle.readFile() };
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  }
}

/**
 * Makes `file` holding `born` in one step (a temporary hard-linked to its name): no feeder opens a memory
 * file without its header. False without hard links (FAT, some shares): the caller creates it empty.
 */
async function createBorn(file: string, born: Buffer): Promise<boolean> {
  const temp = `${file}.${process.pid}-${randomBytes(6).toString('hex')}.new`;
  try {
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
    try {
      await handle.writeFile(born);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    try {
      await link(temp, file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return true;
      if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS' || code === 'EOPNOTSUPP') return false;
      throw error;
    }
    await fsyncDirectory(dirname(file));
    return true;
  } catch (error) {
    throw new RunJournalWriteError(`cannot create the sync memory ${file}: ${describeSystemError(error, 'directory')}`);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}
