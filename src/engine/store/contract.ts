/**
 * Persistence only: the store keeps named collections of JSON entities keyed by string, and
 * knows nothing of the rules (those live in engine.ts and src/domain/). What it promises:
 * docs/store.md.
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
import type { StoreHead } from '../../port/integration-api.js';

/** The live maps, owned by the store: values are immutable; replace, never mutate in place. */
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
  /** A run's: a store replaced under it (a new INSTANCE) is not reloaded; every read and write fails. */
  stopWhenReplaced?: boolean;
}

export interface Store {
  /** The store's path, for messages and the run report. */
  readonly location: string;
  /** The state as of the last load/refresh/transaction. */
  readonly state: StoreState;
  /**
   * Runs `decide(state)` (synchronous) alone, resolving once durable (docs/store.md, "Writing:
   * durability and concurrency"); StoreLockedError (exit 3) past the lock wait bound. `committed` is
   * told the head right after the line that holds its changes, before it resolves (none: it changed
   * nothing): a store that holds that head holds them (store-head.ts).
   */
  transact<T>(
    decide: (state: StoreState) => { result: T; changes: Change[] },
    committed?: (head: string) => void,
  ): Promise<T>;
  /** The indexer whose hints are persisted with each entity and answer `keyByHint`. One per store. */
  useIndexer(indexer: StoreIndexer): void;
  /**
   * The key of the entity of `collection` whose hints include `hint`, now (docs/store.md, "Loading").
   * Hints are meant to be unique (the engine's rules and the world file check keep them so); if
   * several entities share one, any may answer.
   */
  keyByHint(collection: CollectionName, hint: string): string | undefined;
  /** Catches up with other processes' committed changes without taking the lock. */
  refresh(): Promise<void>;
  /**
   * Resolves once every change this process has applied to `state` so far is durable, rejects if
   * its write failed (docs/store.md, "What a read sees").
   */
  whenDurable(): Promise<void>;
  /** Flushes and releases everything (lock, file handles). */
  close(): Promise<void>;
  /**
   * The head of the state memory holds (store-head.ts); inside a transaction's `decide`, the head the
   * commit that applies it follows (every decide of a group commit's line runs before that line).
   */
  readonly head?: string;
  /** Where the store stands as of the last load, refresh or commit, and which of `asked` it held (store-head.ts). */
  standing?(asked?: readonly string[]): Promise<StoreHead>;
}
