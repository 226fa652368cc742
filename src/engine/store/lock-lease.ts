/** The store lock held as a lease, handed over to a waiting writer (docs/store.md, "The lock lease"). */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LOCK_FILE, LOCK_TEMP_PREFIX, type StoreLock } from '../../system/lock.js';
import { processAlive } from '../../system/process-liveness.js';

/** Released once no batch came for this long (ms): a pause in the traffic lets others in. */
const LEASE_IDLE_MS = 20;
/** Held at most this long (ms) while another writer waits; then handed over at the next batch's end. */
const LEASE_MAX_HOLD_MS = 200;
/**
 * After handing over, how long (ms) we wait for the waiter to take LOCK before competing again.
 * A waiter sleeps at most 100 ms between attempts (lock.ts: 50 ms plus up to 100 % jitter).
 */
const LEASE_HANDOVER_MS = 150;
const HANDOVER_POLL_MS = 5;

/** A waiter's temp file: `.lock-<pid>-<hex>` (a breaker's `.lock-break-...` is not one). */
const WAITER_FILE = new RegExp(`^${LOCK_TEMP_PREFIX.replace('.', '\\.')}(\\d+)-`);

export interface LeaseTiming {
  idleMs: number;
  maxHoldMs: number;
  handoverMs: number;
}

export class LockLease {
  private heldSince = 0;
  /** When the last batch ended (performance.now(): a clock set back holds nothing); the lock goes idleMs after. */
  private lastBatchAt = 0;
  /** Between acquire and the batch's end (batchDone, releaseNow): the idle timer lets the lock be. */
  private inBatch = false;
  /**
   * One timer per idle period, not one per batch: batches only move lastBatchAt, and the timer, when
   * it fires early, waits for the rest (a timer made and cleared per batch showed in profiles).
   */
  private idleTimer: NodeJS.Timeout | undefined;
  /** An idle release in flight: the next acquire waits for it (its unlink must not meet our new LOCK). */
  private releasing: Promise<void> = Promise.resolve();
  private handedOverAt: number | undefined;

  constructor(
    private readonly lock: StoreLock,
    private readonly dir: string,
    private readonly timing: LeaseTiming = {
      idleMs: LEASE_IDLE_MS,
      maxHoldMs: LEASE_MAX_HOLD_MS,
      handoverMs: LEASE_HANDOVER_MS,
    },
  ) {}

  /**
   * Takes the lock for a batch. True when it was held without a break since the previous
   * batch: then nobody else can have written, and the batch needs no catch-up.
   */
  async acquire(): Promise<boolean> {
    this.inBatch = true;
    await this.releasing;
    if (this.lock.held) return true;
    if (this.handedOverAt !== undefined) {
      await this.waitForHandover(this.handedOverAt);
      this.handedOverAt = undefined;
    }
    await this.lock.acquire();
    this.heldSince = Date.now();
    return false;
  }

  /**
   * A batch ended well: keep the lock for the next one, unless it was held past the maximum and
   * someone waits. Either way it goes once no batch comes for the idle time.
   */
  async batchDone(): Promise<void> {
    if (!this.lock.held) {
      this.inBatch = false;
      return;
    }
    if (Date.now() - this.heldSince >= this.timing.maxHoldMs) {
      if (await this.othersWaiting()) {
        await this.releaseNow();
        this.handedOverAt = Date.now();
        return;
      }
      this.heldSince = Date.now();
    }
    this.lastBatchAt = performance.now();
    this.inBatch = false;
    this.idleTimer ??= setTimeout(this.onIdle, this.timing.idleMs);
  }

  /** The idle timer: the lock goes once idleMs passed since the last batch, none running. */
  private readonly onIdle = (): void => {
    this.idleTimer = undefined;
    // A batch runs: its end sets the timer again.
    if (this.inBatch || !this.lock.held) return;
    const left = this.lastBatchAt + this.timing.idleMs - performance.now();
    if (left > 0) {
      // Whole milliseconds: node keeps one timer list per distinct delay.
      this.idleTimer = setTimeout(this.onIdle, Math.ceil(left));
      return;
    }
    this.releasing = this.lock.release().catch(() => undefined);
  };

  /** Whether the lock is ours now (kept or taken); it may go on the idle timer at any moment after a batch. */
  get held(): boolean {
    return this.lock.held;
  }

  /**
   * Takes the lock again where `LOCK` at the directory is no longer ours (the directory was replaced
   * under the lease): released (ours is not unlinked from another's place), then acquired as any writer.
   */
  async retake(): Promise<void> {
    if (await this.lock.heldAtPath()) return;
    await this.releaseNow();
    // Still within the batch that found the directory replaced.
    this.inBatch = true;
    await this.lock.acquire();
    this.heldSince = Date.now();
  }

  /** Releases now (a failed batch, a compaction on request, close). */
  async releaseNow(): Promise<void> {
    this.cancelIdle();
    this.inBatch = false;
    await this.releasing;
    await this.lock.release();
  }

  private cancelIdle(): void {
    if (this.idleTimer === undefined) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  /**
   * Another writer announces itself with its temp file while it waits (lock.ts links LOCK from
   * it). One left by a killed process on this host is ignored; one of another host cannot be
   * checked and counts (the store is meant for a local disk; the cost is a handover, not a loss).
   */
  private async othersWaiting(): Promise<boolean> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return false;
    }
    return names.some((name) => {
      const pid = Number(WAITER_FILE.exec(name)?.[1]);
      return Number.isInteger(pid) && pid > 0 && processAlive(pid);
    });
  }

  /** Gives the waiter that made us hand over the time to take LOCK before we compete again. */
  private async waitForHandover(since: number): Promise<void> {
    const lockPath = join(this.dir, LOCK_FILE);
    while (Date.now() - since < this.timing.handoverMs) {
      const taken = await stat(lockPath).then(
        () => true,
        () => false,
      );
      if (taken) return;
      await sleep(HANDOVER_POLL_MS);
    }
  }
}
