import type { Change, CollectionName, StoreIndexer, StoreState } from '../../src/engine/store/contract.js';

/** A transaction that writes `changes` and decides nothing. */
export const put =
  (...changes: Change[]) =>
  (_state: StoreState) => ({ result: undefined, changes });

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
    for (const [key, value] of map) for (const hint of indexer.hints(collection, key, value) ?? []) byHint.set(hint, key);
    return byHint;
  };
  return { users: owners('users', users), rootKey: owners('hierarchies', hierarchies).get('root') };
}
