import { createHash, hash } from 'node:crypto';
import { constants, existsSync } from 'node:fs';
import { readdir, rm, type FileHandle } from 'node:fs/promises';
import { writeFileAtomic } from '../system/atomic-file.js';
import { dirname, join } from 'node:path';
import { UsageError } from '../system/errors.js';
import { DSYNC_FLAG, appendDurably } from '../system/durable-write.js';
import { crc32 } from 'node:zlib';
import { decodeChecksummedLine, encodeChecksummedLine } from '../system/checksummed-line.js';
import type { StoreLock } from '../system/lock.js';
import { assertTrustedMemoryDir, FeedingMarker, lockForDeciding, makeTrustedMemoryDir, onlyFeeder, openMemoryFile, removeMemoryFiles, type OnWait } from './memory-access.js';
import { targetIdentity, type ReportTarget } from '../report/run-report.js';
import { RunJournalWriteError } from '../runs/run-errors.js';
import { JournalGroupEncoder } from '../runs/journal-encoder.js';
import { openRegularFile } from '../system/regular-file.js';
import { readLinks, type ManagedLink } from './memberships.js';
import { lossAdvice } from './memory-loss.js';
import { describeSystemError } from '../system/system-error-words.js';
import { HashSlots, hashBytes } from '../domain/hash-slots.js';

/**
 * Version of the sync memory's line format; a reader refuses a newer one. 2: population lines
 * (`PopulationRecord`); a file of format 1 is read as before, its populations taken from its
 * entries, and rewritten as 2 by the first run that holds its lock.
 */
export const SYNC_MEMORY_VERSION = 2;

/** A --population name: 1 to 64 letters, digits, `.`, `-`, `_`, starting with a letter or digit. */
const POPULATION_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function isPopulationName(value: unknown): value is string {
  return typeof value === 'string' && POPULATION_NAME.test(value);
}

/** The key of a population in `MemoryContents.populations`: its name, or '' for the runs without --population (never a name). */
export function populationKey(population: string | undefined): string {
  return population ?? '';
}

/**
 * A population a real run synced to the target (docs/sync.md, "Two exports, two populations"):
 * recorded in the memory itself, so whether a population has a memory is a fact, not inferred
 * from its entries. `run`: the newest run that synced it; `count`: its ids then.
 */
export interface PopulationRecord {
  run: string;
  count: number;
  /**
   * Whether the newest run stored its end here: false from its start, true once it closed the
   * memory (an adoption is true at once). A newest run whose start says false and whose journal
   * finished, with no end here, was cut short (docs/sync.md, "When the memory is lost"). Absent:
   * an examctl older than the mark wrote it, and nothing is judged.
   */
  ended?: boolean;
}

/** The entity kinds a memory is kept for: one file each per target. */
export type SyncKind = 'users' | 'schedules' | 'collections';

/** Every kind, as `synced show` lists them and `synced forget` forgets them. */
export const SYNC_KINDS: readonly SyncKind[] = ['users', 'schedules', 'collections'];

/** What the memory knows of one id: the last request this target acknowledged `ok` for it. */
export interface MemoryEntry {
  /** requestDigest of that request. */
  digest: string;
  /** The run that sent it. */
  run: string;
  /**
   * rawDigest of the input record that request was built from (a table row's fields as read and
   * shaped, with the fingerprint of the rules that turn them into the request): a row whose raw
   * digest matches is that same request without being validated again (docs/sync.md, "The raw
   * digest"). Absent (an older memory, a JSON input, a leaver): the request digest decides.
   */
  raw?: string;
  /** Users: what a disable request needs without the file. */
  firstName?: string;
  lastName?: string;
  /** Users: login disabled by --disable-missing (a leaver). */
  disabled?: boolean;
  /**
   * Users: the hierarchy links (and the flags sent true) examctl sent and did not delete since,
   * as `["H-A", ["coordinator", "reports"]]` (src/sync/memberships.ts): what --prune-memberships may remove.
   */
  links?: ManagedLink[];
  /**
   * Users: written before the first request for this id went out, never acknowledged since (a
   * joiner cut short, docs/sync.md, "A request cut short"): the user may not exist on the target.
   */
  tentative?: boolean;
  /**
   * Schedules: the CandidateExtIds of the last request the target acknowledged for the schedule,
   * so a run that leaves some out can say they stay registered (docs/sync.md, "Withdrawn candidates").
   */
  candidates?: string[];
  /**
   * Users: the `--population` of the run that last acknowledged (or sent) the user; absent: a run
   * without one. `--disable-missing` takes leavers only from its own population (docs/sync.md,
   * "Two exports, two populations").
   */
  population?: string;
  /**
   * Collections: each field of the acknowledged request (but its ExternalId) as canonical JSON,
   * so an 810 for it can name what differs (docs/sync.md, "Collections").
   */
  fields?: Record<string, string>;
}

/**
 * The request as JSON with its keys sorted at every level: the same request, the same text.
 * A sorted copy handed to the native JSON.stringify: twice as fast as building the text here.
 * The text (hence the digest, docs/sync.md) is the same as it always was: memories keep working.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedCopy(value)) ?? 'null';
}

/** The keys of the last object sorted, and their sorted order: the requests of a run mostly share one shape. */
let lastKeys: string[] = [];
let lastSorted: string[] = [];

function sortedKeys(value: object): string[] {
  const keys = Object.keys(value);
  if (keys.length === lastKeys.length) {
    let same = true;
    for (let i = 0; i < keys.length && same; i++) same = keys[i] === lastKeys[i];
    if (same) return lastSorted;
  }
  // Small objects (a hierarchy link) sorted as they come, without taking the cache from the requests.
  if (keys.length <= 4) return keys.sort();
  lastKeys = keys;
  lastSorted = [...keys].sort();
  return lastSorted;
}

function sortedCopy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    // A list of scalars (Labels) is written by JSON.stringify as it is (undefined as null, as the copy did).
    let scalars = true;
    for (let i = 0; i < value.length && scalars; i++) scalars = value[i] === null || typeof value[i] !== 'object';
    return scalars ? value : value.map((item: unknown) => (item === undefined ? null : sortedCopy(item)));
  }
  const copy: Record<string, unknown> = {};
  for (const key of sortedKeys(value)) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined) copy[key] = sortedCopy(item);
  }
  return copy;
}

/**
 * SHA-256 of the request exactly as it would be sent (after coercion), base64url. A Password
 * (or PIN) in the request is part of the digest only: the memory never holds the value.
 */
export function requestDigest(request: unknown): string {
  // crypto.hash (Node >= 20.12): one call, no Hash object per request (half the cost of createHash).
  return hash('sha256', canonicalJson(request), 'base64url');
}

/**
 * Where sync memories live: `--sync-dir`, else EXAMCTL_SYNC_DIR, else `synced` beside the runs
 * directory (the per-user state directory: docs/sync.md).
 */
export function resolveSyncDir(flag: string | undefined, env: Readonly<Record<string, string | undefined>>, runsDir: string): string {
  if (flag !== undefined && flag !== '') return flag;
  const fromEnv = env.EXAMCTL_SYNC_DIR;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  return join(dirname(runsDir), 'synced');
}

