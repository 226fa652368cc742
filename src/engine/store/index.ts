import { COLLECTION_NAMES } from '../store.js';
import type { CollectionName, StoreState } from '../store.js';

export {
  CURRENT_FILE,
  DEFAULT_COMPACT_AT_BYTES,
  DEFAULT_LOCK_TIMEOUT_MS,
  StoreExistsError,
  createStore,
  journalFileName,
  openStore,
  snapshotFileName,
  storeExists,
} from './file-store.js';
export type { CreateStoreOptions, FileStore, FileStoreOptions } from './file-store.js';
export { LOCK_FILE } from './lock.js';
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
