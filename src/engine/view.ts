import type { Change, CollectionName, StoreIndexer, StoreState } from './store/contract.js';
import type { World, WorldHierarchy, WorldUser } from '../domain/world.js';
import { normaliseGuid } from '../domain/text-rules.js';

/** The settings entity's key; here, not in world-io.ts, so the rules need not load zod and the world schemas. */
export const SETTINGS_KEY = 'settings';

/** World file list name <-> store collection. Settings is a single entity under key "settings". */
export const WORLD_LISTS: readonly [Exclude<keyof World, 'Settings'>, CollectionName][] = [
  ['Roles', 'roles'],
  ['Users', 'users'],
  ['Hierarchies', 'hierarchies'],
  ['Assessments', 'assessments'],
  ['ProctoringTemplates', 'proctoringTemplates'],
  ['Taxonomies', 'taxonomies'],
  ['LoRepositories', 'loRepositories'],
  ['Schedules', 'schedules'],
  ['ReviewSessions', 'reviewSessions'],
  ['Collections', 'collections'],
];

/** The changes that put a world's listed entities (all but its Settings) in a store. */
export function worldEntityChanges(world: World): Change[] {
  return WORLD_LISTS.flatMap(([list, collection]) =>
    (world[list] as unknown as Record<string, unknown>[]).map((value) => ({
      collection,
      key: keyOf(collection, value),
      value,
    })),
  );
}

/**
 * What the rules read: entities by key plus the secondary lookups the API's uniqueness rules
 * need. Two implementations: the store's live state with the indexes its hints answer, and a
 * dry-run overlay that layers planned changes over it without writing anything.
 */
export interface EngineView {
  get<T>(collection: CollectionName, key: string): T | undefined;
  values<T>(collection: CollectionName): Iterable<T>;
  /** UserNames are unique ignoring case. */
  userKeyByUserName(userName: string): string | undefined;
  userKeyByExternalIdIgnoringCase(externalId: string): string | undefined;
  userKeyBySynchronizationKey(key: string): string | undefined;
  rootHierarchyKey(): string | undefined;
}

/*
 * Index hints: what each user and hierarchy contributes to the indexes below, as short tagged
 * strings the store persists beside the entity, so a load rebuilds the indexes without parsing
 * any value. Change the derivation => change the version (stores then derive them again once).
 */
const HINT_USER_NAME = 'n';
const HINT_SYNC_KEY = 's';
/** Only for keys that are not already lower case: a lower-case key is its own index entry (the users map). */
const HINT_LOWER_EXTERNAL_ID = 'e';
const HINT_ROOT = 'root';

function userHints(key: string, user: WorldUser): string[] {
  const hints: string[] = [];
  const lower = key.toLowerCase();
  if (lower !== key) hints.push(HINT_LOWER_EXTERNAL_ID + lower);
  if (typeof user.UserName === 'string') hints.push(HINT_USER_NAME + user.UserName.toLowerCase());
  if (typeof user.SynchronizationKey === 'string') hints.push(HINT_SYNC_KEY + normaliseGuid(user.SynchronizationKey));
  return hints;
}

export const ENGINE_INDEXER: StoreIndexer = {
  version: 'engine-indexes/1',
  hints(collection, key, value) {
    if (value === null || typeof value !== 'object') return undefined;
    if (collection === 'users') return userHints(key, value as WorldUser);
    // A root hierarchy has no parent.
    if (collection === 'hierarchies') return ((value as WorldHierarchy).Parent ?? null) === null ? [HINT_ROOT] : [];
    return undefined;
  },
};

/** The store's answer to "which key has this hint now" (see Store.keyByHint). */
export type HintLookup = (collection: CollectionName, hint: string) => string | undefined;

/** The store's state as it is now. */
export class StoreView implements EngineView {
  constructor(
    private readonly state: StoreState,
    /** The store's keyByHint: the secondary lookups, with nothing to build at load. */
    private readonly lookup: HintLookup,
  ) {}

  get<T>(collection: CollectionName, key: string): T | undefined {
    return this.state.get(collection)?.get(key) as T | undefined;
  }

  values<T>(collection: CollectionName): Iterable<T> {
    return (this.state.get(collection)?.values() ?? []) as Iterable<T>;
  }

