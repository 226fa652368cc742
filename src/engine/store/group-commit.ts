/**
 * Group commit (docs/store.md, "Writing: durability and concurrency": the steps of a session, one
 * line per event-loop turn; while a line is written, what arrives is decided into the next one),
 * then, still under the lock, a compaction when due. Also the one queue through which all
 * journal-touching work of a process runs, one at a time.
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
  /**
   * Before each line after a session's first (decided while the one before was written, so memory is
   * ahead of the disk): throws unless the path still holds exactly what this process wrote.
   */
  checkPath(): void;
  /** Runs one decide and applies its changes to memory; returns its result and its serialised changes. */
  decide(decide: Decide): { result: unknown; serialized: string };
  /** Appends a batch's serialised changes as one durable journal line. */
  append(serialized: string[]): Promise<void>;
  /** Memory may now be ahead of the disk: the next session must reload. */
  markStale(): void;
  /** Whether memory is stale (a decide threw halfway): decide nothing more on it. */
  stale(): boolean;
  /** After the line, still under the lock (compaction when due); its failure is the store's to absorb. */
  afterCommit(): Promise<void>;
}

const endOfTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Lines a session writes before it lets a compaction and the lock's handover in (docs/store.md, "The lock lease"). */
const MAX_LINES_A_SESSION = 16;

interface Pending {
  decide: Decide;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

type Outcome = { pending: Pending; ok: true; result: unknown } | { pending: Pending; ok: false; error: unknown };

/** The transactions of one journal line, decided; `durable` settles once the line is written, or never will be. */
class Batch {
  readonly outcomes: Outcome[] = [];
  readonly serialized: string[] = [];
  readonly durable: Promise<void>;
  settle!: (error?: { error: unknown }) => void;

  constructor() {
    this.durable = new Promise<void>((resolve, reject) => {
      this.settle = (failure) => (failure === undefined ? resolve() : reject(failure.error));
    });
    // Nobody may be waiting for it (no read saw this line's changes).
    this.durable.catch(() => undefined);
  }
}

export class GroupCommit {
  /** Submitted, not decided yet. */
  private waiting: Pending[] = [];
  private sessionScheduled = false;
  private serial: Promise<unknown> = Promise.resolve();
  /** The last batch decided: memory shows its changes, and those of the batches before it, which settle first. */
  private decided: Batch | undefined;
  /** Set while a line is written and the next batch is open: a submission wakes the session at the end of its turn. */
  private arrived: (() => void) | undefined;

  constructor(private readonly steps: CommitSteps) {}

  /** Runs journal-touching work one at a time within this process. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.serial.then(work, work);
    this.serial = run.catch(() => undefined);
    return run;
  }

  submit<T>(decide: Decide): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ decide, resolve: resolve as (value: unknown) => void, reject });
      if (this.arrived !== undefined) this.arrived();
      else this.scheduleSession();
    });
  }

  /**
   * Resolves once every transaction decided so far (everything memory shows) is durable; rejects
   * if their write failed or will not be made. Transactions still waiting undecided are not in memory yet.
   */
  whenDurable(): Promise<void> {
    return this.decided?.durable ?? Promise.resolve();
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
    let batch = this.decideWaiting(new Batch());
    for (let lines = 1; ; lines += 1) {
      const written = batch.serialized.length > 0 ? steps.append(batch.serialized) : Promise.resolve();
      const next = lines < MAX_LINES_A_SESSION ? new Batch() : undefined;
      const failure = await this.decideWhileWritten(written, next);
      batch.settle(failure);
      if (failure !== undefined) {
        for (const { pending } of batch.outcomes) pending.reject(failure.error);
        return this.abandon(next, failure.error);
      }
      for (const outcome of batch.outcomes) {
        if (outcome.ok) outcome.pending.resolve(outcome.result);
        else outcome.pending.reject(outcome.error);
      }
      if (next === undefined) break;
      if (this.waiting.length > 0 && !steps.stale()) this.decideWaiting(next);
      if (next.outcomes.length === 0) break;
      try {
        steps.checkPath();
      } catch (error) {
        return this.abandon(next, error);
      }
      batch = next;
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

  /**
   * Waits for the line `written`; meanwhile (a line written through the thread pool) decides what
   * arrives into `next`, on top of it, at the end of each turn in which something arrived.
   */
  private async decideWhileWritten(
    written: Promise<void>,
    next: Batch | undefined,
  ): Promise<{ error: unknown } | undefined> {
    const line: { failure?: { error: unknown }; settled: boolean } = { settled: false };
    const settled = written.then(
      () => void (line.settled = true),
      (error: unknown) => void Object.assign(line, { settled: true, failure: { error } }),
    );
    while (!line.settled && next !== undefined && !this.steps.stale()) {
      let wake = (): void => undefined;
      const woken = new Promise<void>((resolve) => {
        wake = () => {
          this.arrived = () => undefined;
          setImmediate(resolve);
        };
      });
      this.arrived = wake;
      if (this.waiting.length > 0) wake();
      await Promise.race([settled, woken]);
      this.arrived = undefined;
      if (this.waiting.length > 0 && !this.steps.stale()) this.decideWaiting(next);
    }
    await settled;
    return line.failure;
  }

  /**
   * A line failed, or the path no longer holds what was written: memory is ahead of the disk. The
   * batch decided on top of it was never written and its transactions never answered: they are
   * decided again after the reload, as if they had arrived after the failure; a read that saw them fails.
   */
  private async abandon(next: Batch | undefined, error: unknown): Promise<void> {
    this.steps.markStale();
    this.decided = undefined;
    if (next !== undefined) {
      next.settle({ error });
      this.waiting.unshift(...next.outcomes.map((outcome) => outcome.pending));
    }
    await this.steps.releaseLock().catch(() => undefined);
    if (this.waiting.length > 0) this.scheduleSession();
  }

  /** Decides the waiting transactions in order into `batch`; after one that left memory stale, the rest wait for a reload. */
  private decideWaiting(batch: Batch): Batch {
    const waiting = this.waiting.splice(0);
    for (const [index, pending] of waiting.entries()) {
      this.decided = batch;
      try {
        const done = this.steps.decide(pending.decide);
        batch.outcomes.push({ pending, ok: true, result: done.result });
        if (done.serialized.length > 0) batch.serialized.push(done.serialized);
      } catch (error) {
        batch.outcomes.push({ pending, ok: false, error });
        if (this.steps.stale()) {
          this.waiting.unshift(...waiting.slice(index + 1));
          break;
        }
      }
    }
    return batch;
  }
}
