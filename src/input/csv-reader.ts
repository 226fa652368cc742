import { CsvError, parse, type Parser } from 'csv-parse';
import { InputFileError } from '../errors.js';
import type { ColumnSpec, InputRecord } from './record.js';
import { readUtf8Chunks } from './text-source.js';

export interface CsvReadOptions {
  columns: readonly ColumnSpec[];
  /** Skip columns no ColumnSpec matches instead of refusing the file. */
  ignoreUnknownColumns?: boolean;
  /** The file name used in messages and SourceRef (default: the path as given). */
  displayName?: string;
}

/** Columns a run report adds to its input rows; a report CSV is valid input, so they are skipped. */
export const REPORT_COLUMNS: readonly string[] = ['status', 'error_codes', 'error_messages'];
const REPORT_KEYS = new Set(REPORT_COLUMNS.map(normalizeColumnName));

/** The key two header names are compared by: case, spaces, `_` and `-` do not matter. */
export function normalizeColumnName(name: string): string {
  return name.replace(/[\s_-]+/g, '').toLowerCase();
}

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;
const COMMA = 0x2c;
const SEMICOLON = 0x3b;

interface DelimiterChoice {
  delimiter: string;
  /** Bytes to drop before parsing (an Excel `sep=;` line). */
  skipBytes: number;
  /** Lines dropped with them. */
  skipLines: number;
}

/**
 * Picks `,` or `;` by counting them outside quotes on the first non-blank line (the header).
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
  let quoted = false;
  let lineEnd = -1;
  for (let i = lineStart; i < head.length; i++) {
    const byte = head[i];
    if (byte === QUOTE) quoted = !quoted;
    else if (quoted) continue;
    else if (byte === COMMA) commas++;
    else if (byte === SEMICOLON) semicolons++;
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
  return { delimiter: semicolons > commas ? ';' : ',', skipBytes: 0, skipLines: 0 };
}

function countNewlines(text: string): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

function quoteErrorReason(error: CsvError): string {
  switch (error.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'quote not closed: the quoted field in the record starting on this line runs to the end of the file';
    case 'CSV_INVALID_CLOSING_QUOTE':
      return 'invalid closing quote in the record starting on this line: a closing quote must be followed by the delimiter or the end of the line (write a quote inside a quoted field as "")';
    case 'INVALID_OPENING_QUOTE':
      return 'a quote inside an unquoted field in the record starting on this line: quote the whole field and double the inner quote ("5"" screen")';
    case 'CSV_MAX_RECORD_SIZE':
      return 'record too large (over 128000 characters) starting on this line: probably a quote that is never closed';
    default:
      return `malformed CSV in the record starting on this line: ${error.message}`;
  }
}

/** Receives every non-blank CSV row with the line it starts on; may throw InputFileError. */
export interface CsvRowSink {
  header(cells: string[], line: number): void;
  row(cells: string[], line: number): void;
}

/**
 * Streams a CSV file through csv-parse and hands each row to `sink` synchronously; yields
 * (nothing) after each chunk so the caller can pass on what the sink collected. Cells arrive
 * trimmed; blank rows are skipped; a row whose cell count differs from the header's is refused.
 */
