/**
 * The run report CSV as its writer and its readers (the CSV reader, --only-failed, id lists) must
 * see it (docs/cli-contract.md, "Run report"). Pure.
 */
import { UsageError } from '../system/errors.js';
import { normalizeColumnName } from '../domain/field-names.js';
import { isRunId } from '../domain/record-id.js';

/** Columns a run report adds after the input's own (or after FILE_COLUMNS for input that was not CSV). */
export const REPORT_COLUMNS = ['status', 'error_codes', 'error_messages'] as const;

/** What each item became and why (docs/cli.md, "Created and updated"), after REPORT_COLUMNS; fed back, dropped. */
const ACTION_COLUMNS = ['action', 'note'] as const;

/** The run an item's row came from (docs/cli.md, "Run report"), for a report fed back the run it names; dropped. */
const RUN_COLUMN = 'run';

/** Every column a CSV report writes after the input's own: REPORT_COLUMNS, ACTION_COLUMNS, RUN_COLUMN. */
export const WRITTEN_COLUMNS = [...REPORT_COLUMNS, ...ACTION_COLUMNS, RUN_COLUMN] as const;

/** Where an item came from, for a report of input that was not CSV (JSON, flags, arguments). */
export const SOURCE_COLUMNS = ['file', 'line', 'id'] as const;

/** Why a report of JSON, flags or arguments (SOURCE_COLUMNS first) is no input; undefined for another header. */
export function sourceReportProblem(header: readonly string[]): string | undefined {
  if (!isRunReportHeader(header) || SOURCE_COLUMNS.some((name, at) => normalizeColumnName(header[at] ?? '') !== name))
    return undefined;
  return (
    'the report of JSON, flags or arguments (file, line, id) names items, not their fields: ' +
    'give the file its file column names again, fixed (collection add: with --existing ok; schedule push: --upsert)'
  );
}

/** After SOURCE_COLUMNS in an `invigilators remove` report: the schedule the ids left (checked by --only-failed). */
export const SCHEDULE_COLUMN = 'schedule';

/** An item's doubtful values, after ACTION_COLUMNS, in an .xlsx report only (scripts parse a CSV's columns). */
export const WARNINGS_COLUMN = 'warnings';

const REPORT_KEYS: ReadonlySet<string> = new Set(REPORT_COLUMNS.map(normalizeColumnName));
const ADDED_KEYS: ReadonlySet<string> = new Set([...WRITTEN_COLUMNS, WARNINGS_COLUMN].map(normalizeColumnName));
const STATUS_KEY = normalizeColumnName('status');
const RUN_KEY = normalizeColumnName(RUN_COLUMN);
const runColumns = new WeakMap<readonly string[], number>();

/** The run a row fed back is of: its last `run` column's run id, wherever it is (docs/cli.md, "Run report"). */
export function reportRunOf(row: { header: readonly string[]; cells: readonly string[] }): string | undefined {
  let at = runColumns.get(row.header);
  if (at === undefined) {
    at = row.header.findLastIndex((name) => normalizeColumnName(name) === RUN_KEY);
    runColumns.set(row.header, at);
  }
  // A file's own header has no run column: no cell to read (an array read at -1 is a slow property lookup, per row).
  if (at < 0) return undefined;
  const cell = row.cells[at]?.trim() ?? '';
  return isRunId(cell) ? cell : undefined;
}

/** The columns a report added: in a run report only, the last of each name; fed back, they are not read. */
export function addedColumnsOf(header: readonly string[]): boolean[] {
  const keys = header.map(normalizeColumnName);
  // After the report's (last) status column: an export's own before it are the input's (an older report has no run).
  const from = isRunReportHeader(header) ? keys.lastIndexOf(STATUS_KEY) : keys.length;
  return keys.map((key, at) => at >= from && ADDED_KEYS.has(key) && !keys.includes(key, at + 1));
}

/** A name a report adds: an export's own unmapped column so named is passed over, not refused (kept in its report). */
export function isReportColumnName(name: string): boolean {
  return ADDED_KEYS.has(normalizeColumnName(name));
}

