import { NO_VALID_ID_REFUSAL } from '../domain/invigilators.js';
import { InputFileError } from '../system/errors.js';
import { csvRows, MAX_RECORD_BYTES, syntaxErrorReason, reportStatusOf } from './csv-reader.js';
import { normalizeColumnName } from '../domain/field-names.js';
import {
  isRunReportHeader,
  notARunReport,
  restoreNeutralisedCells,
  SCHEDULE_COLUMN,
  statusColumnOf,
} from '../formats/report-csv-contract.js';
import { formatFromExtension, refuseSheetFlags } from './format.js';
import type { SourceRef } from './record.js';
import { readTextHead, readUtf8Chunks, type TextOptions } from './text-source.js';
import { parseJsonDocument } from './json-document.js';
import type { XlsxReadOptions } from './xlsx-reader.js';

/** One id from an id list file, with where it was written. */
interface IdListEntry {
  id: string;
  source: SourceRef;
  /** The `status` cell when the file is a run report CSV (for `--only-failed`). */
  status?: string;
  /** The `schedule` cell of an `invigilators remove` report: the schedule its run removed from. */
  schedule?: string;
}

/** As a workbook's records are read (XlsxReadOptions), and the id column's header. */
type IdListOptions = Pick<XlsxReadOptions, 'displayName' | 'sheet' | 'hiddenRows' | 'notice'> & {
  /** `--map "Staff ID=UserExtId"`: the header of the id column, before the usual names. */
  idColumn?: string;
  same?: TextOptions['same'];
  /** --only-failed: the file must be a run report, which JSON never is (docs/cli.md): exit 2 as for every command. */
  runReportOnly?: boolean;
};

/** The column names that mark an id list's id column (CSV or workbook), in order of preference. */
const ID_COLUMN_NAMES: readonly string[] = [
  'UserExtId',
  'UserExternalId',
  'InvigilatorExtId',
  'InvigilatorExternalId',
  'ExternalId',
  'ExtId',
  'Id',
];
const ID_COLUMN_KEYS = ID_COLUMN_NAMES.map(normalizeColumnName);
const MAX_JSON_LIST_BYTES = 16 << 20;

function readJsonIds(text: string, file: string): IdListEntry[] {
  // Lines of the elements: where each value directly inside the top-level array begins.
  const lines: number[] = [];
  const value = parseJsonDocument(text, file, {
    onEntry: (path, line) => path.length === 1 && lines.push(line),
  });
  // `null` is the API's empty list (code 100), as `[]` is: no ids, said as for `[]`.
  if (value === null) return [];
  if (!Array.isArray(value)) {
    throw new InputFileError(file, 1, 'expected a JSON array of id strings, e.g. ["inv-1", "inv-2"]');
  }
  if (value.length > 0 && value.every((item) => typeof item === 'string' && item.trim() === '')) {
    throw new InputFileError(
      file,
      lines[0] ?? 1,
      `the array holds no valid id, only empty ones (${NO_VALID_ID_REFUSAL})`,
    );
  }
  return value.map((item, index) => {
    const at = lines[index] ?? 1;
    if (typeof item !== 'string') {
      throw new InputFileError(file, at, `array element ${index} is not a string (ids are strings, e.g. "inv-1")`);
    }
    const id = item.trim();
    if (id === '') throw new InputFileError(file, at, `array element ${index} is an empty id`);
    return { id, source: { file, line: at, index } };
  });
}

/** A plain list, read a chunk at a time: a line over a CSV record's bound is refused at its line, the rest unread. */
async function readPlainIds(path: string, file: string, options: IdListOptions): Promise<IdListEntry[]> {
  const entries: IdListEntry[] = [];
  const decoder = new TextDecoder();
  let [carry, line] = ['', 0];
  const take = (raw: string, more = false): void => {
    if (Buffer.byteLength(raw) > MAX_RECORD_BYTES)
      throw new InputFileError(file, line + 1, syntaxErrorReason('CSV_MAX_RECORD_SIZE', undefined, false));
    if (more) return;
    const id = raw.trim();
    line += 1;
    // A header line naming the column is allowed at the top.
    if (id === '' || id.startsWith('#') || (entries.length === 0 && ID_COLUMN_KEYS.includes(normalizeColumnName(id))))
      return;
    entries.push({ id, source: { file, line, index: entries.length } });
  };
  for await (const chunk of readUtf8Chunks(path, file, options)) {
    // A CR at the end waits: it may be a CRLF's first half.
    const lines = (carry + decoder.decode(chunk, { stream: true })).split(/\r\n|\n|\r(?!$)/);
    carry = lines.pop() as string;
    lines.forEach((raw) => take(raw));
    take(carry, true);
  }
  (carry + decoder.decode()).split(/\r\n|\n|\r/).forEach((raw) => take(raw));
  return entries;
}

