/**
 * A run's progress on stderr in its two forms, a spinner line (ora, never loaded when disabled)
 * and a plain line elsewhere (docs/human.md, "Progress"); `createRunProgress` picks the form.
 */
import { isCiEnvironment } from './prompt-state.js';
import type { Ora } from 'ora';
import { formatCount, formatDuration, formatRate } from '../formats/number-format.js';
import type { ItemStatus } from '../report/run-report.js';
import type { Env } from '../system/env-values.js';

export interface Progress {
  tick(outcome: ItemStatus): void;
  /** Removes the line; safe to call more than once, and before the line ever appeared. */
  stop(): void;
}

interface ProgressOptions extends Omit<ProgressLineContext, 'elapsedMs'> {
  stream: NodeJS.WritableStream;
  /** How long a run must last before the line appears (ms). */
  delayMs?: number;
  /** False: the spinner has no colour (table-format.ts, colorEnabled: NO_COLOR, FORCE_COLOR=0). Default true. */
  color?: boolean;
}

const DEFAULT_DELAY_MS = 1000;
/** Redraw period: 100 ms is the "at most 10 updates per second" bound. */
const REDRAW_MS = 100;

/** True when the run should show progress: stderr is a terminal (not a dumb one), no --json, not CI. */
export function progressEnabled(options: { isTTY: boolean | undefined; json: boolean; env: Env }): boolean {
  // A dumb terminal has no cursor controls to redraw a line with: it gets the plain periodic line.
  return options.isTTY === true && !options.json && !isCiEnvironment(options.env) && options.env.TERM !== 'dumb';
}

type ProgressCounts = Record<ItemStatus, number> & { done: number };

const NO_PROGRESS: Progress = { tick() {}, stop() {} };

/** ora needs cursor controls and divides by the width: a stream without them, or of 0 columns, gets none. */
function isDrawableTerminal(stream: NodeJS.WritableStream): boolean {
  const terminal = stream as { cursorTo?: unknown; clearLine?: unknown; columns?: unknown };
  if (typeof terminal.cursorTo !== 'function' || typeof terminal.clearLine !== 'function') return false;
  return terminal.columns === undefined || (typeof terminal.columns === 'number' && terminal.columns > 0);
}

/** The spinner line, none where it cannot be drawn; Date.now and setTimeout are its clock (tests fake them). */
export function createProgress(options: ProgressOptions): Progress {
  if (!isDrawableTerminal(options.stream)) return NO_PROGRESS;
  return new SpinnerProgress(options);
}

/** What both progress lines count, and since when. */
abstract class CountedProgress {
  protected readonly counts: ProgressCounts = { done: 0, ok: 0, failed: 0, partial: 0, skipped: 0 };
  protected readonly startedAt = Date.now();

  tick(outcome: ItemStatus): void {
    // Counting only: the text is built by the redraw timer, so 500k ticks cost 500k increments.
    this.counts.done += 1;
    this.counts[outcome] += 1;
  }
}

class SpinnerProgress extends CountedProgress {
  private spinner: Ora | undefined;
  private showTimer: NodeJS.Timeout | undefined;
  private redrawTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: ProgressOptions) {
    super();
    this.showTimer = setTimeout(() => {
      // The line is a courtesy: a failure to draw it must never fail the run.
      this.show().catch(() => undefined);
    }, options.delayMs ?? DEFAULT_DELAY_MS);
    // A forgotten stop() must never keep the process alive.
    this.showTimer.unref();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.showTimer !== undefined) clearTimeout(this.showTimer);
    if (this.redrawTimer !== undefined) clearInterval(this.redrawTimer);
    this.spinner?.stop();
    this.spinner = undefined;
  }

  private async show(): Promise<void> {
    this.showTimer = undefined;
    const { default: ora } = await import('ora');
    if (this.stopped) return;
    this.spinner = ora({
      stream: this.options.stream,
      text: this.text(),
      // Enabled was decided by the caller (TTY, --json, CI); ora must not second-guess it.
      isEnabled: true,
      // stdin may be the input file (`--file -`); ora must not switch it to raw mode.
      discardStdin: false,
      interval: REDRAW_MS,
      ...(this.options.color === false ? { color: false as const } : {}),
    }).start();
    this.redrawTimer = setInterval(() => {
      if (this.spinner !== undefined) this.spinner.text = this.text();
    }, REDRAW_MS);
    this.redrawTimer.unref();
  }

  private text(): string {
    const text = progressText(this.counts, { ...this.options, elapsedMs: Date.now() - this.startedAt });
    // One line only: a wrapped line would leave copies behind; room is kept for the spinner frame.
    const columns = (this.options.stream as { columns?: unknown }).columns;
    const room = (typeof columns === 'number' && columns > 0 ? columns : 80) - 3;
    return text.length > room ? text.slice(0, Math.max(0, room)) : text;
  }
}

