/**
 * Group commit: every transaction queued by the time the lock is ours is one batch: one
 * catch-up (none while the lock lease was kept since the last batch), one journal line, one
 * synchronous write. Calls arriving meanwhile form the next batch. Also the one queue through
 * which all journal-touching work of a process runs, one piece at a time.
 */
import type { Change, StoreState } from './contract.js';

export type Decide = (state: StoreState) => { result: unknown; changes: Change[] };

/** What the store does at each step of a batch; the queue decides only the order. */
export interface CommitSteps {
  acquireLock(): Promise<void>;
  /** After a failed batch: the lock goes now. */
  releaseLock(): Promise<void>;
  /** After a committed batch: the lock may be kept for the next batch (see lock-lease.ts). */
  keepLock(): Promise<void>;
  /** Brings memory up to what other writers committed. */
  catchUp(): Promise<void>;
  /** Runs one decide and applies its changes to memory; returns its result and its serialised changes. */
  decide(decide: Decide): { result: unknown; serialized: string };
  /** Appends the batch's serialised changes as one durable journal line. */
  append(serialized: string[]): Promise<void>;
  /** Memory may now be ahead of the disk: the next batch must reload. */
  markStale(): void;
  /** After a committed batch, still under the lock (compaction when due); its failure is the store's to absorb. */
  afterCommit(): Promise<void>;
}

interface Pending {
  decide: Decide;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

type Outcome = { pending: Pending; ok: true; result: unknown } | { pending: Pending; ok: false; error: unknown };

export class GroupCommit {
  private queue: Pending[] = [];
  private batchScheduled = false;
  private serial: Promise<unknown> = Promise.resolve();

  constructor(private readonly steps: CommitSteps) {}

  /** Runs journal-touching work one at a time within this process. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.serial.then(work, work);
    this.serial = run.catch(() => undefined);
    return run;
  }

  submit<T>(decide: Decide): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ decide, resolve: resolve as (value: unknown) => void, reject });
      if (!this.batchScheduled) {
        this.batchScheduled = true;
        void this.exclusive(() => this.runBatch()).catch((error: unknown) => {
          for (const pending of this.queue.splice(0)) pending.reject(error);
        });
      }
    });
  }

  private async runBatch(): Promise<void> {
    const { steps } = this;
    try {
      await steps.acquireLock();
    } catch (error) {
      this.batchScheduled = false;
      for (const pending of this.queue.splice(0)) pending.reject(error);
      return;
    }
    this.batchScheduled = false;
    const batch = this.queue.splice(0);
    const outcomes: Outcome[] = [];
    try {
      await steps.catchUp();
      const serialized: string[] = [];
      for (const pending of batch) {
        try {
          const done = steps.decide(pending.decide);
          serialized.push(done.serialized);
          outcomes.push({ pending, ok: true, result: done.result });
        } catch (error) {
          outcomes.push({ pending, ok: false, error });
        }
      }
      if (serialized.some((part) => part.length > 0)) await steps.append(serialized);
    } catch (error) {
      steps.markStale();
      await steps.releaseLock().catch(() => undefined);
      for (const pending of batch) pending.reject(error);
      return;
    }
    for (const outcome of outcomes) {
      if (outcome.ok) outcome.pending.resolve(outcome.result);
      else outcome.pending.reject(outcome.error);
    }
    try {
      await steps.afterCommit();
    } catch {
      // Everything is already durable in the journal; a failed compaction leaves the old
      // generation in force and is retried after the next write. Memory may not say which
      // generation is in force: the next batch reloads, even under a kept lock.
      steps.markStale();
    } finally {
      await steps.keepLock().catch(() => undefined);
    }
  }
}
