/**
 * `.xlsx` input, and why not exceljs: docs/input-formats.md, ".xlsx". One worksheet streamed as a
 * CSV file is read, its header matched by the CSV reader's functions; an unusable cell fails its record.
 */
import { ErrorCode } from '../domain/codes.js';
import { InputFileError } from '../system/errors.js';
import type { Problem } from '../domain/problem.js';
import { TEMPLATE_DESCRIPTION_SHEET } from '../domain/columns.js';
import { normalizeColumnName, SECRET_FIELDS } from '../domain/field-names.js';
import type { WrittenTime } from '../domain/local-time.js';
import type { FieldWarning } from '../domain/spreadsheet-warnings.js';
import { batchedRecords, collectedBatches, type BatchedRecords, type TableHeader } from './batches.js';
import {
  isHeaderRepeat,
  listCellWarnings,
  mapHeader,
  MAX_RECORD_BYTES,
  rowFields,
  type CsvReadOptions,
  type HeaderMapping,
} from './csv-reader.js';
import type { HiddenRows, InputRecord } from './record.js';
import { cannotRead, INPUT_CHANGED } from './text-source.js';
import { plainNumber, readCell } from './xlsx-cells.js';
import { columnLetters, SheetPartError, sheetRowBatches, type ParsedRow } from './sheet-rows.js';
import { MergedColumns, verticalMerges, type VerticalMerge } from './sheet-merges.js';
import {
  readCellFormats,
  readRelationships,
  readSharedStrings,
  readWorkbookInfo,
  relationshipIs,
  relationshipsPartOf,
  resolvePartName,
} from './workbook-parts.js';
import { XmlLimitError, XmlSyntaxError } from './workbook-xml.js';
import { NoZipDirectoryError, ZipEntries, ZipEntryTooLargeError, ZipFormatError } from './zip-entries.js';

export interface XlsxReadOptions extends CsvReadOptions {
  /** The worksheet: its name, or its 1-based position among the tabs. Default: the first visible one. */
  sheet?: string;
  /** The IANA zone of StartDateTime/EndDateTime date-time cells (`--timezone`, checked by recordShaping). */
  timeZone?: string;
  /** Lower limits than XLSX_LIMITS (tests of hostile files). */
  limits?: Partial<XlsxLimits>;
  /** `--hidden-rows`; unset, a sheet with hidden rows is refused (docs/input-formats.md, ".xlsx", "Hidden rows"). */
  hiddenRows?: HiddenRows;
  /** Where a line for the admin goes (stderr): which sheet was read and which were not (otherSheets). */
  notice?: (text: string) => Promise<void> | void;
  /** Told the header row a read meets. */
  met?: (header: TableHeader) => void;
}

/** Hidden rows named in a refusal or a note, at most this many, then counted. */
const HIDDEN_ROWS_NAMED = 5;

/** `rows 3, 7 and 9`, `rows 3, 7, 9, 12, 15 and 4 more`: the first few line numbers, then a count. */
function rowNumbers(lines: readonly number[], count: number): string {
  const named = lines.slice(0, HIDDEN_ROWS_NAMED).map(String);
  const more = count - named.length;
  if (more > 0) return `rows ${named.join(', ')} and ${more} more`;
  if (named.length === 1) return `row ${named[0]}`;
  return `rows ${named.slice(0, -1).join(', ')} and ${named.at(-1)}`;
}

/** Records per batch handed on (the CSV reader's batches are one 64 KiB chunk, about this many rows). */
const BATCH_ROWS = 512;

const ZIP_SIGNATURE = 0x04034b50;
const OLE2_SIGNATURE = 0xe011cfd0;