/** One directory per target (its LOCK, one memory file per kind), named by a digest of its identity. */
export function memoryDir(syncDir: string, target: ReportTarget): string {
  return join(syncDir, identityDigest(targetIdentity(target)));
}

function identityDigest(identity: string): string {
  return createHash('sha256').update(identity, 'utf8').digest('hex').slice(0, 16);
}

export function memoryFile(syncDir: string, target: ReportTarget, kind: SyncKind): string {
  return join(memoryDir(syncDir, target), `${kind}.ndjson`);
}

interface HeaderBody {
  t: 'sync-memory';
  v: number;
  kind: SyncKind;
  target: ReportTarget;
  /** A local store's instance id (src/engine/store/store-instance.ts); absent for a remote or a store without one. */
  i?: string;
}

function headerLine(kind: SyncKind, target: ReportTarget, instance: string | undefined): string {
  const header: HeaderBody = { t: 'sync-memory', v: SYNC_MEMORY_VERSION, kind, target, ...(instance === undefined ? {} : { i: instance }) };
  return encodeChecksummedLine(JSON.stringify(header));
}

interface EntryBody {
  id: string;
  d: string;
  r: string;
  /** The raw digest, written right after `r` (MemoryEntries.peek reads it there). */
  w?: string;
  f?: string;
  l?: string;
  x?: true;
  h?: unknown;
  t?: true;
  /** Schedules: the candidates of the acknowledged request. */
  c?: unknown;
  /** Users: the population. */
  p?: unknown;
  /** Collections: the request's fields (MemoryEntry.fields). */
  s?: unknown;
  /** A line that forgets the id (`forgetBody`). */
  gone?: unknown;
}

/** Offsets of an entry line's fields (MemoryEntries.layoutAt); a raw digest's -1 when it has none. */
interface LineLayout {
  digestAt: number;
  digestEnd: number;
  runAt: number;
  runEnd: number;
  rawAt: number;
  rawEnd: number;
  disabled: boolean;
}

/** What --changed-only reads of an entry (MemoryEntries.peek). */
export type PeekedEntry = Pick<MemoryEntry, 'digest' | 'run' | 'raw' | 'disabled'>;

/** What one memory file holds, read and compacted (the last line of an id wins). */
export interface MemoryContents {
  file: string;
  target: ReportTarget | undefined;
  /** The store instance the memory is of (its first line), for a local target. */
  instance?: string | undefined;
  kind: SyncKind;
  entries: MemoryEntries;
  /** Bytes of whole lines: a torn last line (a kill mid-write) is cut off before appending. */
  validLength: number;
  lines: number;
  /**
   * The populations its lines record, by `populationKey`; undefined for a file of format 1, which
   * records none (`populationsOf` takes them from its entries).
   */
  populations?: Map<string, PopulationRecord> | undefined;
}

/** A memory's populations: those it records, or for a file of format 1 those its entries have. */
export function populationsOf(contents: Pick<MemoryContents, 'populations' | 'entries'>): Map<string, PopulationRecord> {
  return contents.populations ?? contents.entries.populationsOfEntries();
}

/** The newest run a memory records, or undefined for an empty one. */
export function newestRunOf(populations: ReadonlyMap<string, PopulationRecord>): string | undefined {
  let newest: string | undefined;
  for (const { run } of populations.values()) if (newest === undefined || run > newest) newest = run;
  return newest;
}

function damaged(file: string, line: number, reason: string): UsageError {
  return new UsageError(`${file}:${line}: sync memory damaged: ${reason}; it is not used: move it aside. ${lossAdvice()}`);
}

/**
 * Reads one memory file: never silently empty. A damaged line, a newer format, a file of another
 * user or one recording another target than `expected` is exit 2 naming the file; a missing file
 * is an empty memory.
 */
export async function readMemory(file: string, kind: SyncKind, expected?: ReportTarget): Promise<MemoryContents> {
  const opened = await openMemoryFile(file, 'read', APPEND_FLAGS);
  if (opened === undefined) return emptyContents(file, kind);
  await opened.handle.close();
  return parseMemory(opened.bytes, file, kind, expected);
}

/**
 * What a memory entry's line holds (its body), checked field by field: a line whose checksum holds
 * but whose fields have the wrong types (edited by hand) is not used; the reason names the field.
 */
function entryOfBody(body: Partial<EntryBody>): { id: string; entry: MemoryEntry } | string {
  if (typeof body.id !== 'string' || body.id === '' || typeof body.d !== 'string' || typeof body.r !== 'string') return 'not a memory entry';
  const links = body.h === undefined ? [] : readLinks(body.h);
  if (links === undefined) return 'its links are not a list of hierarchy links ([id, [flag words]])';
  if (body.w !== undefined && typeof body.w !== 'string') return 'its raw digest is not text';
  if ((body.f !== undefined && typeof body.f !== 'string') || (body.l !== undefined && typeof body.l !== 'string')) return 'its names are not text';
  if ((body.x !== undefined && body.x !== true) || (body.t !== undefined && body.t !== true)) return 'its flags are not true';
  const entry: MemoryEntry = { digest: body.d, run: body.r };
  if (body.w !== undefined) entry.raw = body.w;
  if (body.f !== undefined) entry.firstName = body.f;
  if (body.l !== undefined) entry.lastName = body.l;
  if (body.x === true) entry.disabled = true;
  if (links.length > 0) entry.links = links;
  if (body.t === true) entry.tentative = true;
  if (body.c !== undefined) {
    if (!Array.isArray(body.c) || !body.c.every((candidate) => typeof candidate === 'string')) return 'its candidates are not a list of ids';
    if (body.c.length > 0) entry.candidates = body.c as string[];
  }
  if (body.p !== undefined) {
    if (!isPopulationName(body.p)) return 'its population is not a name';
    entry.population = body.p;
  }
  if (body.s !== undefined) {
    const fields = fieldsOfBody(body.s);
    if (fields === undefined) return 'its fields are not texts by name';
    entry.fields = fields;
  }
  return { id: body.id, entry };
}

/** A collection entry's fields (`s`), checked: texts by name, or undefined. */
function fieldsOfBody(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const fields: Record<string, string> = {};
  for (const [name, text] of Object.entries(value)) {
    if (typeof text !== 'string') return undefined;
    fields[name] = text;
  }
  return fields;
}

/** A population line's body (`populationLine`): `{"t":"population","p"?,"r","n"}`. */
interface PopulationBody {
  t: 'population';
  p?: unknown;
  r: unknown;
  n: unknown;
  /** Whether the run stored its end (PopulationRecord.ended); an older examctl reads past it. */
  e?: unknown;
}

function populationOfBody(body: Partial<PopulationBody>): { key: string; record: PopulationRecord } | string {
  if (body.p !== undefined && !isPopulationName(body.p)) return 'its population is not a name';
  if (typeof body.r !== 'string' || body.r === '' || typeof body.n !== 'number' || !Number.isSafeInteger(body.n) || body.n < 0) return 'not a population record';
  return { key: populationKey(body.p as string | undefined), record: { run: body.r, count: body.n, ...(typeof body.e === 'boolean' ? { ended: body.e } : {}) } };
}

