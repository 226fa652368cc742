import { createRequire } from 'node:module';
import type { CsvError, Options, Parser } from 'csv-parse';
import { InputFileError } from '../system/errors.js';
import { looksLikeCredential } from '../domain/known-secrets.js';
import { batchedRecords, collectedBatches, type BatchedRecords, type TableHeader } from './batches.js';
import type { ColumnSpec } from '../domain/columns.js';
import type { InputRecord } from './record.js';
import { readUtf8Chunks, type TextOptions } from './text-source.js';
import { PLAIN_CSV, type CsvDialect } from '../formats/csv-cell.js';
import { quotedValue } from '../domain/problem.js';
import type { FieldWarning } from '../domain/spreadsheet-warnings.js';
import { WARNING_CODES } from '../domain/codes.js';
import { listCellEntries } from '../domain/list-cells.js';
import { normalizeColumnName } from '../domain/field-names.js';
import {
  addedColumnsOf,
  isOkStatus,
  isReportColumnName,
  isRunReportHeader,
  restoreNeutralisedCells,
  sourceReportProblem,
  statusColumnOf,
} from '../formats/report-csv-contract.js';
import { closestName, listWithCount, NAMES_SHOWN } from './name-hints.js';
import { likelyField } from './column-synonyms.js';
import { UnquotedCsvLines, type CsvHandOver } from './unquoted-csv.js';
import type { ComputedFields } from './computed-fields.js';

export interface CsvReadOptions {
  columns: readonly ColumnSpec[];
  /** Skip columns no ColumnSpec matches instead of refusing the file. */
  ignoreUnknownColumns?: boolean;
  /** The file name used in messages and SourceRef (default: the path as given). */
  displayName?: string;
  /** The encoding of a CSV file without a BOM (`--encoding`, a WHATWG label); default UTF-8. */
  encoding?: string;
  /** `--map`: a header (by normalizeColumnName) read as this API field, before the API names. */
  map?: ReadonlyMap<string, string>;
  /** The columns the map file's computed fields read: known columns, though no field is read from them. */
  computed?: ComputedFields;
  /** The file as the first read found it (text-source.ts). */
  same?: TextOptions['same'];
}

/** Receives every non-blank CSV row with the line it starts on; may throw InputFileError. */
interface CsvRowSink {
  /** The header row, with how the file is written (for a report in the same dialect). */
  header(cells: string[], line: number, dialect: CsvDialect): void;
  row(cells: string[], line: number): void;
}

/** Bytes of a record's cells (csv-parse's `max_record_size`) past which it is a runaway quote: memory stays bounded. */
export const MAX_RECORD_BYTES = 128_000;

/** Bytes of the file's head searched for the end of the header line before the delimiter is chosen anyway. */
const MAX_HEADER_PROBE_BYTES = MAX_RECORD_BYTES * 3;

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;
const COMMA = 0x2c;
const SEMICOLON = 0x3b;
const TAB = 0x09;

/**
 * Picks `,`, `;` or a tab by counting them outside quotes on the header line, with the bytes and lines of an Excel
 * `sep=;` line to drop before parsing and the first line's end; undefined while that line may go on.
 */
function detectDelimiter(head: Buffer, atEnd: boolean) {
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
  // CRLF when the file has a single line without an end.
  const ending: CsvDialect['lineEnd'] = head[end] === LF ? '\n' : '\r\n';
  const firstLine = head.subarray(lineStart, end).toString('utf8').trim();
  // Excel writes `sep=;` as a first line to name the delimiter.
  const directive = /^sep=(.)$/i.exec(firstLine);
  if (directive !== null && lineStart === 0) {
    let skip = end;
    if (head[skip] === CR) skip++;
    if (head[skip] === LF) skip++;
    return { delimiter: directive[1] as string, skipBytes: skip, skipLines: 1, lineEnd: ending };
  }
  const delimiter = tabs > commas && tabs > semicolons ? '\t' : semicolons > commas ? ';' : ',';
  return { delimiter, skipBytes: 0, skipLines: 0, lineEnd: ending };
}

type DelimiterChoice = NonNullable<ReturnType<typeof detectDelimiter>>;