/** A file that is no readable zip, refused by what its first bytes say it is (without a zip directory). */
function notAWorkbook(file: string, error: ZipFormatError): InputFileError {
  const head = error instanceof NoZipDirectoryError ? error.head : undefined;
  const signature = head?.length === 4 ? head.readUInt32LE(0) : undefined;
  const why =
    head === undefined || signature === ZIP_SIGNATURE
      ? `: ${error.message}`
      : signature === OLE2_SIGNATURE
        ? ': this is an Excel 97-2003 (.xls) file or a password-protected workbook; save it as "Excel Workbook (.xlsx)" without a password'
        : head.length === 0
          ? ': the file is empty'
          : ' (the content is not a zip archive); a CSV file must end in .csv';
  return new InputFileError(file, undefined, `not an .xlsx workbook${why}`);
}

interface SheetEntry {
  name: string;
  hidden: boolean;
  /** The worksheet's part in the zip (xl/worksheets/sheet1.xml); undefined for a chart sheet. */
  part: string | undefined;
}

/** The worksheet `wanted` names (the first visible one when none), refused by name when there is none. */
export function chooseSheet(sheets: readonly SheetEntry[], wanted: string | undefined, file: string): SheetEntry {
  const worksheets = sheets.filter((sheet) => sheet.part !== undefined);
  const list = (): string => worksheets.map(quotedSheet).join(', ');
  if (worksheets.length === 0) throw new InputFileError(file, undefined, 'not an .xlsx workbook: it has no worksheet');
  if (wanted === undefined) {
    const first = worksheets.find((sheet) => !sheet.hidden);
    if (first === undefined)
      throw new InputFileError(file, undefined, `every worksheet is hidden; name one with --sheet (${list()})`);
    return first;
  }
  const exact = worksheets.find((sheet) => sheet.name === wanted);
  if (exact !== undefined) return exact;
  const folded = worksheets.filter((sheet) => sheet.name.toLowerCase() === wanted.toLowerCase());
  if (folded.length === 1) return folded[0] as SheetEntry;
  if (/^[1-9][0-9]*$/.test(wanted)) {
    const byPosition = sheets[Number(wanted) - 1];
    if (byPosition?.part !== undefined) return byPosition;
    throw new InputFileError(
      file,
      undefined,
      `--sheet ${wanted}: the workbook has ${sheets.length} ${sheets.length === 1 ? 'sheet' : 'sheets'}${byPosition === undefined ? '' : `, and sheet ${wanted} is a chart`} (${list()})`,
    );
  }
  throw new InputFileError(file, undefined, `--sheet ${wanted}: no sheet of that name (sheets: ${list()})`);
}

function quotedSheet(sheet: SheetEntry): string {
  return `"${sheet.name}"`;
}

/** A sheet's first non-empty row as header names; none for an empty sheet, undefined if unreadable (only compared). */
async function headerNamesOf(
  workbook: OpenedWorkbook,
  sheet: SheetEntry,
  limits: XlsxLimits,
): Promise<Set<string> | undefined> {
  const part = sheet.part;
  if (part === undefined || !workbook.zip.has(part)) return undefined;
  try {
    for await (const batch of sheetRowBatches(
      workbook.zip.chunks(part, limits.sheetBytes),
      workbook.strings,
      workbook.formats,
    )) {
      for (const row of batch) {
        const names = new Set<string>();
        for (const cell of row.cells) {
          const reading = readCell(cell.value, cell.numFmt, { field: undefined, date1904: workbook.date1904 });
          if ('text' in reading && reading.text.trim() !== '') names.add(normalizeColumnName(reading.text.trim()));
        }
        if (names.size > 0) return names;
      }
    }
  } catch {
    return undefined;
  }
  return new Set();
}

