export type { ColumnKind, ColumnSpec, InputRecord, SourceRef } from './record.js';
export {
  readCsvRecords,
  reportStatusOf,
  normalizeColumnName,
  splitListCell,
  type CsvReadOptions,
} from './csv-reader.js';
export { batchedRecords, recordBatches, type BatchedRecords } from './batches.js';
export { readJsonRecords, type JsonReadOptions } from './json-reader.js';
export { detectFormat, formatFromExtension, readRecords, type InputFormat, type ReadRecordsOptions } from './format.js';
export { readIdList, ID_COLUMN_NAMES, type IdListEntry, type IdListOptions } from './id-list.js';
export { readUtf8Chunks, cannotRead } from './text-source.js';
