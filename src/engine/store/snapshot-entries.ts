/** The in-memory collections and the entries a snapshot is written from. */
import { COLLECTION_NAMES, type Change, type CollectionName, type StoreIndexer } from './contract.js';
import { EntityMap } from './entity-map.js';
import type { SnapshotEntry } from './snapshot.js';

export type Maps = Map<CollectionName, EntityMap>;

export function emptyMaps(): Maps {
  return new Map(COLLECTION_NAMES.map((name) => [name, new EntityMap()]));
}

/** The collections holding `initial` (a new store's content). */
export function mapsFrom(initial: Iterable<Change>): Maps {
  const maps = emptyMaps();
  for (const change of initial) {
    const map = maps.get(change.collection)!;
    if (change.value === null || change.value === undefined) map.delete(change.key);
    else map.set(change.key, change.value);
  }
  return maps;
}

function hintsJson(hints: readonly string[] | undefined): string | undefined {
  return hints === undefined ? undefined : JSON.stringify(hints);
}

/**
 * The snapshot entries of `maps`. An entity never read is copied as its text, with its persisted
 * hints when they came from this indexer version; otherwise it is parsed once to derive them.
 * Without an indexer no hints are written (the header then names none).
 */
export function* snapshotEntries(
  maps: Maps,
  indexer: StoreIndexer | undefined,
  hintsVersion: string | null,
): Iterable<SnapshotEntry> {
  const trusted = indexer !== undefined && indexer.version === hintsVersion;
  for (const [collection, map] of maps) {
    const table = map.table;
    const own = (key: string, value: unknown): SnapshotEntry => ({
      collection,
      key,
      text: JSON.stringify(value),
      hintsJson: hintsJson(indexer?.hints(collection, key, value)),
    });
    if (table !== undefined && trusted) {
      // Unchanged entities with hints of this version: their lines are exactly what entityLine
      // would write, so runs of adjacent ones are copied as one block of bytes.
      const block = (from: number, to: number): SnapshotEntry => ({
        collection,
        key: '',
        text: '',
        hintsJson: undefined,
        lines: table.linesBytes(from, to),
        lineCount: to - from,
      });
      const changed = map.changedOrdinals();
      let runStart = 0;
      for (let ordinal = 0; ordinal < table.count; ordinal += 1) {
        if (changed.has(ordinal)) {
          if (ordinal > runStart) yield block(runStart, ordinal);
          runStart = ordinal + 1;
          const key = table.keyOf(ordinal);
          const value = map.changedValue(key);
          if (value !== undefined) yield own(key, value);
        } else if (ordinal + 1 === table.count || !table.adjacent(ordinal)) {
          yield block(runStart, ordinal + 1);
          runStart = ordinal + 1;
        }
      }
      for (const [key, value] of map.addedEntries()) yield own(key, value);
      continue;
    }
    for (const [key, ordinal, value] of map.storedEntries()) {
      if (ordinal >= 0) {
        const hints = indexer === undefined ? undefined : hintsJson(indexer.hints(collection, key, map.get(key)));
        yield { collection, key, text: table!.valueText(ordinal), hintsJson: hints };
      } else {
        yield own(key, value);
      }
    }
  }
}
