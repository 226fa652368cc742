import { StringDecoder } from 'node:string_decoder';
import { InputFileError } from '../errors.js';
import { batchedRecords, type BatchedRecords } from './batches.js';
import type { ColumnSpec, InputRecord } from './record.js';
import { CsvTokenizer, MAX_RECORD_CHARS, type CsvSyntaxCode } from './csv-tokenizer.js';
import { readUtf8Chunks } from './text-source.js';
import { normalizeColumnName } from './column-name.js';
import { isOkStatus, isReportColumn, isRunReportHeader, restoreNeutralisedCells, statusColumnOf } from '../report/report-csv-contract.js';
import { closestColumn } from './column-suggestion.js';

export interface CsvReadOptions {
  columns: readonly ColumnSpec[];
  /** Skip columns no ColumnSpec matches instead of refusing the file. */
  ignoreUnknownColumns?: boolean;
  /** The file name used in messages and SourceRef (default: the path as given). */
  displayName?: string;
}

export { normalizeColumnName };

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;
const COMMA = 0x2c;
const SEMICOLON = 0x3b;
const TAB = 0x09;

interface DelimiterChoice {
  delimiter: string;
  /** Bytes to drop before parsing (an Excel `sep=;` line). */
  skipBytes: number;
  /** Lines dropped with them. */
  skipLines: number;
}

/**
 * Picks `,`, `;` or a tab by counting them outside quotes on the first non-blank line (the
 * header); the tab is for Excel's "Unicode text" export (UTF-16, tab-separated).
 * Returns undefined while that line is not complete and more input may follow.
 */
export function detectDelimiter(head: Buffer, atEnd: boolean): DelimiterChoice | undefined {
  let lineStart = 0;
  // Skip blank lines before the header.
  for (let i = 0; i < head.length; i++) {
    const byte = head[i] as number;
    if (byte === LF || byte === CR) lineStart = i + 1;
    else if (byte !== 0x20 && byte !== 0x09) break;
  }
  let commas = 0;
  let semicolons = 0;
  let tabs = 0;
  let quoted = false;
  let lineEnd = -1;
  for (let i = lineStart; i < head.length; i++) {
    const byte = head[i];
    if (byte === QUOTE) quoted = !quoted;
    else if (quoted) continue;
    else if (byte === COMMA) commas++;
    else if (byte === SEMICOLON) semicolons++;
    else if (byte === TAB) tabs++;
    else if (byte === LF || byte === CR) {
      lineEnd = i;
      break;
    }
  }
  if (lineEnd === -1 && !atEnd) return undefined;
  const end = lineEnd === -1 ? head.length : lineEnd;
  const firstLine = head.subarray(lineStart, end).toString('utf8').trim();
  // Excel writes `sep=;` as a first line to name the delimiter.
  const directive = /^sep=(.)$/i.exec(firstLine);
  if (directive !== null && lineStart === 0) {
    let skip = end;
    if (head[skip] === CR) skip++;
    if (head[skip] === LF) skip++;
    return { delimiter: directive[1] as string, skipBytes: skip, skipLines: 1 };
  }
  const delimiter = tabs > commas && tabs > semicolons ? '\t' : semicolons > commas ? ';' : ',';
  return { delimiter, skipBytes: 0, skipLines: 0 };
}

function quoteErrorReason(code: CsvSyntaxCode): string {
  switch (code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'quote not closed: the quoted field in the record starting on this line runs to the end of the file';
    case 'CSV_INVALID_CLOSING_QUOTE':
      return 'invalid closing quote in the record starting on this line: a closing quote must be followed by the delimiter or the end of the line (write a quote inside a quoted field as "")';
    case 'INVALID_OPENING_QUOTE':
      return 'a quote inside an unquoted field in the record starting on this line: quote the whole field and double the inner quote ("5"" screen")';
    case 'CSV_MAX_RECORD_SIZE':
      return `record too large (over ${MAX_RECORD_CHARS} characters) starting on this line: probably a quote that is never closed`;
  }
}

