import type { CsvDialect } from '../formats/csv-cell.js';
import type { InputRecord } from './record.js';

/** A table input's header row and how its file is written, as the last read met them. */
export interface TableHeader {
  cells: readonly string[];
  dialect?: CsvDialect;
}

/** Records in arrays, one per chunk read: 500k records cost a few thousand awaits, not one per record. */
export interface BatchedRecords extends AsyncIterable<InputRecord> {
  batches(): AsyncIterable<readonly InputRecord[]>;
  /**
   * Reads the whole input for structure only (the same errors as a full read) and counts its records without
   * building them; `notOkOnly`: only a run report's rows not ok (--only-failed). A real run's first pass.
   */
  countRecords?(notOkOnly: boolean): Promise<number>;
  /** The header the last read met (CSV, .xlsx): a report with no row is still the input's kind of file. */
  header?(): TableHeader | undefined;
  /** A CSV structure pass's kept rows as records of `field` alone, if it is their cell. */
  keptRecords?(field: string): Iterable<Iterable<InputRecord>> | undefined;
}

/** Records per array when the source has no batches of its own (JSON, prompts, tests). */
const FALLBACK_BATCH = 256;

/** The records of any source in arrays: the source's own batches, or groups of its records. */
export async function* recordBatches(records: AsyncIterable<InputRecord>): AsyncGenerator<readonly InputRecord[]> {
  if (typeof (records as Partial<BatchedRecords>).batches === 'function') {
    yield* (records as BatchedRecords).batches();
    return;
  }
  let batch: InputRecord[] = [];
  try {
    for await (const record of records) {
      batch.push(record);
      if (batch.length >= FALLBACK_BATCH) {
        yield batch;
        batch = [];
      }
    }
  } catch (error) {
    // The records before a structural problem are still passed on, then the problem (as the readers do).
    if (batch.length > 0) yield batch;
    throw error;
  }
  if (batch.length > 0) yield batch;
}

/** An iterable that yields records one by one and also in batches. */
export function batchedRecords(
  batches: () => AsyncIterable<readonly InputRecord[]>,
  more?: Pick<BatchedRecords, 'countRecords' | 'header' | 'keptRecords'>,
): BatchedRecords {
  return {
    batches,
    ...more,
    async *[Symbol.asyncIterator]() {
      for await (const batch of batches()) yield* batch;
    },
  };
}

/** `records` (a wrapper that completes or checks the records of `source`) telling the header `source` met. */
export function keepingHeader(
  source: AsyncIterable<InputRecord>,
  records: AsyncIterable<InputRecord>,
): AsyncIterable<InputRecord> & Pick<BatchedRecords, 'header'> {
  const header = (source as Partial<BatchedRecords>).header;
  if (header === undefined) return records;
  return { [Symbol.asyncIterator]: () => records[Symbol.asyncIterator](), header: () => header.call(source) };
}

/**
 * The batches of a reader that collects records while it walks its file, after each step; on a structural
 * problem the records collected before it are passed on first.
 */
export async function* collectedBatches(
  walk: (add: (record: InputRecord) => void) => AsyncIterable<void>,
): AsyncGenerator<readonly InputRecord[]> {
  // One array, emptied into each batch: `add` (inlined in a reader's row) never meets a new one.
  const pending: InputRecord[] = [];
  try {
    for await (const _ of walk((record) => pending.push(record))) {
      if (pending.length > 0) yield pending.splice(0);
    }
  } catch (error) {
    if (pending.length > 0) yield pending.splice(0);
    throw error;
  }
}
