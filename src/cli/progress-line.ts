/**
 * Progress for logs (CI, a pipe): without a terminal there is no line to redraw, so a long run
 * prints a plain line now and then instead of spinner frames, e.g.
 * `user sync: 12,000/50,000 ok 11,990 failed 10, 2,400/s, ETA 16 s`. Nothing for the first
 * ~10 s (short runs stay quiet), then one line every ~10 s. Numbers are written by
 * src/report/number-format.ts, as the run summary writes them.
 */
import { formatCount, formatDuration, formatRate } from '../report/number-format.js';
import type { ItemStatus } from '../report/run-report.js';
import type { Progress, ProgressCounts } from './progress.js';

export { formatCount, formatDuration, formatRate } from '../report/number-format.js';

export interface ProgressLineContext {
  /** Records expected; without it (a sittings file) the line has no ETA. */
  total?: number | undefined;
  /** What runs, e.g. `user sync`; written before the counts. */
  label?: string | undefined;
  elapsedMs: number;
}

/** The plain line: `[label: ]done/total ok N [partial N] failed N [skipped N], rate/s[, ETA t]`. */
export function plainProgressLine(counts: ProgressCounts, context: ProgressLineContext): string {
  const { total } = context;
  const hasTotal = total !== undefined && total > 0;
  const seconds = context.elapsedMs / 1000;
  const rate = seconds > 0 ? counts.done / seconds : 0;
  const tallies = [`ok ${formatCount(counts.ok)}`];
  if (counts.partial > 0) tallies.push(`partial ${formatCount(counts.partial)}`);
  tallies.push(`failed ${formatCount(counts.failed)}`);
  if (counts.skipped > 0) tallies.push(`skipped ${formatCount(counts.skipped)}`);
  const done = hasTotal ? `${formatCount(counts.done)}/${formatCount(total)}` : `${formatCount(counts.done)} done`;
  let line = `${done} ${tallies.join(' ')}, ${formatRate(rate)}`;
  if (hasTotal) line += `, ETA ${rate > 0 ? formatDuration(Math.max(0, total - counts.done) / rate) : 'unknown'}`;
  return context.label ? `${context.label}: ${line}` : line;
}

/** The timer functions the ticker uses; tests pass their own and call `poll` with a fake clock. */
export interface IntervalTimers {
  setInterval(callback: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

export interface PlainProgressOptions {
  /** Receives each line, newline included (stderr in the CLI). */
  write: (line: string) => void;
  total?: number | undefined;
  label?: string | undefined;
  /** Milliseconds since an arbitrary origin; default Date.now. */
  now?: () => number;
  /** Quiet for this long (default 10 s). */
  firstAfterMs?: number;
  /** Then a line at most this often (default 10 s). */
  everyMs?: number;
  timers?: IntervalTimers;
}

/** How often the ticker looks at the clock: the lines come within a second of their due time. */
const POLL_MS = 1000;
const DEFAULT_EVERY_MS = 10_000;

const REAL_TIMERS: IntervalTimers = {
  setInterval(callback, ms) {
    const handle = setInterval(callback, ms);
    // A forgotten stop() must never keep the process alive.
    handle.unref();
    return handle;
  },
  clearInterval(handle) {
    clearInterval(handle as NodeJS.Timeout);
  },
};

/**
 * Counts outcomes and writes the plain line when due. Driven by a timer rather than by ticks, so
 * a run stalled on a slow server still shows it is alive (the rate then falls and the ETA grows).
 */
export class PlainProgressTicker implements Progress {
  private readonly counts: ProgressCounts = { done: 0, ok: 0, failed: 0, partial: 0, skipped: 0 };
  private readonly now: () => number;
  private readonly startedAt: number;
  private readonly firstAfterMs: number;
  private readonly everyMs: number;
  private readonly timers: IntervalTimers;
  private readonly handle: unknown;
  private lastWrittenAt: number | undefined;
  private stopped = false;

  constructor(private readonly options: PlainProgressOptions) {
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
    this.firstAfterMs = options.firstAfterMs ?? DEFAULT_EVERY_MS;
    this.everyMs = options.everyMs ?? DEFAULT_EVERY_MS;
    this.timers = options.timers ?? REAL_TIMERS;
    this.handle = this.timers.setInterval(() => this.poll(), POLL_MS);
  }

  tick(outcome: ItemStatus): void {
    this.counts.done += 1;
    this.counts[outcome] += 1;
  }

  /** Writes the line if one is due; returns whether it did. */
  poll(): boolean {
    if (this.stopped) return false;
    const at = this.now();
    if (at - this.startedAt < this.firstAfterMs) return false;
    if (this.lastWrittenAt !== undefined && at - this.lastWrittenAt < this.everyMs) return false;
    this.lastWrittenAt = at;
    const line = plainProgressLine(this.counts, { total: this.options.total, label: this.options.label, elapsedMs: at - this.startedAt });
    // A courtesy for the log reader: a failing write must never fail the run.
    try {
      this.options.write(`${line}\n`);
    } catch {
      // ignored on purpose (see above)
    }
    return true;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.timers.clearInterval(this.handle);
  }
}