/** Without --sheet the other visible sheets are refused or named (docs/input-formats.md, ".xlsx", "Other sheets"). */
async function checkOtherSheets(
  workbook: OpenedWorkbook,
  chosen: SheetEntry,
  display: string,
  options: XlsxReadOptions,
  limits: XlsxLimits,
): Promise<void> {
  const others = workbook.sheets.filter((sheet) => sheet !== chosen && sheet.part !== undefined && !sheet.hidden);
  if (others.length === 0) return;
  const mine = await headerNamesOf(workbook, chosen, limits);
  if (mine === undefined) return;
  const alike: SheetEntry[] = [];
  const unread: SheetEntry[] = [];
  const filled: SheetEntry[] = [];
  let fewestShared = mine.size;
  for (const other of others) {
    const theirs = (await headerNamesOf(workbook, other, limits)) ?? new Set<string>();
    if (isTemplateDescription(other, theirs)) continue;
    unread.push(other);
    if (theirs.size > 0) filled.push(other);
    let shared = 0;
    for (const name of mine) if (theirs.has(name)) shared += 1;
    if (shared * 2 > mine.size) {
      alike.push(other);
      fewestShared = Math.min(fewestShared, shared);
    }
  }
  if (mine.size === 0) {
    // The first sheet holds nothing (a cover, a blank tab): the rows are on another one.
    if (filled.length > 0) {
      throw new InputFileError(
        display,
        undefined,
        `the first sheet, ${quotedSheet(chosen)}, is empty: give the sheet to read with --sheet (${filled.map((sheet) => `--sheet ${quotedSheet(sheet)}`).join(', or ')})`,
      );
    }
    return;
  }
  if (alike.length > 0) {
    const all = [chosen, ...alike];
    throw new InputFileError(
      display,
      undefined,
      `the sheets ${all.map(quotedSheet).join(', ')} have ${fewestShared === mine.size ? 'the same columns' : `most columns in common (${fewestShared} or more of the ${mine.size} of ${quotedSheet(chosen)})`}, and examctl reads one sheet per run: the rows of ${alike.map(quotedSheet).join(', ')} would be left out. ` +
        `Run once per sheet with --sheet (${all.map((sheet) => `--sheet ${quotedSheet(sheet)}`).join(', then ')}), or put all the rows on one sheet`,
    );
  }
  if (unread.length > 0)
    await options.notice?.(
      `note: ${display}: read the sheet ${quotedSheet(chosen)}; not read: ${unread.map(quotedSheet).join(', ')} (other columns; --sheet NAME reads another)`,
    );
}

const TEMPLATE_DESCRIPTION_NAMES = TEMPLATE_DESCRIPTION_SHEET.header.map(normalizeColumnName);

/** examctl's own template's "Columns" sheet (by its name and header): a description of the columns, never data. */
function isTemplateDescription(sheet: SheetEntry, names: ReadonlySet<string>): boolean {
  return (
    sheet.name === TEMPLATE_DESCRIPTION_SHEET.name &&
    names.size === TEMPLATE_DESCRIPTION_NAMES.length &&
    TEMPLATE_DESCRIPTION_NAMES.every((name) => names.has(name))
  );
}

/** How much of a workbook examctl reads (docs/input-formats.md, "Hostile or broken workbooks"); tests lower them. */
export const XLSX_LIMITS = {
  /** Inflated bytes of the worksheet part (streamed: this bounds time, not memory). */
  sheetBytes: 2 ** 31,
  /** Inflated bytes of the shared strings part (held in memory for the whole read). */
  sharedStringsBytes: 256 * 2 ** 20,
  /** Texts in the shared strings table. */
  sharedStrings: 2_000_000,
  /** Inflated bytes of workbook.xml, styles.xml and the relationship parts. */
  smallPartBytes: 32 * 2 ** 20,
};

type XlsxLimits = typeof XLSX_LIMITS;

const DEFAULT_WORKBOOK_PART = 'xl/workbook.xml';

/** What a workbook part failed with, as a refusal of the file (the part named; a sheet's, at the row it reached). */
function partFailure(
  error: unknown,
  file: string,
  part: string,
  line?: number,
  xmlPart = `not a readable .xlsx workbook: ${part}`,
): unknown {
  if (error instanceof ZipEntryTooLargeError) return new InputFileError(file, line, `refused: ${error.message}`);
  if (error instanceof ZipFormatError)
    return new InputFileError(file, line, `not a readable .xlsx workbook: ${error.message}`);
  if (error instanceof XmlSyntaxError)
    return new InputFileError(file, line, `${xmlPart} is not valid XML: ${error.message}`);
  if (error instanceof XmlLimitError) return new InputFileError(file, line, `refused: ${part}: ${error.message}`);
  return error;
}

