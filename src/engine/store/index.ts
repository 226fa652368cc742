import { COLLECTION_NAMES } from './contract.js';
import type { CollectionName, StoreState } from './contract.js';

export type { Change, CollectionName, Store, StoreIndexer, StoreObserver, StoreOpenOptions, StoreState } from './contract.js';
export { COLLECTION_NAMES } from './contract.js';
export { StoreExistsError, createStore, storeExists } from './create-store.js';
export type { CreateStoreOptions } from './create-store.js';
export { DEFAULT_COMPACT_AT_BYTES, openStore } from './file-store.js';
export type { FileStore, FileStoreOptions } from './file-store.js';
export { DEFAULT_LOCK_TIMEOUT_MS, LOCK_FILE, lockTimeoutFromEnv } from './lock.js';
export { CURRENT_FILE, journalFileName, snapshotFileName } from './manifest.js';
export { STORE_FORMAT } from './snapshot.js';

/** Every entity in a stable order (collections in COLLECTION_NAMES order, keys sorted by code unit), for export. */
export function* exportEntities(state: StoreState): Iterable<[CollectionName, string, unknown]> {
  for (const collection of COLLECTION_NAMES) {
    const map = state.get(collection);
    if (!map) continue;
    const keys = [...map.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const key of keys) yield [collection, key, map.get(key)];
  }
}
