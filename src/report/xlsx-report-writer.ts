/** The run report (`--report x.xlsx`), or any table, as a workbook (docs/input-formats.md, "The .xlsx run report"). */
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { RECORD_COLUMNS } from '../domain/columns.js';
import { parseBooleanSpelling } from '../domain/coercion.js';
import { DATE_FIELDS, DATE_TIME_FIELDS, type DateFormat } from '../domain/local-time.js';
import type { Problem } from '../domain/problem.js';
import { normalizeColumnName } from '../domain/field-names.js';
import { openReportFile } from './report-file.js';
import {
  Column,
  columnModesOf,
  errorMessages,
  inSequence,
  keptHeader,
  reportRowCells,
  sourceRowCells,
  onRow,
} from './report-writers.js';
import { type ReportEntry, type ReportSink, type SourceRow, type ItemStatus } from './run-report.js';
import { SOURCE_COLUMNS, WARNINGS_COLUMN, WRITTEN_COLUMNS } from '../formats/report-csv-contract.js';
import { calendarDateOf, excelDate, excelDateFormats, excelDateTime, instantOf, plainNumber } from './output-times.js';
import {
  CellFormat,
  cutCellsWords,
  MAX_NOTES,
  RowLook,
  WorkbookWriter,
  type CellNote,
  type CellPlace,
  type SheetCell,
  type SheetWriter,
  type WorkbookDateFormats,
} from './xlsx-workbook.js';
import { formatCount } from '../formats/number-format.js';
import { MAX_SHEET_COLUMNS, MAX_SHEET_ROWS } from '../input/sheet-rows.js';

/** How a report row looks by its item's status: failed red, partial and skipped amber. */
const LOOKS: Readonly<Record<ItemStatus, RowLook>> = {
  ok: RowLook.plain,
  failed: RowLook.red,
  partial: RowLook.amber,
  skipped: RowLook.amber,
};

/** The columns a report workbook adds after the input's: the CSV report's, then the warnings. */
export const SHEET_REPORT_COLUMNS = [...WRITTEN_COLUMNS, WARNINGS_COLUMN] as const;

/** How a report workbook is written: --only-failed's rows, and the run's zone and date format for typed cells. */
interface XlsxReportOptions {
  onlyNotOk?: boolean;
  /** The run's zone, when it has one (`--timezone`, a profile's): date-time cells are typed in it. */
  timeZone?: string | undefined;
  /** The run's id (its `run` column), when journaled. */
  run?: string | undefined;
  /** The run's `--date-format`: date cells are shown the way the input wrote them. */
  dateFormat?: DateFormat | undefined;
}

/** The run report as a workbook over `stream`; `onlyNotOk` keeps the rows that still need work (--only-failed). */
export class XlsxReportWriter implements ReportSink {
  private inputHeader: readonly string[] | undefined;
  private readonly workbook: WorkbookWriter;
  private readonly types: ReportCellTypes;
  private sheet: SheetWriter | undefined;

  constructor(
    stream: Writable,
    private readonly options: XlsxReportOptions = {},
  ) {
    this.workbook = new WorkbookWriter(stream, excelDateFormats(options.dateFormat));
    this.types = new ReportCellTypes(options);
  }

  /** What the workbook could not hold as it was (cells marked visibly), warned on stderr once written. */
  warnings(path: string): string[] {
    const said: string[] = [];
    const cut = this.workbook.cutCells;
    if (cut.count > 0) said.push(`${path}: ${cutCellsWords(cut)}; a .csv or .json report keeps them whole`);
    const left = this.workbook.notesLeftOut;
    if (left > 0)
      said.push(
        `${path}: ${formatCount(left)} marked cells have no note (a sheet keeps at most ${formatCount(MAX_NOTES)}); their errors are in error_messages`,
      );
    return said;
  }

  /** Opens the sheet with its header (the first reported row's, or `header`), columns shown as `formats` says. */
  private async start(header: readonly string[], formats?: readonly CellFormat[]): Promise<SheetWriter> {
    const sheet = await this.workbook.sheet('Report');
    this.sheet = sheet;
    await sheet.header(header, formats);
    return sheet;
  }

  private headerOf(input: readonly string[]): readonly string[] {
    return [...keptHeader(input), ...SHEET_REPORT_COLUMNS];
  }

  sourceHeader(header: readonly string[]): void {
    this.inputHeader ??= header;
  }