/** Receives every non-blank CSV row with the line it starts on; may throw InputFileError. */
export interface CsvRowSink {
  header(cells: string[], line: number): void;
  row(cells: string[], line: number): void;
}

/**
 * Streams a CSV file through the tokenizer and hands each row to `sink` synchronously; yields
 * (nothing) after each chunk so the caller can pass on what the sink collected. Cells arrive
 * trimmed; blank rows are skipped; a row whose cell count differs from the header's is refused.
 */
export async function* csvRows(path: string, file: string, sink: CsvRowSink): AsyncGenerator<void> {
  let tokenizer: CsvTokenizer | undefined;
  let decoder: StringDecoder | undefined;
  let nextLine = 1;
  let width = -1;
  /** Columns up to the header's last named one; the unnamed columns after it must stay empty. */
  let named = -1;
  /** The header's cells as header names are compared, and the first one's first character. */
  let headerKeys: string[] = [];
  let firstKeyCode = -1;
  let headerLine = 1;
  let head: Buffer | undefined;

  const onRecord = (cells: string[], extraLines: number): void => {
    const line = nextLine;
    nextLine = line + 1 + extraLines;
    let blank = true;
    for (let i = 0; i < cells.length; i++) {
      let cell = cells[i] as string;
      const length = cell.length;
      if (length === 0) continue;
      const first = cell.charCodeAt(0);
      const last = cell.charCodeAt(length - 1);
      if (first <= 0x20 || last <= 0x20 || first > 0x7e || last > 0x7e) {
        cell = cell.trim();
        cells[i] = cell;
        if (cell.length === 0) continue;
      }
      blank = false;
    }
    if (blank) return;
    if (width === -1) {
      width = cells.length;
      named = width;
      while (named > 0 && cells[named - 1] === '') named--;
      headerKeys = cells.map(normalizeColumnName);
      firstKeyCode = headerKeys[0]?.charCodeAt(0) ?? -1;
      headerLine = line;
      sink.header(cells, line);
    } else if (cells.length !== width && (cells.length < named || cells.length > width)) {
      // A row that swallowed line breaks usually means an unclosed quote or mixed line ends.
      const hint =
        extraLines > 0
          ? ` (the row runs over lines ${line}-${line + extraLines}: a quote that is not closed, or mixed CRLF and LF line ends?)`
          : '';
      throw new InputFileError(
        file,
        line,
        `row has ${cells.length} ${cells.length === 1 ? 'cell' : 'cells'} but the header has ${width} columns${hint}`,
      );
    } else {
      if (named < width) {
        // Spreadsheets export empty columns right of the data (`a,b,,,`): ignored while empty.
        for (let i = named; i < cells.length; i++) {
          if (cells[i] !== '') {
            throw new InputFileError(file, line, `a value in column ${i + 1}, which has no name in the header (line ${headerLine})`);
          }
        }
      }
      // Cheap first: a repeated header's first cell starts like the first column name (or with _ -).
      const c0 = (cells[0] as string).charCodeAt(0) | 0x20;
      if ((c0 === firstKeyCode || c0 === 0x7f || c0 === 0x2d) && isHeaderRepeat(cells, headerKeys)) {
        throw new InputFileError(file, line, 'the header row is repeated here (files concatenated?)');
      }
      sink.row(cells, line);
    }
  };

  const start = (choice: DelimiterChoice): CsvTokenizer => {
    nextLine += choice.skipLines;
    decoder = new StringDecoder('utf8');
    return new CsvTokenizer(choice.delimiter, onRecord);
  };

  const feed = (target: CsvTokenizer, text: string, end: boolean): void => {
    // A syntax error belongs to the record that starts on nextLine.
    if (!target.push(text, end)) throw new InputFileError(file, nextLine, quoteErrorReason(target.error as CsvSyntaxCode));
  };

  for await (const chunk of readUtf8Chunks(path, file)) {
    let input = chunk;
    if (tokenizer === undefined) {
      head = head === undefined ? chunk : Buffer.concat([head, chunk]);
      const choice = detectDelimiter(head, false);
      if (choice === undefined) continue;
      tokenizer = start(choice);
      input = head.subarray(choice.skipBytes);
      head = undefined;
    }
    // Chunks may cut a UTF-8 sequence: the decoder keeps the incomplete tail for the next one.
    feed(tokenizer, (decoder as StringDecoder).write(input), false);
    yield;
  }
  if (tokenizer === undefined && head !== undefined) {
    const choice = detectDelimiter(head, true) as DelimiterChoice;
    tokenizer = start(choice);
    feed(tokenizer, (decoder as StringDecoder).write(head.subarray(choice.skipBytes)), false);
  }
  if (tokenizer !== undefined) feed(tokenizer, (decoder as StringDecoder).end(), true);
  if (width === -1) throw new InputFileError(file, 1, 'no header row (the file is empty)');
  yield;
}