/** csv-parse's refusals examctl explains (any other code is a bug, passed on as it is). */
const EXPLAINED = [
  'CSV_QUOTE_NOT_CLOSED',
  'CSV_INVALID_CLOSING_QUOTE',
  'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE',
  'INVALID_OPENING_QUOTE',
  'CSV_MAX_RECORD_SIZE',
] as const;
type CsvSyntaxCode = (typeof EXPLAINED)[number];

/** Why csv-parse refused the record starting on the reported line ("too large" names a quoted cell left open). */
export function syntaxErrorReason(code: CsvSyntaxCode, quoteColumn: number | undefined, inHeader: boolean): string {
  const record = inHeader ? 'the header' : 'the record starting on this line';
  const limit = MAX_RECORD_BYTES.toLocaleString('en-US');
  switch (code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return `quote not closed: the quoted field${quoteColumn === undefined ? '' : ` in column ${quoteColumn}`} of ${record} runs to the end of the file`;
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return `invalid closing quote in ${record}: a closing quote must be followed by the delimiter or the end of the line (write a quote inside a quoted field as "")`;
    case 'INVALID_OPENING_QUOTE':
      return `a quote inside an unquoted field in ${record}: quote the whole field and double the inner quote ("5"" screen")`;
    case 'CSV_MAX_RECORD_SIZE':
      if (quoteColumn !== undefined) {
        return `${inHeader ? 'header' : 'cell'} too large: the quoted field in column ${quoteColumn} of ${record} is not closed within ${limit} bytes (the limit for one CSV record): a stray or unclosed quote?`;
      }
      return `${inHeader ? 'header' : 'line'} too large: ${record} has over ${limit} bytes (the limit for one CSV record)${inHeader ? '; is this a CSV file, with line breaks?' : ''}`;
  }
}

function isCsvError(error: unknown): error is CsvError & { column?: unknown; quoting?: unknown } {
  const code: unknown = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && (EXPLAINED as readonly string[]).includes(code);
}

/** Line feeds inside a record's cells: the lines it spans beyond its first (a CRLF is one). */
function lineFeedsIn(cells: readonly string[]): number {
  let count = 0;
  for (const cell of cells) for (let i = cell.indexOf('\n'); i !== -1; i = cell.indexOf('\n', i + 1)) count++;
  return count;
}

/**
 * csv-parse's stream, each record taken synchronously where the stream pushes it: none waits or costs an event, and a
 * syntax error follows every record before it (so `nextLine` is its line). Not `on_record`: it builds two info
 * objects per record (a third of a 500k-row dry run's parsing time).
 */
let RecordParser: (new (options: Options, onRecord: (cells: string[]) => void) => Parser) | undefined;

/** RecordParser, made on first use: csv-parse is loaded only when a text needs it (UnquotedCsvLines reads the rest). */
function recordParser(): new (options: Options, onRecord: (cells: string[]) => void) => Parser {
  if (RecordParser !== undefined) return RecordParser;
  const csvParse = createRequire(import.meta.url)('csv-parse') as typeof import('csv-parse');
  RecordParser = class extends csvParse.Parser {
    constructor(
      options: Options,
      private readonly onRecord: (cells: string[]) => void,
    ) {
      super(options);
    }

    override push(record: unknown): boolean {
      if (record === null) return super.push(null);
      this.onRecord(record as string[]);
      return true;
    }
  };
  return RecordParser;
}

/** csv-parse as examctl reads CSV: rows of any width (the reader says which is wrong, with the line). */
function csvParser(delimiter: string, onRecord: (cells: string[]) => void, from?: CsvHandOver): Parser {
  const parser = new (recordParser())(
    {
      delimiter,
      // Taking over after rows read by UnquotedCsvLines: as the parser that read them would go on.
      bom: from === undefined || from.atStart,
      record_delimiter: from?.recordDelimiter,
      quote: '"',
      escape: '"',
      relax_column_count: true,
      ltrim: true,
      rtrim: true,
      max_record_size: MAX_RECORD_BYTES,
    },
    onRecord,
  );
  // Errors are taken from each write's callback; the stream's own event must not go unhandled.
  parser.on('error', () => undefined);
  parser.resume();
  return parser;
}

/** Writes one chunk and waits until csv-parse has read it (its records handed on), or throws its error. */
function written(parser: Parser, chunk: Buffer | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error | null): void => (error ? reject(error) : resolve());
    if (chunk === undefined) parser.end(done);
    else parser.write(chunk, done);
  });
}

