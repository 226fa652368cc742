/**
 * A `--report x.xlsx` that a sheet could not hold is refused before anything is sent, exit 2
 * (docs/input-formats.md, "Never past Excel's limits"). A dry run reads its input once: its rows
 * are counted as they come, and a report past the last row is a report that cannot be written.
 */
import { UsageError } from '../system/errors.js';
import type { InputRecord } from '../input/record.js';
import { reportFormatOf } from '../report/report-file.js';
import { ColumnModes, keptHeader } from '../report/report-writers.js';
import { formatCount } from '../formats/number-format.js';
import type { RunOptions } from './record-job.js';

/**
 * The first record's header (a CSV or .xlsx input; none for JSON, whose report has six columns)
 * checked against the sheet's columns, then a real run's record count (`total`, its structure
 * pass) against its rows, the header's included.
 */
export async function checkReportFits(records: () => AsyncIterable<InputRecord>, total: number | undefined, options: RunOptions): Promise<void> {
  const report = options.report;
  if (report === undefined || reportFormatOf(report) !== 'xlsx') return;
  let header: readonly string[] | undefined;
  for await (const record of records()) {
    header = record.raw?.header;
    break;
  }
  const [{ reportColumnCount }, { MAX_SHEET_COLUMNS, MAX_SHEET_ROWS }] = await Promise.all([import('../report/xlsx-report-writer.js'), import('../report/xlsx-workbook.js')]);
  const kept = header === undefined ? 0 : keptHeader(header, new ColumnModes().of(header)).length;
  const columns = reportColumnCount(kept);
  if (header !== undefined && columns > MAX_SHEET_COLUMNS) {
    throw new UsageError(
      `--report ${report}: the report would have ${formatCount(columns)} columns (the input's ${formatCount(kept)}, then status, error_codes, error_messages, action, note, run, warnings), ` +
        `more than a sheet holds (${formatCount(MAX_SHEET_COLUMNS)}, A to XFD); nothing was sent: write the report as .csv or .json`,
    );
  }
  if (total === undefined || total + 1 <= MAX_SHEET_ROWS) return;
  throw new UsageError(
    `--report ${report}: the report would have ${formatCount(total + 1)} rows (a header and ${formatCount(total)} records), ` +
      `more than a sheet holds (${formatCount(MAX_SHEET_ROWS)}); nothing was sent: write the report as .csv or .json`,
  );
}
