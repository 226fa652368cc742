/** The counts of a run as a small table for the human summary on stderr. */
import Table from 'cli-table3';
import type { ReportSummary } from '../report/run-report.js';
import { formatCount } from '../formats/number-format.js';
import { head, paint, tableOptions } from './table-format.js';

interface RunSummaryTableOptions {
  color?: boolean;
  /** In a dry run nothing was sent: `ok` means "valid" and is labelled so. */
  dryRun?: boolean;
  /** The terminal's width: below NARROW the counts stand one per row instead of side by side. */
  width?: number | undefined;
}

/** Side by side, five counts of a large run need about this many columns. */
const NARROW = 60;

export function renderRunSummaryTable(summary: ReportSummary, options: RunSummaryTableOptions = {}): string {
  const color = options.color === true;
  const okLabel = options.dryRun === true ? 'valid' : 'ok';
  const failedLabel = options.dryRun === true ? 'invalid' : 'failed';
  const labels = ['total', okLabel, 'partial', failedLabel, 'skipped'];
  const cells = [
    formatCount(summary.total),
    paint(formatCount(summary.ok), 'green', color && summary.ok > 0),
    paint(formatCount(summary.partial), 'yellow', color && summary.partial > 0),
    paint(formatCount(summary.failed), 'red', color && summary.failed > 0),
    paint(formatCount(summary.skipped), 'gray', color && summary.skipped > 0),
  ];
  if (options.width !== undefined && options.width < NARROW) {
    const narrow = new Table(tableOptions({ colAligns: ['left', 'right'] }));
    labels.forEach((label, index) => narrow.push([head([label], color)[0] as string, cells[index] as string]));
    return `${narrow.toString()}\n`;
  }
  const table = new Table(
    tableOptions({
      head: head(labels, color),
      colAligns: ['right', 'right', 'right', 'right', 'right'],
    }),
  );
  table.push(cells);
  return `${table.toString()}\n`;
}
