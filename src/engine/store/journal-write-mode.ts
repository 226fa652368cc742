/**
 * Whether the next journal line is written synchronously on the event loop or through the
 * thread pool. Both are equally durable (O_DSYNC, or a write then fdatasync): the choice is about
 * cost. On a fast disk a synchronous append of a line returns in about 0.1 ms and costs about
 * 50 us of CPU, where the same append through the thread pool cost 110 us (two thread wake-ups
 * per write, measured on the 2-core VM this project runs on) and its completion is seen only when
 * the event loop gets round to it, a millisecond later under load. So while appends are fast they
 * are made synchronously: `local serve` then writes one line per event-loop turn with every
 * request of the turn on it and answers them at once (users/s +20 %, CPU per user -9 % in
 * interleaved runs). On a slow disk (a rotating or network disk, a busy one) a synchronous write
 * would stall every connection for the whole flush, so once the moving average of synchronous
 * writes passes `maxSyncMs` lines go through the thread pool, and one line every `probeEveryMs`
 * is written synchronously again to see whether the disk is fast again.
 */
export interface JournalWriteTiming {
  /** Synchronous writes while their moving average stays under this (ms). */
  maxSyncMs: number;
  /** In thread-pool mode, one synchronous write this often (ms) to measure the disk again. */
  probeEveryMs: number;
}

export const DEFAULT_JOURNAL_WRITE_TIMING: JournalWriteTiming = { maxSyncMs: 2, probeEveryMs: 2_000 };

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

  /** For tests and diagnostics: the moving average of synchronous writes (ms). */
  get averageSyncMs(): number {
    return this.syncMs;
  }
}