  // The store's keyByHint follows every change, reload and catch-up (test/store/hint-lookup.test.ts
  // compares it with an index built from the values at every step): its answers need no second check.
  userKeyByUserName(userName: string): string | undefined {
    return this.lookup('users', HINT_USER_NAME + userName.toLowerCase());
  }

  /** A key differing in case from its lower-case form has a hint; a lower-case key is its own entry. */
  userKeyByExternalIdIgnoringCase(externalId: string): string | undefined {
    const lower = externalId.toLowerCase();
    return (
      this.lookup('users', HINT_LOWER_EXTERNAL_ID + lower) ??
      (this.get('users', lower) !== undefined ? lower : undefined)
    );
  }

  userKeyBySynchronizationKey(key: string): string | undefined {
    return this.lookup('users', HINT_SYNC_KEY + normaliseGuid(key));
  }

  rootHierarchyKey(): string | undefined {
    return this.lookup('hierarchies', HINT_ROOT);
  }
}

/** Planned changes over a base view (dry runs): later dry-run calls see earlier ones; nothing reaches the store. */
export class OverlayView implements EngineView {
  private readonly overlay = new Map<CollectionName, Map<string, unknown>>();
  /** The hints of the users planned so far, to their keys (firstVerified checks each answer against the user). */
  private readonly planned = new Map<string, string>();

  constructor(private readonly base: () => EngineView) {}

  apply(changes: readonly Change[]): void {
    for (const change of changes) {
      let map = this.overlay.get(change.collection);
      if (map === undefined) {
        map = new Map();
        this.overlay.set(change.collection, map);
      }
      map.set(change.key, change.value ?? null);
      if (change.collection === 'users' && change.value !== null && change.value !== undefined) {
        for (const hint of userHints(change.key, change.value as WorldUser)) this.planned.set(hint, change.key);
      }
    }
  }

  get<T>(collection: CollectionName, key: string): T | undefined {
    const map = this.overlay.get(collection);
    if (map?.has(key)) {
      const value = map.get(key);
      return value === null ? undefined : (value as T);
    }
    return this.base().get<T>(collection, key);
  }

  *values<T>(collection: CollectionName): Iterable<T> {
    const map = this.overlay.get(collection);
    for (const value of this.base().values<Record<string, unknown>>(collection)) {
      const key = keyOf(collection, value);
      if (map?.has(key)) continue;
      yield value as T;
    }
    for (const value of map?.values() ?? []) if (value !== null) yield value as T;
  }

  userKeyByUserName(userName: string): string | undefined {
    const lower = userName.toLowerCase();
    return this.firstVerified(
      [this.planned.get(HINT_USER_NAME + lower), this.base().userKeyByUserName(userName)],
      (u) => u.UserName?.toLowerCase() === lower,
    );
  }

  userKeyByExternalIdIgnoringCase(externalId: string): string | undefined {
    const lower = externalId.toLowerCase();
    return this.firstVerified(
      [
        this.planned.get(HINT_LOWER_EXTERNAL_ID + lower),
        lower,
        this.base().userKeyByExternalIdIgnoringCase(externalId),
      ],
      () => true,
    );
  }

  userKeyBySynchronizationKey(key: string): string | undefined {
    const wanted = normaliseGuid(key);
    return this.firstVerified(
      [this.planned.get(HINT_SYNC_KEY + wanted), this.base().userKeyBySynchronizationKey(key)],
      (u) => (typeof u.SynchronizationKey === 'string' ? normaliseGuid(u.SynchronizationKey) === wanted : false),
    );
  }

  rootHierarchyKey(): string | undefined {
    const key = this.base().rootHierarchyKey();
    return key !== undefined && this.get('hierarchies', key) !== undefined ? key : undefined;
  }

  private firstVerified(keys: (string | undefined)[], holds: (user: WorldUser) => boolean): string | undefined {
    for (const key of keys) {
      if (key === undefined) continue;
      const user = this.get<WorldUser>('users', key);
      if (user !== undefined && holds(user)) return key;
    }
    return undefined;
  }
}

/** The entity key of a stored value (see world-io.ts: the same keys the world file lists by). */
function keyOf(collection: CollectionName, value: Record<string, unknown>): string {
  switch (collection) {
    case 'settings':
      return 'settings';
    case 'roles':
      return String(value['Title']);
    case 'schedules':
      return String(value['ScheduleExtId']);
    default:
      return String(value['ExternalId']);
  }
}
