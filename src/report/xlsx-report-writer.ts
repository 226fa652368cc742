/**
 * The run report as an .xlsx workbook (`--report x.xlsx`), and any table (review-session
 * results) as one: the same columns as the CSV report (the input's columns, Password blank, PIN withheld,
 * then status, error_codes, error_messages), every cell a text cell in a text-formatted column
 * so that Excel or LibreOffice keeps `00456`, long numbers and dates as typed, also in cells
 * edited or added later. Header frozen with a filter; failed rows filled red, partial and
 * skipped ones amber. Written by exceljs's streaming writer: rows leave memory as they are added.
 *
 * Fed back as input, the file is read by xlsx-reader.ts like any sheet: status and error
 * columns ignored, `--only-failed` by the status column (reportStatusOf), values unchanged.
 */
import { Writable } from 'node:stream';
import { ReplacementFile } from '../atomic-file.js';
import { checkReplaceable, cannotWriteReport, REPORT_FILE_OPTIONS } from './report-file.js';
import type { Fill, Style, Worksheet, stream as ExcelStream } from 'exceljs';
import { encodeXstring } from '../input/xstring.js';
import { ColumnModes, keptHeader, reportRowCells, sourceRowCells, onRow, warningMessages, type ReportEntry, type ReportSink, type SourceRow } from './report-writers.js';
import { REPORT_COLUMNS, SOURCE_COLUMNS, WARNINGS_COLUMN } from './report-csv-contract.js';
import type { ItemStatus } from './run-report.js';

type WorkbookWriter = ExcelStream.xlsx.WorkbookWriter;

const TEXT = '@';
const solid = (argb: string): Fill => ({ type: 'pattern', pattern: 'solid', fgColor: { argb } });

/** One shared style object per look: exceljs caches the style id by object identity. */
const STYLES: Readonly<Record<'header' | ItemStatus, Partial<Style>>> = {
  header: { numFmt: TEXT, font: { bold: true } },
  ok: { numFmt: TEXT },
  failed: { numFmt: TEXT, fill: solid('FFF8CBAD') },
  partial: { numFmt: TEXT, fill: solid('FFFFE699') },
  skipped: { numFmt: TEXT, fill: solid('FFFFE699') },
};

const COLUMN_STYLE: Partial<Style> = { numFmt: TEXT };

/** Workbook writer over `stream`; exceljs is loaded here, on first use only. */
async function openWorkbook(stream: Writable): Promise<WorkbookWriter> {
  const ExcelJS = (await import('exceljs')).default;
  return new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useStyles: true, useSharedStrings: false });
}

/** A sheet written row by row: text columns, frozen bold header with a filter. */
class TableSheet {
  private width = 0;
  private sheet: Worksheet | undefined;

  constructor(
    private readonly workbook: WorkbookWriter,
    private readonly name: string,
  ) {}

  get started(): boolean {
    return this.sheet !== undefined;
  }

  header(cells: readonly string[]): void {
    this.width = cells.length;
    const sheet = this.workbook.addWorksheet(this.name, { views: [{ state: 'frozen', ySplit: 1 }] });
    // Column styles make a cell typed in later (a new row, an emptied cell) text as well.
    sheet.columns = cells.map((cell) => ({ width: Math.min(60, Math.max(10, cell.length + 2)), style: COLUMN_STYLE }));
    this.sheet = sheet;
    this.add(cells, STYLES.header);
  }

  add(cells: readonly string[], style: Partial<Style>): void {
    const sheet = this.sheet as Worksheet;
    // Escaped as Excel does: a CR, a control character or DEL would otherwise not read back.
    const row = sheet.addRow(cells.map(encodeXstring));
    for (let i = 1; i <= cells.length; i++) row.getCell(i).style = style;
    row.commit();
  }

  /** Ends the sheet (its filter is written with its last part). */
  commitSheet(): void {
    const sheet = this.sheet as Worksheet;
    if (this.width > 0) sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: this.width } };
    sheet.commit();
  }

  async finish(): Promise<void> {
    this.commitSheet();
    await this.workbook.commit();
  }
}

/**
 * The run report as a workbook over `stream` (a file or stdout). `onlyNotOk` keeps the rows
 * that still need work, as the CSV report does for --only-failed.
 */
export class XlsxReportWriter implements ReportSink {
  private inputHeader: readonly string[] | undefined;
  private readonly columnModes = new ColumnModes();

  private constructor(
    private readonly table: TableSheet,
    private readonly onlyNotOk: boolean,
  ) {}

