/** The counts of a run as a small table for the human summary on stderr. */
import Table from 'cli-table3';
import type { ReportSummary } from '../report/run-report.js';
import { head, paint, tableOptions } from './table-format.js';

export interface RunSummaryTableOptions {
  color?: boolean;
  /** In a dry run nothing was sent: `ok` means "valid" and is labelled so. */
  dryRun?: boolean;
}

export function renderRunSummaryTable(summary: ReportSummary, options: RunSummaryTableOptions = {}): string {
  const color = options.color === true;
  const okLabel = options.dryRun === true ? 'valid' : 'ok';
  const failedLabel = options.dryRun === true ? 'invalid' : 'failed';
  const table = new Table(
    tableOptions({
      head: head(['total', okLabel, 'partial', failedLabel, 'skipped'], color),
      colAligns: ['right', 'right', 'right', 'right', 'right'],
    }),
  );
  table.push([
    String(summary.total),
    paint(String(summary.ok), 'green', color && summary.ok > 0),
    paint(String(summary.partial), 'yellow', color && summary.partial > 0),
    paint(String(summary.failed), 'red', color && summary.failed > 0),
    paint(String(summary.skipped), 'gray', color && summary.skipped > 0),
  ]);
  return `${table.toString()}\n`;
}
