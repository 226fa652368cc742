/**
 * Movers (docs/sync.md, "Movers: --prune-memberships"): what a request must add so the platform drops the links
 * examctl sent that the file no longer gives. Pure. Links keep id and flags apart (docs/sync.md, "The sync memory").
 */
import { HIERARCHY_CELL_FLAGS, hierarchyEntryCell } from '../domain/coercion.js';
import type { HierarchyMembership, UserRequest } from '../domain/types.js';
import { byKey } from '../domain/key-order.js';
import type { FieldChange } from '../report/run-report.js';

type FlagField = (typeof HIERARCHY_CELL_FLAGS)[keyof typeof HIERARCHY_CELL_FLAGS];
const FLAGS = Object.entries(HIERARCHY_CELL_FLAGS) as [string, FlagField][];
const WORD_OF = new Map<FlagField, string>(FLAGS.map(([word, field]) => [field, word]));
const FIELD_OF = new Map<string, FlagField>(FLAGS);
/** The words of the flags `has` holds, in the cell's order. */
const wordsOf = (has: (field: FlagField) => boolean): string[] =>
  FLAGS.filter(([, field]) => has(field)).map(([word]) => word);

/** One link examctl manages, as the sync memory records it: the hierarchy id and the flag words sent true. */
export type ManagedLink = readonly [id: string, flags: readonly string[]];

/** Links by hierarchy id, each with the flags examctl last sent true. */
type Links = Map<string, Set<FlagField>>;

function parseLinks(links: readonly ManagedLink[] | undefined): Links {
  const map: Links = new Map();
  for (const [id, words] of links ?? []) {
    const flags = map.get(id) ?? new Set<FlagField>();
    for (const word of words) {
      const field = FIELD_OF.get(word);
      if (field !== undefined) flags.add(field);
    }
    map.set(id, flags);
  }
  return map;
}

/** `flags` as a request's link leaves them: true gained, false revoked (`maybe`: gains only). */
function applyFlags(flags: Set<FlagField>, link: HierarchyMembership, maybe = false): Set<FlagField> {
  for (const [, field] of FLAGS) {
    if (link[field] === true) flags.add(field);
    else if (link[field] === false && !maybe) flags.delete(field);
  }
  return flags;
}

/** A memory line's links (`h`) as read (docs/sync.md, "The sync memory"); undefined: not a list of links (damage). */
export function readLinks(h: unknown): ManagedLink[] | undefined {
  if (!Array.isArray(h)) return undefined;
  const links: ManagedLink[] = [];
  for (const link of h as unknown[]) {
    if (typeof link === 'string' && link !== '') {
      if (!link.includes(':')) links.push([link, []]);
      continue;
    }
    if (
      !Array.isArray(link) ||
      link.length !== 2 ||
      typeof link[0] !== 'string' ||
      link[0] === '' ||
      !Array.isArray(link[1])
    )
      return undefined;
    const words = link[1] as unknown[];
    if (!words.every((word) => typeof word === 'string' && FIELD_OF.has(word))) return undefined;
    links.push([link[0], words as string[]]);
  }
  return links;
}

/** A user's `k` from `before` to `after`: links deleted or flags revoked, the 16 newest (docs/sync.md, "Drift"). */
export function prunedAfter(
  before: readonly ManagedLink[] = [],
  after: readonly ManagedLink[] | undefined,
  pruned: readonly ManagedLink[] = [],
): ManagedLink[] | undefined {
  // Nothing managed before, nothing lost (every acknowledged joiner): no map, copies or lists made.
  if (before.length === 0 && pruned.length === 0) return undefined;
  const now = parseLinks(after);
  const kept = [...before, ...pruned].map(([id, words]): ManagedLink => {
    return [id, words.filter((word) => now.get(id)?.has(FIELD_OF.get(word)!) === false)];
  });
  const lost = kept.filter(([id, words]) => !now.has(id) || words.length > 0);
  return lost.length === 0 ? undefined : lost.slice(0, 16);
}

/** What --prune-memberships judges a user by: a distrusted one's links (its digest cleared) with its `k`. */
export function prunableLinks(entry: { digest: string; links?: ManagedLink[]; pruned?: ManagedLink[] } | undefined) {
  return entry?.digest === '' && entry.pruned ? [...(entry.links ?? []), ...entry.pruned] : entry?.links;
}

/** Of `links`, those a local store holds, with the flags it holds true: one gone there is not deleted again. */
export function linksStoreHolds(links: readonly ManagedLink[] | undefined, memberships: readonly unknown[] | null) {
  if (links === undefined) return undefined;
  const held = heldLinks(memberships);
  return links.flatMap(([id, words]): ManagedLink[] => {
    const flags = held.get(id);
    return flags === undefined ? [] : [[id, words.filter((word) => flags.has(FIELD_OF.get(word)!))]];
  });
}

function isMembership(entry: unknown): entry is HierarchyMembership {
  return (
    typeof entry === 'object' && entry !== null && typeof (entry as { ExternalId?: unknown }).ExternalId === 'string'
  );
}

/**
 * The links examctl manages after the target acknowledged `sent` (Hierarchies): an UPSERT adds (flags as
 * applyFlags), a DELETE removes. `maybe`: no answer, only additions (docs/sync.md, "A request cut short").
 */
export function linksAfter(
  previous: readonly ManagedLink[] | undefined,
  sent: readonly unknown[] | undefined,
  maybe = false,
): ManagedLink[] | undefined {
  if (sent === undefined) return previous === undefined || previous.length === 0 ? undefined : [...previous];
  const map = parseLinks(previous);
  for (const entry of sent) {
    if (!isMembership(entry) || (maybe && entry.Action === 'DELETE')) continue;
    if (entry.Action === 'DELETE') {
      map.delete(entry.ExternalId);
      continue;
    }
    map.set(entry.ExternalId, applyFlags(map.get(entry.ExternalId) ?? new Set<FlagField>(), entry, maybe));
  }
  const links = [...map].map(([id, flags]): ManagedLink => [id, wordsOf((field) => flags.has(field))]).sort(byKey);
  return links.length === 0 ? undefined : links;
}

