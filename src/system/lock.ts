import { open, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname, uptime } from 'node:os';
import { readRegularFile } from './regular-file.js';
import { basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreLockedError } from './errors.js';
import { systemFailure } from './system-error-words.js';
import { wholeMillisecondsFromEnv, type Env } from './env-values.js';
import { ownStartTicks, processAlive } from './process-liveness.js';
import { retryWhileBusy } from './busy-retry.js';
import { MAX_JSON_DEPTH, parseJson } from './json-scan.js';

export const LOCK_FILE = 'LOCK';
/** How long a writer waits for the lock unless told otherwise (ms). */
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;

/** EXAMCTL_LOCK_TIMEOUT_MS, else `fallback`, read by the caller that opens the store (the store reads no environment). */
export function lockTimeoutFromEnv(env: Env, fallback = DEFAULT_LOCK_TIMEOUT_MS): number {
  return wholeMillisecondsFromEnv(env, 'EXAMCTL_LOCK_TIMEOUT_MS') ?? fallback;
}
const BREAK_FILE = 'LOCK.break';
/** Prefix of a waiter's announcement files (lock-lease.ts); one a killed process left is harmless. */
export const LOCK_TEMP_PREFIX = '.lock-';

export interface LockInfo {
  pid: number;
  host: string;
  command: string;
  since: string;
  token: string;
  /** The holder's start time (/proc, Linux): the same pid started later is another process. */
  started?: number;
  /**
   * When the holder's machine booted (ms since the epoch, to the second). Off Linux no start
   * time is recorded: a lock from before the last reboot is then stale even if its pid is in use.
   */
  boot?: number;
}

/** This machine's boot time (ms since the epoch, to the second), as the clock and the uptime tell it. */
export function bootTime(): number {
  return Math.round((Date.now() - uptime() * 1000) / 1000) * 1000;
}

/**
 * How far two readings of the boot time may differ and still be the same boot: the clock may
 * be corrected (NTP) while the uptime is not. A reboot moves it by at least the time the
 * machine was down and up again, and a lock outliving a reboot is usually days old.
 */
const SAME_BOOT_TOLERANCE_MS = 5 * 60_000;

/**
 * An unreadable LOCK (its writer died between creating and writing it, or power was lost) older than this is
 * stale: a live writer fills it within milliseconds.
 */
export const UNREADABLE_LOCK_STALE_MS = 5_000;

/** The holder's command for "locked by": script and first words only, as options may carry a token. */
function describeCommand(): string {
  const words = [basename(process.argv[1] ?? 'node')];
  for (const arg of process.argv.slice(2)) {
    if (arg.startsWith('-') || words.length >= 4) break;
    words.push(arg.length > 40 ? `${arg.slice(0, 40)}...` : arg);
  }
  return words.join(' ');
}

/** What a lock file (or a feeding marker) records of this process: who, since when, how to tell it is gone. */
export function ownLockInfo(token: string): LockInfo {
  const started = ownStartTicks();
  return {
    pid: process.pid,
    host: hostname(),
    command: describeCommand(),
    since: new Date().toISOString(),
    token,
    ...(started === undefined ? { boot: bootTime() } : { started }),
  };
}

/** "pid N on host H (command) since T", for a message naming the other run. */
export function describeHolder(holder: LockInfo | 'unreadable'): string {
  return holder === 'unreadable'
    ? 'an unknown process (the lock file cannot be read)'
    : `pid ${holder.pid} on host ${holder.host} (${holder.command}) since ${holder.since}`;
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
    return lockInfoOf(parseJson(text, { depth: MAX_JSON_DEPTH }) as Partial<LockInfo>) ?? 'unreadable';
  } catch {
    return 'unreadable';
  }
}

/**
 * Who holds the LOCK (or marker) at `path`, and whether that holder lives: not when it is stale
 * (`isStale`), or unreadable for UNREADABLE_LOCK_STALE_MS (its writer killed mid-create). Undefined: no file.
 */
export async function lockHolder(
  path: string,
): Promise<{ holder: LockInfo | 'unreadable'; live: boolean } | undefined> {
  const holder = await readLockInfo(path);
  if (holder === 'missing') return undefined;
  const dead =
    holder === 'unreadable' ? ((await unreadableAge(path))?.ageMs ?? 0) >= UNREADABLE_LOCK_STALE_MS : isStale(holder);
  return { holder, live: !dead };
}

/** Whether the lock file at `path` is the one taken with `token`. */
async function lockHasToken(path: string, token: string): Promise<boolean> {
  const current = await readLockInfo(path);
  return typeof current === 'object' && current.token === token;
}

