export { reportStatusOf } from './csv-reader.js';
export { normalizeColumnName } from '../formats/column-name.js';
export { batchedRecords, keepingHeader, recordBatches, type BatchedRecords, type TableHeader } from './batches.js';
export { countRecordsOf, readRecords } from './format.js';
export { readIdList } from './id-list.js';