function populationLine(key: string, record: PopulationRecord): string {
  return encodeChecksummedLine(populationBody(key, record));
}

/** A population line's body (JSON text), checksummed by `populationLine` or, for an append, with its group. */
function populationBody(key: string, record: PopulationRecord): string {
  return JSON.stringify({ t: 'population', ...(key === '' ? {} : { p: key }), r: record.run, n: record.count, ...(record.ended === undefined ? {} : { e: record.ended }) });
}

/** The population lines of a memory rewritten whole, in name order. */
function populationLines(populations: ReadonlyMap<string, PopulationRecord>): string[] {
  return [...populations].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, record]) => populationLine(key, record));
}

/** An entry line's body starts so (`entryLine` writes the id first): its id is read without parsing the line. */
const ENTRY_START = Buffer.from('{"crc":"00000000","b":{"id":"');
const CRC_AT = 8;
/** The shortest acknowledged entry line: the frame, a 1-byte id, a digest (43) and a run id (24); a line with its digest cleared is shorter (the index grows for many such). */
const MIN_ENTRY_LINE = ENTRY_START.length + 1 + '","d":"'.length + 43 + '","r":"'.length + 24 + '"}}\n'.length;
const BODY_AT = ENTRY_START.length - '{"id":"'.length;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 10;

/**
 * The entries of a memory by id, the last line of an id winning (docs/sync.md, "Format"). Opening
 * checks every line's checksum and indexes its id's bytes (a hash table over the file's bytes: no
 * string, object or parse per line); an entry is parsed only when the run asks for it (`get`), so
 * a run of 1,000 users against a memory of 200,000 parses 1,000 (plus, for --disable-missing,
 * every one it iterates). A compaction copies the lines not parsed as they were read.
 */
/** What byId holds for an id a `forget` outdated: never given out. */
const FORGOTTEN: MemoryEntry = Object.freeze({ digest: '', run: '' });

export class MemoryEntries {
  /** Id -> the offset of its latest line (domain/hash-slots.ts). A probe looks for the id `probeBytes[probeFrom..probeTo)`. */
  private readonly slots: HashSlots;
  private scratch = Buffer.alloc(256);
  private probeBytes: Uint8Array = this.scratch;
  private probeFrom = 0;
  private probeTo = 0;
  /** Entries parsed or set by this run: they win over their line. */
  private readonly byId = new Map<string, MemoryEntry>();
  /** Ids set by this run that no line holds. */
  private added = 0;
  /** Ids whose line a `forget` outdates (FORGOTTEN in byId): not counted, not given. */
  private gone = 0;
  /** Scratch for layoutAt (one line at a time), and the run id read last. */
  private readonly layout: LineLayout = { digestAt: 0, digestEnd: 0, runAt: 0, runEnd: 0, rawAt: -1, rawEnd: -1, disabled: false };
  private lastRun = '';

  constructor(
    private readonly bytes: Buffer = Buffer.alloc(0),
    private readonly file: string = '',
  ) {
    // Sized for the entry lines the file can hold (each over MIN_ENTRY_LINE bytes) at most half full:
    // no growth while indexing a memory examctl wrote (a shorter line, by hand, grows it).
    this.slots = new HashSlots(
      (start) => this.holds(start),
      (start) => hashBytes(this.bytes, start + ENTRY_START.length, this.bytes.indexOf(QUOTE, start + ENTRY_START.length)),
      Math.max(512, bytes.length / MIN_ENTRY_LINE),
    );
  }

  private get indexed(): number {
    return this.slots.size;
  }

  get size(): number {
    return this.indexed + this.added - this.gone;
  }

  /**
   * Indexes the entry line at `start` .. `end` (checksum not checked here) by its id's bytes;
   * false for a line it leaves to the full parse (an id with an escape, another layout).
   */
  indexLine(start: number, end: number): boolean {
    const bytes = this.bytes;
    if (end - start < ENTRY_START.length + 2) return false;
    for (let k = BODY_AT; k < ENTRY_START.length; k++) if (bytes[start + k] !== ENTRY_START[k]) return false;
    const from = start + ENTRY_START.length;
    const to = bytes.indexOf(QUOTE, from);
    if (to < 0 || to >= end) return false;
    for (let k = from; k < to; k++) if (bytes[k] === BACKSLASH) return false;
    const slot = this.find(bytes, from, to);
    const hadLine = this.slots.at(slot) >= 0;
    this.slots.set(slot, start);
    // A line after one read in full (a forget line, another layout) for the same id wins over it.
    if (this.byId.size > 0) this.outdate(bytes.toString('utf8', from, to), hadLine);
    return true;
  }

  /** The id's entry set before its newer line was indexed is dropped: the line is the id's latest. */
  private outdate(id: string, hadLine: boolean): void {
    const prior = this.byId.get(id);
    if (prior === undefined) return;
    this.byId.delete(id);
    if (prior === FORGOTTEN) this.gone -= 1;
    else if (!hadLine) this.added -= 1;
  }

  /**
   * The id is no longer remembered, as if never sent (SentMemory.refused): its line, if it has
   * one, is outdated until a later entry for it. Returns whether it was remembered.
   */
  forget(id: string): boolean {
    const entry = this.byId.get(id);
    if (entry === FORGOTTEN) return false;
    if (this.hasLine(id)) {
      this.byId.set(id, FORGOTTEN);
      this.gone += 1;
      return true;
    }
    if (entry === undefined) return false;
    this.byId.delete(id);
    this.added -= 1;
    return true;
  }

  get(id: string): MemoryEntry | undefined {
    const entry = this.byId.get(id);
    if (entry !== undefined || this.indexed === 0) return entry === FORGOTTEN ? undefined : entry;
    const start = this.slots.at(this.slotOf(id));
    return start < 0 ? undefined : this.parse(id, start);
  }

  /**
   * What --changed-only compares (digest, run, raw digest, disabled) without parsing the entry:
   * read off its line (checksum checked at open) when it has the layout `entryLine` writes, else
   * parsed.
   */
  peek(id: string): PeekedEntry | undefined {
    const entry = this.byId.get(id);
    if (entry !== undefined || this.indexed === 0) return entry === FORGOTTEN ? undefined : entry;
    const start = this.slots.at(this.slotOf(id));
    if (start < 0) return undefined;
    const at = this.layoutAt(start, id);
    if (at === undefined) return this.parse(id, start);
    const bytes = this.bytes;
    const peeked: PeekedEntry = { digest: bytes.toString('latin1', at.digestAt, at.digestEnd), run: this.runAt(at.runAt, at.runEnd) };
    if (at.rawAt >= 0) peeked.raw = bytes.toString('latin1', at.rawAt, at.rawEnd);
    if (at.disabled) peeked.disabled = true;
    return peeked;
  }

