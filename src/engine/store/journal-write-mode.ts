/**
 * Whether the next journal line is written synchronously on the event loop or through the thread
 * pool: equally durable, so the choice is about cost (docs/store.md, "Synchronous appends on a
 * fast disk"; the figures in bench/README.md, "serve").
 */
export interface JournalWriteTiming {
  /** Synchronous writes while their moving average stays under this (ms). */
  maxSyncMs: number;
  /** In thread-pool mode, one synchronous write this often (ms) to measure the disk again. */
  probeEveryMs: number;
}

const DEFAULT_JOURNAL_WRITE_TIMING: JournalWriteTiming = { maxSyncMs: 2, probeEveryMs: 2_000 };

/** Weight of the newest synchronous write in the moving average. */
const SYNC_TIME_WEIGHT = 0.1;

export class JournalWriteMode {
  /** Moving average of synchronous write times (ms); 0 before the first, so the first is synchronous. */
  private syncMs = 0;
  private lastSyncAt = -Infinity;

  constructor(
    private readonly timing: JournalWriteTiming = DEFAULT_JOURNAL_WRITE_TIMING,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Whether the next line is written synchronously. */
  syncNext(): boolean {
    return this.syncMs < this.timing.maxSyncMs || this.now() - this.lastSyncAt >= this.timing.probeEveryMs;
  }

  /** A synchronous write took `ms`. */
  recordSync(ms: number): void {
    this.lastSyncAt = this.now();
    // A probe is a fresh look at the disk: it alone says whether the disk is fast again.
    const probing = this.syncMs >= this.timing.maxSyncMs;
    this.syncMs = probing ? ms : this.syncMs + SYNC_TIME_WEIGHT * (ms - this.syncMs);
  }
}
