import { mkdir, readdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreLockedError } from '../errors.js';
import { RunJournalWriteError } from '../runs/run-errors.js';
import { LOCK_FILE, StoreLock, UNREADABLE_LOCK_STALE_MS, describeHolder, isStale, ownLockInfo, readLockInfo, unreadableAge, type LockInfo } from '../engine/store/lock.js';

/**
 * Who may use a target's sync memory at once (docs/sync.md, "Two runs on one target"): a shared
 * / exclusive lock made of files, no dependency. A run that only feeds the memory holds a marker
 * file `feeding-<pid>-<random>` of its own for the whole run (feeders never wait for each other);
 * a run that decides from the memory (--changed-only, --disable-missing) holds LOCK and no
 * feeder may run meanwhile. Each side makes its own claim FIRST and then looks for the other's,
 * so of two runs starting at once at least one sees the other and backs off: a decider never
 * reads a memory half fed by a run still going, and never interleaves with one.
 */

export const FEEDING_PREFIX = 'feeding-';

/** Called once when a run starts waiting for another: the CLI says so on stderr. */
export type OnWait = (message: string) => void;

/** The live feeders' markers in `dir`; a marker of a process that is gone (killed) is removed. */
async function liveFeeders(dir: string): Promise<(LockInfo | 'unreadable')[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const live: (LockInfo | 'unreadable')[] = [];
  for (const name of names) {
    if (!name.startsWith(FEEDING_PREFIX)) continue;
    const path = join(dir, name);
    const info = await readLockInfo(path);
    if (info === 'missing') continue;
    if (info === 'unreadable') {
      // Just created, its content not written yet; one left so for long was a feeder killed in between.
      const age = await unreadableAge(path);
      if (age !== undefined && age.ageMs >= UNREADABLE_LOCK_STALE_MS) await unlink(path).catch(() => undefined);
      else live.push(info);
    } else if (isStale(info)) {
      await unlink(path).catch(() => undefined);
    } else live.push(info);
  }
  return live;
}

/** Whether a live decider holds the memory's LOCK (a stale or long-unreadable one does not count). */
async function liveDecider(dir: string): Promise<LockInfo | 'unreadable' | undefined> {
  const path = join(dir, LOCK_FILE);
  const holder = await readLockInfo(path);
  if (holder === 'missing') return undefined;
  if (holder === 'unreadable') {
    const age = await unreadableAge(path);
    return age !== undefined && age.ageMs >= UNREADABLE_LOCK_STALE_MS ? undefined : holder;
  }
  return isStale(holder) ? undefined : holder;
}

/** Backoff between two looks: short at first (a run that just ends), at most 50 ms. */
async function pause(attempt: number, deadline: number): Promise<void> {
  const delay = Math.min(2 * 1.5 ** attempt, 50);
  await sleep(Math.max(1, Math.min(delay, deadline - Date.now())) + Math.random() * delay);
}

/** The marker, 0600; the directory made again if `synced forget` removed it meanwhile. Unwritable: exit 3. */
async function createMarker(dir: string, path: string, text: string): Promise<void> {
  try {
    try {
      await writeFile(path, text, { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await writeFile(path, text, { flag: 'wx', mode: 0o600 });
    }
  } catch (error) {
    throw new RunJournalWriteError(`cannot write ${path} (the sync memory's feeding marker): ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

/** A feeding run's marker: present from before the memory is read until the run's last line is on disk. */
export class FeedingMarker {
  private constructor(private readonly path: string) {}

  /** Waits while a live run decides from the memory (at most `timeoutMs`), then refuses with exit 3 naming it. */
  static async enter(dir: string, timeoutMs: number, onWait?: OnWait): Promise<FeedingMarker> {
    const deadline = Date.now() + timeoutMs;
    let waited = false;
    for (let attempt = 0; ; attempt++) {
      const token = `${process.pid}-${randomBytes(8).toString('hex')}`;
      const path = join(dir, `${FEEDING_PREFIX}${token}`);
      await createMarker(dir, path, `${JSON.stringify(ownLockInfo(token))}\n`);
      const decider = await liveDecider(dir);
      if (decider === undefined) return new FeedingMarker(path);
      await unlink(path).catch(() => undefined);
      if (Date.now() >= deadline) {
        throw new StoreLockedError(
          `sync memory ${dir} is locked by ${describeHolder(decider)}, a run that decides from it; gave up after ${timeoutMs} ms (EXAMCTL_LOCK_TIMEOUT_MS). ` +
            `Wait for it to end. If that process no longer runs, remove ${join(dir, LOCK_FILE)}.`,
        );
      }
      if (!waited) onWait?.(`waiting for ${describeHolder(decider)}: it decides from the sync memory of this target (${dir})`);
      waited = true;
      await pause(attempt, deadline);
    }
  }

  async leave(): Promise<void> {
    await unlink(this.path).catch(() => undefined);
  }
}

/**
 * The memory's LOCK for a run that decides from it, taken only while no live run feeds it:
 * waits for both (at most `timeoutMs`), then refuses with exit 3 naming the other run.
 */
export async function lockForDeciding(dir: string, timeoutMs: number, onWait?: OnWait): Promise<StoreLock> {
  const deadline = Date.now() + timeoutMs;
  let waited = false;
  const wait = (message: string): void => {
    if (!waited) onWait?.(message);
    waited = true;
  };
  for (let attempt = 0; ; attempt++) {
    const decider = await liveDecider(dir);
    if (decider !== undefined) wait(`waiting for ${describeHolder(decider)}: it decides from the sync memory of this target (${dir})`);
    const lock = new StoreLock(dir, Math.max(0, deadline - Date.now()));
    try {
      await lock.acquire();
    } catch (error) {
      if (error instanceof StoreLockedError) {
        throw new StoreLockedError(`${error.message.replace(/^store /, 'sync memory ')} Another run on this target decides from the same memory: wait for it to end.`);
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
      );
    }
    wait(`waiting for ${who}: it is feeding the sync memory of this target (${dir}); this run decides from it`);
    await pause(attempt, deadline);
  }
}
