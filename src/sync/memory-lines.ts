/** The sync memory's lines (docs/sync.md, "Format"): entry, population and header, written and read back checked. */
import { hash } from 'node:crypto';
import { UsageError } from '../system/errors.js';
import { counted } from '../formats/number-format.js';
import { encodeChecksummedLine } from '../system/checksummed-line.js';
import type { ReportTarget, SyncMemoryNote } from '../report/run-report.js';
import { readLinks, type ManagedLink } from './memberships.js';
import { lossAdvice } from './memory-loss.js';
import { runFilesOf, withRunFiles, type RunFile } from './replayed-file.js';
import { byKey } from '../domain/key-order.js';
import { isHead } from '../domain/store-head.js';
import type { SeenHead } from './store-standing.js';

/**
 * The line format (docs/sync.md, "Format"); a reader refuses a newer one. 2: population lines; 3: store heads;
 * 4: a head per batch of acknowledgements. The first run holding its lock rewrites an older file as 4.
 */
export const SYNC_MEMORY_VERSION = 4;

/** A --population name: 1 to 64 letters, digits, `.`, `-`, `_`, starting with a letter or digit. */
const POPULATION_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function isPopulationName(value: unknown): value is string {
  return typeof value === 'string' && POPULATION_NAME.test(value);
}

/** A population's key in `MemoryContents.populations`: its name, or '' (never a name) for the runs without one. */
export function populationKey(population: string | undefined): string {
  return population ?? '';
}

/** A population a real run synced (docs/sync.md, "Two exports, two populations"): `run` the newest, `count` its ids. */
export interface PopulationRecord {
  run: string;
  count: number;
  /** Whether the newest run stored its end (docs/sync.md, "When the memory is lost"); absent: not judged. */
  ended?: boolean;
  /** The input files of its last runs (replayed-file.ts); absent: an older examctl, nothing judged. */
  files?: RunFile[];
  /** The store heads this population's runs saw, oldest first (store-standing.ts); absent: none recorded. */
  heads?: SeenHead[];
}

/** The entity kinds a memory is kept for: one file each per target. */
export type SyncKind = NonNullable<SyncMemoryNote['kind']>;

/** A count of a kind in words: `1 collection`, `2 users`. */
export function countedKind(count: number, kind: SyncKind): string {
  return counted(count, kind.slice(0, -1), kind);
}

/** Every kind, as `synced show` lists them and `synced forget` forgets them. */
export const SYNC_KINDS: readonly SyncKind[] = ['users', 'schedules', 'collections'];

/** What the memory knows of one id: the last request this target acknowledged `ok` for it. */
export interface MemoryEntry {
  /** requestDigest of that request. */
  digest: string;
  run: string;
  /** rawDigest of the table row it was built from (docs/sync.md, "The raw digest"); absent: the digest decides. */
  raw?: string;
  /** Users: what a disable needs without the file; with the email, judging an older sittings row. */
  firstName?: string;
  lastName?: string;
  email?: string;
  /** Users: login disabled by --disable-missing (a leaver). */
  disabled?: boolean;
  /** Users: each other field last acknowledged (not id, names, email, password, memberships): docs/plan.md's before. */
  sent?: Record<string, unknown>;
  /** Users: links (and flags sent true) examctl sent and did not delete since (memberships.ts): what may be pruned. */
  links?: ManagedLink[];
  /** Users: the links examctl deleted and flags it revoked (`k`: memberships.ts, prunedAfter). */
  pruned?: ManagedLink[];
  /** Users: written before the first request went, never acknowledged since: may not exist on the target. */
  tentative?: boolean;
  /** Users: the run whose request for this id was first acknowledged (stale-input.ts); absent: unknown. */
  joined?: string;
  /** Users: `joined` is the run a retry's report row named, the retry having created the user (stale-input.ts). */
  joinedByRetry?: true;
  /** Schedules: the last acknowledged request's CandidateExtIds (docs/sync.md, "Withdrawn candidates"). */
  candidates?: string[];
  /** Users: the `--population` of the run that last acknowledged (or sent) the user; absent: none. */
  population?: string;
  /** The attempt that acknowledged it (store-standing.ts, SeenHead); absent: before heads were recorded. */
  acked?: string;
  /** Collections: each field but ExternalId, canonical JSON (docs/sync.md, "Collections"); schedules: each set, ''. */
  fields?: Record<string, string>;
}