/**
 * A row whose every cell, compared as header names are, is its own column's name: the header
 * again, as two exports concatenated (`cat a.csv b.csv`) leave it. Never a real record.
 */
function isHeaderRepeat(cells: readonly string[], headerKeys: readonly string[]): boolean {
  for (let i = 0; i < headerKeys.length; i++) {
    if (normalizeColumnName(cells[i] ?? '') !== headerKeys[i]) return false;
  }
  return true;
}

/** How each header column maps onto the command's fields. */
interface HeaderMapping {
  /** Canonical field name per column index; undefined = ignored column. */
  names: (string | undefined)[];
  lists: boolean[];
}

function suggestionFor(name: string, byKey: ReadonlyMap<string, ColumnSpec>): string {
  const closest = closestColumn(normalizeColumnName(name), [...byKey].map(([key, spec]) => ({ key, name: spec.name })));
  return closest === undefined ? '' : ` (did you mean ${closest}?)`;
}

function mapHeader(cells: readonly string[], options: CsvReadOptions, file: string, line: number): HeaderMapping {
  const byKey = new Map<string, ColumnSpec>();
  for (const spec of options.columns) byKey.set(normalizeColumnName(spec.name), spec);
  const names: (string | undefined)[] = [];
  const lists: boolean[] = [];
  const problems: string[] = [];
  const unknown: string[] = [];
  const takenBy = new Map<string, string>();
  // Unnamed columns after the last named one are ignored (csvRows refuses a value under them).
  let named = cells.length;
  while (named > 0 && cells[named - 1] === '') named--;
  cells.forEach((cell, index) => {
    names.push(undefined);
    lists.push(false);
    if (cell === '') {
      if (index < named) problems.push(`header column ${index + 1} has no name (only empty columns at the end of the header may be unnamed)`);
      return;
    }
    const key = normalizeColumnName(cell);
    const spec = byKey.get(key);
    if (spec === undefined) {
      // A report fed back as input: the columns it added are not the command's.
      if (!isReportColumn(cell)) unknown.push(cell);
      return;
    }
    const earlier = takenBy.get(spec.name);
    if (earlier !== undefined) {
      problems.push(`duplicate column: "${earlier}" and "${cell}" both mean ${spec.name}`);
      return;
    }
    takenBy.set(spec.name, cell);
    names[index] = spec.name;
    lists[index] = spec.kind === 'list';
  });
  if (unknown.length > 0 && options.ignoreUnknownColumns !== true) {
    problems.push(
      `unknown ${unknown.length === 1 ? 'column' : 'columns'}: ${unknown.map((name) => `"${name}"${suggestionFor(name, byKey)}`).join(', ')} (use --ignore-unknown-columns to skip them)`,
    );
  }
  if (problems.length === 0 && takenBy.size === 0) {
    const expected = options.columns
      .slice(0, 6)
      .map((spec) => spec.name)
      .join(', ');
    problems.push(`no known column in the header (expected columns such as ${expected})`);
  }
  if (problems.length > 0) throw new InputFileError(file, line, problems.join('; '));
  return { names, lists };
}

