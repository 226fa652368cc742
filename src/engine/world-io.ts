import { createHash } from 'node:crypto';
import {
  IdTitleSchema,
  isApiTokenDigest,
  WorldAssessmentSchema,
  WorldCandidateSchema,
  WorldCollectionSchema,
  WorldHierarchySchema,
  WorldLoRepositorySchema,
  WorldMembershipSchema,
  WorldProctoringTemplateSchema,
  WorldReviewSessionSchema,
  WorldRoleSchema,
  WorldScheduleSchema,
  WorldSettingsSchema,
  WorldTaxonomySchema,
  WorldUserSchema,
  type World,
  type WorldSettings,
} from '../domain/world.js';
import type { Change, StoreState } from './store/contract.js';
import { SETTINGS_KEY, WORLD_LISTS, worldEntityChanges } from './view.js';
import { byKey } from '../domain/key-order.js';

/** The order an export writes an object's fields in: its schema's, then unknown fields (review sessions) as stored. */
interface FieldOrder {
  keys: readonly string[];
  lists?: Record<string, FieldOrder>;
}

const order = (shape: object, lists?: Record<string, FieldOrder>): FieldOrder =>
  lists ? { keys: Object.keys(shape), lists } : { keys: Object.keys(shape) };

const SETTINGS_ORDER = order(WorldSettingsSchema.shape);
const ID_TITLE_ORDER = order(IdTitleSchema.shape);
const LIST_ORDER: Record<Exclude<keyof World, 'Settings'>, FieldOrder> = {
  Roles: order(WorldRoleSchema.shape),
  Users: order(WorldUserSchema.shape, { Hierarchies: order(WorldMembershipSchema.shape) }),
  Hierarchies: order(WorldHierarchySchema.shape),
  Assessments: order(WorldAssessmentSchema.shape),
  ProctoringTemplates: order(WorldProctoringTemplateSchema.shape),
  Taxonomies: order(WorldTaxonomySchema.shape),
  LoRepositories: order(WorldLoRepositorySchema.shape),
  Schedules: order(WorldScheduleSchema.shape, { Candidates: order(WorldCandidateSchema.shape) }),
  ReviewSessions: order(WorldReviewSessionSchema.shape),
  Collections: order(WorldCollectionSchema.shape, {
    Taxonomies: ID_TITLE_ORDER,
    ObjectiveRepositories: ID_TITLE_ORDER,
  }),
};

/**
 * A copy with the fields in schema order. The engine builds entities in its own field order and
 * a world file loads in schema order; without this, `export -> init --seed -> export` would
 * move fields around and exports would not diff cleanly.
 */
function ordered(value: unknown, fieldOrder: FieldOrder): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of fieldOrder.keys) if (source[key] !== undefined) out[key] = source[key];
  for (const key of Object.keys(source)) if (!(key in out) && source[key] !== undefined) out[key] = source[key];
  for (const [key, itemOrder] of Object.entries(fieldOrder.lists ?? {})) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map((item) => ordered(item, itemOrder));
  }
  return out;
}

/** `sha256:<hex>` of a plain API token; a digest is returned as it is (lower-cased). */
export function apiTokenDigest(token: string): string {
  if (isApiTokenDigest(token)) return token.toLowerCase();
  return `sha256:${createHash('sha256').update(token, 'utf8').digest('hex')}`;
}

/** Settings with each API token as its digest, duplicates dropped (docs/engine-rules.md, "API tokens"). */
function withTokenDigests(settings: WorldSettings): WorldSettings {
  const tokens = Array.isArray(settings.ApiTokens) ? settings.ApiTokens : [];
  return { ...settings, ApiTokens: [...new Set(tokens.map(apiTokenDigest))] };
}

/** The changes that create a store holding exactly this (already validated) world. */
export function worldToChanges(world: World): Change[] {
  return [
    { collection: 'settings', key: SETTINGS_KEY, value: withTokenDigests(world.Settings) },
    ...worldEntityChanges(world),
  ];
}

/** Entities per chunk of exportWorldText: few writes, and no chunk near V8's string limit. */
const EXPORT_CHUNK_ENTITIES = 512;

function exportedSettings(state: StoreState): unknown {
  const settings = state.get('settings')?.get(SETTINGS_KEY) as WorldSettings | undefined;
  return settings ? ordered(withTokenDigests(settings), SETTINGS_ORDER) : { SiteUrl: '', ApiTokens: [] };
}

/**
 * The world file text of `local export` (docs/cli-contract.md, "World file") in chunks, never one
 * string: 1M users export to hundreds of MB, near V8's string limit (about 512 MB).
 */
export function* exportWorldText(state: StoreState): Generator<string> {
  // JSON.stringify escapes newlines inside strings, so every raw newline is structure to indent.
  const indent = (json: string, pad: string): string => json.replaceAll('\n', `\n${pad}`);
  yield `{\n  "Settings": ${indent(JSON.stringify(exportedSettings(state), null, 2), '  ')}`;
  for (const [list, collection] of WORLD_LISTS) {
    const entries = [...(state.get(collection) ?? new Map<string, unknown>()).entries()].sort(byKey);
    if (entries.length === 0) {
      yield `,\n  "${list}": []`;
      continue;
    }
    const fieldOrder = LIST_ORDER[list];
    let chunk = `,\n  "${list}": [`;
    for (let index = 0; index < entries.length; index += 1) {
      const json = JSON.stringify(ordered(entries[index]![1], fieldOrder), null, 2);
      chunk += `${index === 0 ? '' : ','}\n    ${indent(json, '    ')}`;
      if ((index + 1) % EXPORT_CHUNK_ENTITIES === 0) {
        yield chunk;
        chunk = '';
      }
    }
    yield `${chunk}\n  ]`;
  }
  yield '\n}\n';
}