  /**
   * Whether the entry of `id` has a raw digest (docs/sync.md, "The raw digest"): `absent` (no
   * entry), `none` (none, or disabled: the request digest decides), else `raw`.
   */
  rawState(id: string): 'absent' | 'none' | 'raw' {
    // An entry whose digest was cleared (an unsettled request, an intent) is sent: its row gets a raw digest like a joiner's.
    const entry = this.byId.get(id);
    if (entry !== undefined || this.indexed === 0) return entry === undefined || entry.digest === '' ? 'absent' : entry.raw !== undefined && entry.disabled !== true ? 'raw' : 'none';
    const start = this.slots.at(this.slotOf(id));
    if (start < 0) return 'absent';
    const at = this.layoutAt(start, id);
    if (at !== undefined) return at.digestAt === at.digestEnd ? 'absent' : at.rawAt >= 0 && !at.disabled ? 'raw' : 'none';
    const parsed = this.parse(id, start);
    return parsed.digest === '' ? 'absent' : parsed.raw !== undefined && parsed.disabled !== true ? 'raw' : 'none';
  }

  /**
   * The run whose acknowledged request a row of raw digest `raw` is: the entry is not disabled
   * and its raw digest is `raw`. Compared on the line's bytes: no string made but the run's (the
   * same one for most rows of a night).
   */
  rawMatch(id: string, raw: string): string | undefined {
    const entry = this.byId.get(id);
    if (entry !== undefined || this.indexed === 0) return entry?.raw === raw && entry.disabled !== true ? entry.run : undefined;
    const start = this.slots.at(this.slotOf(id));
    if (start < 0) return undefined;
    const at = this.layoutAt(start, id);
    if (at === undefined) {
      const parsed = this.parse(id, start);
      return parsed.raw === raw && parsed.disabled !== true ? parsed.run : undefined;
    }
    if (at.rawAt < 0 || at.disabled || at.rawEnd - at.rawAt !== raw.length) return undefined;
    const bytes = this.bytes;
    for (let k = 0; k < raw.length; k++) if (bytes[at.rawAt + k] !== raw.charCodeAt(k)) return undefined;
    return this.runAt(at.runAt, at.runEnd);
  }

  /** Where the fields of the entry line at `start` are, when it has the layout `entryLine` writes (else undefined: parse it). */
  private layoutAt(start: number, id: string): LineLayout | undefined {
    const bytes = this.bytes;
    const end = bytes.indexOf(NEWLINE, start);
    const digestAt = start + ENTRY_START.length + Buffer.byteLength(id, 'utf8') + DIGEST_KEY.length;
    const digestEnd = bytes.indexOf(QUOTE, digestAt);
    const runAt = digestEnd + RUN_KEY.length;
    const runEnd = bytes.indexOf(QUOTE, runAt);
    if (!hasAt(bytes, digestAt - DIGEST_KEY.length, DIGEST_KEY) || !hasAt(bytes, digestEnd, RUN_KEY) || runEnd < 0 || runEnd >= end || hasEscape(bytes, digestAt, runEnd)) return undefined;
    const at = this.layout;
    at.digestAt = digestAt;
    at.digestEnd = digestEnd;
    at.runAt = runAt;
    at.runEnd = runEnd;
    at.rawAt = -1;
    at.rawEnd = -1;
    let rest = runEnd;
    // The raw digest, when the line has one, comes right after the run (entryLine).
    if (hasAt(bytes, runEnd, RAW_KEY)) {
      const rawAt = runEnd + RAW_KEY.length;
      const rawEnd = bytes.indexOf(QUOTE, rawAt);
      if (rawEnd < 0 || rawEnd >= end || hasEscape(bytes, rawAt, rawEnd)) return undefined;
      at.rawAt = rawAt;
      at.rawEnd = rawEnd;
      rest = rawEnd;
    }
    // A key cannot occur inside a string value (its quotes would be escaped): `,"x":true` is the flag.
    at.disabled = findIn(bytes, rest, end, DISABLED_KEY);
    return at;
  }

  /** The run id at `from..to` of the bytes: the last one read again when it is the same. */
  private runAt(from: number, to: number): string {
    const last = this.lastRun;
    if (to - from === last.length) {
      let k = 0;
      while (k < last.length && this.bytes[from + k] === last.charCodeAt(k)) k++;
      if (k === last.length) return last;
    }
    this.lastRun = this.bytes.toString('latin1', from, to);
    return this.lastRun;
  }

  set(id: string, entry: MemoryEntry): void {
    const prior = this.byId.get(id);
    if (prior === FORGOTTEN) this.gone -= 1;
    else if (prior === undefined && !this.hasLine(id)) this.added += 1;
    this.byId.set(id, entry);
  }

  *[Symbol.iterator](): IterableIterator<[string, MemoryEntry]> {
    for (const start of this.lineStarts()) {
      const id = this.idOfLine(start);
      const entry = this.byId.get(id) ?? this.parse(id, start);
      if (entry !== FORGOTTEN) yield [id, entry];
    }
    for (const [id, entry] of this.byId) if (!this.hasLine(id)) yield [id, entry];
  }

  *values(): IterableIterator<MemoryEntry> {
    for (const [, entry] of this) yield entry;
  }

  /**
   * Per population (`populationKey`), how many ids it has and the newest run among them: what a
   * population line records. Read off each line where it has entryLine's layout (the population
   * is its last field), so a memory of 200,000 ids is not parsed for it. `exceptRun`: the ids
   * whose entry another run wrote (what the memory held of each population before that run).
   */
  populationsOfEntries(exceptRun?: string): Map<string, PopulationRecord> {
    const found = new Map<string, PopulationRecord>();
    const add = (population: string | undefined, run: string): void => {
      if (run === exceptRun) return;
      const key = populationKey(population);
      const known = found.get(key);
      if (known === undefined) found.set(key, { run, count: 1 });
      else {
        known.count += 1;
        if (run > known.run) known.run = run;
      }
    };
    for (const start of this.lineStarts()) {
      const id = this.idOfLine(start);
      const set = this.byId.get(id);
      if (set !== undefined) {
        if (set !== FORGOTTEN) add(set.population, set.run);
        continue;
      }
      const at = this.layoutAt(start, id);
      const population = at === undefined ? undefined : populationAtEnd(this.bytes, start, this.bytes.indexOf(NEWLINE, start));
      if (at === undefined || population === false) {
        const parsed = this.parse(id, start);
        add(parsed.population, parsed.run);
      } else add(population, this.runAt(at.runAt, at.runEnd));
    }
    for (const [id, entry] of this.byId) if (!this.hasLine(id)) add(entry.population, entry.run);
    return found;
  }

  /** Each id's latest line, as written (a line not parsed is copied as read). */
  *lines(): IterableIterator<string> {
    for (const start of this.lineStarts()) {
      const id = this.idOfLine(start);
      const entry = this.byId.get(id);
      if (entry === FORGOTTEN) continue;
      yield entry !== undefined ? entryLine(id, entry) : this.bytes.toString('utf8', start, this.bytes.indexOf(NEWLINE, start) + 1);
    }
    for (const [id, entry] of this.byId) if (!this.hasLine(id)) yield entryLine(id, entry);
  }

  private hasLine(id: string): boolean {
    if (this.indexed === 0) return false;
    return this.slots.at(this.slotOf(id)) >= 0;
  }

