/**
 * Turns CLI input values into the API's types before validation (docs/domain-rules.md, "CSV
 * coercion"); coerceAndValidate* drop the validator's echo of a problem as withReaderProblems does.
 */
import { ErrorCode } from './codes.js';
import { quotedValue, type Problem, type Validation } from './problem.js';
import { withReaderProblems } from './spreadsheet-warnings.js';
import { listCellParts } from './list-cells.js';
import type { CollectionRequest, ScheduleRequest, UserRequest, Workflow, Candidate } from './types.js';
import { BOOLEAN_SPELLINGS, requestParts, type CellKind, type FieldRule } from './field-rules.js';
import { USER_TABLE, validateUser } from './user.js';
import {
  CANDIDATE_TABLE,
  SCHEDULE_TABLE,
  UPSERT_RULE,
  validateCandidate,
  validateScheduleRequest,
} from './schedule.js';
import { COLLECTION_TABLE, validateCollection } from './collection.js';

interface Coerced {
  fields: Record<string, unknown>;
  problems: Problem[];
}

/** Field name and kind pairs; an array, not a Map, because this loop runs once per input row. */
type CoercionTable = readonly (readonly [string, CellKind])[];

// Y and N: UK SIS exports write yes/no fields that way.
const TRUE_SPELLINGS = new Set(['true', 'yes', 'y', '1']);
const FALSE_SPELLINGS = new Set(['false', 'no', 'n', '0']);
const INTEGER = /^[+-]?[0-9]+$/;

/** Parses a boolean spelling (true/false, yes/no, Y/N, 1/0, any case); undefined when it is none of them. */
export function parseBooleanSpelling(s: string): boolean | undefined {
  const lower = s.trim().toLowerCase();
  if (TRUE_SPELLINGS.has(lower)) return true;
  if (FALSE_SPELLINGS.has(lower)) return false;
  return undefined;
}

/** The CSV syntax of one Hierarchies entry: `EXTID` or `EXTID:flag+flag`. */
export const HIERARCHY_CELL_FLAGS = {
  coordinator: 'IsCoordinator',
  administrator: 'IsAdministrator',
  reports: 'HasViewReportsPermissions',
  rescoring: 'HasReScoringPermissions',
} as const;
const HIERARCHY_FLAGS = Object.entries(HIERARCHY_CELL_FLAGS);
const HIERARCHY_FLAG_NAMES = [...Object.keys(HIERARCHY_CELL_FLAGS), 'delete'].join(', ');

/** One `EXTID[:flag+flag]` entry's parts: the id as written, the flags lower-cased (blank ones left out). */
export function hierarchyEntryParts(entry: string): { id: string; flags: string[] } {
  const colon = entry.indexOf(':');
  const flags: string[] = [];
  for (const part of colon < 0 ? [] : entry.slice(colon + 1).split('+')) {
    const flag = part.trim().toLowerCase();
    if (flag !== '') flags.push(flag);
  }
  return { id: colon < 0 ? entry : entry.slice(0, colon), flags };
}

/** Memberships as a store's record holds them (objects with their flags), in a Hierarchies cell's words, `|`-joined. */
export function membershipsCell(memberships: unknown): string {
  if (!Array.isArray(memberships)) return '';
  return memberships
    .filter((entry): entry is Record<string, unknown> => typeof entry === 'object' && entry !== null)
    .map((entry) =>
      hierarchyEntryCell(
        String(entry.ExternalId),
        HIERARCHY_FLAGS.filter(([, field]) => entry[field] === true).map(([word]) => word),
      ),
    )
    .join('|');
}

/** A link as a Hierarchies cell writes it (`H-A`, `H-A:coordinator+reports`): hierarchyEntryParts reads it back. */
export function hierarchyEntryCell(id: string, flags: readonly string[]): string {
  return flags.length === 0 ? id : `${id}:${flags.join('+')}`;
}

/**
 * Parses one `EXTID[:flag+flag]` entry: flags not listed are sent as false (a row states the whole
 * membership); `delete` takes no other flag. An entry with a bad flag stays a string, for validation to refuse.
 */
function parseHierarchyEntry(entry: string, path: string, problems: Problem[]): Record<string, unknown> | string {
  const { id, flags } = hierarchyEntryParts(entry);
  const externalId = id.trim();
  if (flags.includes('delete')) {
    if (flags.length > 1) {
      problems.push({
        field: path,
        code: ErrorCode.HierarchyCellInvalid,
        message: `Hierarchy entry ${quotedValue(entry)}: delete cannot be combined with permission flags`,
      });
      return entry;
    }
    return { ExternalId: externalId, Action: 'DELETE' };
  }
  const membership: Record<string, unknown> = { ExternalId: externalId };
  for (const [flag, field] of HIERARCHY_FLAGS) membership[field] = flags.includes(flag);
  const unknown = flags.length === 0 ? flags : flags.filter((flag) => !Object.hasOwn(HIERARCHY_CELL_FLAGS, flag));
  if (unknown.length > 0) {
    problems.push({
      field: path,
      code: ErrorCode.HierarchyCellInvalid,
      message: `Hierarchy entry ${quotedValue(entry)}: unknown flag ${unknown.map((flag) => quotedValue(flag)).join(', ')}; use ${HIERARCHY_FLAG_NAMES} joined with +`,
    });
    return entry;
  }
  return membership;
}