async function readCsvIds(
  path: string,
  file: string,
  { idColumn: mapped, same }: IdListOptions,
): Promise<IdListEntry[]> {
  const entries: IdListEntry[] = [];
  let idColumn = -1;
  let statusColumn = -1;
  let scheduleColumn = -1;
  let idName = '';
  // A run report fed back: its writer quoted ids such as `-inv-8` against formulas; send the id itself.
  let report = false;
  const add = (cells: string[], line: number): void => {
    if (report) restoreNeutralisedCells(cells);
    const id = cells[idColumn] as string;
    if (id === '') throw new InputFileError(file, line, `empty ${idName}`);
    const entry: IdListEntry = { id, source: { file, line, index: entries.length } };
    if (statusColumn !== -1) entry.status = cells[statusColumn] as string;
    if (scheduleColumn !== -1) entry.schedule = cells[scheduleColumn] as string;
    entries.push(entry);
  };
  const rows = csvRows(
    path,
    file,
    {
      header(cells, line) {
        const keys = cells.map(normalizeColumnName);
        for (const key of mapped === undefined ? ID_COLUMN_KEYS : [normalizeColumnName(mapped), ...ID_COLUMN_KEYS]) {
          idColumn = keys.indexOf(key);
          if (idColumn !== -1) break;
        }
        statusColumn = statusColumnOf(cells);
        report = isRunReportHeader(cells);
        if (report) scheduleColumn = keys.indexOf(SCHEDULE_COLUMN);
        if (idColumn !== -1) {
          idName = cells[idColumn] as string;
          return;
        }
        if (cells.length === 1) {
          // One column and no id header: a plain list whose first line is already an id.
          idColumn = 0;
          idName = 'id';
          add(cells, line);
          return;
        }
        throw new InputFileError(
          file,
          line,
          `no id column: name one of the columns ${ID_COLUMN_NAMES.join(', ')}, or say which with --map "Column=UserExtId"`,
        );
      },
      row: add,
    },
    { same },
  );
  for await (const _ of rows);
  return entries;
}

/**
 * A workbook's id column, found by the names a CSV's is and read as the record readers read it: other columns
 * ignored, `status` kept for --only-failed, an unreadable id cell refuses the file.
 */
async function readXlsxIds(
  path: string,
  file: string,
  { idColumn: mapped, same, ...options }: IdListOptions,
): Promise<IdListEntry[]> {
  const { readXlsxRecords } = await import('./xlsx-reader.js');
  const entries: IdListEntry[] = [];
  const names = mapped === undefined ? ID_COLUMN_NAMES : [mapped, ...ID_COLUMN_NAMES];
  const columns = [...names, SCHEDULE_COLUMN].map((name) => ({ name, kind: 'string' as const }));
  const records = readXlsxRecords(path, { ...options, columns, ignoreUnknownColumns: true, displayName: file }, same);
  let idName: string | undefined;
  for await (const record of records) {
    // The column by the same preference as a CSV's: the first of ID_COLUMN_NAMES the header has.
    idName ??= names.find((name) => record.raw?.names?.includes(name)) ?? 'UserExtId';
    // An id cell that cannot be read (a formula never calculated, an error value): its problem refuses the file.
    if (record.problems !== undefined)
      throw new InputFileError(
        record.source.file,
        record.source.line,
        record.problems.map((problem) => problem.message).join('; '),
      );
    const id = record.fields[idName];
    if (typeof id !== 'string' || id === '')
      throw new InputFileError(record.source.file, record.source.line, `empty ${idName}`);
    const entry: IdListEntry = { id, source: { ...record.source, index: entries.length } };
    const status = reportStatusOf(record);
    if (status !== undefined) entry.status = status;
    const schedule = record.fields[SCHEDULE_COLUMN];
    if (status !== undefined && typeof schedule === 'string') entry.schedule = schedule;
    entries.push(entry);
  }
  return entries;
}

/**
 * Reads a list of user external ids: plain text, one id per line (blank lines and `#` comments skipped, an
 * optional header), a CSV with an id column (a run report CSV works), or a JSON array of strings.
 */
export async function readIdList(path: string, options: IdListOptions = {}): Promise<IdListEntry[]> {
  const file = options.displayName ?? path;
  const byExtension = formatFromExtension(path);
  if (byExtension === 'xlsx') return readXlsxIds(path, file, options);
  refuseSheetFlags(file, 'not one', options);
  if (byExtension === 'csv') return readCsvIds(path, file, options);
  const start = (await readTextHead(path, file)).trimStart();
  if (byExtension === 'json' || start.startsWith('[') || start.startsWith('{')) {
    if (options.runReportOnly === true) throw notARunReport(`${file} is not a CSV or .xlsx file`);
    // Parsed whole, so bounded; a plain or CSV list streams, any size.
    const text = await readTextHead(path, file, MAX_JSON_LIST_BYTES + 1, options);
    if (Buffer.byteLength(text) > MAX_JSON_LIST_BYTES)
      throw new InputFileError(file, 1, 'a JSON id list is at most 16 MiB: give a longer list as plain text or CSV');
    return readJsonIds(text, file);
  }
  if (/^[^\r\n]*[,;]/.test(start)) return readCsvIds(path, file, options);
  return readPlainIds(path, file, options);
}