  /** The slot of an id, by its UTF-8 bytes written into one scratch buffer (no Buffer made per lookup). */
  private slotOf(id: string): number {
    if (this.scratch.length < 3 * id.length) this.scratch = Buffer.alloc(3 * id.length);
    return this.find(this.scratch, 0, this.scratch.write(id, 0, 'utf8'));
  }

  /** Starts of the indexed lines, in file order. */
  private lineStarts(): number[] {
    return [...this.slots.values()].sort((a, b) => a - b);
  }

  private idOfLine(start: number): string {
    const from = start + ENTRY_START.length;
    return this.bytes.toString('utf8', from, this.bytes.indexOf(QUOTE, from));
  }

  /** The slot of the id whose bytes are `key[from..to)`: its own, or the free one it would take. */
  private find(key: Uint8Array, from: number, to: number): number {
    this.probeBytes = key;
    this.probeFrom = from;
    this.probeTo = to;
    return this.slots.slotOf(hashBytes(key, from, to));
  }

  /** Whether the line at `start` is of the id a probe looks for. */
  private holds(start: number): boolean {
    const bytes = this.bytes;
    const at = start + ENTRY_START.length;
    const length = this.probeTo - this.probeFrom;
    if (bytes[at + length] !== QUOTE) return false;
    const key = this.probeBytes;
    for (let k = 0; k < length; k++) if (bytes[at + k] !== key[this.probeFrom + k]) return false;
    return true;
  }

  private parse(id: string, start: number): MemoryEntry {
    const end = this.bytes.indexOf(NEWLINE, start);
    const decoded = decodeChecksummedLine(this.bytes.subarray(start, end));
    const read = decoded.ok ? entryOfBody(decoded.body as Partial<EntryBody>) : decoded.reason;
    if (typeof read === 'string' || read.id !== id) throw damaged(this.file, lineNumberAt(this.bytes, start), typeof read === 'string' ? read : 'not a memory entry');
    this.byId.set(id, read.entry);
    return read.entry;
  }
}

const DIGEST_KEY = Buffer.from('","d":"');
const POPULATION_KEY = Buffer.from('"p":');
const POPULATION_LAST = Buffer.from(',"p":"');

/**
 * The population of the entry line at `start..end` when entryLine wrote it (the population is
 * its last field, a name needs no escape): the name, undefined for none, or false when the line
 * has `"p":` elsewhere (written otherwise: parse it). A key cannot occur unescaped in a value.
 */
function populationAtEnd(bytes: Buffer, start: number, end: number): string | undefined | false {
  const tail = end - 3;
  if (bytes[tail] === QUOTE) {
    let open = tail - 1;
    while (open > start && bytes[open] !== QUOTE) open -= 1;
    if (hasAt(bytes, open - POPULATION_LAST.length + 1, POPULATION_LAST)) return bytes.toString('latin1', open + 1, tail);
  }
  return findIn(bytes, start, end, POPULATION_KEY) ? false : undefined;
}
const RUN_KEY = Buffer.from('","r":"');
const RAW_KEY = Buffer.from('","w":"');
const DISABLED_KEY = Buffer.from(',"x":true');

function hasAt(bytes: Buffer, at: number, word: Buffer): boolean {
  if (at < 0) return false;
  for (let k = 0; k < word.length; k++) if (bytes[at + k] !== word[k]) return false;
  return true;
}

function hasEscape(bytes: Buffer, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (bytes[k] === BACKSLASH || bytes[k]! >= 0x80) return true;
  return false;
}

function findIn(bytes: Buffer, from: number, to: number, word: Buffer): boolean {
  for (let k = from; k + word.length <= to; k++) if (bytes[k] === word[0] && hasAt(bytes, k, word)) return true;
  return false;
}

/** The 1-based number of the line starting at `offset` (for a message: counts newlines once). */
function lineNumberAt(bytes: Buffer, offset: number): number {
  let line = 1;
  for (let at = bytes.indexOf(NEWLINE); at >= 0 && at < offset; at = bytes.indexOf(NEWLINE, at + 1)) line += 1;
  return line;
}

/** A line's checksum, checked on its bytes without parsing it. */
function checksumHolds(bytes: Buffer, start: number, end: number): boolean {
  if (end - start < ENTRY_START.length || bytes[end - 1] !== 0x7d) return false;
  const expected = Number.parseInt(bytes.toString('latin1', start + CRC_AT, start + CRC_AT + 8), 16);
  return crc32(bytes.subarray(start + BODY_AT, end - 1)) === expected;
}

/** A memory's bytes read into its contents (see readMemory). */
function parseMemory(bytes: Buffer, file: string, kind: SyncKind, expected: ReportTarget | undefined): MemoryContents {
  const entries = new MemoryEntries(bytes, file);
  let target: ReportTarget | undefined;
  let instance: string | undefined;
  let populations: Map<string, PopulationRecord> | undefined;
  let start = 0;
  let line = 0;
  while (start < bytes.length) {
    const end = bytes.indexOf(NEWLINE, start);
    // A last line without its newline is a write a kill cut short: ignored, and cut off before appending.
    if (end < 0) break;
    line += 1;
    // An entry line: its checksum and its id, the rest parsed when the run asks for it.
    if (line > 1 && checksumHolds(bytes, start, end) && entries.indexLine(start, end)) {
      start = end + 1;
      continue;
    }
    const decoded = decodeChecksummedLine(bytes.subarray(start, end));
    if (!decoded.ok) throw damaged(file, line, decoded.reason);
    const body = decoded.body as Partial<HeaderBody> & Partial<EntryBody> & Partial<PopulationBody>;
    if (line === 1) {
      if (body.t !== 'sync-memory' || typeof body.v !== 'number') throw damaged(file, line, 'not a sync memory');
      if (body.v > SYNC_MEMORY_VERSION) throw new UsageError(`${file}: sync memory format ${body.v} is newer than this examctl reads (${SYNC_MEMORY_VERSION}); upgrade examctl`);
      if (body.kind !== kind) throw damaged(file, line, `holds ${String(body.kind)}, not ${kind}`);
      target = body.target;
      if (typeof body.i === 'string') instance = body.i;
      // Format 2 records its populations; format 1 none (populationsOf takes them from its entries).
      if (body.v >= 2) populations = new Map();
      if (expected !== undefined) assertSameTarget(file, target, expected);
    } else if (body.t === 'population') {
      const read = populationOfBody(body);
      if (typeof read === 'string') throw damaged(file, line, read);
      // The newest run's record wins, not the last line: a feeder that started before another
      // and ended after it writes its own (older) end last.
      const known = (populations ??= new Map()).get(read.key);
      if (known === undefined || read.record.run >= known.run) populations.set(read.key, read.record);
    } else if (body.gone === true) {
      if (typeof body.id !== 'string' || body.id === '') throw damaged(file, line, 'a forgotten id that is not one');
      entries.forget(body.id);
    } else {
      const read = entryOfBody(body);
      if (typeof read === 'string') throw damaged(file, line, read);
      entries.set(read.id, read.entry);
    }
    start = end + 1;
  }
  // An empty file (just made) is of this format: its populations are known, none.
  return { file, target, instance, kind, entries, validLength: start, lines: line, populations: line === 0 ? new Map() : populations };
}

