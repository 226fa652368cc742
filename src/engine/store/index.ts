import { COLLECTION_NAMES } from './contract.js';
import type { CollectionName, StoreState } from './contract.js';

export type { Store } from './contract.js';
export { StoreExistsError, createStore, storeExists } from './create-store.js';
export { openStore } from './file-store.js';
export type { FileStore } from './file-store.js';
export { lockTimeoutFromEnv } from '../../system/lock.js';
export { journalFileName, snapshotFileName } from './manifest.js';

/** Every entity in a stable order (collections in COLLECTION_NAMES order, keys sorted by code unit), for export. */
export function* exportEntities(state: StoreState): Iterable<[CollectionName, string, unknown]> {
  for (const collection of COLLECTION_NAMES) {
    const map = state.get(collection);
    if (!map) continue;
    const keys = [...map.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const key of keys) yield [collection, key, map.get(key)];
  }
}
