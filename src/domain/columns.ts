/**
 * Column catalogs for the CSV reader: every field a CSV file may carry, under its API name.
 * Built from the rule tables so a field added to a table is a column at once.
 */
import type { ColumnSpec } from '../input/record.js';
import { USER_FIELDS } from './user.js';
import { CANDIDATE_FIELDS, SCHEDULE_FIELDS } from './schedule.js';
import { COLLECTION_FIELDS } from './collection.js';

/** Fields whose cell holds several values separated by `|`. */
const LIST_FIELDS: ReadonlySet<string> = new Set([
  'Labels',
  'AllowedIpAddresses',
  'Hierarchies',
  'ProctorUIds',
  'Taxonomies',
  'LoRepositoryExternalIds',
  'ObjectiveRepositories',
]);

function columns(names: readonly string[]): readonly ColumnSpec[] {
  return Object.freeze(names.map((name) => Object.freeze({ name, kind: LIST_FIELDS.has(name) ? 'list' : 'string' } as const)));
}

export const USER_COLUMNS: readonly ColumnSpec[] = columns(USER_FIELDS);
export const CANDIDATE_COLUMNS: readonly ColumnSpec[] = columns(CANDIDATE_FIELDS);
/** Schedule fields plus the request's Workflow and Upsert, for sittings files. */
export const SCHEDULE_COLUMNS: readonly ColumnSpec[] = columns([...SCHEDULE_FIELDS, 'Workflow', 'Upsert']);
export const COLLECTION_COLUMNS: readonly ColumnSpec[] = columns(COLLECTION_FIELDS);