  item(entry: ReportEntry): void | Promise<void> {
    const { item, rows } = entry;
    if (this.options.onlyNotOk === true && item.status === 'ok') {
      if (rows !== undefined && rows.length > 0) this.sourceHeader((rows[0] as SourceRow).header);
      return;
    }
    if (this.sheet === undefined) {
      const first = rows?.[0];
      const started =
        first === undefined
          ? this.start(SOURCE_HEADER)
          : this.start(this.headerOf(first.header), this.types.formats(first));
      return started.then((sheet) => this.rowsOf(sheet, entry));
    }
    return this.rowsOf(this.sheet, entry);
  }

  private rowsOf(sheet: SheetWriter, { item, rows }: ReportEntry): void | Promise<void> {
    const look = LOOKS[item.status];
    // Every report marks the cells a row failed on: a dry run's officer and a real run's fix them there alike.
    const marking = (item.status === 'failed' || item.status === 'partial') && item.errors.length > 0;
    if (rows === undefined || rows.length === 0) {
      const cells: SheetCell[] = [...sourceRowCells(item, this.options.run ?? ''), errorMessages(item.warnings)];
      // file, line, id, status...: the line a number.
      cells[1] = item.source.line;
      return sheet.row(
        cells,
        look,
        marking ? this.types.marks(item.errors, undefined, SOURCE_COLUMNS.length) : undefined,
      );
    }
    // A sitting's warnings stay on the row the value is on, as its errors do.
    const write = (row: SourceRow) => () => {
      const cells: SheetCell[] = reportRowCells(item, row, this.options.run ?? '');
      const statusAt = cells.length - WRITTEN_COLUMNS.length;
      this.types.typed(cells, row, failedFieldsOf(item.errors, row.line));
      cells.push(errorMessages(item.warnings && onRow(item.warnings, row.line)));
      const marks = marking ? this.types.marks(item.errors, row, statusAt) : undefined;
      return sheet.row(cells, look, marks !== undefined && marks.length > 0 ? marks : undefined);
    };
    // One row (a user, a candidate) is the common case: no list of steps for it.
    return rows.length === 1 ? write(rows[0] as SourceRow)() : inSequence(rows.map(write));
  }

  async finish(): Promise<void> {
    if (this.sheet === undefined)
      await this.start(this.inputHeader === undefined ? SOURCE_HEADER : this.headerOf(this.inputHeader));
    await this.workbook.finish();
  }
}

const SOURCE_HEADER: readonly string[] = [...SOURCE_COLUMNS, ...SHEET_REPORT_COLUMNS];

/** One sheet of a workbook: its name, header and how each column is shown (default text). */
interface SheetHeader {
  name: string;
  header: readonly string[];
  formats?: readonly CellFormat[];
  /** Notes on header cells (what a column holds that its name cannot say). */
  headerNotes?: readonly CellNote[];
}

/** What had to be cut to stay within Excel's limits (the caller warns): cells, columns, rows. */
export interface TablesWritten {
  cutCells: { count: number; first?: CellPlace };
  cutColumns: number;
  cutRows: number;
}

/** The marker that ends what was cut: a last column, a last row (`what` is `columns` or `rows`). */
function cutMarker(count: number, what: 'columns' | 'rows', limit: number): string {
  return `…[cut by examctl: ${formatCount(count)} more ${what}, a sheet holds ${formatCount(limit)}]`;
}

/**
 * Tables as a workbook, one sheet each (review-session results, a template): cells typed, header frozen with
 * a filter; what is cut past Excel's limits: docs/cli.md, "review-session show".
 */
export class TablesWorkbook {
  private readonly workbook: WorkbookWriter;
  private cutColumns = 0;
  private cutRows = 0;

  constructor(
    stream: Writable,
    dateFormats: WorkbookDateFormats = excelDateFormats(undefined),
    properties: Readonly<Record<string, string>> = {},
  ) {
    this.workbook = new WorkbookWriter(stream, dateFormats, properties);
  }

