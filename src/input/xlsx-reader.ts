/**
 * `.xlsx` input (docs/input-formats.md, ".xlsx"): one worksheet read as a CSV file is, through
 * exceljs's streaming reader so memory stays bounded. The header is matched by the CSV reader's
 * own functions; each cell becomes text by xlsx-cells.ts. Cells that cannot be used (error
 * values, formulas never calculated, zone-less date-times) do not stop the file: their record
 * carries the problem and fails, as a bad value in a CSV cell does.
 *
 * exceljs is imported on the first read only: it costs ~450 ms, which a CSV run must not pay.
 */
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { Row, Cell } from 'exceljs';
import { InputFileError } from '../errors.js';
import type { Problem } from '../domain/problem.js';
import type { FieldWarning } from '../domain/spreadsheet-warnings.js';
import { batchedRecords, collectedBatches, type BatchedRecords } from './batches.js';
import {
  isHeaderRepeat,
  mapHeader,
  normalizeColumnName,
  reportStatusOf,
  rowFields,
  type CsvReadOptions,
  type HeaderMapping,
} from './csv-reader.js';
import type { InputRecord } from './record.js';
import { cannotRead } from './text-source.js';
import { isKnownTimeZone, readCell, type CellReading, type SheetValue } from './xlsx-cells.js';
import { ZipEntries, ZipFormatError } from './zip-entries.js';

export interface XlsxReadOptions extends CsvReadOptions {
  /** The worksheet: its name, or its 1-based position among the tabs. Default: the first visible one. */
  sheet?: string;
  /** IANA zone in which date-time cells of StartDateTime/EndDateTime are read (`--timezone`). */
  timeZone?: string;
  /**
   * What a cell that cannot be read does. `record`: its record carries the problem and fails
   * (for a pipeline that merges `record.problems`, withReaderProblems). `refuse`, the default:
   * the file is refused at that cell, so a caller unaware of `problems` never sends a record
   * whose unreadable field was left out.
   */
  cellProblems?: 'record' | 'refuse';
}

/** Records per batch handed on (the CSV reader's batches are one 64 KiB chunk, about this many rows). */
const BATCH_ROWS = 512;

/** Fields whose cells are secrets: no message may show what the cell holds. */
const SECRET_FIELDS: ReadonlySet<string> = new Set(['Password']);

const ZIP_SIGNATURE = 0x04034b50;
const OLE2_SIGNATURE = 0xe011cfd0;

/** Refuses, by name, a file that is not an .xlsx (zip) workbook, before exceljs sees it. */
async function checkIsWorkbook(path: string, file: string): Promise<void> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw cannotRead(file, error);
  }
  let head: Buffer;
  try {
    if ((await handle.stat()).isDirectory()) throw Object.assign(new Error('directory'), { code: 'EISDIR' });
    head = Buffer.alloc(8);
    const { bytesRead } = await handle.read(head, 0, 8, 0);
    head = head.subarray(0, bytesRead);
  } catch (error) {
    throw cannotRead(file, error);
  } finally {
    await handle.close().catch(() => undefined);
  }
  if (head.length >= 4 && head.readUInt32LE(0) === ZIP_SIGNATURE) return;
  if (head.length >= 4 && head.readUInt32LE(0) === OLE2_SIGNATURE) {
    throw new InputFileError(
      file,
      undefined,
      'not an .xlsx workbook: this is an Excel 97-2003 (.xls) file or a password-protected workbook; save it as "Excel Workbook (.xlsx)" without a password',
    );
  }
  throw new InputFileError(
    file,
    undefined,
    head.length === 0 ? 'not an .xlsx workbook: the file is empty' : 'not an .xlsx workbook (the content is not a zip archive); a CSV file must end in .csv',
  );
}

export function checkTimeZone(timeZone: string | undefined): void {
  if (timeZone !== undefined && !isKnownTimeZone(timeZone)) {
    throw new InputFileError('--timezone', undefined, `unknown time zone "${timeZone}": give an IANA name such as Europe/Paris, America/New_York or UTC`);
  }
}