  static async create(stream: Writable, options: { onlyNotOk?: boolean } = {}): Promise<XlsxReportWriter> {
    return new XlsxReportWriter(new TableSheet(await openWorkbook(stream), 'Report'), options.onlyNotOk ?? false);
  }

  private startWith(header: readonly string[]): void {
    const modes = this.columnModes.of(header);
    this.table.header([...keptHeader(header, modes), ...REPORT_COLUMNS, WARNINGS_COLUMN]);
  }

  sourceHeader(header: readonly string[]): void {
    this.inputHeader ??= header;
  }

  item({ item, rows }: ReportEntry): void {
    if (this.onlyNotOk && item.status === 'ok') {
      if (rows !== undefined && rows.length > 0) this.sourceHeader((rows[0] as SourceRow).header);
      return;
    }
    const style = STYLES[item.status];
    if (rows === undefined || rows.length === 0) {
      if (!this.table.started) this.table.header(SOURCE_HEADER);
      this.table.add([...sourceRowCells(item), warningMessages(item.warnings)], style);
      return;
    }
    // A sitting's warnings stay on the row the value is on, as its errors do.
    for (const row of rows) {
      if (!this.table.started) this.startWith(row.header);
      this.table.add([...reportRowCells(item, row, this.columnModes.of(row.header)), warningMessages(item.warnings && onRow(item.warnings, row.line))], style);
    }
  }

  async finish(): Promise<void> {
    // Nothing reported: the input's own header when known, so the (empty) report is still its kind of file.
    if (!this.table.started) {
      if (this.inputHeader !== undefined) this.startWith(this.inputHeader);
      else this.table.header(SOURCE_HEADER);
    }
    await this.table.finish();
  }
}

const SOURCE_HEADER: readonly string[] = [...SOURCE_COLUMNS, ...REPORT_COLUMNS, WARNINGS_COLUMN];

/** One sheet of a workbook written at once: its name, header and rows (cells as text). */
export interface SheetTable {
  name: string;
  header: readonly string[];
  rows: Iterable<readonly string[]>;
}

/**
 * Tables as a workbook, one sheet each, in order (review-session results with `-o xlsx`, a
 * template and its column descriptions): every cell text, header frozen with a filter.
 */
export async function writeTablesXlsx(stream: Writable, sheets: readonly SheetTable[]): Promise<void> {
  const workbook = await openWorkbook(stream);
  const tables = sheets.map((sheet) => new TableSheet(workbook, sheet.name));
  for (let i = 0; i < sheets.length; i++) {
    const { header, rows } = sheets[i] as SheetTable;
    const table = tables[i] as TableSheet;
    table.header(header);
    for (const row of rows) table.add(row, STYLES.ok);
    table.commitSheet();
  }
  await workbook.commit();
}

/** A report workbook written beside its final name and renamed into place when complete. */
export interface XlsxReportFile {
  sink: XlsxReportWriter;
  /** Finishes the workbook (call after the report builder's finish) and moves it into place. */
  commit(): Promise<void>;
  discard(): Promise<void>;
}

/**
 * Opens the temp file at once (the one atomic writer, atomic-file.ts), so an unwritable report
 * location fails before anything is sent; the workbook's zip streams into it.
 */
export async function openXlsxReportFile(path: string, options: { onlyNotOk?: boolean } = {}): Promise<XlsxReportFile> {
  const cannotWrite = (error: unknown) => cannotWriteReport(path, error);
  let file: ReplacementFile;
  try {
    await checkReplaceable(path);
    file = await ReplacementFile.open(path, REPORT_FILE_OPTIONS);
  } catch (error) {
    throw cannotWrite(error);
  }
  let failure: unknown;
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      file.writer.write(chunk).then(
        () => done(),
        (error: unknown) => {
          failure ??= error;
          done(error as Error);
        },
      );
    },
  });
  const finished = new Promise<void>((resolve) => {
    stream.on('finish', () => resolve());
    stream.on('error', (error) => {
      failure ??= error;
      resolve();
    });
  });
  const sink = await XlsxReportWriter.create(stream, options);
  return {
    sink,
    async commit() {
      await finished;
      if (failure !== undefined) {
        await file.discard();
        throw cannotWrite(failure);
      }
      await file.commit().catch((error: unknown) => {
        throw cannotWrite(error);
      });
    },
    async discard() {
      stream.destroy();
      await file.discard();
    },
  };
}