  /** Opens the next sheet for `rowCount` rows: `row` each of them, then `end`. */
  async sheet(
    { name, header, formats, headerNotes }: SheetHeader,
    rowCount: number,
  ): Promise<{ row(cells: readonly SheetCell[]): void | Promise<void>; end(): Promise<void> }> {
    const sheet = await this.workbook.sheet(name);
    const extraColumns = header.length - MAX_SHEET_COLUMNS;
    const width = extraColumns > 0 ? MAX_SHEET_COLUMNS - 1 : header.length;
    if (extraColumns > 0) this.cutColumns += extraColumns + 1;
    await sheet.header(
      extraColumns > 0
        ? [...header.slice(0, width), cutMarker(extraColumns + 1, 'columns', MAX_SHEET_COLUMNS)]
        : header,
      formats?.slice(0, width),
      headerNotes?.filter((note) => note.column < width),
    );
    // Header, rows, and one row for the marker when they do not all fit.
    const room = rowCount + 1 > MAX_SHEET_ROWS ? MAX_SHEET_ROWS - 2 : rowCount;
    let written = 0;
    return {
      row: (cells) => {
        if (written++ >= room) return;
        return sheet.row(extraColumns > 0 ? [...cells.slice(0, width), ''] : cells, RowLook.plain);
      },
      end: async () => {
        if (room < rowCount) {
          this.cutRows += rowCount - room;
          await sheet.row([cutMarker(rowCount - room, 'rows', MAX_SHEET_ROWS)], RowLook.plain);
        }
        await this.workbook.endSheet();
      },
    };
  }

  async finish(): Promise<TablesWritten> {
    await this.workbook.finish();
    return { cutCells: this.workbook.cutCells, cutColumns: this.cutColumns, cutRows: this.cutRows };
  }
}

/** Tables held whole as a workbook (TablesWorkbook): each sheet's header and rows. */
export async function writeTablesXlsx(
  stream: Writable,
  sheets: readonly (SheetHeader & { rows: readonly (readonly SheetCell[])[] })[],
): Promise<TablesWritten> {
  const workbook = new TablesWorkbook(stream);
  for (const table of sheets) {
    const sheet = await workbook.sheet(table, table.rows.length);
    for (const row of table.rows) await sheet.row(row);
    await sheet.end();
  }
  return workbook.finish();
}

/**
 * A report workbook through report-file.ts, as every format; `commit` (after the report builder's finish)
 * finishes the workbook and moves it into place.
 */
export async function openXlsxReportFile(path: string, options: XlsxReportOptions = {}, earlierIs?: string) {
  const file = await openReportFile(path, earlierIs);
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      file.sink.write(chunk).then(() => done(), done);
    },
  });
  const written = finished(stream).catch((error: unknown) => file.failed(error));
  const sink = new XlsxReportWriter(stream, options);
  return {
    sink,
    async commit() {
      await written;
      await file.commit();
    },
    async discard() {
      stream.destroy();
      await file.discard();
    },
  };
}

/* A run report workbook's cells typed by their column's field, and a dry run's marked cells: docs/input-formats.md. */
type FieldKind = 'number' | 'boolean' | 'date' | 'dateTime';

let kinds: ReadonlyMap<string, FieldKind> | undefined;

/** Every record field's kind by name, from the rule tables (a name two tables type differently is left as text). */
function fieldKinds(): ReadonlyMap<string, FieldKind> {
  if (kinds !== undefined) return kinds;
  const found = new Map<string, FieldKind | null>();
  const note = (name: string, kind: FieldKind): void => {
    const before = found.get(name);
    found.set(name, before === undefined || before === kind ? kind : null);
  };
  for (const spec of Object.values(RECORD_COLUMNS).flat()) {
    const cell = spec.rule?.cell;
    if (cell === 'boolean') note(spec.name, 'boolean');
    else if (typeof cell === 'object' && cell.kind === 'integer') note(spec.name, 'number');
  }
  for (const name of DATE_FIELDS) note(name, 'date');
  for (const name of DATE_TIME_FIELDS) note(name, 'dateTime');
  kinds = new Map([...found].filter((entry): entry is [string, FieldKind] => entry[1] !== null));
  return kinds;
}

/** One input column of the report as written: its index in the source row, and its field's kind. */
interface KeptColumn {
  source: number;
  field: string | undefined;
  kind: FieldKind | undefined;
}

