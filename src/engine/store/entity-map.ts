import { StoreDamagedError } from '../../system/errors.js';
import type { CollectionTable } from './snapshot-table.js';

/** Marks a snapshot entity deleted since the load. */
const DELETED: unique symbol = Symbol('deleted');

/** An entity as `storedEntries` hands it out: `ordinal >= 0` means as the snapshot has it. */
type StoredEntry = readonly [key: string, ordinal: number, value: unknown];

/**
 * One collection's entities, the snapshot's table with the changes since the load over it
 * (docs/store.md, "Loading"). `storedEntries()` also tells which are as the snapshot has them
 * (compaction copies their lines; persisted hints). Unlike a Map's, a snapshot key deleted and
 * added again keeps its place in iteration; nothing depends on it, and export sorts.
 */
export class EntityMap implements ReadonlyMap<string, unknown> {
  /** Snapshot keys set or deleted since the load. */
  private readonly changed = new Map<string, unknown>();
  /** Values of unchanged snapshot keys, parsed on first read. */
  private readonly parsed = new Map<string, unknown>();
  /** Keys not in the snapshot. */
  private readonly added = new Map<string, unknown>();
  private deletedFromTable = 0;

  constructor(
    readonly table?: CollectionTable,
    /** Where the snapshot came from, for the message if a value does not parse. */
    private readonly source = '',
  ) {}

  get size(): number {
    return (this.table?.count ?? 0) - this.deletedFromTable + this.added.size;
  }

  private ordinalOf(key: string): number {
    return this.table === undefined ? -1 : this.table.find(key);
  }

  has(key: string): boolean {
    const changed = this.changed.get(key);
    if (changed !== undefined) return changed !== DELETED;
    return this.parsed.has(key) || this.added.has(key) || this.ordinalOf(key) >= 0;
  }

  get(key: string): unknown {
    const changed = this.changed.get(key);
    if (changed !== undefined) return changed === DELETED ? undefined : changed;
    const known = this.parsed.get(key) ?? this.added.get(key);
    if (known !== undefined) return known;
    const ordinal = this.ordinalOf(key);
    return ordinal < 0 ? undefined : this.parse(key, ordinal);
  }

  /** Whether the entity is in the snapshot and has been neither read nor changed since the load (for tests). */
  isRaw(key: string): boolean {
    return !this.changed.has(key) && !this.parsed.has(key) && this.ordinalOf(key) >= 0;
  }

  set(key: string, value: unknown): void {
    const changed = this.changed.get(key);
    if (changed !== undefined) {
      if (changed === DELETED) this.deletedFromTable -= 1;
      this.changed.set(key, value);
    } else if (!this.added.has(key) && this.ordinalOf(key) >= 0) {
      this.changed.set(key, value);
      this.parsed.delete(key);
    } else {
      this.added.set(key, value);
    }
  }

  delete(key: string): boolean {
    if (this.added.delete(key)) return true;
    const changed = this.changed.get(key);
    if (changed === DELETED) return false;
    if (changed === undefined && this.ordinalOf(key) < 0) return false;
    this.changed.set(key, DELETED);
    this.parsed.delete(key);
    this.deletedFromTable += 1;
    return true;
  }

  /** Every entity: [key, ordinal, undefined] as the snapshot has it, else [key, -1, value]. */
  *storedEntries(): IterableIterator<StoredEntry> {
    const table = this.table;
    if (table !== undefined) {
      for (let ordinal = 0; ordinal < table.count; ordinal += 1) {
        const key = table.keyOf(ordinal);
        const changed = this.changed.get(key);
        if (changed === DELETED) continue;
        yield changed === undefined ? [key, ordinal, undefined] : [key, -1, changed];
      }
    }
    for (const [key, value] of this.added) yield [key, -1, value];
  }

  /** The snapshot ordinals set or deleted since the load. */
  changedOrdinals(): Set<number> {
    const ordinals = new Set<number>();
    for (const key of this.changed.keys()) ordinals.add(this.ordinalOf(key));
    return ordinals;
  }

  /** The value a changed snapshot key now has (undefined: deleted). */
  changedValue(key: string): unknown {
    const changed = this.changed.get(key);
    return changed === DELETED ? undefined : changed;
  }

  /** Keys added since the load, with their values. */
  addedEntries(): IterableIterator<[string, unknown]> {
    return this.added.entries();
  }

  /** Snapshot keys set or deleted (value undefined) since the load, and keys added. */
  *changedEntries(): IterableIterator<readonly [key: string, value: unknown]> {
    for (const [key, value] of this.changed) yield [key, value === DELETED ? undefined : value];
    yield* this.added;
  }

  *entries(): MapIterator<[string, unknown]> {
    for (const [key, ordinal, value] of this.storedEntries())
      yield [key, ordinal >= 0 ? this.valueAt(key, ordinal) : value];
  }

  *keys(): MapIterator<string> {
    for (const [key] of this.storedEntries()) yield key;
  }

  *values(): MapIterator<unknown> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): MapIterator<[string, unknown]> {
    return this.entries();
  }

  forEach(callback: (value: unknown, key: string, map: ReadonlyMap<string, unknown>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }

  private valueAt(key: string, ordinal: number): unknown {
    return this.parsed.get(key) ?? this.parse(key, ordinal);
  }

  private parse(key: string, ordinal: number): unknown {
    let value: unknown;
    try {
      value = JSON.parse(this.table!.valueText(ordinal));
    } catch {
      throw new StoreDamagedError(`${this.source}: the value of ${JSON.stringify(key)} is not valid JSON`);
    }
    this.parsed.set(key, value);
    return value;
  }
}
