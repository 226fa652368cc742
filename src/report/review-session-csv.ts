/**
 * Review sessions' results as a table (`review-session show -o csv|xlsx|ndjson`, `-o json` of several):
 * one row per result, the values as sent, written as text, typed cells or JSON values.
 */
import { RESULT_FIELDS, type AnswerValue } from '../domain/answer-fields.js';
import type { ReviewSession } from '../domain/types.js';
import { WITHHELD_PIN } from '../formats/report-csv-contract.js';
import { csvLine, withUtf8Bom, type CsvCell } from '../formats/csv-cell.js';
import { dataForStdout } from '../formats/terminal-text.js';
import type { TextSink } from '../system/text-sink.js';
import {
  calendarDateOf,
  calendarDateText,
  excelDate,
  excelDateTime,
  instantOf,
  instantText,
  plainNumber,
  type OutputTimes,
} from '../report/output-times.js';
import { CellFormat, type CellNote, type SheetCell } from '../report/xlsx-workbook.js';

/** The Results entry's fields in the API text's order (domain answer-fields.ts): the CSV export's first columns. */
export const RESULT_COLUMNS: readonly string[] = Object.keys(RESULT_FIELDS);

/** The column naming the zone of a text file's wall times (docs/cli.md, "review-session show"), after the results'. */
export const TIME_ZONE_COLUMN = 'TimeZone';

/** The API's name of the review session's PIN, as the CSV and workbook column. */
const SESSION_PIN_COLUMN = 'Pin';
/** Several sessions in one table: the session of each row, first; a session that could not be read, in the last. */
const SESSION_COLUMN = 'ReviewSession';
const ERROR_COLUMN = 'Error';

/** The calendar date among the result fields: written as a date, never a midnight instant. */
const DATE_OF_BIRTH = 'DateOfBirth';
/**
 * Result fields that hold an instant: those the API types DateTime, and VisitedDate and LastSatDate (text it
 * describes as dates) when they hold an RFC 3339 instant. Anything else stays as sent.
 */
const INSTANT_COLUMNS: ReadonlySet<string> = new Set([
  ...Object.entries(RESULT_FIELDS)
    .filter(([name, field]) => field.kind === 'date-time' && name !== DATE_OF_BIRTH)
    .map(([name]) => name),
  'VisitedDate',
  'LastSatDate',
]);
const kindOf = (column: string): AnswerValue['kind'] | undefined =>
  (RESULT_FIELDS as Readonly<Record<string, AnswerValue>>)[column]?.kind;

/** One session's outcome: its Content (PIN already withheld unless asked), or why it could not be read. */
export type SessionOutcome =
  | { externalId: string; session: ReviewSession }
  | { externalId: string; error: string; errors?: readonly unknown[] };

/** The results as raw values: the spec's result fields first, then extra fields a server sent, first seen first. */
export interface ResultsTable {
  header: string[];
  rows: unknown[][];
}

/** How the rows are laid out: the header, and what each row adds to its result's own fields. */
type ResultsLayout = ReturnType<ResultColumns['layout']>;

const resultsOf = (outcome: SessionOutcome) => ('session' in outcome ? (outcome.session.Results ?? []) : []);

/** Many sessions' header depends on all (an extra field, a Pin): `add` each, then `layout`; names only. */
export class ResultColumns {
  private readonly known = new Set(RESULT_COLUMNS);
  private readonly columns = [...RESULT_COLUMNS];
  private rowsHavePin = false;
  /** Results added, and sessions that could not be read. */
  results = 0;
  failed = 0;

  add(outcome: SessionOutcome): void {
    if ('error' in outcome) this.failed += 1;
    for (const result of resultsOf(outcome)) {
      this.results += 1;
      this.rowsHavePin ||= Object.hasOwn(result, SESSION_PIN_COLUMN);
      for (const key of Object.keys(result)) {
        if (this.known.has(key)) continue;
        this.known.add(key);
        this.columns.push(key);
      }
    }
  }

