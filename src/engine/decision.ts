import type { ApiResult, PlannedAction, RelatedChange } from '../port/integration-api.js';
import { membershipsCell } from '../domain/coercion.js';
import type { ApiErrorEntry } from '../domain/envelope.js';
import type { Problem } from '../domain/problem.js';
import { sameValue } from '../domain/same-value.js';
import { isSecretField } from '../domain/field-names.js';
import type { Change, CollectionName } from './store/contract.js';
import type { EngineView } from './view.js';

/** What one rule function decides: the answer, and the changes that make it true. */
export interface Decision<T> {
  result: ApiResult<T>;
  changes: Change[];
}

export function errorEntries(problems: readonly Problem[]): ApiErrorEntry[] {
  return problems.map((p) =>
    p.field === '' ? { Code: p.code, Message: p.message } : { Code: p.code, Message: p.message, Field: p.field },
  );
}

/** Success false, Content null, every problem found (docs/interpretations.md, "Envelope and errors"). */
export function refuse<T>(problems: readonly Problem[], status = 400): Decision<T> {
  return {
    result: { status, envelope: { Content: null, Success: false, Errors: errorEntries(problems) } },
    changes: [],
  };
}

/**
 * A success: the primary entity's change after the related ones, less those storing what is there
 * (docs/engine-rules.md, "How a call runs"); the primary entity's existence before the call tells created from updated.
 */
export function accept<T>(view: EngineView, content: T, primary: Change, related: readonly Change[] = []): Decision<T> {
  const effective = [...related, primary].filter(
    (change) => !sameValue(view.get(change.collection, change.key), change.value ?? undefined),
  );
  const action: PlannedAction =
    effective.length === 0
      ? 'unchanged'
      : view.get(primary.collection, primary.key) === undefined
        ? 'created'
        : 'updated';
  const result: ApiResult<T> = { status: 200, envelope: { Content: content, Success: true, Errors: null }, action };
  if (action !== 'unchanged') {
    const fields = changedFieldsOf(view, primary, effective);
    if (fields.length > 0) result.changedFields = fields;
    const related = [...ownChangesOf(view, primary, effective), ...relatedChangesOf(view, primary, effective)];
    if (related.length > 0) result.relatedChanges = related;
  }
  return { result, changes: effective };
}

/** A stored password's field: named as the request names it, its value never shown. */
const STORED_SECRET = 'PasswordHash';

/**
 * Each field the change gives an entity other than the primary (a schedule's candidates' users, its new group), for
 * a plan a person reads per user (docs/plan.md, "Before and after"): memberships in a Hierarchies cell's words.
 */
function relatedChangesOf(
  view: EngineView,
  primary: { collection: CollectionName; key: string },
  effective: readonly Change[],
): RelatedChange[] {
  const related: RelatedChange[] = [];
  for (const change of effective) {
    if (change.collection === primary.collection && change.key === primary.key) continue;
    const before = (view.get(change.collection, change.key) ?? {}) as Record<string, unknown>;
    const after = (change.value ?? {}) as Record<string, unknown>;
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      // The entity's own id is the field's name already.
      if (key === 'ExternalId' || sameValue(before[key], after[key])) continue;
      const field = `${change.collection} ${change.key} ${key === STORED_SECRET ? 'Password' : key}`;
      if (key === STORED_SECRET) related.push({ field });
      else related.push({ field, ...shown(key, 'before', before[key]), ...shown(key, 'after', after[key]) });
    }
  }
  return related;
}

/**
 * Each of an updated schedule's own fields that the change gives a new value, by its name, before and after (docs/plan.md,
 * "Before and after"): a PIN named, never its value; `Candidates` as their ids, listed when one joins. A user's own come
 * from the sync memory or the store's record for both targets (user-changes.ts); a collection's are named only.
 */
