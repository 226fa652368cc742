/**
 * A progress line on stderr for long runs: done/total, ok/failed, rate and ETA.
 * It appears only after a delay (short runs never flicker) and redraws at most 10 times a second.
 * When disabled it writes nothing at all and never loads ora.
 */
import type { Ora } from 'ora';
import type { ItemStatus } from '../report/run-report.js';

export interface Progress {
  tick(outcome: ItemStatus): void;
  /** Removes the line; safe to call more than once, and before the line ever appeared. */
  stop(): void;
}

export interface ProgressOptions {
  /** Number of records expected; without it the line shows no percentage and no ETA. */
  total?: number;
  enabled: boolean;
  stream: NodeJS.WritableStream;
  /** What is counted, e.g. "users"; shown before the counts. */
  label?: string;
  /** How long a run must last before the line appears (ms). */
  delayMs?: number;
  /** Injected clock (ms) so the text can be tested without waiting. */
  now?: () => number;
  /** False: the spinner is drawn without colour (NO_COLOR). Default true. */
  color?: boolean;
}

const DEFAULT_DELAY_MS = 1000;
/** Redraw period: 100 ms is the "at most 10 updates per second" bound. */
const REDRAW_MS = 100;

/** True when the run should show progress: stderr is a terminal (not a dumb one), no --json, not CI. */
export function progressEnabled(options: {
  isTTY: boolean | undefined;
  json: boolean;
  env: Readonly<Record<string, string | undefined>>;
}): boolean {
  // A dumb terminal has no cursor controls to redraw a line with: it gets the plain periodic line.
  return options.isTTY === true && !options.json && !isCiEnvironment(options.env) && options.env.TERM !== 'dumb';
}

/** NO_COLOR (any non-empty value, no-color.org): the spinner is drawn without colour. */
export function progressColor(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.NO_COLOR === undefined || env.NO_COLOR === '';
}

/** CI=true (and the other usual truthy spellings). CI=false or CI=0 is not CI. */
export function isCiEnvironment(env: Readonly<Record<string, string | undefined>>): boolean {
  const value = env.CI;
  if (value === undefined) return false;
  const normalised = value.trim().toLowerCase();
  return normalised !== '' && normalised !== 'false' && normalised !== '0' && normalised !== 'no';
}

export interface ProgressCounts {
  done: number;
  ok: number;
  failed: number;
  partial: number;
  skipped: number;
}

const NO_PROGRESS: Progress = { tick() {}, stop() {} };

/**
 * ora redraws with the terminal's cursor controls and divides by its width. A stream without the
 * controls is no terminal; a pseudo-terminal reporting 0 columns (`script`, some containers)
 * would make ora erase an infinite number of lines, so both get no progress line.
 */
function isDrawableTerminal(stream: NodeJS.WritableStream): boolean {
  const terminal = stream as { cursorTo?: unknown; clearLine?: unknown; columns?: unknown };
  if (typeof terminal.cursorTo !== 'function' || typeof terminal.clearLine !== 'function') return false;
  return terminal.columns === undefined || (typeof terminal.columns === 'number' && terminal.columns > 0);
}

function terminalWidth(stream: NodeJS.WritableStream): number {
  const columns = (stream as { columns?: unknown }).columns;
  return typeof columns === 'number' && columns > 0 ? columns : 80;
}

export function createProgress(options: ProgressOptions): Progress {
  if (!options.enabled || !isDrawableTerminal(options.stream)) return NO_PROGRESS;
  return new SpinnerProgress(options);
}

class SpinnerProgress implements Progress {
  private readonly counts: ProgressCounts = { done: 0, ok: 0, failed: 0, partial: 0, skipped: 0 };
  private readonly now: () => number;
  private readonly startedAt: number;
  private spinner: Ora | undefined;
  private showTimer: NodeJS.Timeout | undefined;
  private redrawTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: ProgressOptions) {
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
    this.showTimer = setTimeout(() => {
      // The line is a courtesy: a failure to draw it must never fail the run.
      this.show().catch(() => undefined);
    }, options.delayMs ?? DEFAULT_DELAY_MS);
    // A forgotten stop() must never keep the process alive.
    this.showTimer.unref();
  }

  tick(outcome: ItemStatus): void {
    // Counting only: the text is built by the redraw timer, so 500k ticks cost 500k increments.
    this.counts.done += 1;
    this.counts[outcome] += 1;
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
    const text = progressText(this.counts, { total: this.options.total, label: this.options.label, elapsedMs: this.now() - this.startedAt });
    // One line only: a wrapped line would leave copies behind on narrow terminals. Room is kept
    // for the spinner frame and its space.
    const room = terminalWidth(this.options.stream) - 3;
    return text.length > room ? text.slice(0, Math.max(0, room)) : text;
  }
}

/** The progress line's text, e.g. `users 1,200/5,000 (24%) · ok 1,190 · failed 10 · 830/s · ETA 5s`. */
export function progressText(
  counts: ProgressCounts,
  context: { total?: number | undefined; label?: string | undefined; elapsedMs: number },
): string {
  const { total, label } = context;
  const seconds = context.elapsedMs / 1000;
  const rate = seconds > 0 ? counts.done / seconds : 0;
  const hasTotal = total !== undefined && total > 0;
  const parts: string[] = [];
  let done = hasTotal ? `${count(counts.done)}/${count(total)} (${Math.floor((counts.done / total) * 100)}%)` : `${count(counts.done)} done`;
  if (label !== undefined && label !== '') done = `${label} ${done}`;
  parts.push(done, `ok ${count(counts.ok)}`, `failed ${count(counts.failed)}`);
  if (counts.partial > 0) parts.push(`partial ${count(counts.partial)}`);
  if (counts.skipped > 0) parts.push(`skipped ${count(counts.skipped)}`);
  parts.push(`${count(Math.round(rate))}/s`);
  if (hasTotal) parts.push(`ETA ${rate > 0 ? duration(Math.max(0, total - counts.done) / rate) : '?'}`);
  return parts.join(' · ');
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}

function duration(totalSeconds: number): string {
  const seconds = Math.ceil(totalSeconds);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}