/** Column letters of a 1-based column number (1 -> A, 28 -> AB). */
export function columnLetters(column: number): string {
  let letters = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

interface SheetEntry {
  name: string;
  hidden: boolean;
  /** The worksheet's part in the zip (xl/worksheets/sheet1.xml); undefined for a chart sheet. */
  part: string | undefined;
}

/** The parts of exceljs's WorkbookReader this reader drives itself, each on one zip entry's stream. */
interface WorkbookParts {
  model?: { sheets?: { name: string; rId: string; state?: string }[] };
  workbookRels?: { Id: string; Target: string; Type?: string }[];
  properties?: { model?: { date1904?: boolean } };
  _parseRels(entry: Readable): Promise<void>;
  _parseWorkbook(entry: Readable): Promise<void>;
  _parseStyles(entry: Readable): Promise<void>;
  _parseSharedStrings(entry: Readable): AsyncIterable<unknown>;
  _parseWorksheet(entry: Readable, sheetNo: string): Iterator<{ value: unknown }>;
}

const WORKBOOK_PART = 'xl/workbook.xml';
const WORKBOOK_RELS_PART = 'xl/_rels/workbook.xml.rels';

/** A relationship target of xl/workbook.xml as a zip entry name (targets are relative to xl/, or absolute). */
function partName(target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const parts = ['xl'];
  for (const segment of target.split('/')) {
    if (segment === '..') parts.pop();
    else if (segment !== '.' && segment !== '') parts.push(segment);
  }
  return parts.join('/');
}

/** The workbook's tabs in order, with the worksheet part each one is stored in. */
function sheetsOf(workbook: WorkbookParts): SheetEntry[] {
  const rels = new Map((workbook.workbookRels ?? []).map((rel) => [rel.Id, rel]));
  return (workbook.model?.sheets ?? []).map((sheet) => {
    const rel = rels.get(sheet.rId);
    const isWorksheet = rel !== undefined && (rel.Type === undefined || rel.Type.endsWith('/worksheet'));
    return { name: sheet.name, hidden: sheet.state !== undefined && sheet.state !== 'visible', part: isWorksheet ? partName(rel.Target) : undefined };
  });
}

function sharedStringsPart(workbook: WorkbookParts): string {
  const rel = (workbook.workbookRels ?? []).find((r) => r.Type?.endsWith('/sharedStrings') === true);
  return rel === undefined ? 'xl/sharedStrings.xml' : partName(rel.Target);
}

function stylesPart(workbook: WorkbookParts): string {
  const rel = (workbook.workbookRels ?? []).find((r) => r.Type?.endsWith('/styles') === true);
  return rel === undefined ? 'xl/styles.xml' : partName(rel.Target);
}

function chooseSheet(sheets: readonly SheetEntry[], wanted: string | undefined, file: string): SheetEntry {
  const worksheets = sheets.filter((sheet) => sheet.part !== undefined);
  const list = (): string => worksheets.map((sheet) => `"${sheet.name}"`).join(', ');
  if (worksheets.length === 0) throw new InputFileError(file, undefined, 'not an .xlsx workbook: it has no worksheet');
  if (wanted === undefined) {
    const first = worksheets.find((sheet) => !sheet.hidden);
    if (first === undefined) throw new InputFileError(file, undefined, `every worksheet is hidden; name one with --sheet (${list()})`);
    return first;
  }
  const exact = worksheets.find((sheet) => sheet.name === wanted);
  if (exact !== undefined) return exact;
  const folded = worksheets.filter((sheet) => sheet.name.toLowerCase() === wanted.toLowerCase());
  if (folded.length === 1) return folded[0] as SheetEntry;
  if (/^[1-9][0-9]*$/.test(wanted)) {
    const byPosition = sheets[Number(wanted) - 1];
    if (byPosition?.part !== undefined) return byPosition;
    throw new InputFileError(file, undefined, `--sheet ${wanted}: the workbook has ${sheets.length} ${sheets.length === 1 ? 'sheet' : 'sheets'}${byPosition === undefined ? '' : `, and sheet ${wanted} is a chart`} (${list()})`);
  }
  throw new InputFileError(file, undefined, `--sheet ${wanted}: no sheet of that name (sheets: ${list()})`);
}

/** One sheet row as the reader passes it on. */
interface SheetRow {
  cells: string[];
  line: number;
  problems: Problem[];
  warnings: FieldWarning[];
}

interface RowSink {
  header(cells: string[], line: number, file: string): HeaderMapping;
  row(row: SheetRow, file: string): void;
}

/** A cell's text for the record and the report: trimmed, as CSV cells are. */
function cellText(reading: CellReading, shown: string | undefined): string {
  return ('text' in reading ? reading.text : (shown ?? '')).trim();
}

function cellValueOf(cell: Cell): SheetValue {
  // The formula's own getter drops a falsy result (0, '', false); its parts do not.
  if (cell.type === 6) return { formula: cell.formula, result: cell.result as unknown };
  return cell.value as SheetValue;
}

/** What a problem cell shows in the report (what the admin sees in the spreadsheet). */
function shownText(value: SheetValue): string | undefined {
  if (typeof value === 'object' && value !== null && !(value instanceof Date) && typeof (value as { error?: unknown }).error === 'string') {
    return (value as { error: string }).error;
  }
  return undefined;
}

/** Opens the zip and reads the workbook's parts (tabs, styles, shared strings); refuses what is no workbook. */
async function openWorkbook(path: string, file: string): Promise<{ zip: ZipEntries; workbook: WorkbookParts }> {
  let zip: ZipEntries;
  try {
    zip = await ZipEntries.open(path);
  } catch (error) {
    if (error instanceof ZipFormatError) throw new InputFileError(file, undefined, `not an .xlsx workbook: ${error.message}`);
    throw cannotRead(file, error);
  }
  if (!zip.has(WORKBOOK_PART)) {
    const what = zip.has('content.xml') ? ' (an OpenDocument .ods file? save it as .xlsx)' : '';
    throw new InputFileError(file, undefined, `not an .xlsx workbook: it has no worksheet${what}`);
  }
  const ExcelJS = (await import('exceljs')).default;
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(path, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    // Cached, a hyperlink would replace the cell's value; ignored, the cell keeps its text.
    hyperlinks: 'ignore',
    styles: 'cache',
    entries: 'ignore',
  });
  const workbook = reader as unknown as WorkbookParts;
  if (zip.has(WORKBOOK_RELS_PART)) await workbook._parseRels(await zip.text(WORKBOOK_RELS_PART));
  await workbook._parseWorkbook(await zip.text(WORKBOOK_PART));
  const styles = stylesPart(workbook);
  if (zip.has(styles)) await workbook._parseStyles(await zip.text(styles));
  const strings = sharedStringsPart(workbook);
  if (zip.has(strings)) for await (const _ of workbook._parseSharedStrings(await zip.text(strings)));
  return { zip, workbook };
}

