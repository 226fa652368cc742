/**
 * Counts of the errors of a run by code, for the human summary: after the first 20 errors, a
 * reader of a 50k-row run wants to know what kinds there are (`209 x 12  Email is not a valid
 * address`). Bounded memory: one entry per distinct code (per distinct message for problems the
 * spec leaves unnumbered, up to a cap).
 */
import type { Problem } from '../domain/problem.js';
import { formatCount } from '../formats/number-format.js';
import type { ReportEntry, ReportSink } from './run-report.js';

interface ErrorCodeCount {
  /** null: a problem without a numeric code (e.g. "Scheduler not set"). */
  code: number | null;
  count: number;
  /** The first message seen with this code, as an example. */
  message: string;
  /** How many different messages came under it (values differ: three unknown words are three), up to DISTINCT_KEPT. */
  distinct?: number;
}

/** Different messages counted per entry; past it the count shows as "N or more". */
const DISTINCT_KEPT = 100;

/** Distinct unnumbered messages kept apart; past it they share one "other" entry. */
const UNNUMBERED_KINDS = 50;
const OTHER = 'other problems without a code';

/**
 * An unnumbered message with the values it quotes taken out (numbers, sizes, quoted text, ids in
 * brackets): "answer was too large to read (3 MiB)" and "(4 MiB)" are one cause, counted once.
 */
function causeOf(message: string): string {
  return message.replace(/"[^"]*"|'[^']*'|\[[^\]]*\]|\d+(?:[.,:]\d+)*/g, '#');
}

export class ErrorCodeTally implements ReportSink {
  private readonly counts = new Map<string, ErrorCodeCount>();
  /** Each entry's different messages (bounded: DISTINCT_KEPT). */
  private readonly messages = new Map<ErrorCodeCount, Set<string>>();
  private unnumberedKinds = 0;

  add(problem: Problem): void {
    let key = problem.code === null ? `-${causeOf(problem.message)}` : String(problem.code);
    let entry = this.counts.get(key);
    if (entry === undefined && problem.code === null) {
      if (this.unnumberedKinds >= UNNUMBERED_KINDS) {
        key = `-${OTHER}`;
        entry = this.counts.get(key);
      } else {
        this.unnumberedKinds += 1;
      }
    }
    if (entry === undefined) {
      entry = { code: problem.code, count: 0, message: key === `-${OTHER}` ? OTHER : problem.message };
      this.counts.set(key, entry);
    }
    entry.count += 1;
    if (entry.message === OTHER) return;
    let seen = this.messages.get(entry);
    if (seen === undefined) this.messages.set(entry, (seen = new Set()));
    if (seen.size < DISTINCT_KEPT) seen.add(problem.message);
    if (seen.size > 1) entry.distinct = seen.size;
  }

  item({ item }: ReportEntry): void {
    for (const problem of item.errors) this.add(problem);
  }

  finish(): void {}

  /** Most frequent first; ties by code, unnumbered last. */
  entries(): ErrorCodeCount[] {
    return [...this.counts.values()].sort(
      (a, b) => b.count - a.count || (a.code ?? Number.MAX_SAFE_INTEGER) - (b.code ?? Number.MAX_SAFE_INTEGER) || (a.message < b.message ? -1 : 1),
    );
  }
}

/** `  209 x 12  Email is not a valid address`, codes aligned; `-` for an unnumbered problem. */
export function formatErrorCodeCounts(entries: readonly ErrorCodeCount[]): string[] {
  const labels = entries.map((entry) => `${entry.code ?? '-'} x ${formatCount(entry.count)}`);
  const width = Math.max(0, ...labels.map((label) => label.length));
  return entries.map((entry, index) => `  ${labels[index]!.padEnd(width)}  ${entry.message}${differentMessages(entry)}`);
}

/** Said when one line counts different messages (other values, other words): the example is one of them. */
function differentMessages(entry: ErrorCodeCount): string {
  const distinct = entry.distinct ?? 1;
  if (distinct <= 1) return '';
  return ` (the first of ${distinct >= DISTINCT_KEPT ? `${DISTINCT_KEPT} or more` : formatCount(distinct)} different messages: the report has each)`;
}
