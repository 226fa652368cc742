import type { CsvDialect } from '../formats/csv-cell.js';
import { recordBatches, type BatchedRecords } from '../input/batches.js';
import { reportStatusOf } from '../input/csv-reader.js';
import { countRecordsOf } from '../input/format.js';
import { checkSpreadsheetValues } from '../domain/spreadsheet-warnings.js';
import type { InputRecord } from '../input/record.js';
import {
  dryRunReportRefused,
  IN_DOUBT,
  isDryRunStatus,
  isOkStatus,
  noStatusColumn,
  notARunReport,
  reportRunOf,
} from '../formats/report-csv-contract.js';
import { UsageError } from '../system/errors.js';

/** A job's records as the pipeline reads them: all, or with --only-failed a run report's rows not ok. */
export class RecordSource {
  /** Told the input's header and dialect once, so a CSV report of no row keeps them. */
  private onPassedOver: ((header: readonly string[], dialect?: CsvDialect) => void) | undefined;
  private headerTold = false;

  constructor(
    private readonly read: () => AsyncIterable<InputRecord>,
    private readonly onlyFailed: boolean,
    private readonly command = 'user sync',
  ) {}

  /** Receives the input's header: at the first row --only-failed passes over, else at the end of the next read. */
  tellHeaderTo(receiver: (header: readonly string[], dialect?: CsvDialect) => void): void {
    this.onPassedOver = receiver;
  }

  /** --only-failed reads a real run's report (docs/cli.md, "Run report"), else exit 2; the whole file is checked. */
  async checkIsRunReport(): Promise<void> {
    if (!this.onlyFailed) return;
    let first = true;
    for await (const batch of recordBatches(this.read())) {
      for (const record of batch) {
        const status = reportStatusOf(record);
        const { file, line } = record.source;
        if (first && status === undefined) {
          throw record.raw === undefined ? notARunReport(`${file} is not a CSV or .xlsx file`) : noStatusColumn(file);
        }
        first = false;
        if (isDryRunStatus(status)) throw dryRunReportRefused(file, line, this.command);
        // By its status cell only: a row's own item cannot be found from the report.
        if (status?.trim().toLowerCase() === IN_DOUBT)
          throw lostAnswer(file, line, reportRunOf(record.raw!) ?? '<run>');
      }
    }
  }

  /** The structure pass of a real run: the whole input read before anything is sent, its records counted. */
  checkStructure(): Promise<number> {
    return countRecordsOf(this.read(), this.onlyFailed);
  }

  /** The records to send, in batches; with `pieces`, none longer than `first` records at first, then `then`. */
  batches(pieces?: { first: number; then: number }): AsyncIterable<readonly InputRecord[]> {
    const source: AsyncIterable<InputRecord> & Partial<BatchedRecords> = this.read();
    const batches = recordBatches(source);
    const kept = this.tellingHeader(this.onlyFailed ? this.notOk(batches) : batches, source);
    return checkedValues(pieces === undefined ? kept : inPieces(kept, pieces.first, pieces.then));
  }

  /** The batches, then the header the read met, when no passed-over row told it yet. */
  private async *tellingHeader(
    batches: AsyncIterable<readonly InputRecord[]>,
    source: Partial<BatchedRecords>,
  ): AsyncIterable<readonly InputRecord[]> {
    yield* batches;
    if (this.headerTold || this.onPassedOver === undefined) return;
    const header = source.header?.();
    if (header === undefined) return;
    this.headerTold = true;
    this.onPassedOver(header.cells, header.dialect);
  }

  async *records(): AsyncIterable<InputRecord> {
    for await (const batch of this.batches()) yield* batch;
  }

  private async *notOk(batches: AsyncIterable<readonly InputRecord[]>): AsyncIterable<readonly InputRecord[]> {
    for await (const batch of batches) {
      const kept: InputRecord[] = [];
      for (const record of batch) {
        if (!isOkStatus(reportStatusOf(record))) kept.push(record);
        else if (!this.headerTold && record.raw !== undefined && this.onPassedOver !== undefined) {
          this.headerTold = true;
          this.onPassedOver(record.raw.header, record.raw.dialect);
        }
      }
      if (kept.length > 0) yield kept;
    }
  }
}

const lostAnswer = (file: string, line: number, run: string): UsageError =>
  new UsageError(
    `${file}:${line}: run ${run} lost the answer to this create (an id examctl chose): --only-failed would make another; nothing sent. examctl runs resume ${run}`,
    { code: 'E2111' },
  );

/** Batches cut into pieces: the first request waits for the first piece's checks only, not a whole chunk's. */
async function* inPieces(
  batches: AsyncIterable<readonly InputRecord[]>,
  first: number,
  then: number,
): AsyncIterable<readonly InputRecord[]> {
  let size = first;
  for await (const batch of batches) {
    for (let at = 0; at < batch.length; at += size, size = then)
      yield at === 0 && batch.length <= size ? batch : batch.slice(at, at + size);
  }
}

/** Every record's values checked for spreadsheet damage (error values fail it, a U+FEFF is removed and said). */
async function* checkedValues(batches: AsyncIterable<readonly InputRecord[]>): AsyncIterable<readonly InputRecord[]> {
  for await (const batch of batches) yield checked(batch);
}

/** A batch's records checked in place (a plain function: the generator's TurboFan code stays small). */
function checked(batch: readonly InputRecord[]): readonly InputRecord[] {
  for (const record of batch) {
    const { fields, warnings, problems } = checkSpreadsheetValues(record.fields);
    if (problems.length > 0)
      record.problems = record.problems === undefined ? problems : [...record.problems, ...problems];
    if (warnings.length === 0) continue;
    record.fields = fields;
    record.warnings = record.warnings === undefined ? warnings : [...record.warnings, ...warnings];
  }
  return batch;
}