/**
 * Reads the chosen worksheet and hands each non-blank row to `sink`; yields (nothing) after each
 * batch of rows so the caller can pass on what the sink collected.
 */
async function* xlsxRows(path: string, options: XlsxReadOptions, sink: RowSink): AsyncGenerator<void> {
  const display = options.displayName ?? path;
  checkTimeZone(options.timeZone);
  await checkIsWorkbook(path, display);
  let rows: AsyncIterable<Row>;
  let sheet: SheetEntry;
  let date1904: boolean;
  try {
    const { zip, workbook } = await openWorkbook(path, display);
    sheet = chooseSheet(sheetsOf(workbook), options.sheet, display);
    const part = sheet.part as string;
    if (!zip.has(part)) throw new InputFileError(display, undefined, `the worksheet "${sheet.name}" is missing from the file (${part})`);
    const worksheet = workbook._parseWorksheet(await zip.text(part), /sheet(\d+)\.xml$/.exec(part)?.[1] ?? '1').next().value;
    rows = (worksheet as { value: AsyncIterable<Row> }).value;
    date1904 = workbook.properties?.model?.date1904 === true;
  } catch (error) {
    throw readFailure(error, display);
  }
  try {
    yield* sheetRows(rows, `${display}[${sheet.name}]`, options, date1904, sink);
  } catch (error) {
    throw readFailure(error, display);
  }
}

/** A damaged part (bad XML, a cut deflate stream) is a refusal naming the file, not a crash. */
function readFailure(error: unknown, file: string): unknown {
  if (error instanceof InputFileError) return error;
  if (error instanceof ZipFormatError) return new InputFileError(file, undefined, `not a readable .xlsx workbook: ${error.message}`);
  return new InputFileError(file, undefined, `not a readable .xlsx workbook (${(error as Error).message})`);
}