/** A run report by examctl: its header has status and error_codes or error_messages (one may have been deleted). */
export function isRunReportHeader(header: readonly string[]): boolean {
  const keys = new Set(header.map(normalizeColumnName));
  return keys.has(STATUS_KEY) && [...REPORT_KEYS].filter((key) => keys.has(key)).length >= 2;
}

/** The index of the (last) `status` column, or -1. */
export function statusColumnOf(header: readonly string[]): number {
  return header.findLastIndex((name) => normalizeColumnName(name) === STATUS_KEY);
}

/** A status cell that says the item needs no more work (`ok`, any case, spaces around). */
export function isOkStatus(cell: string | undefined): boolean {
  return cell !== undefined && cell.trim().toLowerCase() === 'ok';
}

/** A dry run's report says `valid` or `invalid`, never `ok` (docs/cli.md, "A dry run's report"). */
const DRY_RUN_STATUS: Readonly<Record<string, string>> = { ok: 'valid', failed: 'invalid' };

const DRY_RUN_CELLS: ReadonlySet<string> = new Set(Object.values(DRY_RUN_STATUS));

/** An item in doubt's status cell (ReportItem.inDoubt): --only-failed refuses it. */
export const IN_DOUBT = 'unknown';

/** The status cell of a report row: the item's status, or for a dry run its DRY_RUN_STATUS word. */
export function statusCell({ status, dryRun, inDoubt }: { status: string; dryRun?: true; inDoubt?: true }): string {
  return inDoubt ? IN_DOUBT : dryRun === true ? (DRY_RUN_STATUS[status] ?? status) : status;
}

/** A status cell written by a dry run (any case, spaces around). */
export function isDryRunStatus(cell: string | undefined): boolean {
  return cell !== undefined && DRY_RUN_CELLS.has(cell.trim().toLowerCase());
}

/** --only-failed on a dry run's report: its valid rows were never sent, so leaving them out would drop them. */
export function dryRunReportRefused(file: string, line: number, command: string): UsageError {
  // The way on is the admin's own command less one flag: rebuilt here it would drop their other flags (--map-file...).
  return new UsageError(
    `${file}:${line}: this is a dry run's report (its status column says valid/invalid): nothing in it was sent, so --only-failed would leave out ` +
      `the valid rows; nothing was sent. Without --only-failed every row is sent (the report's columns are ignored): give the same ${command} command again without --only-failed`,
  );
}

/** The usage error for --only-failed on a file that is not a run report (CSV or xlsx). */
export function notARunReport(why: string): UsageError {
  return new UsageError(`--only-failed needs a run report CSV or .xlsx (written by --report x.csv or x.xlsx): ${why}`);
}

/** --only-failed on a file without a status column: the original file picked by mistake would re-send everything. */
export function noStatusColumn(file: string): UsageError {
  return notARunReport(`no status column in ${file}`);
}

/** What a report and `review-session show` write for a PIN; never a valid one (docs/cli.md, "Run report"). */
export const WITHHELD_PIN = 'withheld';

/** The column a report writes WITHHELD_PIN in, and a report fed back gives its PIN in (normalizeColumnName's). */
export const PIN_KEY = normalizeColumnName('PIN');

/** A PIN cell holding the marker (any case, spaces around: a spreadsheet may respell it). */
export function isWithheldPin(value: unknown): boolean {
  return typeof value === 'string' && value.trim().toLowerCase() === WITHHELD_PIN;
}

const FORMULA_START = /^'*[=+\-@\t\r]/;

/**
 * A cell starting with = + - @ tab or CR gets a leading single quote so a spreadsheet shows it as text; one
 * already starting with quotes before such a character gets one more, so every value comes back exactly.
 */
export function neutraliseCell(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

const NEUTRALISED = /^'+[=+\-@\t\r]/;

/** A run report fed back loses the one `'` `neutraliseCell` added, in place, so the retry sends the original value. */
export function restoreNeutralisedCells(cells: string[]): void {
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i] as string;
    if (cell.charCodeAt(0) === 0x27 && NEUTRALISED.test(cell)) cells[i] = cell.slice(1).trim();
  }
}
