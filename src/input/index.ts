export { reportStatusOf } from './csv-reader.js';
export { batchedRecords, keepingHeader, recordBatches, type BatchedRecords, type TableHeader } from './batches.js';
export { countRecordsOf, readRecords } from './format.js';
export { readIdList } from './id-list.js';
