/**
 * Persistence only: the store keeps named collections of JSON entities keyed by string, and
 * knows nothing of the rules (those live in engine.ts and src/domain/).
 *
 * Design goals: durable (a resolved `transact` survives kill -9), atomic (no torn
 * file), multi-process (other writers' changes are caught up under the lock before each
 * transaction), scalable (a write costs the same in a store of 10k or 1M entities).
 */

/** Entity collections of the engine's state. `settings` holds a single entity under key "settings". */
export const COLLECTION_NAMES = [
  'settings',
  'roles',
  'users',
  'hierarchies',
  'assessments',
  'proctoringTemplates',
  'taxonomies',
  'loRepositories',
  'schedules',
  'reviewSessions',
  'collections',
] as const;

export type CollectionName = (typeof COLLECTION_NAMES)[number];

/** One entity-level change. `value: null` deletes the entity. */
export interface Change {
  collection: CollectionName;
  key: string;
  value: unknown | null;
}

/** The in-memory state: the live maps, owned by the store. Treat values as immutable; replace, never mutate in place. */
export type StoreState = ReadonlyMap<CollectionName, ReadonlyMap<string, unknown>>;

/**
 * Derives a few short strings from an entity (e.g. the lower-cased UserName) that the store
 * persists beside the value, so a later load can hand them back without parsing the value.
 * `version` names the derivation: hints persisted under another version are derived again.
 */
export interface StoreIndexer {
  readonly version: string;
  hints(collection: CollectionName, key: string, value: unknown): readonly string[] | undefined;
}

export interface StoreOpenOptions {
  /** Read-only: never takes the lock, never writes; `transact` applies changes to memory only (dry-run plans). */
  readOnly?: boolean;
  /** How long a writer waits for the lock before StoreLockedError (ms). Default 10000, env EXAMCTL_LOCK_TIMEOUT_MS. */
  lockTimeoutMs?: number;
}

export interface Store {
  /** The store's path, for messages and the run report. */
  readonly location: string;
  /** The state as of the last load/refresh/transaction. */
  readonly state: StoreState;
  /**
   * Runs `decide` with exclusive write access: first catches up with changes other processes
   * appended, then calls `decide(state)` (synchronous, so no other work interleaves), applies the
   * returned changes to memory and appends them durably (fsync) before resolving.
   * Concurrent calls in one process are group-committed: one lock, one catch-up and one fsync
   * serve the calls of one event-loop turn, each `decide` seeing the changes of the ones before it.
   * If `decide` throws, that call rejects and its changes are not applied.
   * Rejects with StoreLockedError (exit 3) after the lock wait bound.
   */
  transact<T>(decide: (state: StoreState) => { result: T; changes: Change[] }): Promise<T>;
  /** The indexer whose hints are persisted with each entity and answer `keyByHint`. One per store. */
  useIndexer(indexer: StoreIndexer): void;
  /**
   * The key of the entity of `collection` whose hints (from the indexer) include `hint`, in the
   * state as it is now, through every way the state moves (this process's transactions, other
   * processes' changes caught up on, reloads). Hints are meant to be unique (the engine's rules
   * and the world file check keep them so); if several entities share one, any of them may
   * answer. The engine's secondary lookups (UserName, lower-cased ExternalId, SynchronizationKey,
   * the root hierarchy) are answered from the hints persisted beside each entity, without an
   * index of the whole store built at start-up: at 100k users that index was most of what a
   * command spent before its first record.
   */
  keyByHint(collection: CollectionName, hint: string): string | undefined;
  /** Catches up with other processes' committed changes without taking the lock. */
  refresh(): Promise<void>;
  /**
   * Resolves once every change this process has applied to `state` so far is durable (rejects if
   * its write failed). Memory runs ahead of the disk while a write is in flight: a read answered
   * from `state` waits for this before it is told, so no caller learns of a change a crash could
   * still take back.
   */
  whenDurable(): Promise<void>;
  /** Flushes and releases everything (lock, file handles). */
  close(): Promise<void>;
}