/**
 * The prune of one user: the request to send, what it removes and (for the plan) the links it adds (undefined:
 * nothing examctl sent is lost). `given`: the input states its memberships (a Hierarchies column or key), else nothing
 * is pruned. What examctl never sent is never touched.
 */
export function pruneOf(links: readonly ManagedLink[] | undefined, request: UserRequest, given: boolean) {
  if (!given || links === undefined || links.length === 0) return undefined;
  const hierarchies: readonly unknown[] = Array.isArray(request.Hierarchies) ? request.Hierarchies : [];
  const managed = parseLinks(links);
  const listed = new Map<string, HierarchyMembership>();
  const deletedByFile = new Set<string>();
  for (const entry of hierarchies) {
    if (!isMembership(entry)) continue;
    if (entry.Action === 'DELETE') deletedByFile.add(entry.ExternalId);
    else listed.set(entry.ExternalId, entry);
  }
  const removed: string[] = [];
  const deletes: HierarchyMembership[] = [];
  const patched = new Map<string, HierarchyMembership>();
  for (const [id, flags] of managed) {
    const entry = listed.get(id);
    if (entry === undefined) {
      if (deletedByFile.has(id)) continue;
      deletes.push({ ExternalId: id, Action: 'DELETE' });
      removed.push(id);
      continue;
    }
    for (const field of flags) {
      if (entry[field] === true) continue;
      if (entry[field] === undefined) patched.set(id, { ...(patched.get(id) ?? entry), [field]: false });
      removed.push(hierarchyEntryCell(id, [WORD_OF.get(field)!]));
    }
  }
  if (removed.length === 0) return undefined;
  const joined = [...listed.keys()].filter((id) => !managed.has(id));
  const added = deletes.length > 0 || patched.size > 0;
  const sent = added
    ? [
        ...hierarchies.map((entry) => (isMembership(entry) ? (patched.get(entry.ExternalId) ?? entry) : entry)),
        ...deletes,
      ]
    : undefined;
  return {
    /** The file's request, with a DELETE per link dropped and false per flag the file no longer gives. */
    request: sent === undefined ? request : { ...request, Hierarchies: sent as HierarchyMembership[] },
    /** `H-A` (a link left) or `H-A:coordinator` (a flag revoked), in the order of the plan line. */
    removed,
    /** Links the request adds that examctl did not manage yet (`joins H-D` in the plan). */
    joined,
    /** The links the request DELETEs that the file did not (a 131 or 1134 for one of them is the link gone). */
    deleted: deletes.map((entry) => entry.ExternalId),
    /** Whether `request` differs from the file's (DELETEs or false flags were added). */
    added,
  };
}

/** How many managed links or flags the input's Hierarchies value (before validation) removes: --max-prune's count. */
export function removalsOf(links: readonly ManagedLink[] | undefined, hierarchies: unknown): number {
  // A value that is not a list fails validation: that user is not sent, so loses nothing.
  if (hierarchies !== undefined && !Array.isArray(hierarchies)) return 0;
  return pruneOf(links, { Hierarchies: hierarchies ?? [] } as UserRequest, true)?.removed.length ?? 0;
}

/** A link as the Hierarchies cell writes it: `H-A`, `H-A:coordinator+reports`. */
function cellOf(id: string, flags: ReadonlySet<FlagField>): string {
  return hierarchyEntryCell(
    id,
    wordsOf((field) => flags.has(field)),
  );
}

/** Memberships as a store's record holds them (objects with their flags) or the memory keeps them (ManagedLink). */
function heldLinks(value: unknown): Links {
  if (!Array.isArray(value)) return new Map();
  return parseLinks(
    value.map(
      (entry: unknown): ManagedLink =>
        isMembership(entry) ? [entry.ExternalId, wordsOf((field) => entry[field] === true)] : (entry as ManagedLink),
    ),
  );
}

/**
 * The links a request's Hierarchies changes (docs/plan.md, "Before and after"), each as it was and as the request
 * leaves it in the cell's words, `|`-joined; undefined: none. `held`: the memberships known before; `whole`: a link
 * `held` lacks is known absent (a local store's record); `known`: every link it changes was known before.
 */
export function membershipChange(held: unknown, whole: boolean, sent: unknown): Omit<FieldChange, 'field'> | undefined {
  if (!Array.isArray(sent)) return undefined;
  const links = heldLinks(held);
  const before: string[] = [];
  const after: string[] = [];
  let known = true;
  let changed = false;
  for (const entry of sent) {
    if (!isMembership(entry)) continue;
    const old = links.get(entry.ExternalId);
    if (old === undefined && !whole) known = false;
    if (entry.Action === 'DELETE') {
      if (old !== undefined) before.push(cellOf(entry.ExternalId, old));
      changed ||= old !== undefined || !whole;
      continue;
    }
    const now = applyFlags(new Set(old), entry);
    if (old !== undefined && old.size === now.size && [...old].every((field) => now.has(field))) continue;
    if (old !== undefined) before.push(cellOf(entry.ExternalId, old));
    after.push(cellOf(entry.ExternalId, now));
    changed = true;
  }
  if (!changed) return undefined;
  return {
    known,
    ...(known && before.length > 0 ? { before: before.join('|') } : {}),
    ...(after.length > 0 ? { after: after.join('|') } : {}),
  };
}
