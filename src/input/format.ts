import { extname } from 'node:path';
import { batchedRecords, recordBatches, type BatchedRecords } from './batches.js';
import { readCsvRecords } from './csv-reader.js';
import { readJsonRecords } from './json-reader.js';
import { readXlsxRecords } from './xlsx-reader.js';
import type { ColumnSpec, InputRecord } from './record.js';
import { readTextHead } from './text-source.js';
import { shapeRecord, type RecordShaping } from './field-map.js';

/** `json` covers one object, an array of objects and NDJSON: one reader handles all three. */
export type InputFormat = 'csv' | 'json' | 'xlsx';

const FORMAT_BY_EXTENSION: Readonly<Record<string, InputFormat>> = {
  '.csv': 'csv',
  '.json': 'json',
  '.ndjson': 'json',
  '.jsonl': 'json',
  '.xlsx': 'xlsx',
  '.xlsm': 'xlsx',
};

/** The format a file's extension names, or undefined for any other extension. */
export function formatFromExtension(path: string): InputFormat | undefined {
  return FORMAT_BY_EXTENSION[extname(path).toLowerCase()];
}

/**
 * The input format: by extension (.csv, .json, .ndjson, .jsonl, .xlsx, .xlsm, any case); otherwise by the
 * first non-blank character of the text (`{` or `[`: JSON, anything else: CSV).
 */
export async function detectFormat(path: string, displayName: string = path): Promise<InputFormat> {
  const known = formatFromExtension(path);
  if (known !== undefined) return known;
  const head = (await readTextHead(path, displayName)).trimStart();
  return head.startsWith('{') || head.startsWith('[') ? 'json' : 'csv';
}

export interface ReadRecordsOptions {
  /** CSV columns of the command (ignored for JSON, whose keys are the API field names). */
  columns: readonly ColumnSpec[];
  ignoreUnknownColumns?: boolean;
  displayName?: string;
  /** Skip detection (e.g. a `--format` flag). */
  format?: InputFormat;
  /** xlsx: the worksheet, by name or 1-based position (`--sheet`). */
  sheet?: string;
  /** xlsx: IANA zone of date-time cells in StartDateTime/EndDateTime (`--timezone`). */
  timeZone?: string;
  /** CSV: the encoding of a file without a BOM (`--encoding`, a WHATWG label); default UTF-8. */
  encoding?: string;
  /** xlsx: whether an unreadable cell fails its record or refuses the file (XlsxReadOptions). */
  cellProblems?: 'record' | 'refuse';
  /** `--map`, `--set`, `--date-format`, `--timezone` (field-map.ts): applied to every record read. */
  shaping?: RecordShaping;
}

/** Streams the records of a CSV, JSON or xlsx input file, whichever it is. Each iteration re-reads it. */
export function readRecords(path: string, options: ReadRecordsOptions): BatchedRecords {
  // Batches (one array per chunk read) let the CLI process many records per await.
  const formatOf = async () => options.format ?? (await detectFormat(path, options.displayName ?? path));
  const shaping = options.shaping;
  const readOptions = shaping === undefined ? options : { ...options, map: shaping.map };
  async function* read(): AsyncGenerator<readonly InputRecord[]> {
    const format = await formatOf();
    if (format === 'csv') yield* readCsvRecords(path, readOptions).batches();
    else if (format === 'xlsx') yield* readXlsxRecords(path, readOptions).batches();
    else yield* recordBatches(readJsonRecords(path, { displayName: options.displayName ?? path }));
  }
  return batchedRecords(
    shaping === undefined
      ? read
      : async function* () {
          for await (const batch of read()) yield batch.map((record) => shapeRecord(record, shaping));
        },
    // A CSV structure pass builds no records; JSON has no report status, so every record counts.
    async (notOkOnly) => {
      const format = await formatOf();
      if (format === 'csv') return (readCsvRecords(path, readOptions).countRecords as (notOkOnly: boolean) => Promise<number>)(notOkOnly);
      if (format === 'xlsx') return (readXlsxRecords(path, readOptions).countRecords as (notOkOnly: boolean) => Promise<number>)(notOkOnly);
      let count = 0;
      for await (const batch of recordBatches(readJsonRecords(path, { displayName: options.displayName ?? path }))) count += batch.length;
      return count;
    },
  );
}