/** The request as JSON, keys sorted at every level. The text must not change: memories hold digests of it. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedCopy(value)) ?? 'null';
}

/** What is made once per object shape (its keys, in order), for the last few: a run's objects share one or two. */
class Shapes<T> {
  private readonly kept: { keys: readonly string[]; made: T }[] = [];

  constructor(private readonly make: (keys: readonly string[]) => T) {}

  of(keys: readonly string[]): T {
    for (const shape of this.kept) {
      if (shape.keys.length !== keys.length) continue;
      let same = true;
      for (let i = 0; i < keys.length && same; i++) same = keys[i] === shape.keys[i];
      if (same) return shape.made;
    }
    const made = this.make(keys);
    if (this.kept.length >= SHAPES_KEPT) this.kept.shift();
    this.kept.push({ keys, made });
    return made;
  }
}

const SHAPES_KEPT = 8;

/**
 * An object of `keys`, each undefined, that a body or copy is cloned from: cloned, it has all its keys at once (no
 * megamorphic transition per key); JSON.stringify leaves an undefined key out.
 */
function templateOf(keys: readonly string[]): Readonly<Record<string, undefined>> {
  const template: Record<string, undefined> = {};
  for (const key of keys) template[key] = undefined;
  return template;
}

/** A request shape's keys sorted, and the template of its sorted copy. */
const requestShapes = new Shapes((keys) => {
  const sorted = [...keys].sort();
  return { sorted, template: templateOf(sorted) };
});

function sortedCopy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    // A list of scalars (Labels) is written by JSON.stringify as it is (undefined as null, as the copy did).
    let scalars = true;
    for (let i = 0; i < value.length && scalars; i++) scalars = value[i] === null || typeof value[i] !== 'object';
    return scalars ? value : value.map((item: unknown) => (item === undefined ? null : sortedCopy(item)));
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  // Small objects (a hierarchy link) sorted as they come, without taking a shape's place from the requests.
  const shape = keys.length <= 4 ? undefined : requestShapes.of(keys);
  const sorted = shape === undefined ? keys.sort() : shape.sorted;
  const copy: Record<string, unknown> = shape === undefined ? {} : { ...shape.template };
  for (let i = 0; i < sorted.length; i++) {
    const key = sorted[i] as string;
    const item = record[key];
    if (item !== undefined) copy[key] = sortedCopy(item);
  }
  return copy;
}

/** SHA-256 of the request as sent, base64url: a Password or PIN is in the digest only, never in the memory. */
export function requestDigest(request: unknown): string {
  // crypto.hash (Node >= 20.12): one call, no Hash object per request (half the cost of createHash).
  return hash('sha256', canonicalJson(request), 'base64url');
}

export interface HeaderBody {
  t: 'sync-memory';
  v: number;
  kind: SyncKind;
  target: ReportTarget;
  /** The store instance (engine/store/store-instance.ts) an older examctl's memory is of, until a head is recorded. */
  i?: string;
}

export function headerLine(kind: SyncKind, target: ReportTarget, instance?: string): string {
  const header: HeaderBody = {
    t: 'sync-memory',
    v: SYNC_MEMORY_VERSION,
    kind,
    target,
    ...(instance !== undefined && { i: instance }),
  };
  return encodeChecksummedLine(JSON.stringify(header));
}

/** What --changed-only reads of an entry (MemoryEntries.peek). */
export type PeekedEntry = Pick<MemoryEntry, 'digest' | 'run' | 'raw' | 'disabled'>;

export function damaged(file: string, line: number, reason: string): UsageError {
  return new UsageError(
    `${file}:${line}: sync memory damaged: ${reason}; it is not used: move it aside. ${lossAdvice()}`,
    { code: 'E2507' },
  );
}