/**
 * A memory answers for the target it names in its first line, and only that one: a memory moved
 * into another target's place (another user renaming in a shared directory, a copy by hand)
 * would make this run skip what it never sent there. Exit 2 naming both.
 */
function assertSameTarget(file: string, recorded: ReportTarget | undefined, expected: ReportTarget): void {
  const got = recorded === undefined || typeof recorded !== 'object' ? 'no target' : targetIdentity(recorded);
  if (got !== targetIdentity(expected)) {
    throw new UsageError(
      `${file}: this sync memory records the target ${got}, but this run's target is ${targetIdentity(expected)}: refused, nothing sent; ` +
        'a memory moved from another target would skip records never sent here (move it aside or run examctl synced forget for this target)',
    );
  }
}

function entryLine(id: string, entry: MemoryEntry): string {
  return encodeChecksummedLine(entryBody(id, entry));
}

/**
 * The line that forgets an id (MemoryEntries.forget). `gone` first, so it is never indexed as an
 * entry; an older examctl, which knows no `gone`, reads it as the tentative entry it replaces.
 */
function forgetBody(id: string, run: string): string {
  return JSON.stringify({ gone: true, id, d: '', r: run, t: true });
}

/** An entry line's body (JSON text), checksummed by `entryLine` or, for an append, with its group. */
function entryBody(id: string, entry: MemoryEntry): string {
  const body: EntryBody = { id, d: entry.digest, r: entry.run };
  if (entry.raw !== undefined) body.w = entry.raw;
  if (entry.firstName !== undefined) body.f = entry.firstName;
  if (entry.lastName !== undefined) body.l = entry.lastName;
  if (entry.disabled === true) body.x = true;
  if (entry.links !== undefined && entry.links.length > 0) body.h = entry.links;
  if (entry.tentative === true) body.t = true;
  if (entry.candidates !== undefined && entry.candidates.length > 0) body.c = entry.candidates;
  if (entry.population !== undefined) body.p = entry.population;
  if (entry.fields !== undefined) body.s = entry.fields;
  return JSON.stringify(body);
}

function emptyContents(file: string, kind: SyncKind): MemoryContents {
  return { file, target: undefined, kind, entries: new MemoryEntries(), validLength: 0, lines: 0, populations: new Map() };
}

/** A lock file's wait before a second run on the same target is refused. */
export interface OpenMemoryOptions {
  /**
   * Hold the target's lock for the whole run: a run that decides from the memory
   * (--changed-only, --disable-missing) must not have another run change it underneath.
   */
  lock: boolean;
  lockTimeoutMs: number;
  /** A dry run reads the memory and never writes it. */
  readOnly: boolean;
  /** Told once when this run waits for another run on the same target. */
  onWait?: OnWait;
  /** A local target: its store's instance id (undefined for a store made before stores had one). */
  instance?: string;
  /** Told when the memory is of another instance of the store (replaced since): it is not used. */
  onOtherInstance?: OnWait;
}

/**
 * Whether a memory answers for the store the run uses (docs/sync.md, "The sync memory"): it
 * records the store's instance id, and a store replaced at the same path has a new one. A
 * memory and a store that both predate instance ids (and any remote target) match as before.
 */
export function ofOtherInstance(contents: Pick<MemoryContents, 'lines' | 'instance'>, instance: string | undefined): boolean {
  return contents.lines > 0 && contents.instance !== instance;
}

/** Superseded lines a memory may carry before a run rewrites it (and half as many as it has ids). */
const COMPACT_SLACK = 10_000;

/**
 * The memory rewritten with one line per id (atomic replace, 0600), by a run that holds LOCK:
 * no run feeds the memory meanwhile (memory-access.ts), so no appended line is lost.
 */
async function compact(contents: MemoryContents, target: ReportTarget): Promise<MemoryContents> {
  let length = 0;
  const populations = populationsOf(contents);
  await writeFileAtomic(
    contents.file,
    async (writer) => {
      for (const line of compactedLines(contents, target, populations)) {
        length += Buffer.byteLength(line);
        await writer.write(line);
      }
    },
    { mode: 0o600 },
  );
  return { ...contents, validLength: length, lines: contents.entries.size + 1 + populations.size, populations };
}

/**
 * A memory as one line per id, in the format this examctl writes: the header, the population
 * lines (a memory of format 1 gets those of its entries), then each id's latest entry.
 */
export function* compactedLines(contents: MemoryContents, target: ReportTarget, populations = populationsOf(contents)): IterableIterator<string> {
  yield headerLine(contents.kind, target, contents.instance);
  yield* contents.entries.lines();
  // Last: a copy cut anywhere among the entries has no record of its populations (said, refused
  // by --require-memory), never a whole-looking record over the entries it lost.
  yield* populationLines(populations);
}

/**
 * Compacts a memory if no run feeds or decides from it now (best effort: else a later run does):
 * read again under the lock, since other runs may have appended since this one read it.
 */
async function compactIdle(file: string, kind: SyncKind, target: ReportTarget, lockTimeoutMs: number): Promise<void> {
  let lock: StoreLock;
  try {
    lock = await lockForDeciding(dirname(file), Math.min(lockTimeoutMs, 0));
  } catch {
    return;
  }
  try {
    const contents = await readMemory(file, kind, target);
    if (contents.lines > contents.entries.size * 1.5 + COMPACT_SLACK) await compact(contents, target);
  } catch {
    // Left as it is: still valid, only longer.
  } finally {
    await lock.release();
  }
}

const APPEND_FLAGS = constants.O_RDWR | constants.O_APPEND | DSYNC_FLAG;
const GROUP_DELAY_MS = 20;
const GROUP_LINES = 1024;

/**
 * One target's memory of one kind (docs/sync.md): read and compacted in memory on open, then
 * fed with every acknowledged request. Appends are checksummed lines, group-committed durably
 * like the run journal's outcomes (O_APPEND: runs that only feed it may run together, and a
 * line is one write, so lines of two feeders never mix; a run that decides runs alone).
 */
export class SyncMemory {
  /** Bodies of the entry lines to append with the next group. */
  private pending: string[] = [];
  /** Checksums and encodes each group into one reused buffer (the groups are written one after another). */
  private readonly encoder = new JournalGroupEncoder();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private failure: RunJournalWriteError | undefined;
  private handle: FileHandle | undefined;

  private constructor(
    readonly file: string,
    readonly kind: SyncKind,
    readonly target: ReportTarget,
    readonly entries: MemoryEntries,
    private readonly lock: StoreLock | undefined,
    private readonly marker: FeedingMarker | undefined,
    /** Lines in the file: those read on open, then those this run appended. */
    private lines: number,
    private readonly lockTimeoutMs: number,
    private readonly instance: string | undefined,
    /** The populations the file records; undefined for a file of format 1 (taken from its entries, never appended to it). */
    private populationRecords: Map<string, PopulationRecord> | undefined,
  ) {}