/** Reads one small part through `read`, or gives `absent` when the zip has no such entry. */
async function readPart<T>(
  zip: ZipEntries,
  part: string,
  limit: number,
  file: string,
  read: (chunks: AsyncIterable<Buffer>) => Promise<T>,
  absent: T,
): Promise<T> {
  if (!zip.has(part)) return absent;
  try {
    return await read(zip.chunks(part, limit));
  } catch (error) {
    throw partFailure(error, file, part);
  }
}

/** Opens the zip and reads the workbook's parts (tabs, styles, shared strings); refuses what is no workbook. */
export async function openWorkbook(path: string, file: string, limits: XlsxLimits) {
  let zip: ZipEntries;
  try {
    zip = await ZipEntries.open(path);
  } catch (error) {
    throw error instanceof ZipFormatError ? notAWorkbook(file, error) : cannotRead(file, error);
  }
  const small = limits.smallPartBytes;
  const rootRels = await readPart(zip, '_rels/.rels', small, file, readRelationships, []);
  const office = rootRels.find((rel) => relationshipIs(rel, 'officeDocument') && !rel.external);
  const workbookPart = office === undefined ? DEFAULT_WORKBOOK_PART : resolvePartName('', office.target);
  if (!zip.has(workbookPart)) {
    const what = zip.has('content.xml') ? ' (an OpenDocument .ods file? save it as .xlsx)' : '';
    throw new InputFileError(file, undefined, `not an .xlsx workbook: it has no worksheet${what}`);
  }
  const rels = await readPart(zip, relationshipsPartOf(workbookPart), small, file, readRelationships, []);
  const info = await readPart(zip, workbookPart, small, file, readWorkbookInfo, { sheets: [], date1904: false });
  const target = (kind: string, fallback: string): string => {
    const rel = rels.find((r) => relationshipIs(r, kind) && !r.external);
    return rel === undefined ? fallback : resolvePartName(workbookPart, rel.target);
  };
  const byId = new Map(rels.map((rel) => [rel.id, rel]));
  const sheets = info.sheets.map((sheet): SheetEntry => {
    const rel = byId.get(sheet.relationshipId);
    const isWorksheet = rel !== undefined && !rel.external && (rel.type === '' || relationshipIs(rel, 'worksheet'));
    return {
      name: sheet.name,
      // The `hidden` or `veryHidden` state; any other (visible, show, absent) is shown.
      hidden: sheet.state === 'hidden' || sheet.state === 'veryHidden',
      part: isWorksheet ? resolvePartName(workbookPart, rel.target) : undefined,
    };
  });
  const formats = await readPart(zip, target('styles', 'xl/styles.xml'), small, file, readCellFormats, []);
  const stringsPart = target('sharedStrings', 'xl/sharedStrings.xml');
  const strings = await readPart(
    zip,
    stringsPart,
    limits.sharedStringsBytes,
    file,
    (chunks) => readSharedStrings(chunks, limits.sharedStrings),
    [],
  );
  return { zip, sheets, date1904: info.date1904, strings, formats };
}

type OpenedWorkbook = Awaited<ReturnType<typeof openWorkbook>>;