/** A value that is text, or true (`undefined`: not). */
const textOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const flag = (value: unknown): true | undefined => (value === true ? value : undefined);

/** The value itself when every one of its values is text (MemoryEntry.fields), or undefined. */
function textsByName(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return Object.values(value).every((text) => typeof text === 'string') ? (value as Record<string, string>) : undefined;
}

type EntryField = Exclude<keyof MemoryEntry, 'digest' | 'run'>;
type FieldRule = readonly [field: EntryField, key: string, read: (value: unknown) => unknown, reason: string];

/**
 * Each optional MemoryEntry field: its key, in the order entryBody writes them (`w` right after `r`, where
 * MemoryEntries.peek reads it), how its value is read (undefined: not one), why a line is damaged without.
 */
const ENTRY_FIELDS = [
  ['raw', 'w', textOf, 'its raw digest is not text'],
  ['firstName', 'f', textOf, 'its names are not text'],
  ['lastName', 'l', textOf, 'its names are not text'],
  ['email', 'm', textOf, 'its names are not text'],
  [
    'sent',
    'v',
    (value) => (typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined),
    'its sent fields are not fields by name',
  ],
  ['disabled', 'x', flag, 'its flags are not true'],
  ['links', 'h', readLinks, 'its links are not a list of hierarchy links ([id, [flag words]])'],
  ['pruned', 'k', readLinks, 'its links are not a list of hierarchy links ([id, [flag words]])'],
  ['tentative', 't', flag, 'its flags are not true'],
  ['joined', 'j', textOf, 'its first run is not text'],
  // Any other value than true is read as none, never as damage.
  ['joinedByRetry', 'y', (value) => value === true, ''],
  [
    'candidates',
    'c',
    (value) => (Array.isArray(value) && value.every((id) => typeof id === 'string') ? value : undefined),
    'its candidates are not a list of ids',
  ],
  ['population', 'p', (value) => (isPopulationName(value) ? value : undefined), 'its population is not a name'],
  ['fields', 's', textsByName, 'its fields are not texts by name'],
  ['acked', 'a', (value) => (isAttempt(value) ? value : undefined), 'its attempt is not one'],
] as const satisfies readonly FieldRule[];

/** An entry line's body: its id, `d` its digest, `r` its run, the keys of ENTRY_FIELDS; `gone` (`forgetBody`). */
export type EntryBody = { id: string; d: string; r: string; gone?: unknown } & {
  [key in (typeof ENTRY_FIELDS)[number][1]]?: unknown;
};

/** Whether an entry's field value is written (MemoryEntry's flags only when true, its lists only when not empty). */
const written = (value: unknown): boolean =>
  value !== undefined && value !== false && !(Array.isArray(value) && value.length === 0);

/** An entry line's body checked field by field: wrong types (edited by hand) give the reason naming the field. */
export function entryOfBody(body: Partial<EntryBody>): { id: string; entry: MemoryEntry } | string {
  if (
    typeof body.id !== 'string' ||
    body.id === '' ||
    typeof body.d !== 'string' ||
    typeof body.r !== 'string' ||
    body.gone !== undefined
  )
    return 'not a memory entry';
  const entry: MemoryEntry = { digest: body.d, run: body.r };
  for (const [field, key, read, reason] of ENTRY_FIELDS) {
    if (body[key] === undefined) continue;
    const value = read(body[key]);
    if (value === undefined) return reason;
    if (written(value)) (entry as Record<EntryField, unknown>)[field] = value;
  }
  return { id: body.id, entry };
}

/** A population line's body: `p` name, `r` newest run, `n` count, `e` ended, `f` files, `h` heads. */
export type PopulationBody = { t: 'population' } & Partial<Record<'p' | 'r' | 'n' | 'e' | 'f' | 'h', unknown>>;

/** An attempt's tag (SeenHead): 8 base64url characters, a batch's after it (store-standing.ts, batchTag). */
const isAttempt = (value: unknown): value is string =>
  typeof value === 'string' && /^[A-Za-z0-9_-]{8}(?:\.[1-9a-z][0-9a-z]{0,5})?$/.test(value);