/** The spinner line's text, e.g. `users 1,200/5,000 (24%) · ok 1,190 · failed 10 · 830/s · ETA 5 s`. */
export function progressText(counts: ProgressCounts, context: ProgressLineContext): string {
  const { done, percent, tally, rate, eta } = progressFacts(counts, context);
  const head = context.label ? `${context.label} ${done}${percent}` : `${done}${percent}`;
  return [head, ...tally('ok'), ...tally('failed'), ...tally('partial'), ...tally('skipped'), rate, ...eta].join(' · ');
}

/** What both forms say: done (of the total), a tally (ok and failed always, others when any), the rate, an ETA. */
function progressFacts(counts: ProgressCounts, { total, elapsedMs }: ProgressLineContext) {
  const rate = elapsedMs > 0 ? counts.done / (elapsedMs / 1000) : 0;
  const known = total !== undefined && total > 0;
  const tally = (name: ItemStatus): string[] =>
    counts[name] > 0 || name === 'ok' || name === 'failed' ? [`${name} ${formatCount(counts[name])}`] : [];
  const eta = rate > 0 && known ? formatDuration(Math.max(0, total - counts.done) / rate) : 'unknown';
  return {
    done: known ? `${formatCount(counts.done)}/${formatCount(total)}` : `${formatCount(counts.done)} done`,
    percent: known ? ` (${Math.floor((counts.done / total) * 100)}%)` : '',
    tally,
    rate: formatRate(rate),
    eta: known ? [`ETA ${eta}`] : [],
  };
}

interface ProgressLineContext {
  /** Records expected; without it (a sittings file) the line has no percentage and no ETA. */
  total?: number | undefined;
  /** What runs, e.g. `user sync`; written before the counts. */
  label?: string | undefined;
  elapsedMs: number;
}

/** The plain line: `[label: ]done/total ok N [partial N] failed N [skipped N], rate/s[, ETA t]`. */
export function plainProgressLine(counts: ProgressCounts, context: ProgressLineContext): string {
  const { done, tally, rate, eta } = progressFacts(counts, context);
  const text = [
    `${done} ${[...tally('ok'), ...tally('partial'), ...tally('failed'), ...tally('skipped')].join(' ')}`,
    rate,
    ...eta,
  ].join(', ');
  return context.label ? `${context.label}: ${text}` : text;
}

interface PlainProgressOptions extends Omit<ProgressLineContext, 'elapsedMs'> {
  /** Receives each line, newline included (stderr in the CLI). */
  write: (line: string) => void;
}

/** How often the plain line is written, the first time after as long: a short run stays quiet. */
const PLAIN_PROGRESS_EVERY_MS = 10_000;

/** Counts outcomes and writes the plain line every 10 s, by a timer: a stalled run still shows it is alive. */
export class PlainProgressTicker extends CountedProgress {
  private readonly handle = setInterval(() => this.write(), PLAIN_PROGRESS_EVERY_MS);
  private stopped = false;

  constructor(private readonly options: PlainProgressOptions) {
    super();
    // A forgotten stop() must never keep the process alive.
    this.handle.unref();
  }

  write(): void {
    if (this.stopped) return;
    const line = plainProgressLine(this.counts, { ...this.options, elapsedMs: Date.now() - this.startedAt });
    // A courtesy for the log reader: a failing write must never fail the run.
    try {
      this.options.write(`${line}\n`);
    } catch {}
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.handle);
  }
}

interface RunProgressOptions
  extends Pick<PlainProgressOptions, 'write' | 'total' | 'label'>,
    Pick<ProgressOptions, 'stream' | 'color'> {
  /** Whether the spinner may be drawn (progressEnabled: a terminal, no --json, not CI). */
  terminal: boolean;
}

/** A run's progress: the spinner on a terminal, the periodic plain line elsewhere. */
export function createRunProgress(options: RunProgressOptions): Progress {
  return options.terminal ? createProgress(options) : new PlainProgressTicker(options);
}