function ownChangesOf(
  view: EngineView,
  primary: { collection: CollectionName; key: string },
  effective: readonly Change[],
): RelatedChange[] {
  const before = view.get(primary.collection, primary.key) as Record<string, unknown> | undefined;
  const change = effective.find((one) => one.collection === primary.collection && one.key === primary.key);
  if (primary.collection !== 'schedules' || before === undefined || change === undefined) return [];
  const after = (change.value ?? {}) as Record<string, unknown>;
  const own: RelatedChange[] = [];
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const [was, is] =
      key === 'Candidates' ? [candidateIds(before[key]), candidateIds(after[key])] : [before[key], after[key]];
    if (sameValue(was, is)) continue;
    if (isSecretField(key)) own.push({ field: key });
    else own.push({ field: key, ...shown(key, 'before', was), ...shown(key, 'after', is) });
  }
  return own;
}

/** A schedule's candidates as a person reads them: their ids (their links and tokens never). */
function candidateIds(candidates: unknown): string | undefined {
  if (!Array.isArray(candidates) || candidates.length === 0) return undefined;
  return candidates.map((candidate) => (candidate as { CandidateExtId: string }).CandidateExtId).join(', ');
}

function shown(key: string, side: 'before' | 'after', value: unknown): Partial<RelatedChange> {
  if (value === undefined) return {};
  return { [side]: key === 'Hierarchies' ? membershipsCell(value) : value };
}

/**
 * The primary entity's top-level fields that the change gives a new value, for a plan a person
 * reads (`~ stu-2 (LastName)`); related entities changed (a schedule's candidates' users, new or
 * not) are named by their collection (`+ S-1 (users)`).
 */
export function changedFieldsOf(
  view: EngineView,
  primary: { collection: CollectionName; key: string },
  effective: readonly Change[],
): string[] {
  const fields = new Set<string>();
  for (const change of effective) {
    if (change.collection !== primary.collection || change.key !== primary.key) {
      fields.add(change.collection);
      continue;
    }
    const before = view.get(primary.collection, primary.key) as Record<string, unknown> | undefined;
    const after = (change.value ?? {}) as Record<string, unknown>;
    if (before === undefined || typeof after !== 'object') continue;
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      if (!sameValue(before[key], after[key])) fields.add(key);
    }
  }
  return [...fields];
}

type Fields = Readonly<Record<string, unknown>>;

/**
 * `withoutUndefined({ ...base, ...withoutUndefined(over without the keys in omit), ...last })` in
 * one pass, same keys, same order: the spread form built four objects a call, which showed in
 * profiles of `local serve` (every POST /user builds one).
 */
export function mergeDefined(
  base: object | undefined,
  over: object,
  omit: ReadonlySet<string>,
  last: Fields,
): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  const baseFields = base as Fields | undefined;
  const overFields = over as Fields;
  if (baseFields !== undefined)
    for (const key of Object.keys(baseFields)) place(merged, key, baseFields, overFields, omit, last);
  for (const key of Object.keys(overFields))
    if (overFields[key] !== undefined && !omit.has(key)) place(merged, key, baseFields, overFields, omit, last);
  for (const key of Object.keys(last)) place(merged, key, baseFields, overFields, omit, last);
  return merged;
}

/** mergeDefined's value for `key`, placed once (a closure a call cost an allocation). */
function place(
  merged: Record<string, unknown>,
  key: string,
  base: Fields | undefined,
  over: Fields,
  omit: ReadonlySet<string>,
  last: Fields,
): void {
  if (Object.hasOwn(merged, key)) return;
  let value: unknown;
  if (Object.hasOwn(last, key)) value = last[key];
  else if (!omit.has(key) && over[key] !== undefined) value = over[key];
  else value = base?.[key];
  if (value !== undefined) merged[key] = value;
}

/** Copies an object without its undefined properties (stored entities never hold undefined). */
export function withoutUndefined<T extends object>(object: T): T {
  // A plain loop: this runs for every stored entity, and entries/filter/fromEntries showed in profiles.
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(object)) {
    const value = (object as Record<string, unknown>)[key];
    if (value !== undefined) copy[key] = value;
  }
  return copy as T;
}