/** A Hierarchies cell: entries (split, or a string to split here), or a JSON array of membership objects. */
function coerceHierarchies(value: unknown, problems: Problem[]): unknown {
  let cells: string[];
  if (typeof value === 'string') cells = listCellParts(value);
  else if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string'))
    cells = value as string[];
  else return value;
  const joined = cells.join('|').trim();
  if (joined.startsWith('[')) {
    try {
      return JSON.parse(joined) as unknown;
    } catch {
      problems.push({
        field: 'Hierarchies',
        code: ErrorCode.HierarchyCellInvalid,
        message: 'Hierarchies starts with [ but is not a valid JSON array of membership objects',
      });
      return value;
    }
  }
  const out: (Record<string, unknown> | string)[] = [];
  for (const cell of cells) {
    // A stray `|` (trailing or doubled) leaves an empty entry, which names nothing.
    if (cell.trim() === '') continue;
    out.push(parseHierarchyEntry(cell, `Hierarchies[${out.length}]`, problems));
  }
  return out;
}

/** One cell of field `name` read by its kind; a text it cannot read stays, with a problem pushed. */
export function coerceCell(name: string, kind: CellKind, value: unknown, problems: Problem[]): unknown {
  if (typeof kind === 'object') {
    // A whole number: the text stays when it is not one, and the field's own problem says so.
    if (typeof value !== 'string') return value;
    let t = value.trim();
    if (t === '') return undefined;
    // A percentage as a spreadsheet shows it (`25%`, also a percent-formatted .xlsx cell): the number before the sign.
    if (kind.percent === true && t.endsWith('%')) t = t.slice(0, -1).trimEnd();
    if (!INTEGER.test(t)) {
      problems.push(kind.invalid(name, value));
      return value;
    }
    return Number(t);
  }
  switch (kind) {
    case 'boolean': {
      if (typeof value !== 'string') return value;
      if (value.trim() === '') return undefined;
      const b = parseBooleanSpelling(value);
      if (b === undefined) {
        problems.push({
          field: name,
          code: ErrorCode.YesNoCellInvalid,
          message: `${name} must be ${BOOLEAN_SPELLINGS} (any case), not ${quotedValue(value)}`,
        });
        return value;
      }
      return b;
    }
    case 'list':
      return typeof value === 'string' ? listCellParts(value) : value;
    case 'hierarchies':
      return coerceHierarchies(value, problems);
    case 'idTitleList': {
      const list = typeof value === 'string' ? listCellParts(value) : value;
      if (!Array.isArray(list)) return value;
      // CLI flags and CSV cells name entries by id only.
      return list.map((e: unknown) => (typeof e === 'string' ? { ExternalId: e.trim() } : e));
    }
  }
}

/** `inPlace`: `fields` is the caller's own, coerced where it is (no copy of each record). */
function coerceWith(table: CoercionTable, fields: Record<string, unknown>, inPlace = false): Coerced {
  const problems: Problem[] = [];
  let out: Record<string, unknown> | null = inPlace ? fields : null;
  for (let i = 0; i < table.length; i++) {
    const entry = table[i] as readonly [string, CellKind];
    const name = entry[0];
    const before = fields[name];
    if (before === undefined || !Object.hasOwn(fields, name)) continue;
    const after = coerceCell(name, entry[1], before, problems);
    if (after === before) continue;
    out ??= { ...fields };
    if (after === undefined) delete out[name];
    else out[name] = after;
  }
  return { fields: out ?? fields, problems };
}

/** Each table's fields with a cell syntax, in table order: a rule's `cell` is the one declaration. */
function coercionOf(rules: readonly FieldRule[]): CoercionTable {
  return rules.flatMap((rule) => (rule.cell === undefined ? [] : [[rule.name, rule.cell] as const]));
}

const COERCION = {
  user: coercionOf(USER_TABLE.rules),
  candidate: coercionOf(CANDIDATE_TABLE.rules),
  /** Schedule fields and the request-level Upsert, as in a sittings-file row. */
  schedule: coercionOf([UPSERT_RULE, ...SCHEDULE_TABLE.rules]),
  request: coercionOf([UPSERT_RULE]),
  collection: coercionOf(COLLECTION_TABLE.rules),
};

export function coerceFields(kind: keyof typeof COERCION, fields: Record<string, unknown>): Coerced {
  return coerceWith(COERCION[kind], fields);
}

/** A whole JSON request body: coerces Upsert, the Schedule and each candidate, with the request's problem paths. */
export function coerceScheduleRequestFields(body: Record<string, unknown>): Coerced {
  const problems: Problem[] = [];
  const top = coerceFields('request', body);
  problems.push(...top.problems);
  const fields = requestParts(top.fields, (part, prefix) => {
    const c = coerceFields(prefix === 'Schedule.' ? 'schedule' : 'candidate', part);
    problems.push(...c.problems.map((p) => ({ ...p, field: prefix + p.field })));
    return c.fields;
  });
  return { fields, problems };
}

/** One user record coerced and validated; its fields are coerced in place, not copied (the CLI's hot path). */
export function coerceAndValidateUser(
  fields: Record<string, unknown>,
  context?: { isCreate?: boolean },
): Validation<UserRequest> {
  const c = coerceWith(COERCION.user, fields, true);
  return withReaderProblems(c.problems, validateUser(c.fields, context));
}

export function coerceAndValidateCandidate(
  fields: Record<string, unknown>,
  context: { workflow: Workflow },
): Validation<Candidate> {
  const c = coerceFields('candidate', fields);
  return withReaderProblems(c.problems, validateCandidate(c.fields, context));
}

export function coerceAndValidateCollection(fields: Record<string, unknown>): Validation<CollectionRequest> {
  const c = coerceFields('collection', fields);
  return withReaderProblems(c.problems, validateCollection(c.fields));
}

export function coerceAndValidateScheduleRequest(body: Record<string, unknown>): Validation<ScheduleRequest> {
  const c = coerceScheduleRequestFields(body);
  return withReaderProblems(c.problems, validateScheduleRequest(c.fields));
}