export async function* csvRows(path: string, file: string, sink: CsvRowSink): AsyncGenerator<void> {
  let parser: Parser | undefined;
  let failure: unknown;
  let nextLine = 1;
  let width = -1;
  let head: Buffer | undefined;
  let synchronous = false;
  let previousSynchronous = true;
  let previousParsedLines = 0;

  // Runs inside csv-parse's loop: must not throw, or the stream's state breaks.
  const onRecord = (cells: string[]): void => {
    if (failure !== undefined) return;
    // csv-parse counts lines too, but counts a CRLF inside quotes twice: its count is only
    // trusted to say "this record is on one line", and only for records handed over during
    // write() (then the count is exactly at the record's end), to skip searching each cell.
    const parsedLines = (parser as Parser).info.lines;
    const oneLine = synchronous && previousSynchronous && parsedLines - previousParsedLines === 1;
    previousParsedLines = parsedLines;
    previousSynchronous = synchronous;
    const line = nextLine;
    let extraLines = 0;
    let blank = true;
    for (let i = 0; i < cells.length; i++) {
      let cell = cells[i] as string;
      const length = cell.length;
      if (length === 0) continue;
      // Line numbers count physical lines: a quoted cell may span several.
      if (!oneLine && cell.indexOf('\n') !== -1) extraLines += countNewlines(cell);
      const first = cell.charCodeAt(0);
      const last = cell.charCodeAt(length - 1);
      if (first <= 0x20 || last <= 0x20 || first > 0x7e || last > 0x7e) {
        cell = cell.trim();
        cells[i] = cell;
        if (cell.length === 0) continue;
      }
      blank = false;
    }
    nextLine = line + 1 + extraLines;
    if (blank) return;
    try {
      if (width === -1) {
        width = cells.length;
        sink.header(cells, line);
      } else if (cells.length !== width) {
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
        sink.row(cells, line);
      }
    } catch (error) {
      failure = error;
    }
  };

  const startParser = (choice: DelimiterChoice): Parser => {
    nextLine += choice.skipLines;
    const created = parse({
      delimiter: choice.delimiter,
      // Ragged rows and blank lines are judged here, with the right line numbers.
      relax_column_count: true,
      bom: false,
    });
    created.on('data', onRecord);
    created.on('error', (error: Error) => {
      failure ??= error;
    });
    return created;
  };

  const write = (target: Parser, chunk: Buffer): Promise<void> =>
    new Promise((resolve, reject) => {
      synchronous = true;
      try {
        target.write(chunk, (error) => (error ? reject(error) : resolve()));
      } finally {
        synchronous = false;
      }
    });

  // The first problem wins: later errors are usually consequences of it.
  const rethrow = (error: unknown): never => {
    const cause = failure ?? error;
    if (cause instanceof CsvError) throw new InputFileError(file, nextLine, quoteErrorReason(cause));
    throw cause;
  };

  try {
    for await (const chunk of readUtf8Chunks(path, file)) {
      let input = chunk;
      if (parser === undefined) {
        head = head === undefined ? chunk : Buffer.concat([head, chunk]);
        const choice = detectDelimiter(head, false);
        if (choice === undefined) continue;
        parser = startParser(choice);
        input = head.subarray(choice.skipBytes);
        head = undefined;
      }
      try {
        await write(parser, input);
      } catch (error) {
        rethrow(error);
      }
      if (failure !== undefined) rethrow(failure);
      yield;
    }
    if (parser === undefined && head !== undefined) {
      const choice = detectDelimiter(head, true) as DelimiterChoice;
      parser = startParser(choice);
      const input = head.subarray(choice.skipBytes);
      if (input.length > 0) {
        try {
          await write(parser, input);
        } catch (error) {
          rethrow(error);
        }
      }
    }
    if (parser !== undefined) {
      const ending = parser;
      try {
        await new Promise<void>((resolve, reject) => {
          ending.once('end', resolve);
          ending.once('error', reject);
          ending.end();
        });
      } catch (error) {
        rethrow(error);
      }
    }
    if (failure !== undefined) rethrow(failure);
    if (width === -1) throw new InputFileError(file, 1, 'no header row (the file is empty)');
    yield;
  } finally {
    if (parser !== undefined && !parser.destroyed) parser.destroy();
  }
}

/** How each header column maps onto the command's fields. */
interface HeaderMapping {
  /** Canonical field name per column index; undefined = ignored column. */
  names: (string | undefined)[];
  lists: boolean[];
}

function mapHeader(cells: readonly string[], options: CsvReadOptions, file: string, line: number): HeaderMapping {
  const byKey = new Map<string, ColumnSpec>();
  for (const spec of options.columns) byKey.set(normalizeColumnName(spec.name), spec);
  const names: (string | undefined)[] = [];
  const lists: boolean[] = [];
  const problems: string[] = [];
  const unknown: string[] = [];
  const takenBy = new Map<string, string>();
  cells.forEach((cell, index) => {
    names.push(undefined);
    lists.push(false);
    if (cell === '') {
      problems.push(`header column ${index + 1} has no name`);
      return;
    }
    const key = normalizeColumnName(cell);
    const spec = byKey.get(key);
    if (spec === undefined) {
      if (!REPORT_KEYS.has(key)) unknown.push(cell);
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
      `unknown ${unknown.length === 1 ? 'column' : 'columns'}: ${unknown.map((name) => `"${name}"`).join(', ')} (use --ignore-unknown-columns to skip them)`,
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

async function* csvRecordGenerator(path: string, options: CsvReadOptions): AsyncGenerator<InputRecord> {
  const file = options.displayName ?? path;
  const pending: InputRecord[] = [];
  let header: readonly string[] = [];
  let mapping: HeaderMapping | undefined;
  let index = 0;
  const sink: CsvRowSink = {
    header(cells, line) {
      mapping = mapHeader(cells, options, file, line);
      header = cells;
    },
    row(cells, line) {
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
      for (const record of pending) yield record;
      pending.length = 0;
    }
  } catch (error) {
    // The records before the problem are still passed on, then the problem.
    for (const record of pending) yield record;
    throw error;
  }
}

/**
 * Streams the records of a CSV file (cli-contract.md, "Input files"). Every iteration re-reads
 * the file, so a caller can validate everything in a first pass and send in a second.
 * Structural problems throw InputFileError (`file:line: reason`).
 */
export function readCsvRecords(path: string, options: CsvReadOptions): AsyncIterable<InputRecord> {
  return { [Symbol.asyncIterator]: () => csvRecordGenerator(path, options) };
}

/**
 * The `status` cell of a record read from a run report CSV (for `--only-failed`), or undefined
 * when the file has no status column.
 */
export function reportStatusOf(record: InputRecord): string | undefined {
  const raw = record.raw;
  if (raw === undefined) return undefined;
  const column = raw.header.findIndex((name) => normalizeColumnName(name) === 'status');
  return column === -1 ? undefined : raw.cells[column];
}