/** A lock's record as examctl wrote it (a file's, or a state service lock's Info), else undefined. */
export function lockInfoOf(info: Partial<LockInfo>): LockInfo | undefined {
  if (typeof info.pid !== 'number' || typeof info.host !== 'string' || typeof info.token !== 'string') return undefined;
  return {
    pid: info.pid,
    host: info.host,
    token: info.token,
    command: typeof info.command === 'string' ? info.command : '?',
    since: typeof info.since === 'string' ? info.since : '?',
    ...(typeof info.started === 'number' ? { started: info.started } : {}),
    ...(typeof info.boot === 'number' ? { boot: info.boot } : {}),
  };
}

/** The lock tokens this process made (several stores, or a test's two writers, may live in one process). */
const tokensIssuedHere = new Set<string>();

/**
 * Left by a process that died: same host (pids of other hosts cannot be checked) and the pid is
 * gone, or is another process now (a different start time, Linux), or (where no start time is
 * recorded: macOS, Windows) the machine rebooted since the lock was taken.
 */
export function isStale(info: LockInfo, currentBoot: number = bootTime()): boolean {
  if (info.host !== hostname()) return false;
  // Where no start time tells pids apart (Windows, macOS): our own pid on a lock this process
  // never took is a dead process's, whose pid we were given (Windows, and Wine more so, hands
  // freed pids out again soon).
  if (info.started === undefined && info.pid === process.pid) return !tokensIssuedHere.has(info.token);
  if (!processAlive(info.pid, info.started)) return true;
  return (
    info.started === undefined && info.boot !== undefined && Math.abs(info.boot - currentBoot) > SAME_BOOT_TOLERANCE_MS
  );
}

/** EEXIST, or EPERM for a lock being deleted while still open (Windows, "delete pending"): busy, retry. */
function isBusy(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EEXIST' || code === 'EPERM';
}

/** Creates `path` exclusively, not fsynced (docs/store.md, "The lock"); seen empty first: 'unreadable'. */
async function createExclusive(path: string, text: string): Promise<void> {
  const handle = await open(path, 'wx', 0o600);
  try {
    await handle.writeFile(text);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
    throw error;
  }
  await handle.close();
}

/**
 * An unreadable lock file's identity and age, to break it only if still the same old file; undefined when it
 * cannot be read at all (another user's, being deleted): such a lock is only waited for.
 */
export async function unreadableAge(path: string): Promise<{ id: string; ageMs: number } | undefined> {
  try {
    const info = await stat(path);
    // Readable as a regular file (a planted FIFO would hang a plain read): else only waited for.
    await readRegularFile(path);
    return { id: `${info.dev}:${info.ino}:${info.mtimeMs}:${info.size}`, ageMs: Date.now() - info.mtimeMs };
  } catch {
    return undefined;
  }
}

/** `work` under the LOCK in `dir` (of `what`): the one `held`, else taken for the moment. */
export async function underLock<T>(
  dir: string,
  held: StoreLock | undefined,
  timeoutMs: number,
  work: () => Promise<T>,
  what?: string,
): Promise<T> {
  const lock = held ?? new StoreLock(dir, timeoutMs, what);
  await lock.acquire();
  try {
    return await work();
  } finally {
    if (held === undefined) await lock.release();
  }
}

/**
 * The store's writer lock, `LOCK` (docs/store.md, "The lock"). A waiting writer announces itself with a
 * `.lock-<token>` file, which the holder's lease looks for to hand over.
 */
export class StoreLock {
  private readonly lockPath: string;
  private readonly breakPath: string;
  private heldToken: string | undefined;

