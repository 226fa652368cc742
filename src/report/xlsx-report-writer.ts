/**
 * The run report as an .xlsx workbook (`--report x.xlsx`), and any table (review-session
 * results) as one: the same columns as the CSV report (the input's columns, Password blank, PIN withheld,
 * then status, error_codes, error_messages), every cell a text cell in a text-formatted column
 * so that Excel or LibreOffice keeps `00456`, long numbers and dates as typed, also in cells
 * edited or added later. Header frozen with a filter; failed rows filled red, partial and
 * skipped ones amber. Written by examctl's own writer (xlsx-workbook.ts) as the rows come: each row
 * goes through the deflater to the file, and a row waits (its promise) while the file is behind.
 *
 * Fed back as input, the file is read by xlsx-reader.ts like any sheet: status and error
 * columns ignored, `--only-failed` by the status column (reportStatusOf), values unchanged.
 */
import { Writable } from 'node:stream';
import { ReplacementFile } from '../system/atomic-file.js';
import { checkReplaceable, cannotWriteReport, REPORT_FILE_OPTIONS } from './report-file.js';
import { ColumnModes, keptHeader, reportRowCells, sourceRowCells, onRow, warningMessages } from './report-writers.js';
import { type ReportEntry, type ReportSink, type SourceRow } from './run-report.js';
import { REPORT_COLUMNS, SOURCE_COLUMNS, WARNINGS_COLUMN } from '../formats/report-csv-contract.js';
import type { ItemStatus } from './run-report.js';
import { RowLook, WorkbookWriter, type SheetWriter } from './xlsx-workbook.js';

/** How a report row looks by its item's status: failed red, partial and skipped amber. */
const LOOKS: Readonly<Record<ItemStatus, RowLook>> = {
  ok: RowLook.plain,
  failed: RowLook.red,
  partial: RowLook.amber,
  skipped: RowLook.amber,
};

/** Runs `steps` one after the other, each after the previous one's promise if it gave one. */
function inSequence(steps: readonly (() => void | Promise<void>)[], from = 0): void | Promise<void> {
  for (let i = from; i < steps.length; i++) {
    const pending = (steps[i] as () => void | Promise<void>)();
    if (pending !== undefined) return pending.then(() => inSequence(steps, i + 1));
  }
}

/**
 * The run report as a workbook over `stream` (a file or stdout). `onlyNotOk` keeps the rows
 * that still need work, as the CSV report does for --only-failed.
 */
export class XlsxReportWriter implements ReportSink {
  private inputHeader: readonly string[] | undefined;
  private readonly columnModes = new ColumnModes();
  private sheet: SheetWriter | undefined;

  private constructor(
    private readonly workbook: WorkbookWriter,
    private readonly onlyNotOk: boolean,
  ) {}

  static async create(stream: Writable, options: { onlyNotOk?: boolean } = {}): Promise<XlsxReportWriter> {
    return new XlsxReportWriter(new WorkbookWriter(stream), options.onlyNotOk ?? false);
  }

  /** Opens the sheet with its header (the first reported row's input header, or `header`). */
  private async start(header: readonly string[]): Promise<SheetWriter> {
    const sheet = await this.workbook.sheet('Report');
    this.sheet = sheet;
    await sheet.header(header);
    return sheet;
  }

  private headerOf(input: readonly string[]): readonly string[] {
    return [...keptHeader(input, this.columnModes.of(input)), ...REPORT_COLUMNS, WARNINGS_COLUMN];
  }

  sourceHeader(header: readonly string[]): void {
    this.inputHeader ??= header;
  }

  /**
   * The write still under way when `item` gave a promise: a caller that did not wait for it
   * (the builder does; a test may not) gets its rows after it, never in a sheet opened twice.
   */
  private pending: Promise<void> | undefined;

  item(entry: ReportEntry): void | Promise<void> {
    const pending = this.pending === undefined ? this.write(entry) : this.pending.then(() => this.write(entry));
    if (pending === undefined) return;
    this.pending = pending;
    const settled = (): void => {
      if (this.pending === pending) this.pending = undefined;
    };
    pending.then(settled, settled);
    return pending;
  }

  private write(entry: ReportEntry): void | Promise<void> {
    const { item, rows } = entry;
    if (this.onlyNotOk && item.status === 'ok') {
      if (rows !== undefined && rows.length > 0) this.sourceHeader((rows[0] as SourceRow).header);
      return;
    }
    if (this.sheet === undefined) {
      const first = rows?.[0];
      return this.start(first === undefined ? SOURCE_HEADER : this.headerOf(first.header)).then((sheet) => this.rowsOf(sheet, entry));
    }
    return this.rowsOf(this.sheet, entry);
  }

  private rowsOf(sheet: SheetWriter, { item, rows }: ReportEntry): void | Promise<void> {
    const look = LOOKS[item.status];
    if (rows === undefined || rows.length === 0) return sheet.row([...sourceRowCells(item), warningMessages(item.warnings)], look);
    // A sitting's warnings stay on the row the value is on, as its errors do.
    const write = (row: SourceRow) => () => sheet.row([...reportRowCells(item, row, this.columnModes.of(row.header)), warningMessages(item.warnings && onRow(item.warnings, row.line))], look);
    // One row (a user, a candidate) is the common case: no list of steps for it.
    return rows.length === 1 ? write(rows[0] as SourceRow)() : inSequence(rows.map(write));
  }

  async finish(): Promise<void> {
    await this.pending;
    // Nothing reported: the input's own header when known, so the (empty) report is still its kind of file.
    if (this.sheet === undefined) await this.start(this.inputHeader === undefined ? SOURCE_HEADER : this.headerOf(this.inputHeader));
    await this.workbook.finish();
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
  const workbook = new WorkbookWriter(stream);
  for (const { name, header, rows } of sheets) {
    const sheet = await workbook.sheet(name);
    await sheet.header(header);
    for (const row of rows) await sheet.row(row, RowLook.plain);
    await workbook.endSheet();
  }
  await workbook.finish();
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