/** A list cell: entries separated by `|`, each trimmed, empty entries dropped. */
export function splitListCell(cell: string): string[] {
  const items: string[] = [];
  let start = 0;
  for (;;) {
    const bar = cell.indexOf('|', start);
    const item = cell.slice(start, bar === -1 ? cell.length : bar).trim();
    if (item !== '') items.push(item);
    if (bar === -1) return items;
    start = bar + 1;
  }
}

async function* csvRecordBatches(path: string, options: CsvReadOptions): AsyncGenerator<readonly InputRecord[]> {
  const file = options.displayName ?? path;
  let pending: InputRecord[] = [];
  let header: readonly string[] = [];
  let mapping: HeaderMapping | undefined;
  let report = false;
  let index = 0;
  const sink: CsvRowSink = {
    header(cells, line) {
      mapping = mapHeader(cells, options, file, line);
      header = cells;
      report = isRunReportHeader(cells);
    },
    row(cells, line) {
      if (report) restoreNeutralisedCells(cells);
      const { names, lists } = mapping as HeaderMapping;
      const fields: Record<string, unknown> = {};
      for (let i = 0; i < cells.length; i++) {
        const name = names[i];
        if (name === undefined) continue;
        const cell = cells[i] as string;
        if (cell === '') continue;
        if (lists[i] === true) {
          const items = splitListCell(cell);
          if (items.length > 0) fields[name] = items;
        } else {
          fields[name] = cell;
        }
      }
      pending.push({ source: { file, line, index: index++ }, fields, raw: { header, cells } });
    },
  };
  try {
    for await (const _ of csvRows(path, file, sink)) {
      if (pending.length === 0) continue;
      const batch = pending;
      pending = [];
      yield batch;
    }
  } catch (error) {
    // The records before the problem are still passed on, then the problem.
    if (pending.length > 0) yield pending;
    throw error;
  }
}

/**
 * Streams the records of a CSV file (cli-contract.md, "Input files"). Every iteration re-reads
 * the file, so a caller can validate everything in a first pass and send in a second.
 * Structural problems throw InputFileError (`file:line: reason`). `batches()` gives the same
 * records in arrays, one per chunk read, for callers that process many records per await.
 */
export function readCsvRecords(path: string, options: CsvReadOptions): BatchedRecords {
  return batchedRecords(
    () => csvRecordBatches(path, options),
    (notOkOnly) => countCsvRecords(path, options, notOkOnly),
  );
}

/**
 * Structure only: the header is checked as in a full read and every row is tokenized and
 * width-checked, but no record is built (a real run's first pass, before anything is sent).
 */
async function countCsvRecords(path: string, options: CsvReadOptions, notOkOnly: boolean): Promise<number> {
  const file = options.displayName ?? path;
  let count = 0;
  let status = -1;
  const sink: CsvRowSink = {
    header(cells, line) {
      mapHeader(cells, options, file, line);
      if (notOkOnly) status = statusColumnOf(cells);
    },
    row(cells) {
      if (status !== -1 && isOkStatus(cells[status])) return;
      count += 1;
    },
  };
  for await (const _ of csvRows(path, file, sink));
  return count;
}

/**
 * The `status` cell of a record read from a run report CSV (for `--only-failed`), or undefined
 * when the file has no status column.
 */
export function reportStatusOf(record: InputRecord): string | undefined {
  const raw = record.raw;
  if (raw === undefined) return undefined;
  // All records of a file share one header array: find its status column once.
  let column = statusColumnByHeader.get(raw.header);
  if (column === undefined) {
    column = statusColumnOf(raw.header);
    statusColumnByHeader.set(raw.header, column);
  }
  return column === -1 ? undefined : raw.cells[column];
}

const statusColumnByHeader = new WeakMap<readonly string[], number>();
