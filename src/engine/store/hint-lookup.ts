/**
 * Store.keyByHint for the file store. Snapshot entities answer from the hints persisted beside
 * them (no value parsed); what changed since the load answers from a per-collection overlay,
 * built on the first question and kept true by every change after it.
 */
import { InternalError } from '../../system/errors.js';
import type { Change, CollectionName, StoreIndexer } from './contract.js';
import type { Maps } from './snapshot-entries.js';

/**
 * The hints of one collection that differ from what the loaded snapshot persisted: hint -> key,
 * or null where a snapshot entity that had the hint no longer does. `complete`: the snapshot's
 * hints are not trusted (another indexer version, or none), so this holds every hint.
 */
interface HintOverlay {
  owners: Map<string, string | null>;
  complete: boolean;
}

/** What the lookup reads of its store, as it is at the moment of asking. */
interface HintSource {
  maps(): Maps;
  indexer(): StoreIndexer | undefined;
  /** The loaded snapshot's persisted hints come from the registered indexer's version. */
  hintsTrusted(): boolean;
}

export class HintLookup {
  private readonly overlays = new Map<CollectionName, HintOverlay>();

  constructor(private readonly source: HintSource) {}

  /** Forgets every overlay: the state was replaced (a load). */
  clear(): void {
    this.overlays.clear();
  }

  /** The key of the entity whose hints include `hint`, in the state as it is now (see Store.keyByHint). */
  keyByHint(collection: CollectionName, hint: string): string | undefined {
    const overlay = this.overlay(collection);
    const owner = overlay.owners.get(hint);
    if (owner !== undefined) return owner ?? undefined;
    if (overlay.complete) return undefined;
    const table = this.source.maps().get(collection)!.table;
    const ordinal = table === undefined ? -1 : table.hintOwner(hint);
    return ordinal < 0 ? undefined : table!.keyOf(ordinal);
  }

  /**
   * Keeps a built overlay true across `change`, called before the change reaches the map.
   * An overlay not built yet is left alone: it is built from the changed entities when first asked.
   */
  beforeChange(change: Change, previous: unknown): void {
    const overlay = this.overlays.get(change.collection);
    if (overlay === undefined) return;
    const indexer = this.source.indexer()!;
    if (previous !== undefined) {
      for (const hint of indexer.hints(change.collection, change.key, previous) ?? []) this.disown(change.collection, overlay, hint, change.key);
    }
    if (change.value !== null && change.value !== undefined) {
      for (const hint of indexer.hints(change.collection, change.key, change.value) ?? []) overlay.owners.set(hint, change.key);
    }
  }

  private overlay(collection: CollectionName): HintOverlay {
    const existing = this.overlays.get(collection);
    if (existing !== undefined) return existing;
    const indexer = this.source.indexer();
    if (!indexer) throw new InternalError('keyByHint: no indexer registered (pass one to useIndexer)');
    const map = this.source.maps().get(collection)!;
    const overlay: HintOverlay = { owners: new Map(), complete: !this.source.hintsTrusted() };
    // Registered first: disown asks keyByHint, which must see the overlay being built.
    this.overlays.set(collection, overlay);
    try {
      if (overlay.complete) {
        for (const [key, value] of map) for (const hint of indexer.hints(collection, key, value) ?? []) overlay.owners.set(hint, key);
      } else {
        const table = map.table;
        for (const [key, value] of map.changedEntries()) {
          const ordinal = table === undefined ? -1 : table.find(key);
          if (ordinal >= 0) for (const hint of table!.hintsOf(ordinal) ?? []) this.disown(collection, overlay, hint, key);
          if (value !== undefined) for (const hint of indexer.hints(collection, key, value) ?? []) overlay.owners.set(hint, key);
        }
      }
    } catch (error) {
      // A value that does not parse (damage): no half-built overlay may answer later questions.
      this.overlays.delete(collection);
      throw error;
    }
    return overlay;
  }

  private disown(collection: CollectionName, overlay: HintOverlay, hint: string, key: string): void {
    if (this.keyByHint(collection, hint) === key) overlay.owners.set(hint, null);
  }
}