  /**
   * `pinColumn` (--show-pin): a last column `Pin`, the session's Pin as sent (empty when it has none); with
   * `sessionColumn`, each row starts with its session's ExternalId and ends with an Error cell.
   */
  layout(options: { pinColumn?: boolean; sessionColumn?: boolean; timeZoneColumn?: string } = {}) {
    const columns = [...this.columns];
    // --show-pin: the session's Pin on every row (what each candidate types), unless the rows carry their own.
    const sessionPin = options.pinColumn === true && !this.rowsHavePin;
    if (sessionPin) columns.push(SESSION_PIN_COLUMN);
    // Wall times (a --date-format's) name no zone: each row says it, unless the results hold a field of that name.
    const zone =
      options.timeZoneColumn !== undefined && !this.known.has(TIME_ZONE_COLUMN) ? options.timeZoneColumn : undefined;
    if (zone !== undefined) columns.push(TIME_ZONE_COLUMN);
    const sessionColumn = options.sessionColumn === true;
    return {
      header: sessionColumn ? [SESSION_COLUMN, ...columns, ERROR_COLUMN] : columns,
      // The result columns: the spec's, the extra ones, then Pin and TimeZone when added.
      columns,
      sessionPin,
      zone,
      sessionColumn,
    };
  }
}

/** One session's rows under `layout`: one per result, or one with its error. */
export function outcomeTable(outcome: SessionOutcome, layout: ResultsLayout): ResultsTable {
  const { columns, sessionColumn } = layout;
  if ('error' in outcome)
    return { header: layout.header, rows: [[outcome.externalId, ...columns.map(() => null), outcome.error]] };
  const rows = resultsOf(outcome).map((result) => {
    const record: Record<string, unknown> = result;
    const value = (column: string): unknown =>
      layout.sessionPin && column === SESSION_PIN_COLUMN
        ? outcome.session.Pin
        : layout.zone !== undefined && column === TIME_ZONE_COLUMN
          ? layout.zone
          : record[column];
    const values = columns.map(value);
    return sessionColumn ? [outcome.externalId, ...values, null] : values;
  });
  return { header: layout.header, rows };
}

export interface TextCellOptions {
  /** `--decimal-separator ,`: a fractional number `87,5`. */
  decimalComma?: boolean;
  /** `--timezone`/`--date-format`: instants in that zone and format; undefined, as sent. */
  times?: OutputTimes | undefined;
}

/** A time or date column's value as text, else undefined; a DateOfBirth is never placed in a zone. */
function timeText(column: string, value: unknown, options: TextCellOptions): string | undefined {
  if (column === DATE_OF_BIRTH) {
    const date = calendarDateOf(value);
    return date === undefined ? undefined : calendarDateText(date, options.times ?? {});
  }
  if (options.times === undefined || !INSTANT_COLUMNS.has(column)) return undefined;
  const instant = instantOf(value);
  return instant === undefined ? undefined : instantText(instant, options.times, 'iso');
}

/** A cell's text; a fractional number takes a comma with `decimalComma` (else Excel reads `87.5` as text or a date). */
function textValue(value: unknown, decimalComma: boolean): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return decimalComma ? String(value).replace('.', ',') : String(value);
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value))
    return value.map((entry) => (typeof entry === 'string' ? entry : textValue(entry, decimalComma))).join('|');
  return JSON.stringify(value);
}

/** The table's cells as text: lists joined with `|` (the CLI's list syntax), null empty. */
export function textRows(table: ResultsTable, options: TextCellOptions = {}): string[][] {
  const decimalComma = options.decimalComma === true;
  return table.rows.map((row) =>
    row.map((value, i) => timeText(table.header[i] as string, value, options) ?? textValue(value, decimalComma)),
  );
}

/** The rows as CSV lines (RFC 4180, CRLF, `--delimiter`), no header; formula-like text neutralised. */
export function csvRows(table: ResultsTable, delimiter = ',', options: TextCellOptions = {}): string {
  return textRows(table, options)
    .map((cells, r) => {
      const values = table.rows[r] as readonly unknown[];
      return csvLine(
        cells.map((text, i): CsvCell => (Number.isFinite(values[i]) ? { number: text } : text)),
        delimiter,
      );
    })
    .join('');
}

/** Each session's table in turn, handed to `write`, as the outcomes come. */
export type EachTable = (write: (table: ResultsTable) => void | Promise<void>) => Promise<void>;

/**
 * The rows as a text file on `stdout`, a session's table at a time: json as `JSON.stringify(rows, null, 2)` writes
 * the array, ndjson one object a line, csv with its header (`--delimiter`, `tab` for a tab; BOM unless `--no-bom`).
 */
