/**
 * Group commit, pipelined. A session takes the lock (or keeps the lease), catches up once and
 * then opens the gate: from then on every transaction is decided the moment it is submitted,
 * into the batch being collected, while the previous batch's journal write is on its way to the
 * disk. When that write returns, the collected batch's write starts at once and only then are the
 * finished batch's callers answered, so the disk and the CPU work side by side. A write starts
 * only after the one before it is durable (a journal line never lands after one that may not),
 * and a caller is answered only once its batch, and with it everything decided before it, is.
 *
 * The gate closes (submissions wait undecided) while the lock is being taken, when memory must be
 * reloaded, and when a compaction or a lock handover is due: the writes in flight finish, the
 * session ends under the lock (compaction, lease), and the next session takes the waiting ones.
 * Also the one queue through which all journal-touching work of a process runs, one at a time.
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
  /** Appends a batch's serialised changes as one durable journal line. */
  append(serialized: string[]): Promise<void>;
  /** Memory may now be ahead of the disk: the next session must reload. */
  markStale(): void;
  /** Whether to stop deciding and let the writes drain: memory is stale, a compaction or a lock handover is due. */
  drainDue(): boolean;
  /** After the writes drained, still under the lock (compaction when due); its failure is the store's to absorb. */
  afterCommit(): Promise<void>;
}

const endOfTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

interface Pending {
  decide: Decide;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

type Outcome = { pending: Pending; ok: true; result: unknown } | { pending: Pending; ok: false; error: unknown };

/** Decided transactions sharing one journal line; their callers are answered together once it is durable. */
class Batch {
  readonly outcomes: Outcome[] = [];
  /** The non-empty serialised changes, in decision order. */
  readonly serialized: string[] = [];
  private settled: { ok: true } | { ok: false; error: unknown } | undefined;
  private listeners: { resolve: () => void; reject: (reason: unknown) => void }[] = [];

  get size(): number {
    return this.outcomes.length;
  }

  /** Resolves once the batch is durable; rejects with its write's failure. */
  whenDone(): Promise<void> {
    if (this.settled?.ok) return Promise.resolve();
    if (this.settled) return Promise.reject(this.settled.error);
    return new Promise((resolve, reject) => this.listeners.push({ resolve, reject }));
  }

  commit(): void {
    this.settled = { ok: true };
    for (const outcome of this.outcomes) {
      if (outcome.ok) outcome.pending.resolve(outcome.result);
      else outcome.pending.reject(outcome.error);
    }
    for (const listener of this.listeners.splice(0)) listener.resolve();
  }

  fail(error: unknown): void {
    this.settled = { ok: false, error };
    for (const outcome of this.outcomes) outcome.pending.reject(error);
    for (const listener of this.listeners.splice(0)) listener.reject(error);
  }
}

export class GroupCommit {
  /** Submitted while the gate was closed: not decided yet. */
  private waiting: Pending[] = [];
  private sessionScheduled = false;
  /** Lock held, memory caught up, nothing due: a submitted transaction is decided at once. */
  private open = false;
  /** Decided, its journal line not yet started. */
  private collecting = new Batch();
  /** Its journal line on its way to the disk. */
  private writing: Batch | undefined;
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
      const pending: Pending = { decide, resolve: resolve as (value: unknown) => void, reject };
      if (this.open) {
        this.decideInto(pending);
      } else {
        this.waiting.push(pending);
        this.scheduleSession();
      }
    });
  }

  /**
   * Resolves once every transaction decided so far (everything memory shows) is durable; rejects
   * if one of their writes failed. Transactions still waiting undecided are not in memory yet.
   */
  whenDurable(): Promise<void> {
    const last = this.collecting.size > 0 ? this.collecting : this.writing;
    return last ? last.whenDone() : Promise.resolve();
  }

  private decideInto(pending: Pending): void {
    const batch = this.collecting;
    try {
      const done = this.steps.decide(pending.decide);
      if (done.serialized.length > 0) batch.serialized.push(done.serialized);
      batch.outcomes.push({ pending, ok: true, result: done.result });
    } catch (error) {
      batch.outcomes.push({ pending, ok: false, error });
      // A change whose hints threw halfway may have left memory off the disk: decide nothing more on it.
      if (this.steps.drainDue()) this.open = false;
    }
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
    this.open = true;
    for (const pending of this.waiting.splice(0)) {
      if (this.open) this.decideInto(pending);
      else this.waiting.push(pending);
    }
    const failed = await this.writeUntilDrained();
    if (failed) {
      await steps.releaseLock().catch(() => undefined);
    } else {
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
    }
    if (this.waiting.length > 0) this.scheduleSession();
  }

  /**
   * Writes collected batches one after the other until one finishes with nothing collected
   * behind it. Returns true when a write failed (its batch and the one decided on top of it are
   * refused, memory is stale).
   */
  private async writeUntilDrained(): Promise<boolean> {
    const { steps } = this;
    let finished: Batch | undefined;
    while (this.collecting.size > 0) {
      const batch = this.collecting;
      this.collecting = new Batch();
      if (this.open && steps.drainDue()) this.open = false;
      this.writing = batch;
      // The write is handed to the disk before the previous batch's callers are answered: their
      // answers (serialising, socket writes) overlap it.
      const written = batch.serialized.length > 0 ? steps.append(batch.serialized) : undefined;
      finished?.commit();
      finished = undefined;
      try {
        if (written) await written;
      } catch (error) {
        this.writing = undefined;
        this.open = false;
        steps.markStale();
        batch.fail(error);
        const onTop = this.collecting;
        this.collecting = new Batch();
        onTop.fail(error);
        return true;
      }
      this.writing = undefined;
      finished = batch;
    }
    // Closed before answering: an answer's continuation may submit, and no loop would write it.
    this.open = false;
    finished?.commit();
    return false;
  }
}
