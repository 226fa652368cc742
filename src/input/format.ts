import { ErrorCode } from '../domain/codes.js';
import { extname } from 'node:path';
import { InputFileError } from '../system/errors.js';
import { batchedRecords, recordBatches, type BatchedRecords } from './batches.js';
import { readCsvRecords, reportStatusOf, unknownColumnsProblem } from './csv-reader.js';
import { isOkStatus } from '../formats/report-csv-contract.js';
import type { HiddenRows, InputRecord } from './record.js';
import { quotedValue, type Problem } from '../domain/problem.js';
import { isScheduleRequest } from '../domain/sittings.js';
import { isPlainObject, requestParts } from '../domain/field-rules.js';
import { readTextHead } from './text-source.js';
import { shapeRecord, type RecordShaping } from './field-map.js';
import type { XlsxReadOptions } from './xlsx-reader.js';

/** `json` covers one object, an array of objects and NDJSON: one reader handles all three. */
type InputFormat = 'csv' | 'json' | 'xlsx';

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
export async function detectFormat(path: string, displayName: string = path, encoding?: string): Promise<InputFormat> {
  const known = formatFromExtension(path);
  if (known !== undefined) return known;
  // Read in the --encoding the CSV reader will use: a windows-1252 accent is no binary content.
  const text = await readTextHead(path, displayName, 4096, {
    encodingFlag: 'csv',
    encoding,
  });
  const head = text.trimStart();
  // Markup is no table a run reads: most likely the JUnit or HTML report given back (docs/input-formats.md).
  if (head.startsWith('<')) {
    const line = text.slice(0, text.length - head.length).split('\n').length;
    throw new InputFileError(
      displayName,
      line,
      'markup (XML or HTML), not CSV or JSON: examctl reads CSV, JSON and .xlsx, and of its own reports the CSV, JSON and .xlsx ones, not JUnit or HTML',
    );
  }
  return head.startsWith('{') || head.startsWith('[') ? 'json' : 'csv';
}

/** The readers' options (CsvReadOptions, XlsxReadOptions; JSON keys are the API field names, not `columns`). */
type ReadRecordsOptions = Pick<
  XlsxReadOptions,
  'columns' | 'ignoreUnknownColumns' | 'displayName' | 'sheet' | 'hiddenRows' | 'timeZone' | 'encoding' | 'notice'
> & {
  /** `--map`, `--set`, `--date-format`, `--timezone` (field-map.ts): applied to every record read. */
  shaping?: RecordShaping;
};

/** A sheet's flags on a file without sheets: most likely the wrong file, refused (docs/input-formats.md, ".xlsx"). */
export function refuseSheetFlags(
  file: string,
  kind: string,
  options: { sheet?: string | undefined; hiddenRows?: HiddenRows | undefined },
): void {
  const flag = options.sheet !== undefined ? '--sheet' : options.hiddenRows !== undefined ? '--hidden-rows' : undefined;
  if (flag !== undefined)
    throw new InputFileError(
      file,
      undefined,
      `${flag} is for an .xlsx workbook, and this file is ${kind}: give the workbook, or leave ${flag} out`,
    );
}

/** Streams the records of a CSV, JSON or xlsx input file, whichever it is. Each iteration re-reads it. */
export function readRecords(path: string, options: ReadRecordsOptions, same = {}): BatchedRecords {
  const file = options.displayName ?? path;
  const shaping = options.shaping;
  const readOptions = shaping === undefined ? options : { ...options, map: shaping.map, computed: shaping.computed };
  let json = false;
  // One reader for every read (a CSV one replays the rows its structure pass kept); the xlsx and
  // JSON readers load only for such a file: a CSV run does without their modules.
  let reader: BatchedRecords | undefined;
  const open = async (): Promise<BatchedRecords> => {
    if (reader !== undefined) return reader;
    const format = await detectFormat(path, file, options.encoding);
    json = format === 'json';
    if (format !== 'xlsx') refuseSheetFlags(file, format === 'csv' ? 'CSV' : 'JSON', options);
    if (format === 'csv') return (reader = readCsvRecords(path, { ...readOptions, same }));
    if (format === 'xlsx')
      return (reader = (await import('./xlsx-reader.js')).readXlsxRecords(path, readOptions, same));
    return (reader = (await import('./json-reader.js')).readJsonRecords(path, file, same));
  };
  // JSON keys are checked after the map renamed them, as a CSV header is after mapping.
  const known = new Set(options.columns.map((spec) => spec.name));
  const keysOf = (record: InputRecord): InputRecord => (json ? withKnownKeys(record, known, options) : record);
  return batchedRecords(
    async function* () {
      for await (const batch of (await open()).batches())
        yield batch.map((record) => keysOf(shaping === undefined ? record : shapeRecord(record, shaping)));
    },
    {
      // A CSV structure pass builds no records; an xlsx one reads them all.
      countRecords: async (notOkOnly) => countRecordsOf(await open(), notOkOnly),
      header: () => reader?.header?.(),
      keptRecords: (field) => (shaping?.set.has(field) ? undefined : reader?.keptRecords?.(field)),
    },
  );
}

/** The records a structure pass counts (`notOkOnly`: a run report's rows not ok; every JSON record counts). */
export async function countRecordsOf(
  records: AsyncIterable<InputRecord> & Partial<BatchedRecords>,
  notOkOnly: boolean,
): Promise<number> {
  if (records.countRecords !== undefined) return records.countRecords(notOkOnly);
  let count = 0;
  for await (const batch of recordBatches(records))
    for (const record of batch) if (!notOkOnly || !isOkStatus(reportStatusOf(record))) count += 1;
  return count;
}

/**
 * A JSON record's keys that are no field of the command (after --map): dropped with --ignore-unknown-columns,
 * else the record fails with the message that teaches --map. A whole schedule request is checked inside its
 * Schedule and candidates; its own keys are the validator's to judge.
 */
function withKnownKeys(record: InputRecord, known: ReadonlySet<string>, options: ReadRecordsOptions): InputRecord {
  const fields = record.fields as unknown;
  // Not an object at all (`[1, "x"]`): the validator's message says so.
  if (!isPlainObject(fields)) return record;
  const problems: Problem[] = [];
  const checked = (object: Record<string, unknown>, prefix: string): Record<string, unknown> => {
    const unknown = Object.keys(object).filter((key) => !known.has(key));
    if (unknown.length === 0) return object;
    if (options.ignoreUnknownColumns !== true) {
      problems.push({
        field: prefix + keyAsField(unknown[0]!),
        code: ErrorCode.UnknownInputKey,
        message: unknownColumnsProblem(unknown, options.columns, new Set(Object.keys(object)), 'key'),
      });
    }
    return Object.fromEntries(Object.entries(object).filter(([key]) => known.has(key)));
  };
  const out = isScheduleRequest(fields) ? requestParts(fields, checked) : checked(fields, '');
  if (out === fields) return record;
  return {
    ...record,
    fields: out,
    ...(problems.length > 0 ? { problems: [...(record.problems ?? []), ...problems] } : {}),
  };
}

/** A key as a problem's field: itself, or when long cut as messages quote it (a 200,000-character key is no name). */
function keyAsField(key: string): string {
  const quoted = quotedValue(key, 'a key');
  return quoted === JSON.stringify(key) ? key : quoted;
}
