import {
  COLLECTION_NAMES,
  type Change,
  type CollectionName,
  type StoreIndexer,
  type StoreState,
} from '../../src/engine/store/contract.js';

/** A transaction that writes `changes` and decides nothing. */
export const put =
  (...changes: Change[]) =>
  (_state: StoreState) => ({ result: undefined, changes });

/** Every entity in a stable order (collections in COLLECTION_NAMES order, keys sorted by code unit). */
export function* exportEntities(state: StoreState): Iterable<[CollectionName, string, unknown]> {
  for (const collection of COLLECTION_NAMES) {
    const map = state.get(collection);
    if (!map) continue;
    const keys = [...map.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const key of keys) yield [collection, key, map.get(key)];
  }
}

/**
 * The index the engine's lookups must agree with, built from the values themselves: each hint
 * of `indexer` (of users and hierarchies) to the key of the last entity that has it.
 */
export function hintsFromValues(
  indexer: StoreIndexer,
  users: ReadonlyMap<string, unknown>,
  hierarchies: ReadonlyMap<string, unknown> = new Map(),
): { users: Map<string, string>; rootKey: string | undefined } {
  const owners = (collection: CollectionName, map: ReadonlyMap<string, unknown>): Map<string, string> => {
    const byHint = new Map<string, string>();
    for (const [key, value] of map)
      for (const hint of indexer.hints(collection, key, value) ?? []) byHint.set(hint, key);
    return byHint;
  };
  return { users: owners('users', users), rootKey: owners('hierarchies', hierarchies).get('root') };
}
