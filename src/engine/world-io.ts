import type { World } from '../domain/world.js';
import type { Change, CollectionName, StoreState } from './store.js';
import { keyOf } from './view.js';

/** World file list name <-> store collection. Settings is a single entity under key "settings". */
const LISTS: readonly [Exclude<keyof World, 'Settings'>, CollectionName][] = [
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

export const SETTINGS_KEY = 'settings';

/** The changes that create a store holding exactly this (already validated) world. */
export function worldToChanges(world: World): Change[] {
  const changes: Change[] = [{ collection: 'settings', key: SETTINGS_KEY, value: world.Settings }];
  for (const [list, collection] of LISTS) {
    for (const entity of world[list] as unknown as Record<string, unknown>[]) {
      changes.push({ collection, key: keyOf(collection, entity), value: entity });
    }
  }
  return changes;
}

/**
 * The store as a world file. Lists are sorted by key (code-unit order, not locale) so exports
 * diff cleanly; passwords exist only as PasswordHash, so none can leak here.
 */
export function exportWorld(state: StoreState): World {
  const settings = state.get('settings')?.get(SETTINGS_KEY);
  const world: Record<string, unknown> = { Settings: settings ?? { SiteUrl: '', ApiTokens: [] } };
  for (const [list, collection] of LISTS) {
    const entries = [...(state.get(collection) ?? new Map<string, unknown>()).entries()];
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    world[list] = entries.map(([, value]) => value);
  }
  return world as unknown as World;
}