const isSeenHead = (value: unknown): value is SeenHead =>
  Array.isArray(value) &&
  value.length === 4 &&
  isHead(value[0]) &&
  typeof value[1] === 'string' &&
  isAttempt(value[2]) &&
  typeof value[3] === 'boolean';

export function populationOfBody(body: Partial<PopulationBody>): { key: string; record: PopulationRecord } | string {
  if (body.p !== undefined && !isPopulationName(body.p)) return 'its population is not a name';
  if (body.e !== undefined && typeof body.e !== 'boolean') return 'its end mark is not true or false';
  if (
    typeof body.r !== 'string' ||
    body.r === '' ||
    typeof body.n !== 'number' ||
    !Number.isSafeInteger(body.n) ||
    body.n < 0
  )
    return 'not a population record';
  const files = body.f === undefined ? undefined : runFilesOf(body.f);
  if (body.f !== undefined && files === undefined) return 'its files are not run and digest pairs';
  if (body.h !== undefined && !(Array.isArray(body.h) && body.h.every(isSeenHead)))
    return 'its store heads are not heads';
  return {
    key: populationKey(body.p as string | undefined),
    record: {
      run: body.r,
      count: body.n,
      ...(body.e !== undefined && { ended: body.e as boolean }),
      ...(files && { files }),
      ...(body.h !== undefined && { heads: body.h as SeenHead[] }),
    },
  };
}

/** A population line's body (JSON text), checksummed by `populationLines` or, for an append, with its group. */
export function populationBody(key: string, record: PopulationRecord): string {
  return JSON.stringify({
    t: 'population',
    ...(key !== '' && { p: key }),
    r: record.run,
    n: record.count,
    ...(record.ended !== undefined && { e: record.ended }),
    ...(record.files && { f: record.files }),
    ...(record.heads && { h: record.heads }),
  });
}

/**
 * The one rule for a population's record, read or written: the newest run's wins wherever its line is (a feeder
 * started first may end last), and a run's later line (its end) wins over its earlier one (its start).
 */
export function newerPopulation(before: PopulationRecord | undefined, line: PopulationRecord): PopulationRecord {
  const newer = before === undefined || line.run >= before.run ? line : before;
  // The files of every line, whichever run's line wins: each line adds its own (withRunFiles).
  const files = withRunFiles(before?.files, line.files);
  return files === undefined ? newer : { ...newer, files };
}

/** The population lines of a memory rewritten whole, in name order. */
export function populationLines(populations: ReadonlyMap<string, PopulationRecord>): string[] {
  return [...populations].sort(byKey).map(([key, record]) => encodeChecksummedLine(populationBody(key, record)));
}

export function entryLine(id: string, entry: MemoryEntry): string {
  return encodeChecksummedLine(entryBody(id, entry));
}

/** The line forgetting an id: `gone` first, never indexed as an entry; an older examctl reads it as tentative. */
export function forgetBody(id: string, run: string): string {
  return JSON.stringify({ gone: true, id, d: '', r: run, t: true });
}

/** An entry line's body (JSON text), checksummed by `entryLine` or, for an append, with its group. */
export function entryBody(id: string, entry: MemoryEntry): string {
  const { fields, template } = entryShapes.of(Object.keys(entry));
  const body: Record<string, unknown> = { ...template };
  body.id = id;
  body.d = entry.digest;
  body.r = entry.run;
  for (let i = 0; i < fields.length; i++) {
    const [field, key] = fields[i] as (typeof ENTRY_FIELDS)[number];
    const value = entry[field];
    if (written(value)) body[key] = value;
  }
  return JSON.stringify(body);
}

/** An entry shape's ENTRY_FIELDS, in the line's order, and its body's template: only the fields it has. */
const entryShapes = new Shapes((keys) => {
  const fields = ENTRY_FIELDS.filter(([field]) => keys.includes(field));
  return { fields, template: templateOf(['id', 'd', 'r', ...fields.map(([, key]) => key)]) };
});