/** The field an error names, without its place in a schedule request or a list (`Candidates[2].Email` -> `Email`). */
function baseField(field: string): string {
  const last = field.replace(/^Schedule\./, '').replace(/^Candidates\[\d+\]\./, '');
  return /^[^.[]*/.exec(last)?.[0] ?? last;
}

/** The report cells of one input header, worked out once per header (all rows of a file share one array). */
class ReportCellTypes {
  private readonly layouts = new WeakMap<readonly string[], KeptColumn[]>();

  constructor(private readonly options: Pick<XlsxReportOptions, 'timeZone'>) {}

  /** The kept input columns of `row`'s header, in the report's order. */
  private layoutOf(row: SourceRow): KeptColumn[] {
    let layout = this.layouts.get(row.header);
    if (layout === undefined) {
      layout = [];
      const modes = columnModesOf(row.header);
      const byName = fieldKinds();
      for (let i = 0; i < row.header.length; i++) {
        if (modes[i] === Column.Drop) continue;
        const field = row.names?.[i];
        // A secret written blank or withheld is text whatever its field.
        layout.push({
          source: i,
          field,
          kind: modes[i] === Column.Keep && field !== undefined ? byName.get(field) : undefined,
        });
      }
      this.layouts.set(row.header, layout);
    }
    return layout;
  }

  /** How each column is shown: input columns by kind, the report's own as text. */
  formats(row: SourceRow): CellFormat[] {
    const formats = this.layoutOf(row).map(({ kind }) =>
      kind === 'date'
        ? CellFormat.date
        : kind === 'dateTime' && this.options.timeZone !== undefined
          ? CellFormat.dateTime
          : kind === undefined
            ? CellFormat.text
            : CellFormat.general,
    );
    return [...formats, ...SHEET_REPORT_COLUMNS.map(() => CellFormat.text)];
  }

  /** The report row's cells (changed in place), its input cells typed where they read back the same. */
  typed(cells: SheetCell[], row: SourceRow, failedFields: ReadonlySet<string>): SheetCell[] {
    const layout = this.layoutOf(row);
    for (let at = 0; at < layout.length; at++) {
      const { field, kind } = layout[at] as KeptColumn;
      if (kind === undefined || field === undefined) continue;
      const text = (cells[at] as string).trim();
      if (text === '' || failedFields.has(field)) continue;
      const value = this.valueOf(kind, field, text, row);
      if (value !== undefined) cells[at] = value;
    }
    return cells;
  }

  private valueOf(kind: FieldKind, field: string, text: string, row: SourceRow): SheetCell | undefined {
    if (kind === 'number') return plainNumber(text);
    if (kind === 'boolean') return parseBooleanSpelling(text);
    // Dates as the run read them (a `--date-format` text is in the API's form in the record).
    const read = row.fields?.[field];
    if (kind === 'date') {
      const date = calendarDateOf(typeof read === 'string' ? read : text);
      return date === undefined ? undefined : excelDate(date);
    }
    const zone = this.options.timeZone;
    const instant = instantOf(read);
    if (zone === undefined || instant === undefined) return undefined;
    // Read back in the same zone, the wall clock must give this instant again, not one of two.
    return excelDateTime(instant, zone);
  }

  /**
   * The cells a failed or partial row's errors name, each with a note of its codes and messages
   * (docs/input-formats.md, "A report marks the cell"); `statusAt` is the status cell's index.
   */
  marks(errors: readonly Problem[], row: SourceRow | undefined, statusAt: number): CellNote[] {
    const layout = row === undefined ? [] : this.layoutOf(row);
    const notes = new Map<number, string[]>();
    for (const error of row === undefined ? errors : onRow(errors, row.line)) {
      const field = error.field === undefined || error.field === '' ? undefined : baseField(error.field);
      let places =
        field === undefined ? [] : [layout.findIndex((column) => column.field === field)].filter((at) => at !== -1);
      if (places.length === 0 && field !== undefined && row !== undefined) {
        // A field the map file computes is no column: the cells it came from are (or the one at fault).
        const keys = new Set((row.cellsOf?.[field] ?? [field]).map(normalizeColumnName));
        places = layout.flatMap((column, at) =>
          keys.has(normalizeColumnName(row.header[column.source] as string)) ? [at] : [],
        );
      }
      // The error_messages cell's words for it, after its code.
      const text = `${error.code === null ? '' : `${error.code} `}${errorMessages([error])}`;
      for (const at of places.length === 0 ? [statusAt] : places) notes.set(at, [...(notes.get(at) ?? []), text]);
    }
    return [...notes].map(([column, texts]) => ({ column, text: texts.join('\n') }));
  }
}

const NONE: ReadonlySet<string> = new Set();

/** The fields a row's errors name (base names), whose cells stay the text that failed. */
function failedFieldsOf(errors: readonly Problem[], line: number): ReadonlySet<string> {
  if (errors.length === 0) return NONE;
  const fields = new Set<string>();
  for (const error of onRow(errors, line)) if (error.field) fields.add(baseField(error.field));
  return fields;
}
