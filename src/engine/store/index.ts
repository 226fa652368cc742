export type { Store } from './contract.js';
export { StoreExistsError, createStore, storeExists, storeUnwritable } from './create-store.js';
export { openStore } from './file-store.js';
export type { FileStore } from './file-store.js';
export { lockTimeoutFromEnv } from '../../system/lock.js';
export { journalFileName, snapshotFileName } from './manifest.js';
