import { link, rename, unlink, writeFile } from 'node:fs/promises';
import { readRegularFile } from '../../regular-file.js';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreLockedError, UsageError } from '../../errors.js';
import { ownStartTicks, processAlive } from '../../process-liveness.js';

export const LOCK_FILE = 'LOCK';
/** How long a writer waits for the lock unless told otherwise (ms). */
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;

/**
 * The lock wait an admin set with EXAMCTL_LOCK_TIMEOUT_MS, read by the caller that opens the
 * store (the store itself reads no environment); undefined when unset.
 */
export function lockTimeoutFromEnv(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const fromEnv = env.EXAMCTL_LOCK_TIMEOUT_MS;
  if (fromEnv === undefined || fromEnv === '') return undefined;
  const parsed = Number(fromEnv);
  if (!Number.isInteger(parsed) || parsed < 0) {
    throw new UsageError(`EXAMCTL_LOCK_TIMEOUT_MS must be a whole number of milliseconds, got ${JSON.stringify(fromEnv)}`);
  }
  return parsed;
}
const BREAK_FILE = 'LOCK.break';
/** Prefix of the per-attempt files a lock is linked from; one left by a killed process is harmless. */
export const LOCK_TEMP_PREFIX = '.lock-';

export interface LockInfo {
  pid: number;
  host: string;
  command: string;
  since: string;
  token: string;
  /** The holder's start time (/proc, Linux): the same pid started later is another process. */
  started?: number;
}

/**
 * Which command holds the lock, for the "locked by" message. Only the script name and the first
 * positional words: options are left out because they may carry a token or password.
 */
function describeCommand(): string {
  const words = [basename(process.argv[1] ?? 'node')];
  for (const arg of process.argv.slice(2)) {
    if (arg.startsWith('-') || words.length >= 4) break;
    words.push(arg.length > 40 ? `${arg.slice(0, 40)}...` : arg);
  }
  return words.join(' ');
}

export async function readLockInfo(path: string): Promise<LockInfo | 'missing' | 'unreadable'> {
  let text: string;
  try {
    // A FIFO planted as the lock would hang the read: only a regular file is read.
    text = await readRegularFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    return 'unreadable';
  }
  try {
    const info = JSON.parse(text) as Partial<LockInfo>;
    if (typeof info.pid !== 'number' || typeof info.host !== 'string' || typeof info.token !== 'string') return 'unreadable';
    return {
      pid: info.pid,
      host: info.host,
      token: info.token,
      command: typeof info.command === 'string' ? info.command : '?',
      since: typeof info.since === 'string' ? info.since : '?',
      ...(typeof info.started === 'number' ? { started: info.started } : {}),
    };
  } catch {
    return 'unreadable';
  }
}

/** Left by a process that died: same host (pids of other hosts cannot be checked) and the pid is gone. */
export function isStale(info: LockInfo): boolean {
  return info.host === hostname() && !processAlive(info.pid, info.started);
}

function isEexist(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'EEXIST';
}

/**
 * The store's writer lock: a file created atomically with its full content by link(2) from a
 * private temp file (fails with EEXIST if held), so nobody ever sees a half-written lock.
 * A lock whose holder died on this host is broken under a second lock (LOCK.break), re-checking
 * under it that LOCK still is the stale one, so two processes that both find the same stale lock
 * cannot remove a fresh lock taken in between.
 */
export class StoreLock {
  private readonly lockPath: string;
  private readonly breakPath: string;
  private heldToken: string | undefined;

  constructor(
    private readonly dir: string,
    private readonly timeoutMs: number,
  ) {
    this.lockPath = join(dir, LOCK_FILE);
    this.breakPath = join(dir, BREAK_FILE);
  }

  get held(): boolean {
    return this.heldToken !== undefined;
  }

  async acquire(): Promise<void> {
    if (this.heldToken) return;
    const token = `${process.pid}-${randomBytes(8).toString('hex')}`;
    const started = ownStartTicks();
    const info: LockInfo = { pid: process.pid, host: hostname(), command: describeCommand(), since: new Date().toISOString(), token, ...(started === undefined ? {} : { started }) };
    const temp = join(this.dir, `${LOCK_TEMP_PREFIX}${token}`);
    await writeFile(temp, `${JSON.stringify(info)}\n`, { mode: 0o600 });
    const deadline = Date.now() + this.timeoutMs;
    let delay = 2;
    try {
      for (;;) {
        try {
          await link(temp, this.lockPath);
          this.heldToken = token;
          return;
        } catch (error) {
          if (!isEexist(error)) throw error;
        }
        const holder = await readLockInfo(this.lockPath);
        if (holder === 'missing') continue;
        if (holder !== 'unreadable' && isStale(holder)) {
          await this.breakStale(holder, temp);
          continue;
        }
        if (Date.now() >= deadline) throw this.lockedError(holder);
        await sleep(Math.min(delay, Math.max(1, deadline - Date.now())) + Math.random() * delay);
        delay = Math.min(delay * 1.5, 50);
      }
    } finally {
      await unlink(temp).catch(() => undefined);
    }
  }

  async release(): Promise<void> {
    const token = this.heldToken;
    if (!token) return;
    this.heldToken = undefined;
    const current = await readLockInfo(this.lockPath);
    // Never remove a lock that is not ours (ours was broken as stale: the pid was reused or the clock lied).
    if (typeof current === 'object' && current.token === token) await unlink(this.lockPath).catch(() => undefined);
  }

  private lockedError(holder: LockInfo | 'unreadable'): StoreLockedError {
    const who =
      holder === 'unreadable'
        ? 'an unknown process (the lock file cannot be read)'
        : `pid ${holder.pid} on host ${holder.host} (${holder.command}) since ${holder.since}`;
    return new StoreLockedError(
      `store ${this.dir} is locked by ${who}; gave up after ${this.timeoutMs} ms ` +
        `(EXAMCTL_LOCK_TIMEOUT_MS). If that process no longer runs, remove ${this.lockPath}.`,
    );
  }

  private async breakStale(stale: LockInfo, temp: string): Promise<void> {
    try {
      await link(temp, this.breakPath);
    } catch (error) {
      if (!isEexist(error)) throw error;
      await this.recoverStaleBreakLock();
      // Someone else is breaking it right now; the caller retries.
      await sleep(1 + Math.random() * 3);
      return;
    }
    try {
      const current = await readLockInfo(this.lockPath);
      if (typeof current === 'object' && current.token === stale.token) await unlink(this.lockPath);
    } finally {
      await unlink(this.breakPath).catch(() => undefined);
    }
  }

  /** A breaker killed inside its few-syscall window leaves LOCK.break behind: move it aside by a unique name, then verify. */
  private async recoverStaleBreakLock(): Promise<void> {
    const holder = await readLockInfo(this.breakPath);
    if (typeof holder !== 'object' || !isStale(holder)) return;
    const aside = join(this.dir, `${LOCK_TEMP_PREFIX}break-${randomBytes(8).toString('hex')}`);
    try {
      await rename(this.breakPath, aside);
    } catch {
      return;
    }
    const moved = await readLockInfo(aside);
    if (typeof moved === 'object' && moved.token !== holder.token) {
      // Took a live breaker's file: put it back (it only guards a short window, best effort).
      await link(aside, this.breakPath).catch(() => undefined);
    }
    await unlink(aside).catch(() => undefined);
  }
}

