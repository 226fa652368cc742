export { reportStatusOf, normalizeColumnName } from './csv-reader.js';
export { batchedRecords, recordBatches, type BatchedRecords } from './batches.js';
export { readRecords } from './format.js';
export { readIdList } from './id-list.js';