  static async open(syncDir: string, target: ReportTarget, kind: SyncKind, options: OpenMemoryOptions): Promise<SyncMemory> {
    const dir = memoryDir(syncDir, target);
    const file = memoryFile(syncDir, target, kind);
    let lock: StoreLock | undefined;
    let marker: FeedingMarker | undefined;
    if (options.readOnly) await assertTrustedMemoryDir(syncDir, dir);
    else {
      await makeTrustedMemoryDir(syncDir, dir);
      // A decider holds LOCK while no run feeds; a feeder holds a marker while no run decides (memory-access.ts).
      if (options.lock) lock = await lockForDeciding(dir, options.lockTimeoutMs, options.onWait);
      else marker = await FeedingMarker.enter(dir, options.lockTimeoutMs, options.onWait);
    }
    let handle: FileHandle | undefined;
    try {
      // Opened once: what is read and what is appended to are the same file.
      // Made (when absent) already holding its header: see createBorn.
      let opened = await openMemoryFile(file, options.readOnly ? 'read' : 'append', APPEND_FLAGS, Buffer.from(headerLine(kind, target, options.instance), 'utf8'));
      handle = opened?.handle;
      let contents: MemoryContents = opened === undefined ? emptyContents(file, kind) : parseMemory(opened.bytes, file, kind, target);
      const otherInstance = ofOtherInstance(contents, options.instance);
      if (otherInstance) {
        // Not used: as with no memory. A run that writes starts the file again (openForAppend).
        options.onOtherInstance?.(`the sync memory ${file} is of another instance of this store (replaced since, e.g. by local init --force): not used, as if there were none`);
        contents = emptyContents(file, kind);
      }
      // Compacted under the lock once most lines are superseded (a full run appends every id each
      // night), and a file of format 1 rewritten as 2 with the populations of its entries.
      if (lock !== undefined && (contents.lines > 1.5 * contents.entries.size + COMPACT_SLACK || (contents.populations === undefined && contents.lines > 0))) {
        contents = await compact(contents, target);
        // The compacted file replaced the one open: open it (in the same trusted directory) again.
        await handle?.close();
        handle = undefined;
        opened = await openMemoryFile(file, 'append', APPEND_FLAGS);
        handle = opened?.handle;
      }
      if (options.readOnly) await handle?.close();
      const memory = new SyncMemory(file, kind, target, contents.entries, lock, marker, contents.lines, options.lockTimeoutMs, options.instance, contents.populations);
      if (!options.readOnly && handle !== undefined) await memory.openForAppend(contents, handle, otherInstance, lock !== undefined ? async () => true : () => onlyFeeder(dir));
      return memory;
    } catch (error) {
      await handle?.close().catch(() => undefined);
      await lock?.release();
      await marker?.leave();
      throw error;
    }
  }

  /**
   * Ready to append (`restart`: the file is of another instance of the store, begun anew). Bytes
   * past what was read are other feeders' whole lines, appended since (left as they are), or a
   * torn last line a kill left (cut off, so the next line does not glue onto it). Only a run alone
   * on the memory (`alone`: it decides, or no other live run feeds it) cuts anything: a feeder's
   * write in progress can look torn to another.
   */
  private async openForAppend(contents: MemoryContents, handle: FileHandle, restart: boolean, alone: () => Promise<boolean>): Promise<void> {
    this.handle = handle;
    try {
      const { size } = await handle.stat();
      // Of a store replaced since (`ofOtherInstance`): started again, for this instance.
      if (restart) await handle.truncate(0);
      else if (size > contents.validLength) {
        const tail = Buffer.alloc(size - contents.validLength);
        const { bytesRead } = await handle.read(tail, 0, tail.length, contents.validLength);
        const whole = tail.lastIndexOf(0x0a, bytesRead - 1) + 1;
        if (whole < bytesRead && (await alone())) await handle.truncate(contents.validLength + whole);
      }
      // A file with no line (a file system without hard links, where it is made empty first; or a
      // kill before its first line): the header first.
      if (contents.lines === 0 && (await handle.stat()).size === 0) await appendDurably(handle, Buffer.from(headerLine(this.kind, this.target, this.instance), 'utf8'), null);
    } catch (error) {
      throw this.cannotWrite(error);
    }
  }

  get(id: string): MemoryEntry | undefined {
    return this.entries.get(id);
  }

  /** Whether the entry of `id` has a raw digest (MemoryEntries.rawState). */
  rawState(id: string): 'absent' | 'none' | 'raw' {
    return this.entries.rawState(id);
  }

  /** The run a row of this raw digest is unchanged since, if it is (MemoryEntries.rawMatch). */
  rawMatch(id: string, raw: string): string | undefined {
    return this.entries.rawMatch(id, raw);
  }

  /** What --changed-only compares, without parsing the whole entry (MemoryEntries.peek). */
  peek(id: string): PeekedEntry | undefined {
    return this.entries.peek(id);
  }

  /**
   * The populations real runs synced to this target (docs/sync.md, "When the memory is lost"), by
   * `populationKey`: recorded in the file, or for a file of format 1 taken from its entries.
   */
  populations(): Map<string, PopulationRecord> {
    return this.populationRecords ?? (this.inferred ??= this.entries.populationsOfEntries());
  }

  /** A file of format 1: the populations of its entries, once asked. */
  private inferred: Map<string, PopulationRecord> | undefined;

  /**
   * Records that run `run` synced the population `key` (a real run, at its start and, `ended`, at
   * its end; an adopted file, ended): its newest run and its ids now. Not written to a file of format 1, whose
   * writer would not read it: the next run that holds its lock rewrites it as format 2 first.
   */
  recordPopulation(key: string, run: string, ended = false): void {
    const known = this.populationRecords;
    const count = this.entries.populationsOfEntries().get(key)?.count ?? 0;
    const before = known?.get(key);
    const newest = before !== undefined && before.run > run ? before.run : run;
    // A run's start and end are marked on its own record only (a later run's record stays as it is).
    const isEnded = newest === run ? ended : before?.ended;
    const record: PopulationRecord = { run: newest, count, ...(isEnded === undefined ? {} : { ended: isEnded }) };
    if (before?.run === record.run && before.count === count && before.ended === isEnded) return;
    if (known === undefined) {
      if (this.lines > 0) return;
      this.populationRecords = new Map();
    }
    this.populationRecords!.set(key, record);
    this.append(populationBody(key, record));
  }

  /** Non-disabled ids the memory holds: the population --max-disable's percentage is of. */
  get remembered(): number {
    let count = 0;
    for (const entry of this.entries.values()) if (entry.disabled !== true) count += 1;
    return count;
  }

  /** Remembers an acknowledged request; on disk within the group commit's delay. */
  record(id: string, entry: MemoryEntry): void {
    this.entries.set(id, entry);
    this.append(entryBody(id, entry));
  }

  /** Forgets an id as if never sent (SentMemory.refused); on disk within the group commit's delay. */
  forget(id: string, run: string): void {
    if (this.entries.forget(id)) this.append(forgetBody(id, run));
  }

  /** Appends a line's body (JSON text): checksummed and encoded with its group. */
  private append(body: string): void {
    if (this.handle === undefined || this.failure !== undefined) return;
    this.pending.push(body);
    this.lines += 1;
    if (this.pending.length >= GROUP_LINES) this.kick();
    else if (this.timer === undefined) {
      this.timer = setTimeout(() => this.kick(), GROUP_DELAY_MS);
      this.timer.unref();
    }
  }

