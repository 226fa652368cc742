/** A user request's changes, field by field, with the value before where known (docs/plan.md, "Before and after"). */
import { sameValue } from '../domain/same-value.js';
import type { UserRequest } from '../domain/types.js';
import type { StoredUserView } from '../domain/user.js';
import type { FieldChange } from '../report/run-report.js';
import type { MemoryEntry } from './memory-lines.js';
import { membershipChange } from './memberships.js';

/** A field a change never lists: the id (the item's own). */
const NOT_LISTED = 'ExternalId';
const SECRET = 'Password';
/**
 * Listed link by link, in the cell's words (memberships.ts, membershipChange); a mover's move says it
 * (ReportItem.moved).
 */
export const MEMBERSHIPS = 'Hierarchies';

/** What examctl knows of a user before the request; `whole` (a local store's): a field it lacks has no value. */
export interface KnownBefore {
  readonly fields: Readonly<Record<string, unknown>>;
  readonly whole: boolean;
}

/** A local store's record, whole; a login it does not disable is enabled (`false`), as a leaver's change says. */
export function storedBefore(stored: StoredUserView | null, memberships: unknown): KnownBefore | undefined {
  if (stored === null) return undefined;
  return { fields: { ...stored, DisableLogin: stored.DisableLogin === true, [MEMBERSHIPS]: memberships }, whole: true };
}

/**
 * A field with no value reads as its default: a yes/no field `false`, a list empty (docs/plan.md, "Before and after").
 */
function isDefault(value: unknown): boolean {
  return value === false || (Array.isArray(value) && value.length === 0);
}

/** What examctl last sent; a distrusted entry knows no field (what it sent is no longer what the target holds). */
export function sentBefore(entry: MemoryEntry | undefined): KnownBefore | undefined {
  if (entry === undefined || entry.tentative === true) return undefined;
  if (entry.digest === '') return { fields: {}, whole: false };
  const known: Record<string, unknown> = { ...entry.sent };
  if (entry.firstName !== undefined) known.FirstName = entry.firstName;
  if (entry.lastName !== undefined) known.LastName = entry.lastName;
  if (entry.email !== undefined) known.Email = entry.email;
  if (entry.disabled === true) known.DisableLogin = true;
  if (entry.links !== undefined) known[MEMBERSHIPS] = entry.links;
  return { fields: known, whole: false };
}

/** Fields a memory entry keeps apart (`f`, `l`, `m`, links) or never (the password), so not in MemoryEntry.sent. */
const KEPT_APART = new Set(['ExternalId', 'FirstName', 'LastName', 'Email', SECRET, 'Hierarchies']);

/** MemoryEntry.sent after `sent` was acknowledged: its fields over those before (one left out keeps its value). */
export function sentFields(sent: UserRequest, before: Readonly<Record<string, unknown>> | undefined) {
  let fields: Record<string, unknown> | undefined;
  for (const field in sent) {
    const value = (sent as Record<string, unknown>)[field];
    if (value === undefined || KEPT_APART.has(field)) continue;
    fields ??= { ...before };
    fields[field] = value;
  }
  return fields ?? (before === undefined ? undefined : { ...before });
}

/**
 * Each field of `after` that differs from `before` or whose old value is unknown; the password only as changed;
 * memberships link by link; a field known empty changes unless `after` is its default. Undefined: a create.
 */
export function userChanges(before: KnownBefore | undefined, after: UserRequest): FieldChange[] | undefined {
  if (before === undefined) return undefined;
  const { fields, whole } = before;
  const changes: FieldChange[] = [];
  for (const field in after) {
    const value = (after as Record<string, unknown>)[field];
    if (field === NOT_LISTED || value === undefined) continue;
    if (field === MEMBERSHIPS) {
      const change = membershipChange(fields[field], whole, value);
      if (change !== undefined) changes.push({ field, ...change });
      continue;
    }
    if (field === SECRET) {
      changes.push({ field, known: false });
      continue;
    }
    const old = fields[field];
    if (old !== undefined) {
      if (!sameValue(old, value)) changes.push({ field, known: true, before: old, after: value });
    } else if (!whole && !Object.hasOwn(fields, field)) changes.push({ field, known: false, after: value });
    else if (!isDefault(value)) changes.push({ field, known: true, after: value });
  }
  return changes;
}

/** A leaver's one change: its login disabled. */
export const DISABLE_LOGIN: readonly FieldChange[] = [
  { field: 'DisableLogin', known: true, before: false, after: true },
];