export async function writeTextRows(
  format: 'json' | 'ndjson' | 'csv',
  eachTable: EachTable,
  header: string[],
  options: TextCellOptions & { delimiter?: string; bom?: boolean },
  stdout: TextSink,
  stdoutIsTTY: boolean | undefined,
): Promise<void> {
  if (format === 'json') {
    let first = true;
    await eachTable(async (table) => {
      const rows = jsonRows(table, options).map((row) => `  ${JSON.stringify(row, null, 2).replaceAll('\n', '\n  ')}`);
      if (rows.length === 0) return;
      await stdout.write(`${first ? '[\n' : ',\n'}${rows.join(',\n')}`);
      first = false;
    });
    await stdout.write(first ? '[]\n' : '\n]\n');
  } else if (format === 'ndjson')
    await eachTable((table) =>
      stdout.write(
        jsonRows(table, options)
          .map((row) => `${JSON.stringify(row)}\n`)
          .join(''),
      ),
    );
  else {
    const separator = options.delimiter === 'tab' ? '\t' : (options.delimiter ?? ',');
    await stdout.write(dataForStdout(withUtf8Bom(csvLine(header, separator), options.bom !== false), stdoutIsTTY));
    await eachTable((table) => stdout.write(dataForStdout(csvRows(table, separator, options), stdoutIsTTY)));
  }
}

/** A value as a workbook cell: numbers, booleans and times typed (times in `zone`), the rest as its text. */
function sheetValue(column: string, value: unknown, zone: string): SheetCell {
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    if (column === DATE_OF_BIRTH) {
      // A date cell; one with a time of day is no date to type, nor to move into the zone: its text as sent.
      const date = calendarDateOf(value);
      return (date === undefined ? undefined : excelDate(date)) ?? value;
    }
    if (INSTANT_COLUMNS.has(column)) {
      const instant = instantOf(value);
      const typed = instant === undefined ? undefined : excelDateTime(instant, zone);
      if (typed !== undefined) return typed;
      // The hour the clocks go back (or a date Excel has not): the time in the zone, with its offset.
      if (instant !== undefined) return instantText(instant, { zone }, 'iso');
    }
    const kind = kindOf(column);
    // A lenient server's numeric string for a number field, in a number's plain form (`87.5`, not `087.5`).
    if (kind === 'number' || kind === 'integer') return plainNumber(value) ?? value;
  }
  return textValue(value, false);
}

/** How each column is shown: dates by the workbook's formats, numbers and booleans General, the rest text. */
export function sheetFormats(table: ResultsTable): CellFormat[] {
  return table.header.map((column) => {
    if (column === DATE_OF_BIRTH) return CellFormat.date;
    if (INSTANT_COLUMNS.has(column)) return CellFormat.dateTime;
    const kind = kindOf(column);
    return kind === 'number' || kind === 'integer' || kind === 'boolean' ? CellFormat.general : CellFormat.text;
  });
}

/** A note on each time column's header: an Excel date keeps no zone, so it says which zone and where it came from. */
export function timeZoneNotes(table: ResultsTable, zone: string, from: string): CellNote[] {
  const text = `Times in ${zone} (${from}): an Excel date keeps no zone, so the times of this column are wall times there.`;
  return table.header.flatMap((column, i) => (INSTANT_COLUMNS.has(column) ? [{ column: i, text }] : []));
}

/** The table's rows as typed workbook cells, times in `zone` (Excel keeps none). */
export function sheetRows(table: ResultsTable, zone: string): SheetCell[][] {
  return table.rows.map((row) => row.map((value, i) => sheetValue(table.header[i] as string, value, zone)));
}

/** The rows as JSON objects (`-o ndjson`: one a line): values as sent, times as in the CSV, null for none. */
export function jsonRows(table: ResultsTable, options: TextCellOptions = {}): Record<string, unknown>[] {
  return table.rows.map((row) => {
    const object: Record<string, unknown> = {};
    row.forEach((value, i) => {
      const column = table.header[i] as string;
      object[column] = timeText(column, value, options) ?? value ?? null;
    });
    return object;
  });
}

const PIN_KEY = /^pin$/i;

/** A copy of `fields` with each string under a PIN key written as WITHHELD_PIN; the object itself when it has none. */
function pinsWithheld<T extends Record<string, unknown>>(fields: T): T {
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(fields)) {
    if (PIN_KEY.test(key) && typeof fields[key] === 'string') (copy ??= { ...fields })[key] = WITHHELD_PIN;
  }
  return (copy ?? fields) as T;
}

/**
 * The session (domain/review-session.ts) as every renderer gets it, its PINs withheld unless `--show-pin`
 * (docs/cli.md, "Run report"); the local engine and `local serve` return them.
 */
export function withPinWithheld(session: ReviewSession): ReviewSession {
  const results = session.Results ?? [];
  const rows = results.map((entry) => pinsWithheld(entry));
  return rows.some((entry, i) => entry !== results[i])
    ? { ...pinsWithheld(session), Results: rows }
    : pinsWithheld(session);
}
