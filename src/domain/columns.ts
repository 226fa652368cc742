/** Column catalogs for the CSV reader: every field a CSV file may carry, built from the rule tables. */
import type { FieldRule } from './field-rules.js';
import { USER_TABLE } from './user.js';
import { CANDIDATE_TABLE, SCHEDULE_TABLE, UPSERT_RULE, WORKFLOW_RULE } from './schedule.js';
import { COLLECTION_TABLE } from './collection.js';

export interface ColumnSpec {
  /** Canonical API field name, e.g. `FirstName`. */
  name: string;
  /** How the reader treats the column's cells. */
  kind: 'string' | 'list';
  /** The field's rule: how a `--set` value is read and checked, as a cell of this column would be. */
  rule?: FieldRule;
}

/** A cell holds several values separated by `|` when its rule reads a list syntax. */
function columns(rules: readonly FieldRule[]): readonly ColumnSpec[] {
  return Object.freeze(
    rules.map((rule) => {
      const list = rule.cell === 'list' || rule.cell === 'hierarchies' || rule.cell === 'idTitleList';
      return Object.freeze({ name: rule.name, kind: list ? 'list' : 'string', rule } as const);
    }),
  );
}

export const USER_COLUMNS: readonly ColumnSpec[] = columns(USER_TABLE.rules);
export const CANDIDATE_COLUMNS: readonly ColumnSpec[] = columns(CANDIDATE_TABLE.rules);
/** Schedule fields plus the request's Workflow and Upsert, for sittings files. */
export const SCHEDULE_COLUMNS: readonly ColumnSpec[] = columns([...SCHEDULE_TABLE.rules, WORKFLOW_RULE, UPSERT_RULE]);
export const COLLECTION_COLUMNS: readonly ColumnSpec[] = columns(COLLECTION_TABLE.rules);

/** The fields of each kind of record file (a command's `reads`). */
export const RECORD_COLUMNS: Record<RecordKind, readonly ColumnSpec[]> = {
  users: USER_COLUMNS,
  schedules: [...CANDIDATE_COLUMNS, ...SCHEDULE_COLUMNS],
  collections: COLLECTION_COLUMNS,
  ids: [{ name: 'UserExtId', kind: 'string' }],
};
export type RecordKind = 'users' | 'schedules' | 'collections' | 'ids';

/** The xlsx template's second sheet, describing the first: the reader knows it by its name and header. */
export const TEMPLATE_DESCRIPTION_SHEET = {
  name: 'Columns',
  header: ['Column', 'Required', 'Type', 'Limit', 'Example', 'Rules'],
} as const;
