/**
 * A run's journal read whole, every item's history in memory: the reference `scanRun` (which
 * keeps 9 bytes an item and reads lines back) is checked against (run-index.test.ts), and a
 * direct view of the journal for tests. examctl itself reads journals only through scanRun.
 */
import type { ItemRef, OutcomeLine } from '../../src/runs/journal-lines.js';
import {
  readJournal,
  reportItemOf,
  unitsOf,
  unlinedItem,
  type JournalHead,
  type ResumeView,
} from '../../src/runs/read-run.js';
import type { ItemStatus, ReportHeader, ReportItem, ReportSummary } from '../../src/report/run-report.js';

/** A whole run's report as the JSON document carries it. */
interface RunReport extends Pick<ReportHeader, 'command' | 'target' | 'dryRun'> {
  summary: ReportSummary;
  items: ReportItem[];
}

/** What the journal says about one item, over every attempt of the run. */
export interface ItemHistory extends ResumeView {
  /** Times it was recorded as sent. */
  sends: number;
  /** What it was before its latest `sent` line, which an `unsent` line restores. */
  beforeSent?: { inFlight: boolean; maybeApplied: boolean };
}

/** The whole journal in memory, with what planResume and summarize ask of a RunIndex. */
export interface RunRecord extends JournalHead {
  items: Map<number, ItemHistory>;
  readonly journaled: number;
  statuses(): Generator<ItemStatus>;
  keptBelow(below: number): number;
  historyAt(n: number): ResumeView | undefined;
}

/** What an item's report says: its answer, or `skipped` when in flight or answered only transiently. */
function statusOf(history: ResumeView): ItemStatus {
  const outcome: OutcomeLine | undefined = history.outcome;
  return outcome === undefined || history.inFlight || outcome.transient ? 'skipped' : outcome.status;
}

export async function readRun(runsDir: string, id: string): Promise<RunRecord> {
  const items = new Map<number, ItemHistory>();
  const itemOf = (ref: ItemRef): ItemHistory => {
    let history = items.get(ref.n);
    if (history === undefined) {
      history = { ref: { n: ref.n, source: ref.source, id: ref.id }, sends: 0, inFlight: false, maybeApplied: false };
      items.set(ref.n, history);
    }
    return history;
  };
  const { head, handle } = await readJournal(runsDir, id, {
    sent(ref) {
      const history = itemOf(ref);
      history.beforeSent = { inFlight: history.inFlight, maybeApplied: history.maybeApplied };
      history.sends += 1;
      history.inFlight = true;
      history.maybeApplied = true;
      delete history.withdrawn;
    },
    unsent(line) {
      const history = items.get(line.n);
      if (history?.beforeSent !== undefined) {
        history.sends -= 1;
        history.inFlight = history.beforeSent.inFlight;
        history.maybeApplied = history.beforeSent.maybeApplied;
        delete history.beforeSent;
        if (line.reason !== undefined && history.outcome === undefined && !history.inFlight)
          history.withdrawn = line.reason;
      }
    },
    outcome(line) {
      const history = itemOf(line);
      delete history.withdrawn;
      history.outcome = line;
      history.inFlight = false;
      if (!line.transient) history.maybeApplied = false;
    },
    forget(n) {
      items.delete(n);
    },
  });
  await handle.close();
  return {
    ...head,
    items,
    get journaled() {
      return items.size;
    },
    *statuses() {
      for (const history of items.values()) yield statusOf(history);
    },
    keptBelow(below) {
      let kept = 0;
      for (const history of items.values())
        if (history.ref.n < below && !history.inFlight && history.outcome !== undefined && !history.outcome.transient)
          kept += 1;
      return kept;
    },
    historyAt: (n) => items.get(n),
  };
}

/** The journaled items in input order. */
function journaledItems(record: RunRecord): ItemHistory[] {
  return [...record.items.values()].sort((a, b) => a.ref.n - b.ref.n);
}

/** Unchanged units a report counts as ok without listing them (no input to name them). */
function countUnlisted(summary: ReportSummary, count: number): void {
  summary.total += count;
  summary.ok += count;
}

/**
 * The run report rebuilt from the whole record. `units` (the input's items) puts every item in
 * input order and reports those the journal never saw as not sent; without it the report holds
 * the journaled items, and the summary still counts the rest as skipped when the header knows
 * how many there were.
 */
export function rebuildReport(record: RunRecord, units?: Iterable<ItemRef>): RunReport & { run: string } {
  const items: ReportItem[] = [];
  const summary: ReportSummary = { total: 0, ok: 0, partial: 0, failed: 0, skipped: 0 };
  const add = (item: ReportItem): void => {
    items.push(item);
    summary.total += 1;
    summary[item.status] += 1;
  };
  if (units !== undefined) {
    const seen = new Set<number>();
    for (const ref of units) {
      seen.add(ref.n);
      const history = record.items.get(ref.n);
      add(history !== undefined ? reportItemOf(record, history) : unlinedItem(record, ref));
    }
    for (const history of journaledItems(record)) if (!seen.has(history.ref.n)) add(reportItemOf(record, history));
    countUnlisted(
      summary,
      record.unchanged.count - [...seen].filter((n) => record.unchanged.since(n) !== undefined).length,
    );
  } else {
    for (const history of journaledItems(record)) add(reportItemOf(record, history));
    countUnlisted(summary, record.unchanged.count);
    const missing = (unitsOf(record) ?? 0) - record.items.size - record.unchanged.count;
    if (missing > 0) {
      summary.total += missing;
      summary.skipped += missing;
    }
  }
  return {
    command: record.header.command,
    target: record.header.target,
    dryRun: false,
    run: record.id,
    summary,
    items,
  };
}