/**
 * Streams a CSV file's rows to `sink` synchronously, yielding after each chunk: cells trimmed, blank rows
 * skipped, a row of the wrong width refused. Unquoted lines are split directly (unquoted-csv.ts) while they
 * can; `tokenizer: 'csv-parse'` reads every line with csv-parse (the tests compare both).
 */
export async function* csvRows(
  path: string,
  file: string,
  sink: CsvRowSink,
  { encoding, same }: Pick<CsvReadOptions, 'encoding' | 'same'> = {},
  tokenizer: 'auto' | 'csv-parse' = 'auto',
): AsyncGenerator<void> {
  let parser: Parser | undefined;
  let lines: UnquotedCsvLines | undefined;
  let bom = false;
  let dialect: CsvDialect = PLAIN_CSV;
  let nextLine = 1;
  let width = -1;
  /** Columns up to the header's last named one; the unnamed columns after it must stay empty. */
  let named = -1;
  /** The header's cells as header names are compared, and the first one's first character. */
  let headerKeys: string[] = [];
  let firstKeyCode = -1;
  let headerLine = 1;
  let head: Buffer | undefined;

  // `lineFeeds`: known to be none for a line split by UnquotedCsvLines.
  const onRecord = (cells: string[], lineFeeds?: number): void => {
    // csv-parse's info.lines counts a CRLF inside quotes twice: the lines are counted here.
    const extraLines = lineFeeds ?? lineFeedsIn(cells);
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
      sink.header(cells, line, dialect);
    } else if (cells.length !== width && (cells.length < named || cells.length > width)) {
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
            throw new InputFileError(
              file,
              line,
              `a value in column ${i + 1}, which has no name in the header (line ${headerLine})`,
            );
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

  const start = (choice: DelimiterChoice): void => {
    nextLine += choice.skipLines;
    dialect = { delimiter: choice.delimiter, bom, sepLine: choice.skipLines > 0, lineEnd: choice.lineEnd };
    if (tokenizer === 'auto' && UnquotedCsvLines.reads(choice.delimiter))
      lines = new UnquotedCsvLines(choice.delimiter, onRecord, MAX_RECORD_BYTES);
    else parser = csvParser(choice.delimiter, onRecord);
  };

  /** The next bytes of the text (undefined: its end) to the unquoted lines' reader while it can, else to csv-parse. */
  const take = async (chunk: Buffer | undefined): Promise<void> => {
    if (lines !== undefined) {
      if (chunk === undefined ? lines.end() : lines.write(chunk)) return;
      const from = lines.handOver();
      lines = undefined;
      parser = csvParser(dialect.delimiter, onRecord, from);
      if (from.bytes.length > 0) await feed(parser, from.bytes);
      if (chunk !== undefined) return;
    }
    await feed(parser as Parser, chunk);
  };

  const feed = async (target: Parser, chunk: Buffer | undefined): Promise<void> => {
    try {
      await written(target, chunk);
    } catch (error) {
      // A syntax error belongs to the record that starts on nextLine.
      if (!isCsvError(error)) throw error;
      // Whether a quote is still open is the parser's `state` (the error's `quoting`: the last field *was* quoted).
      const open =
        error.code === 'CSV_QUOTE_NOT_CLOSED' ||
        (target as unknown as { state?: { quoting?: unknown } }).state?.quoting === true;
      const quoteColumn = open && typeof error.column === 'number' ? error.column + 1 : undefined;
      throw new InputFileError(
        file,
        nextLine,
        syntaxErrorReason(error.code as CsvSyntaxCode, quoteColumn, width === -1),
      );
    }
  };

  const text = {
    encodingFlag: true,
    same,
    // A file in a legacy code page (--encoding windows-1252) gets its report in UTF-8 with a BOM:
    // without one, Excel would read the report's accents in its own code page.
    onBom: (found: boolean, read: string) => (bom = found || read !== 'utf-8'),
    encoding,
  };
  for await (const chunk of readUtf8Chunks(path, file, text)) {
    let input = chunk;
    if (parser === undefined && lines === undefined) {
      head = head === undefined ? chunk : Buffer.concat([head, chunk]);
      // A first line that never ends is not re-scanned with every chunk: past the limit the
      // delimiter is chosen from what was read, and csv-parse refuses the header as too large.
      const choice = detectDelimiter(head, head.length > MAX_HEADER_PROBE_BYTES);
      if (choice === undefined) continue;
      start(choice);
      input = head.subarray(choice.skipBytes);
      head = undefined;
    }
    // csv-parse reads bytes: a UTF-8 sequence cut by the chunk's end is completed by the next one.
    await take(input);
    yield;
  }
  if (parser === undefined && lines === undefined && head !== undefined) {
    const choice = detectDelimiter(head, true) as DelimiterChoice;
    start(choice);
    await take(head.subarray(choice.skipBytes));
  }
  if (parser !== undefined || lines !== undefined) await take(undefined);
  if (width === -1) throw new InputFileError(file, 1, 'no header row (the file is empty)');
  yield;
}

/** A row whose every cell, compared as header names are, is its column's name: the header again (`cat a.csv b.csv`). */
export function isHeaderRepeat(cells: readonly string[], headerKeys: readonly string[]): boolean {
  for (let i = 0; i < headerKeys.length; i++) {
    if (normalizeColumnName(cells[i] ?? '') !== headerKeys[i]) return false;
  }
  return true;
}

/** How each header column maps onto the command's fields. */
export interface HeaderMapping {
  /** Canonical field name per column index; undefined = ignored column. */
  names: (string | undefined)[];
  lists: boolean[];
}

/** Matches a header row to the command's columns (CSV and xlsx); throws the header problems together. */
export function mapHeader(
  cells: readonly string[],
  options: CsvReadOptions,
  file: string,
  line: number,
): HeaderMapping {
  const byKey = new Map<string, ColumnSpec>();
  for (const spec of options.columns) byKey.set(normalizeColumnName(spec.name), spec);
  const names: (string | undefined)[] = [];
  const lists: boolean[] = [];
  const duplicates: string[] = [];
  const unnamed: number[] = [];
  const unknown: string[] = [];
  const takenBy = new Map<string, string>();
  const added = addedColumnsOf(cells);
  // A report of JSON, flags or arguments is no input (but for an id list's reader).
  const notInput = byKey.has('id') ? undefined : sourceReportProblem(cells);
  if (notInput !== undefined) throw new InputFileError(file, line, notInput);
  // Unnamed columns after the last named one are ignored (csvRows refuses a value under them).
  let named = cells.length;
  while (named > 0 && cells[named - 1] === '') named--;
  cells.forEach((cell, index) => {
    names.push(undefined);
    lists.push(false);
    // A report fed back: the columns it added are not the command's.
    if (added[index] === true) return;
    if (cell === '') {
      if (index < named) unnamed.push(index + 1);
      return;
    }
    const key = normalizeColumnName(cell);
    const mapped = options.map?.get(key);
    const spec = byKey.get(mapped !== undefined ? normalizeColumnName(mapped) : key);
    if (spec === undefined) {
      // A column a computed field reads is known; one named as a report's (an export's Status, Note) is passed over.
      if (options.computed?.sources.has(key) !== true && !isReportColumnName(cell)) unknown.push(cell);
      return;
    }
    const earlier = takenBy.get(spec.name);
    if (earlier !== undefined) {
      duplicates.push(`"${earlier}" and "${cell}" both mean ${spec.name}`);
      return;
    }
    takenBy.set(spec.name, cell);
    names[index] = spec.name;
    lists[index] = spec.kind === 'list';
  });
  const problems: string[] = [];
  if (unnamed.length > 0) {
    problems.push(
      `header ${unnamed.length === 1 ? 'column' : 'columns'} ${listWithCount(unnamed.map(String))} ${unnamed.length === 1 ? 'has' : 'have'} no name (only empty columns at the end of the header may be unnamed)`,
    );
  }
  if (duplicates.length > 0) {
    problems.push(
      `${duplicates.length === 1 ? 'duplicate column' : 'duplicate columns'}: ${listWithCount(duplicates, '; ')}`,
    );
  }
  // The one name of a header of one named column, when it is unknown and like no field's name.
  const fieldNames = options.columns.map((spec) => spec.name);
  const alone =
    named - unnamed.length === 1 &&
    unknown.length === 1 &&
    likelyField(unknown[0]!, new Set(fieldNames)) === undefined &&
    closestName(unknown[0]!, fieldNames) === undefined
      ? unknown[0]
      : undefined;
  // One word alone, or a secret examctl holds, is most likely a token file given as --file: not quoted (the
  // "no known column" problem below says what is expected).
  const oneUnknownCell =
    alone !== undefined && cells.length === 1 && (/^\S+$/.test(alone.trim()) || looksLikeCredential(alone));
  // A header of one unknown cell of words is most likely no header at all: PowerShell 5.1's type
  // line (Export-Csv without -NoTypeInformation) or a title row above the header. `--map` would not help.
  const expected = options.columns
    .slice(0, 6)
    .map((spec) => spec.name)
    .join(', ');
  if (alone !== undefined && !oneUnknownCell && /\p{L}/u.test(alone)) {
    throw new InputFileError(file, line, `${oneCellHeaderProblem(alone)} (expected columns such as ${expected})`);
  }
  if (unknown.length > 0 && options.ignoreUnknownColumns !== true && !oneUnknownCell)
    problems.push(unknownColumnsProblem(unknown, options.columns, takenBy));
  const computed = options.computed;
  if (computed !== undefined)
    problems.push(...computed.headerProblems(new Set(cells.map(normalizeColumnName)), new Set(takenBy.keys())));
  if (
    problems.length === 0 &&
    takenBy.size === 0 &&
    !cells.some((cell) => computed?.sources.has(normalizeColumnName(cell)) === true)
  ) {
    problems.push(
      `no known column in the header${oneUnknownCell ? ', which is one word (not shown: a file of one word may be a secret)' : ''} (expected columns such as ${expected})`,
    );
  }
  if (problems.length > 0) throw new InputFileError(file, line, problems.join('; '));
  return { names, lists };
}

/** Why a header of one cell (and no known column) is refused, and the fix. */
function oneCellHeaderProblem(cell: string): string {
  if (/^#TYPE\s/.test(cell)) {
    return "the first line is PowerShell's type line (#TYPE ...), not the header: export with Export-Csv -NoTypeInformation (PowerShell 7 leaves the line out), or delete that line";
  }
  return `the header has one cell, ${quotedValue(cell, 'a header cell')}: a title above the header? The first non-blank row is read as the header and no flag skips rows: delete the title row (and any row above the header)`;
}

/** Unknown columns (or JSON keys), each with its likely field and the `--map` that reads it: it teaches the fix. */
export function unknownColumnsProblem(
  given: readonly string[],
  columns: readonly ColumnSpec[],
  /** The fields the header or object already gives (a hint never names one). */
  taken: Pick<ReadonlySet<string>, 'has'>,
  noun: 'column' | 'key' = 'column',
): string {
  // A name as one line, its spaces and line breaks (Alt+Enter in a header cell) one space: so a
  // --map the message suggests is typed as shown and matches (a column name's whitespace is forgiven).
  const unknown = given.map((name) => name.replace(/\s+/g, ' ').trim());
  const fieldNames = columns.map((spec) => spec.name);
  const free = new Set(fieldNames.filter((name) => !taken.has(name)));
  const maps: string[] = [];
  const claimed = new Set<string>();
  const likelyOf = unknown.map((name) => {
    if (looksLikeCredential(name)) return undefined;
    const likely = likelyField(name, free);
    if (likely === undefined || claimed.has(likely)) return undefined;
    claimed.add(likely);
    maps.push(`--map ${shellWord(`${name}=${likely}`)}`);
    return likely;
  });
  const what = noun === 'column' ? 'a header cell' : 'a key';
  const shown = unknown.slice(0, NAMES_SHOWN).map((name, i) => {
    const likely = likelyOf[i];
    // Quoted as every value is: cut to its first characters and its length (a 200,000-character key), or described.
    if (likely !== undefined) return `${quotedValue(name, what)} (likely ${likely})`;
    const meant = looksLikeCredential(name) ? undefined : closestName(name, fieldNames);
    return meant === undefined ? quotedValue(name, what) : `${quotedValue(name, what)} (did you mean "${meant}"?)`;
  });
  // Past the names shown, only their count is said.
  const listed = listWithCount(shown.concat(unknown.slice(NAMES_SHOWN)));
  const skip = '--ignore-unknown-columns';
  const fix =
    maps.length > 0
      ? `read them as API fields with ${maps.join(' ')} (or a --map-file), or skip them with ${skip}`
      : `use --map "${noun === 'column' ? 'Column' : 'key'}=Field" to read a ${noun} as an API field, or ${skip} to skip them`;
  return `${unknown.length === 1 ? `unknown ${noun}` : `unknown ${noun}s`}: ${listed}; ${fix}`;
}

/** A word as POSIX shells, PowerShell and cmd read it back (for the usual headers): quoted unless plain. */
function shellWord(word: string): string {
  if (/^[A-Za-z0-9_=.,:/@%+-]+$/.test(word)) return word;
  return /["$`\\!]/.test(word) ? `'${word.replace(/'/g, `'\\''`)}'` : `"${word}"`;
}

/** A list cell with `,` or `;` where `|` was meant is one entry: warned, sent as written (a label may hold a comma). */
export function listCellWarnings(cells: readonly string[], mapping: HeaderMapping): FieldWarning[] | undefined {
  let warnings: FieldWarning[] | undefined;
  const { names, lists } = mapping;
  for (let i = 0; i < cells.length; i++) {
    if (lists[i] !== true) continue;
    const cell = cells[i] as string;
    // A cell with a separator in it has its entries: a comma there is part of one.
    if (cell.includes('|') || cell.includes('\n') || cell.includes('\r') || !/[,;]/.test(cell)) continue;
    const name = names[i] as string;
    const meant = cell
      .split(/[,;]/)
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '')
      .join('|');
    (warnings ??= []).push({
      field: name,
      code: WARNING_CODES.ListCellNotSplit,
      message: `${name} ${quotedValue(cell)} is read as one entry: entries of a list cell are separated by |, not , or ; (write ${quotedValue(meant)})`,
    });
  }
  return warnings;
}

/** A row's fields by API name: empty cells left out, list columns split on `|` and line breaks (CSV and xlsx rows). */
export function rowFields(cells: readonly string[], mapping: HeaderMapping): Record<string, unknown> {
  const { names, lists } = mapping;
  const fields: Record<string, unknown> = {};
  for (let i = 0; i < cells.length; i++) {
    const name = names[i];
    if (name === undefined) continue;
    const cell = cells[i] as string;
    if (cell === '') continue;
    if (lists[i] === true) {
      const items = listCellEntries(cell);
      if (items.length > 0) fields[name] = items;
    } else {
      fields[name] = cell;
    }
  }
  return fields;
}

function csvRecordSteps(
  path: string,
  options: CsvReadOptions,
  kept: KeptRows | undefined,
  met: (header: TableHeader) => void,
  add: (record: InputRecord) => void,
): AsyncIterable<void> {
  const file = options.displayName ?? path;
  let header: readonly string[] = [];
  let dialect: CsvDialect = PLAIN_CSV;
  let mapping: HeaderMapping | undefined;
  let report = false;
  let index = 0;
  const sink: CsvRowSink = {
    header(cells, line, how) {
      mapping = mapHeader(cells, options, file, line);
      header = cells;
      dialect = how;
      report = isRunReportHeader(cells);
      met({ cells, dialect });
    },
    row(cells, line) {
      if (report) restoreNeutralisedCells(cells);
      const record: InputRecord = {
        source: { file, line, index: index++ },
        fields: rowFields(cells, mapping as HeaderMapping),
        raw: { header, cells, dialect, names: (mapping as HeaderMapping).names },
      };
      const warnings = listCellWarnings(cells, mapping as HeaderMapping);
      if (warnings !== undefined) record.warnings = warnings;
      add(record);
    },
  };
  return kept === undefined ? csvRows(path, file, sink, options) : keptRowsTo(kept, sink);
}

/** Streams the records of a CSV file (docs/cli-contract.md, "Input files"), re-read at each iteration. */
export function readCsvRecords(path: string, given: CsvReadOptions): BatchedRecords {
  const options = { same: {}, ...given };
  // The rows the structure pass kept (a small file): later reads replay them, not parse again.
  let kept: KeptRows | undefined;
  let header: TableHeader | undefined;
  return batchedRecords(
    () => collectedBatches((add) => csvRecordSteps(path, options, kept, (met) => (header = met), add)),
    {
      async countRecords(notOkOnly) {
        const keeping: KeptRows = { header: undefined, rows: [], chars: 0 };
        const count = await countCsvRecords(path, options, notOkOnly, keeping);
        kept = keeping.chars <= KEEP_ROWS_MAX_CHARS ? keeping : undefined;
        return count;
      },
      header: () => header,
      keptRecords(field) {
        const names = kept?.header?.names;
        // A run report's records have their cells restored: not these.
        if (options.computed !== undefined || !names?.includes(field) || isRunReportHeader(kept!.header!.cells))
          return undefined;
        return [keptRecords(kept!, field, options.displayName ?? path)];
      },
    },
  );
}

/** The kept rows as records of `field` alone: its cell, line and header. */
function* keptRecords({ header, rows }: KeptRows, field: string, file: string): Generator<InputRecord> {
  const { cells, dialect, names } = header!;
  const at = names.indexOf(field);
  const raw = { header: cells.slice(), cells: [], dialect, names };
  for (let i = 0; i < rows.length; i += 2) {
    const cell = (rows[i] as string).split(CELL_SEPARATOR, at + 1)[at];
    yield { source: { file, line: rows[i + 1] as number }, fields: cell ? { [field]: cell } : {}, raw };
  }
}

/** A file of at most this many cell characters keeps its structure pass's rows (bench/README.md, "Session 43"). */
export const KEEP_ROWS_MAX_CHARS = 4 * 1024 * 1024;

/** Between a kept row's cells: a text input holds no NUL (text-source.ts refuses it). */
const CELL_SEPARATOR = '\u0000';

/** Rows (already trimmed, width-checked) the structure pass kept, as its sink received them. */
interface KeptRows {
  header: { cells: string[]; line: number; dialect: CsvDialect; names: HeaderMapping['names'] } | undefined;
  /** [row, line, ...], a row's cells joined by CELL_SEPARATOR: a tenth of the heap of arrays. */
  rows: (string | number)[];
  /** Characters of the cells kept so far; past KEEP_ROWS_MAX_CHARS nothing more is kept. */
  chars: number;
}

/** Rows per step of a replay after the first: a chunk's rows (448) at once got them promoted to V8's old space. */
const KEPT_ROWS_PER_STEP = 64;
/** The first step's rows: about the first 8 KiB read's (text-source.ts), so the first request waits as little. */
const KEPT_ROWS_FIRST_STEP = 48;

/** The kept rows handed to `sink` as a read of the file would hand them, yielding between steps. */
async function* keptRowsTo(kept: KeptRows, sink: CsvRowSink): AsyncGenerator<void> {
  const header = kept.header;
  if (header === undefined) return;
  // A copy each time: the read's records share it as their header.
  sink.header(header.cells.slice(), header.line, header.dialect);
  const rows = kept.rows;
  let step = KEPT_ROWS_FIRST_STEP * 2;
  for (let at = 0; at < rows.length; ) {
    const end = Math.min(rows.length, at + step);
    for (; at < end; at += 2) {
      // A new array each time: a report's cells are restored in place, once per read.
      sink.row((rows[at] as string).split(CELL_SEPARATOR), rows[at + 1] as number);
    }
    step = KEPT_ROWS_PER_STEP * 2;
    yield;
  }
}

/** Structure only (a real run's first pass): header checked, rows width-checked and kept up to KEEP_ROWS_MAX_CHARS. */
async function countCsvRecords(
  path: string,
  options: CsvReadOptions,
  notOkOnly: boolean,
  keeping: KeptRows,
): Promise<number> {
  const file = options.displayName ?? path;
  let count = 0;
  let status = -1;
  const sink: CsvRowSink = {
    header(cells, line, dialect) {
      const { names } = mapHeader(cells, options, file, line);
      if (notOkOnly) status = statusColumnOf(cells);
      keeping.header = { cells: cells.slice(), line, dialect, names };
    },
    row(cells, line) {
      if (keeping.chars <= KEEP_ROWS_MAX_CHARS) {
        const row = cells.join(CELL_SEPARATOR);
        keeping.chars += row.length;
        if (keeping.chars <= KEEP_ROWS_MAX_CHARS) keeping.rows.push(row, line);
        else keeping.rows = [];
      }
      if (status !== -1 && isOkStatus(cells[status])) return;
      count += 1;
    },
  };
  for await (const _ of csvRows(path, file, sink, options));
  return count;
}

/** The `status` cell of a run report CSV's record (`--only-failed`); undefined without the column. */
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