  private kick(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const bodies = this.pending;
    this.pending = [];
    if (bodies.length === 0) return;
    const handle = this.handle!;
    this.flushing = this.flushing.then(async () => {
      if (this.failure !== undefined) return;
      try {
        await appendDurably(handle, this.encoder.encode(bodies), null);
      } catch (error) {
        this.failure = this.cannotWrite(error);
      }
    });
  }

  /**
   * What was recorded so far on disk now, not after the group commit's delay: a run waits for
   * this before a request whose intent it recorded goes out (SentMemory.intend). Throws when a
   * write failed (exit 3), so nothing is sent that the memory could not put on record first.
   */
  async durable(): Promise<void> {
    if (this.handle === undefined) return;
    this.kick();
    await this.flushing;
    if (this.failure !== undefined) throw this.failure;
  }

  /** Everything remembered on disk, the file closed and the lock released; throws when a write failed (exit 3). */
  async close(): Promise<void> {
    try {
      if (this.handle !== undefined) {
        this.kick();
        await this.flushing;
        await this.handle.close().catch(() => undefined);
        this.handle = undefined;
      }
    } finally {
      if (this.lock !== undefined && this.failure === undefined && this.lines > this.entries.size * 1.5 + COMPACT_SLACK) {
        // A deciding run holds the lock: nobody appended meanwhile, so its map is the file's.
        await compact(
          { file: this.file, target: this.target, instance: this.instance, kind: this.kind, entries: this.entries, validLength: 0, lines: this.lines, populations: this.populationRecords },
          this.target,
        ).catch(() => undefined);
      }
      await this.lock?.release();
      await this.marker?.leave();
    }
    if (this.failure !== undefined) throw this.failure;
    // A run that only fed the memory (a full run appends every id) compacts it once it grew by half,
    // so full nights keep it at one line per id: when no other run feeds or decides (never waits).
    if (this.marker !== undefined && this.lines > this.entries.size * 1.5 + COMPACT_SLACK) await compactIdle(this.file, this.kind, this.target, this.lockTimeoutMs);
  }

  private cannotWrite(error: unknown): RunJournalWriteError {
    return new RunJournalWriteError(`cannot write the sync memory ${this.file}: ${describeSystemError(error, 'file')} (the next --changed-only run sends again what it could not remember)`);
  }
}

/**
 * Remote targets with a memory of `kind` under the sync directory that could be `target` under
 * another name: the same scheme, port and path, another host (`localhost` for `127.0.0.1`, a
 * short name for a full one). Only each file's first line is read; anything unreadable is
 * passed over: this is a hint for a run that found no memory, never a decision.
 */
export async function sameServerElsewhere(syncDir: string, target: ReportTarget, kind: SyncKind): Promise<ReportTarget[]> {
  if (target.kind !== 'remote') return [];
  const key = (url: URL): string => `${url.protocol}//:${url.port}${url.pathname.replace(/\/+$/, '')}`;
  let wanted: URL;
  let dirs: string[];
  try {
    wanted = new URL(target.baseUrl);
    dirs = await readdir(syncDir);
  } catch {
    return [];
  }
  const found: ReportTarget[] = [];
  for (const dir of dirs.sort()) {
    if (!/^[0-9a-f]{16}$/.test(dir)) continue;
    const other = await firstLineTarget(join(syncDir, dir, `${kind}.ndjson`), kind);
    if (other?.kind !== 'remote' || targetIdentity(other) === targetIdentity(target)) continue;
    try {
      const url = new URL(other.baseUrl);
      if (key(url) === key(wanted) && url.hostname !== wanted.hostname) found.push(other);
    } catch {
      // Not a URL: not this server.
    }
  }
  return found;
}

/** The target a memory file's header names, from its first line alone; undefined when it cannot be read as one. */
async function firstLineTarget(file: string, kind: SyncKind): Promise<ReportTarget | undefined> {
  let handle: FileHandle | undefined;
  try {
    handle = await openRegularFile(file);
    const buffer = Buffer.alloc(8192);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const end = buffer.subarray(0, bytesRead).indexOf(NEWLINE);
    if (end < 0) return undefined;
    const decoded = decodeChecksummedLine(buffer.subarray(0, end));
    const body = decoded.ok ? (decoded.body as Partial<HeaderBody>) : undefined;
    return body?.t === 'sync-memory' && body.kind === kind && typeof body.target === 'object' && body.target !== null ? body.target : undefined;
  } catch {
    return undefined;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** Every memory under the sync directory, for `synced show`. */
export async function listMemories(syncDir: string): Promise<MemoryContents[]> {
  await assertTrustedMemoryDir(syncDir, syncDir);
  let dirs: string[];
  try {
    dirs = await readdir(syncDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new UsageError(`cannot read the sync directory ${syncDir}: ${describeSystemError(error, 'directory')}`);
  }
  const found: MemoryContents[] = [];
  for (const dir of dirs.sort()) {
    if (!/^[0-9a-f]{16}$/.test(dir)) continue;
    await assertTrustedMemoryDir(syncDir, join(syncDir, dir));
    for (const kind of SYNC_KINDS) {
      const contents = await readMemory(join(syncDir, dir, `${kind}.ndjson`), kind);
      if (contents.lines > 0) found.push(contents);
    }
  }
  return found;
}

/**
 * Forgets a target's memories (every kind), under its lock; returns how many ids were forgotten.
 * Never follows a link: the directories pass the trust rule (the memory directory a real one of
 * the user's), and files are unlinked, which removes a link itself.
 */
export async function forgetMemory(syncDir: string, target: ReportTarget, lockTimeoutMs: number): Promise<number> {
  const dir = memoryDir(syncDir, target);
  await assertTrustedMemoryDir(syncDir, dir);
  const files = SYNC_KINDS.map((kind) => memoryFile(syncDir, target, kind));
  let forgotten = 0;
  for (const [index, kind] of SYNC_KINDS.entries()) {
    forgotten += (await readMemory(files[index]!, kind).catch(() => ({ entries: new MemoryEntries() }))).entries.size;
  }
  if (!(await readdir(dir).then(() => true, () => false))) return forgotten;
  // Like a deciding run: never while another run feeds or decides from it.
  const lock = await lockForDeciding(dir, lockTimeoutMs);
  try {
    await removeMemoryFiles(files);
  } finally {
    await lock.release();
  }
  await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  return forgotten;
}

/**
 * A memory's text read from elsewhere than its file (a portable copy, a state service), named
 * `source` in messages: checked as a file is (each line's checksum, its header and target).
 */
export function memoryOfText(bytes: Buffer, source: string, kind: SyncKind, expected?: ReportTarget): MemoryContents {
  return parseMemory(bytes, source, kind, expected);
}

/** Every entry of a memory parsed and checked (a copy about to replace one): a line not an entry is exit 2 naming it. */
export function checkEveryEntry(contents: Pick<MemoryContents, 'entries'>): void {
  for (const _entry of contents.entries.values());
}
