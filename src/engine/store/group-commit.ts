/**
 * Group commit (docs/store.md, "Writing: durability and concurrency": the steps of a session, one
 * line per event-loop turn), then, still under the lock, a compaction when due. Also the one queue
 * through which all journal-touching work of a process runs, one at a time.
 */
import type { Change, StoreState } from './contract.js';

export type Decide = (state: StoreState) => { result: unknown; changes: Change[] };

/** What the store does at each step; the queue decides only the order. */
export interface CommitSteps {
  acquireLock(): Promise<void>;
  /** After a failed write: the lock goes now. */
  releaseLock(): Promise<void>;
  /** After a session that committed: the lock may be kept for the next one (see lock-lease.ts). */
  keepLock(): Promise<void>;
  /** Brings memory up to what other writers committed. */
  catchUp(): Promise<void>;
  /** Runs one decide and applies its changes to memory; returns its result and its serialised changes. */
  decide(decide: Decide): { result: unknown; serialized: string };
  /** Appends a batch's serialised changes as one durable journal line; resolves with the head after it. */
  append(serialized: string[]): Promise<string>;
  /** Memory may now be ahead of the disk: the next session must reload. */
  markStale(): void;
  /** Whether memory is stale (a decide threw halfway): decide nothing more on it. */
  stale(): boolean;
  /** After the line, still under the lock (compaction when due); its failure is the store's to absorb. */
  afterCommit(): Promise<void>;
}

const endOfTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

interface Pending {
  decide: Decide;
  committed: ((head: string) => void) | undefined;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

type Outcome =
  | { pending: Pending; ok: true; result: unknown; serialized: string }
  | { pending: Pending; ok: false; error: unknown };

export class GroupCommit {
  /** Submitted, not decided yet. */
  private waiting: Pending[] = [];
  private sessionScheduled = false;
  private serial: Promise<unknown> = Promise.resolve();
  /** The journal line on its way to the disk: memory shows its changes already. */
  private writing: Promise<unknown> | undefined;

  constructor(private readonly steps: CommitSteps) {}

  /** Runs journal-touching work one at a time within this process. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.serial.then(work, work);
    this.serial = run.catch(() => undefined);
    return run;
  }

  submit<T>(decide: Decide, committed?: (head: string) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ decide, committed, resolve: resolve as (value: unknown) => void, reject });
      this.scheduleSession();
    });
  }

  /**
   * Resolves once every transaction decided so far (everything memory shows) is durable; rejects
   * if their write failed. Transactions still waiting undecided are not in memory yet.
   */
  async whenDurable(): Promise<void> {
    await this.writing;
  }

  private scheduleSession(): void {
    if (this.sessionScheduled) return;
    this.sessionScheduled = true;
    // The session takes its place in the queue now (work queued after it, a close, waits for
    // it) but starts at the end of this turn of the event loop: every request whose bytes
    // arrived in the turn is decided by then and joins the first line.
    const turnEnded = endOfTurn();
    void this.exclusive(async () => {
      await turnEnded;
      await this.session();
    }).catch((error: unknown) => {
      this.sessionScheduled = false;
      this.rejectWaiting(error);
    });
  }

  private rejectWaiting(error: unknown): void {
    for (const pending of this.waiting.splice(0)) pending.reject(error);
  }

  private async session(): Promise<void> {
    const { steps } = this;
    if (this.waiting.length === 0) {
      this.sessionScheduled = false;
      return;
    }
    try {
      await steps.acquireLock();
    } catch (error) {
      this.sessionScheduled = false;
      this.rejectWaiting(error);
      return;
    }
    try {
      await steps.catchUp();
    } catch (error) {
      this.sessionScheduled = false;
      steps.markStale();
      await steps.releaseLock().catch(() => undefined);
      this.rejectWaiting(error);
      return;
    }
    this.sessionScheduled = false;
    const outcomes = this.decideWaiting();
    const serialized = outcomes.flatMap((outcome) =>
      outcome.ok && outcome.serialized.length > 0 ? [outcome.serialized] : [],
    );
    let head: string | undefined;
    try {
      // Started in the same synchronous stretch as the decisions: whenDurable covers them at once.
      if (serialized.length > 0) head = await (this.writing = steps.append(serialized));
    } catch (error) {
      steps.markStale();
      for (const { pending } of outcomes) pending.reject(error);
      await steps.releaseLock().catch(() => undefined);
      if (this.waiting.length > 0) this.scheduleSession();
      return;
    } finally {
      this.writing = undefined;
    }
    for (const outcome of outcomes) {
      if (!outcome.ok) {
        outcome.pending.reject(outcome.error);
        continue;
      }
      if (head !== undefined && outcome.serialized.length > 0) outcome.pending.committed?.(head);
      outcome.pending.resolve(outcome.result);
    }
    try {
      await steps.afterCommit();
    } catch {
      // Everything is already durable in the journal; a failed compaction leaves the old
      // generation in force and is retried after the next write. Memory may not say which
      // generation is in force: the next session reloads, even under a kept lock.
      steps.markStale();
    } finally {
      await steps.keepLock().catch(() => undefined);
    }
    if (this.waiting.length > 0) this.scheduleSession();
  }

  /** Decides the waiting transactions in order; after one that left memory stale, the rest wait for a reload. */
  private decideWaiting(): Outcome[] {
    const batch = this.waiting.splice(0);
    const outcomes: Outcome[] = [];
    for (const [index, pending] of batch.entries()) {
      try {
        const done = this.steps.decide(pending.decide);
        outcomes.push({ pending, ok: true, result: done.result, serialized: done.serialized });
      } catch (error) {
        outcomes.push({ pending, ok: false, error });
        if (this.steps.stale()) {
          this.waiting.unshift(...batch.slice(index + 1));
          break;
        }
      }
    }
    return outcomes;
  }
}