  constructor(
    private readonly dir: string,
    private readonly timeoutMs: number,
    private readonly what = 'store',
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
    tokensIssuedHere.add(token);
    const info = ownLockInfo(token);
    const text = `${JSON.stringify(info)}\n`;
    const announce = join(this.dir, `${LOCK_TEMP_PREFIX}${token}`);
    let announced = false;
    const deadline = Date.now() + this.timeoutMs;
    let delay = 2;
    let lastBusy: unknown;
    try {
      for (;;) {
        try {
          await createExclusive(this.lockPath, text);
          // A writer stalled between creating LOCK and filling it (a suspended machine) may have
          // had it broken as an abandoned empty lock: it holds the lock only if LOCK is its own.
          if (await lockHasToken(this.lockPath, token)) {
            this.heldToken = token;
            return;
          }
          continue;
        } catch (error) {
          if (!isBusy(error)) throw error;
          lastBusy = error;
        }
        const holder = await readLockInfo(this.lockPath);
        if (holder === 'missing') {
          // EPERM with no LOCK to be seen: a lock being deleted (Windows) or a directory that
          // refuses files. Past the deadline, the error itself is the answer.
          if ((lastBusy as NodeJS.ErrnoException).code === 'EPERM' && Date.now() >= deadline) throw lastBusy;
          if ((lastBusy as NodeJS.ErrnoException).code === 'EPERM') await sleep(delay);
          continue;
        }
        if (holder === 'unreadable') {
          if (await this.breakUnreadable(text)) continue;
        } else if (isStale(holder)) {
          await this.breakUnder(text, () => lockHasToken(this.lockPath, holder.token));
          continue;
        }
        if (Date.now() >= deadline) throw this.lockedError(holder);
        if (!announced) {
          await writeFile(announce, text, { mode: 0o600 });
          announced = true;
        }
        await sleep(Math.min(delay, Math.max(1, deadline - Date.now())) + Math.random() * delay);
        delay = Math.min(delay * 1.5, 50);
      }
    } catch (error) {
      // A folder refusing files (read-only, full): exit 3.
      throw systemFailure(error, `cannot write the lock ${this.lockPath}`, 'directory');
    } finally {
      if (announced) await unlink(announce).catch(() => undefined);
    }
  }

  /** Whether `LOCK` at the directory is this lock's own (false where it is held by none here). */
  async heldAtPath(): Promise<boolean> {
    return this.heldToken !== undefined && lockHasToken(this.lockPath, this.heldToken);
  }

  async release(): Promise<void> {
    const token = this.heldToken;
    if (!token) return;
    this.heldToken = undefined;
    // Never remove a lock that is not ours (ours was broken as stale: the pid was reused or the clock lied).
    // Retried while another program holds it a moment (Windows: an antivirus scanning the new file).
    if (await lockHasToken(this.lockPath, token))
      await retryWhileBusy(() => unlink(this.lockPath)).catch(() => undefined);
  }

  private lockedError(holder: LockInfo | 'unreadable'): StoreLockedError {
    const who = describeHolder(holder);
    return new StoreLockedError(
      `${this.what} ${this.dir} is locked by ${who}; gave up after ${this.timeoutMs} ms ` +
        `(EXAMCTL_LOCK_TIMEOUT_MS). If that process no longer runs, remove ${this.lockPath}.`,
    );
  }

  /** Removes LOCK under LOCK.break if it is still the lock `isSame` recognises; false if another breaker is at it. */
  private async breakUnder(text: string, isSame: () => Promise<boolean>): Promise<boolean> {
    try {
      await createExclusive(this.breakPath, text);
    } catch (error) {
      if (!isBusy(error)) throw error;
      await this.recoverStaleBreakLock();
      // Someone else is breaking it right now; the caller retries.
      await sleep(1 + Math.random() * 3);
      return false;
    }
    try {
      if (await isSame()) await unlink(this.lockPath);
    } finally {
      await unlink(this.breakPath).catch(() => undefined);
    }
    return true;
  }

  /** An unreadable LOCK older than UNREADABLE_LOCK_STALE_MS is broken; true when it was. */
  private async breakUnreadable(text: string): Promise<boolean> {
    const seen = await unreadableAge(this.lockPath);
    // Cannot even be looked at (being deleted, Windows): wait like for a held lock.
    if (seen === undefined) return false;
    if (seen.ageMs < UNREADABLE_LOCK_STALE_MS) return false;
    return this.breakUnder(
      text,
      async () =>
        (await readLockInfo(this.lockPath)) === 'unreadable' && (await unreadableAge(this.lockPath))?.id === seen.id,
    );
  }

  /** A breaker killed mid-break leaves LOCK.break behind: moved aside by a unique name, then verified. */
  private async recoverStaleBreakLock(): Promise<void> {
    const found = await lockHolder(this.breakPath);
    if (found === undefined || found.live) return;
    const { holder } = found;
    // Its breaker died between creating and writing it.
    if (holder === 'unreadable') {
      await unlink(this.breakPath).catch(() => undefined);
      return;
    }
    const aside = join(this.dir, `${LOCK_TEMP_PREFIX}break-${randomBytes(8).toString('hex')}`);
    try {
      await rename(this.breakPath, aside);
    } catch {
      return;
    }
    const moved = await readLockInfo(aside);
    if (typeof moved === 'object' && moved.token !== holder.token) {
      // Took a live breaker's file: put it back (it only guards a short window, best effort).
      await createExclusive(this.breakPath, `${JSON.stringify(moved)}\n`).catch(() => undefined);
    }
    await unlink(aside).catch(() => undefined);
  }
}