/** Reads the chosen worksheet, each non-blank row's record to `add`, yielding after each batch of rows. */
async function* xlsxRows(
  path: string,
  options: XlsxReadOptions,
  add: (record: InputRecord) => void,
  same: { stat?: string; sha256?: string },
): AsyncGenerator<void> {
  const display = options.displayName ?? path;
  const limits = { ...XLSX_LIMITS, ...options.limits };
  const workbook = await openWorkbook(path, display, limits);
  // Each pass opens it again: another file than the first (Excel saves by rename) is refused.
  if (workbook.zip.identity !== (same.stat ??= workbook.zip.identity))
    throw new InputFileError(display, undefined, INPUT_CHANGED);
  same.sha256 ??= workbook.zip.identity.slice(-64);
  const sheet = chooseSheet(workbook.sheets, options.sheet, display);
  if (options.sheet === undefined) await checkOtherSheets(workbook, sheet, display, options, limits);
  const part = sheet.part as string;
  const file = `${display}[${sheet.name}]`;
  if (!workbook.zip.has(part))
    throw new InputFileError(file, undefined, `the worksheet is missing from the file (no ${part} in the archive)`);
  let merges: VerticalMerge[] = [];
  try {
    merges = await verticalMerges(workbook.zip.chunks(part, limits.sheetBytes), limits.smallPartBytes);
  } catch (error) {
    // A damaged or oversized entry is refused by the rows' own read below, naming the row it reached.
    if (!(error instanceof ZipFormatError)) throw partFailure(error, file, part);
  }
  const rows = sheetRowBatches(workbook.zip.chunks(part, limits.sheetBytes), workbook.strings, workbook.formats);
  try {
    yield* sheetRows(rows, file, options, { date1904: workbook.date1904, merges }, add);
  } catch (error) {
    if (!(error instanceof SheetPartError)) throw error;
    throw partFailure(error.cause, file, part, error.line === 0 ? undefined : error.line, `the worksheet ${part}`);
  }
}