async function* sheetRows(
  worksheet: AsyncIterable<Row>,
  file: string,
  options: XlsxReadOptions,
  date1904: boolean,
  sink: RowSink,
): AsyncGenerator<void> {
  let mapping: HeaderMapping | undefined;
  let width = 0;
  let headerLine = 0;
  let headerKeys: string[] = [];
  let rows = 0;
  const timeZone = options.timeZone;
  for await (const row of worksheet) {
    const line = row.number;
    if (mapping === undefined) {
      const cells: string[] = [];
      row.eachCell({ includeEmpty: false }, (cell, column) => {
        const reading = readCell(cellValueOf(cell), cell.numFmt, { field: undefined, date1904 });
        if ('problem' in reading) throw new InputFileError(file, line, `header cell ${columnLetters(column)}${line}: ${reading.problem}`);
        cells[column - 1] = reading.text.trim();
      });
      for (let i = 0; i < cells.length; i++) cells[i] ??= '';
      while (cells.length > 0 && cells[cells.length - 1] === '') cells.pop();
      if (cells.length === 0) continue;
      width = cells.length;
      headerLine = line;
      headerKeys = cells.map(normalizeColumnName);
      mapping = sink.header(cells, line, file);
      continue;
    }
    const names = mapping.names;
    const cells = new Array<string>(width).fill('');
    const problems: Problem[] = [];
    const warnings: FieldWarning[] = [];
    let blank = true;
    row.eachCell({ includeEmpty: false }, (cell, column) => {
      const field = column <= width ? names[column - 1] : undefined;
      const value = cellValueOf(cell);
      const reading = readCell(value, cell.numFmt, { field, timeZone, date1904 });
      const text = cellText(reading, shownText(value));
      if (text === '' && !('problem' in reading)) return;
      blank = false;
      if (column > width) {
        throw new InputFileError(file, line, `a value in cell ${columnLetters(column)}${line}, whose column has no name in the header (row ${headerLine})`);
      }
      cells[column - 1] = text;
      if (field === undefined) return;
      const secret = SECRET_FIELDS.has(field);
      if ('problem' in reading) {
        const reason = secret ? `${field} must be typed as text (the cell holds a number, a date, a formula or an error)` : reading.problem;
        problems.push({ field, code: null, message: `cell ${columnLetters(column)}${line}: ${reason}` });
      } else if (reading.warning !== undefined && !secret) {
        warnings.push({ field, message: `cell ${columnLetters(column)}${line}: ${reading.warning}` });
      }
    });
    if (blank) continue;
    if (isHeaderRepeat(cells, headerKeys)) throw new InputFileError(file, line, 'the header row is repeated here (sheets pasted together?)');
    sink.row({ cells, line, problems, warnings }, file);
    if (++rows % BATCH_ROWS === 0) yield;
  }
  if (mapping === undefined) throw new InputFileError(file, 1, 'no header row (the sheet is empty)');
  yield;
}

async function* xlsxRecordBatches(path: string, options: XlsxReadOptions): AsyncGenerator<readonly InputRecord[]> {
  let pending: InputRecord[] = [];
  let header: readonly string[] = [];
  let mapping: HeaderMapping | undefined;
  let index = 0;
  const sink: RowSink = {
    header(cells, line, file) {
      mapping = mapHeader(cells, options, file, line);
      header = cells;
      return mapping;
    },
    row({ cells, line, problems, warnings }, file) {
      const record: InputRecord = { source: { file, line, index: index++ }, fields: rowFields(cells, mapping as HeaderMapping), raw: { header, cells } };
      if (problems.length > 0) {
        if (options.cellProblems !== 'record') throw new InputFileError(file, line, problems.map((p) => p.message).join('; '));
        // A field whose cell could not be read is left unset; its problem says why.
        for (const problem of problems) delete record.fields[problem.field];
        record.problems = problems;
      }
      if (warnings.length > 0) record.warnings = warnings;
      pending.push(record);
    },
  };
  yield* collectedBatches(xlsxRows(path, options, sink), () => {
    const batch = pending;
    pending = [];
    return batch;
  });
}

/**
 * Streams the records of one worksheet of an .xlsx file. Every iteration re-reads the file.
 * Records carry `problems` (cells that cannot be used: the record fails with them) and
 * `warnings` (values read but doubtful). Structural problems throw InputFileError naming the
 * sheet: `users.xlsx[Sheet1]:7: reason`.
 */
export function readXlsxRecords(path: string, options: XlsxReadOptions): BatchedRecords {
  return batchedRecords(
    () => xlsxRecordBatches(path, options),
    async (notOkOnly) => {
      let count = 0;
      for await (const batch of xlsxRecordBatches(path, options)) {
        if (!notOkOnly) count += batch.length;
        else for (const record of batch) if (reportStatusOf(record)?.trim().toLowerCase() !== 'ok') count += 1;
      }
      return count;
    },
  );
}