async function* sheetRows(
  batches: AsyncIterable<ParsedRow[]>,
  file: string,
  options: XlsxReadOptions,
  { date1904, merges }: { date1904: boolean; merges: readonly VerticalMerge[] },
  add: (record: InputRecord) => void,
): AsyncGenerator<void> {
  let mapping: HeaderMapping | undefined;
  let header: string[] = [];
  let merged: MergedColumns | undefined;
  let width = 0;
  let headerLine = 0;
  let headerKeys: string[] = [];
  let rows = 0;
  // A row's cells within the bound of one CSV record (MAX_RECORD_BYTES), counted as read: cells pointing to
  // one long shared string would otherwise copy it into every record, report and message.
  let rowBytes = 0;
  const countBytes = (text: string, line: number, inHeader: boolean): void => {
    rowBytes += Buffer.byteLength(text);
    if (rowBytes <= MAX_RECORD_BYTES) return;
    throw new InputFileError(
      file,
      line,
      `${inHeader ? 'header' : 'row'} too large: row ${line} holds over ${MAX_RECORD_BYTES.toLocaleString('en-US')} bytes of text in its cells (the limit for one record, as for a CSV line)`,
    );
  };
  const hidden: number[] = [];
  let hiddenCount = 0;
  for await (const batch of batches) {
    for (const row of batch) {
      const line = row.line;
      if (mapping === undefined) {
        const cells: string[] = [];
        for (const cell of row.cells) {
          const reading = readCell(cell.value, cell.numFmt, { field: undefined, date1904 });
          if ('problem' in reading)
            throw new InputFileError(
              file,
              line,
              `header cell ${columnLetters(cell.column)}${line}: ${reading.problem}`,
            );
          cells[cell.column - 1] = reading.text.trim();
          countBytes(reading.text, line, true);
        }
        rowBytes = 0;
        for (let i = 0; i < cells.length; i++) cells[i] ??= '';
        while (cells.length > 0 && cells[cells.length - 1] === '') cells.pop();
        if (cells.length === 0) continue;
        width = cells.length;
        headerLine = line;
        headerKeys = cells.map(normalizeColumnName);
        mapping = mapHeader(cells, options, file, line);
        header = cells;
        options.met?.({ cells });
        merged = merges.length === 0 ? undefined : new MergedColumns(merges, line);
        continue;
      }
      const { cells: rowCells, copied } =
        merged === undefined ? { cells: row.cells, copied: undefined } : merged.fill(row);
      const names = mapping.names;
      const cells = new Array<string>(width).fill('');
      const problems: Problem[] = [];
      const warnings: FieldWarning[] = [];
      const written: WrittenTime[] = [];
      const bareNumbers: string[] = [];
      let blank = true;
      for (const { column, value, numFmt } of rowCells) {
        const field = column <= width ? names[column - 1] : undefined;
        const reading = readCell(value, numFmt, { field, timeZone: options.timeZone, date1904 });
        // Trimmed, as CSV cells are; an unusable cell: what the spreadsheet shows (the report gives it back).
        const text = ('text' in reading ? reading.text : (reading.shown ?? '')).trim();
        if (text === '' && !('problem' in reading)) continue;
        // A merged cell's value alone does not make a row: the rows a label is merged down are not records by it.
        if (copied?.has(column) !== true) blank = false;
        if (column > width) {
          throw new InputFileError(
            file,
            line,
            `a value in cell ${columnLetters(column)}${line}, whose column has no name in the header (row ${headerLine})`,
          );
        }
        cells[column - 1] = text;
        countBytes(text, line, false);
        if (field === undefined) continue;
        const secret = SECRET_FIELDS.has(field);
        if ('problem' in reading) {
          const reason = secret
            ? `${field} must be typed as text (the cell holds a number, a date, a formula or an error)`
            : reading.problem;
          problems.push({
            field,
            code: ErrorCode.CellNotReadable,
            message: `cell ${columnLetters(column)}${line}: ${reason}`,
          });
        } else if (reading.warning !== undefined && !secret) {
          warnings.push({
            field,
            code: reading.warning.code,
            message: `cell ${columnLetters(column)}${line}: ${reading.warning.message}`,
          });
        }
        if ('wall' in reading && reading.wall !== undefined)
          written.push({ field, text: reading.wall.text, zone: reading.wall.zone, value: reading.text });
        else if (typeof value === 'number' && text === plainNumber(value)) bareNumbers.push(field);
      }
      rowBytes = 0;
      if (blank) continue;
      if (isHeaderRepeat(cells, headerKeys))
        throw new InputFileError(file, line, 'the header row is repeated here (sheets pasted together?)');
      if (row.hidden === true && options.hiddenRows !== 'include') {
        hiddenCount += 1;
        if (hidden.length < HIDDEN_ROWS_NAMED) hidden.push(line);
        continue;
      }
      const record: InputRecord = {
        source: { file, line, index: rows },
        fields: rowFields(cells, mapping),
        raw: { header, cells, names },
      };
      if (problems.length > 0) {
        // A field whose cell could not be read is left unset; its problem says why.
        for (const problem of problems) delete record.fields[problem.field];
        record.problems = problems;
      }
      warnings.push(...(listCellWarnings(cells, mapping) ?? []));
      if (warnings.length > 0) record.warnings = warnings;
      if (written.length > 0) record.written = written;
      if (bareNumbers.length > 0) record.bareNumbers = bareNumbers;
      add(record);
      if (++rows % BATCH_ROWS === 0) yield;
    }
  }
  if (mapping === undefined) throw new InputFileError(file, 1, 'no header row (the sheet is empty)');
  if (hiddenCount > 0) {
    const which = rowNumbers(hidden, hiddenCount);
    if (options.hiddenRows === undefined) {
      throw new InputFileError(
        file,
        undefined,
        `${which} ${hiddenCount === 1 ? 'is' : 'are'} hidden (by a filter, or by hand), and a hidden row is acted on as the others are: ` +
          'give --hidden-rows include to act on every row, hidden or not, or --hidden-rows skip to leave the hidden ones out' +
          // A run report filtered on its status (docs/human.md, "Fix and retry"): what was meant is what is shown.
          (headerKeys.includes(normalizeColumnName('status'))
            ? ' (a run report filtered on its status: --hidden-rows skip acts on the rows shown, and --only-failed sends none of its ok rows either way)'
            : ''),
      );
    }
    await options.notice?.(`note: ${file}: ${which} left out, hidden (--hidden-rows skip)`);
  }
  yield;
}

/** Streams one worksheet's records, re-read at each iteration; a structural problem names the sheet (`a.xlsx[S]:7`). */
export function readXlsxRecords(path: string, options: XlsxReadOptions, same = {}): BatchedRecords {
  let header: TableHeader | undefined;
  const told = { ...options, met: (met: TableHeader) => (header = met) };
  return batchedRecords(() => collectedBatches((add) => xlsxRows(path, told, add, same)), { header: () => header });
}
