/** A target's memory files (docs/sync.md, "Where", "Format"): where, read and checked, compacted, listed, forgotten. */
import { existsSync } from 'node:fs';
import { readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../system/atomic-file.js';
import { UsageError } from '../system/errors.js';
import { checksumHolds, CRC_AT, decodeChecksummedLine, LINE_PREFIX } from '../system/checksummed-line.js';
import { underLock } from '../system/lock.js';
import { describeSystemError } from '../system/system-error-words.js';
import { targetIdentity, type ReportTarget } from '../report/run-report.js';
import {
  assertTrustedMemoryDir,
  lockForDeciding,
  makeTrustedMemoryDir,
  openMemoryFile,
  readMemoryHead,
} from './memory-access.js';
import { memoryDir, sameStoreAs, storeHead, storeInstance } from '../context/target.js';
import { headsToAsk, memoryStanding, type SeenHead } from './store-standing.js';
import type { ResolvedTarget } from '../context/resolved-target.js';
import { MemoryEntries, NEWLINE } from './memory-entries.js';
import { byKey } from '../domain/key-order.js';
import {
  damaged,
  entryOfBody,
  headerLine,
  newerPopulation,
  populationLines,
  populationOfBody,
  SYNC_KINDS,
  SYNC_MEMORY_VERSION,
  type EntryBody,
  type HeaderBody,
  type PopulationBody,
  type PopulationRecord,
  type SyncKind,
} from './memory-lines.js';

export function memoryFile(syncDir: string, target: ReportTarget, kind: SyncKind): string {
  return join(memoryDir(syncDir, target), `${kind}.ndjson`);
}

/** What one memory file holds, read and compacted (the last line of an id wins). */
export interface MemoryContents {
  file: string;
  target: ReportTarget | undefined;
  kind: SyncKind;
  entries: MemoryEntries;
  /** Bytes of whole lines: a torn last line (a kill mid-write) is cut off before appending. */
  validLength: number;
  lines: number;
  /** The populations its lines record, by `populationKey`; undefined for format 1 (`populationsOf`). */
  populations?: Map<string, PopulationRecord> | undefined;
  /** Its header's format (SYNC_MEMORY_VERSION); absent: no header yet. */
  format?: number;
  /** The store instance an older examctl's header names (HeaderBody.i). */
  instance?: string;
}

/** A memory's populations: those it records, or for a file of format 1 those its entries have. */
export function populationsOf(contents: Pick<MemoryContents, 'populations' | 'entries'>) {
  return contents.populations ?? contents.entries.populationsOfEntries();
}

/** Whether a memory records an id or a run (a refused deciding run leaves a file with its header only). */
export function recordsAnything(contents: Pick<MemoryContents, 'populations' | 'entries'>): boolean {
  return contents.entries.size > 0 || populationsOf(contents).size > 0;
}

/** The heads of the population whose newest run is the latest of those that recorded any (none: no head recorded). */
export function newestHeads(populations: ReadonlyMap<string, PopulationRecord>): readonly SeenHead[] {
  const headed = [...populations.values()].filter((record) => (record.heads?.length ?? 0) > 0);
  return headed.sort((a, b) => byKey([a.run], [b.run])).at(-1)?.heads ?? [];
}

/** Where the store stands against a memory (memoryStanding), for every command; `ask`: as storeHead's. */
export async function standingOf(
  target: ResolvedTarget,
  seen: readonly SeenHead[],
  recorded: string | undefined,
  ask: boolean,
) {
  const store = await storeHead(target, headsToAsk(seen), ask);
  const instance =
    seen.length === 0 && store !== undefined && recorded !== undefined ? await storeInstance(target.report) : undefined;
  return { store, found: memoryStanding(seen, recorded, store, instance) };
}

/**
 * Whether the local store at `target` holds what `memories` record (memoryStanding): true where it holds one of
 * their newest heads, false where another store, undefined where nothing tells.
 */
export async function heldBy(memories: Iterable<MemoryContents>, target: ReportTarget | undefined) {
  if (target?.kind !== 'local') return undefined;
  const local = { kind: 'local' as const, store: target.store, report: target };
  let held: boolean | undefined;
  for (const contents of memories) {
    const seen = newestHeads(populationsOf(contents));
    if (seen.length === 0 && contents.instance === undefined) continue;
    const judged = await standingOf(local, seen, contents.instance, false).catch(() => undefined);
    if (judged?.store === undefined) return undefined;
    const { found } = judged;
    if (found.is === 'unknown') continue;
    held = found.is !== 'other';
    if (held) return true;
  }
  return held;
}

/** A memory's populations by name (null: the runs without --population), each with its newest run and count. */
export function populationList(populations: ReadonlyMap<string, PopulationRecord>) {
  return [...populations]
    .sort(byKey)
    .map(([key, record]) => ({ population: key === '' ? null : key, newestRun: record.run, count: record.count }));
}

/** One memory as `synced show` gives it; disabled: acknowledged, never tentative (docs/sync.md, "Retention"). */
export function describeMemory({ file, target, kind, entries, ...contents }: MemoryContents) {
  let disabled = 0;
  let unsettled = 0;
  let unnamed = 0;
  let lastRun: string | null = null;
  const byPopulation = new Map<string, number>();
  for (const entry of entries.values()) {
    if (entry.population !== undefined)
      byPopulation.set(entry.population, (byPopulation.get(entry.population) ?? 0) + 1);
    else unnamed += 1;
    // An intent (a cleared digest, never acknowledged) is no disable.
    if (entry.disabled === true && entry.tentative !== true && entry.digest !== '') disabled += 1;
    // A cleared digest: a request went out with no ok recorded (docs/sync.md, "A request cut short").
    if (entry.digest === '') unsettled += 1;
    if (lastRun === null || entry.run > lastRun) lastRun = entry.run;
  }
  // Once any has a population, the users without one are counted too.
  if (byPopulation.size > 0 && unnamed > 0) byPopulation.set('', unnamed);
  const populations = byPopulation.size === 0 ? {} : { populations: Object.fromEntries([...byPopulation].sort(byKey)) };
  const populationsSynced = populationList(populationsOf({ ...contents, entries }));
  for (const { newestRun } of populationsSynced) if (lastRun === null || newestRun > lastRun) lastRun = newestRun;
  return {
    target: target ?? null,
    kind,
    remembered: entries.size,
    ...populations,
    populationsSynced,
    disabled,
    unsettled,
    lastRun,
    file,
  };
}

/** Reads one memory file: damage, a newer format, another user's or target's file is exit 2; none is empty. */
export async function readMemory(file: string, kind: SyncKind, expected?: ReportTarget, limit?: number) {
  // `limit`: its header line only (what a scan of other memories reads first), no entry parsed.
  if (limit !== undefined) return memoryOfText(readMemoryHead(file, limit) ?? Buffer.alloc(0), file, kind, expected);
  const opened = await openMemoryFile(file, 'read');
  await opened?.handle.close();
  return memoryOfText(opened?.bytes ?? Buffer.alloc(0), file, kind, expected);
}

/** A memory's bytes into its contents (readMemory), also from a portable copy or a state service. */
export function memoryOfText(bytes: Buffer, file: string, kind: SyncKind, expected?: ReportTarget): MemoryContents {
  const entries = new MemoryEntries(bytes, file);
  let target: ReportTarget | undefined;
  let format: number | undefined;
  let instance: string | undefined;
  let populations: Map<string, PopulationRecord> | undefined;
  let start = 0;
  let line = 0;
  while (start < bytes.length) {
    const end = bytes.indexOf(NEWLINE, start);
    // A last line without its newline is a write a kill cut short: ignored, and cut off before appending.
    if (end < 0) {
      if (cutShort(bytes.subarray(start), line === 0)) break;
      throw damaged(file, line + 1, 'no line end, and not a line cut short');
    }
    line += 1;
    // An entry line: its checksum and its id, the rest parsed when the run asks for it.
    if (line > 1 && checksumHolds(bytes, start, end) && entries.indexLine(start, end)) {
      start = end + 1;
      continue;
    }
    const decoded = decodeChecksummedLine(bytes.subarray(start, end));
    if (!decoded.ok) throw damaged(file, line, decoded.reason);
    if (typeof decoded.body !== 'object' || decoded.body === null) throw damaged(file, line, 'not a sync memory line');
    const body = decoded.body as Partial<HeaderBody> & Partial<EntryBody> & Partial<PopulationBody>;
    if (line === 1) {
      if (body.t !== 'sync-memory' || typeof body.v !== 'number') throw damaged(file, line, 'not a sync memory');
      if (body.v > SYNC_MEMORY_VERSION)
        throw new UsageError(
          `${file}: sync memory format ${body.v} is newer than this examctl reads (${SYNC_MEMORY_VERSION}); upgrade examctl`,
          { code: 'E2505' },
        );
      if (body.kind !== kind) throw damaged(file, line, `holds ${String(body.kind)}, not ${kind}`);
      if (!isTarget(body)) throw damaged(file, line, 'its target is not a store or a server');
      target = body.target;
      format = body.v;
      if (typeof body.i === 'string') instance = body.i;
      // Format 2 records its populations; format 1 none (populationsOf takes them from its entries).
      if (body.v >= 2) populations = new Map();
      if (expected !== undefined) assertSameTarget(file, body.target, expected);
    } else if (body.t === 'population') {
      const read = populationOfBody(body);
      if (typeof read === 'string') throw damaged(file, line, read);
      populations ??= new Map();
      populations.set(read.key, newerPopulation(populations.get(read.key), read.record));
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
  return {
    file,
    target,
    kind,
    entries,
    validLength: start,
    lines: line,
    populations: line === 0 ? new Map() : populations,
    ...(format !== undefined && { format }),
    ...(instance !== undefined && { instance }),
  };
}

/** A memory answers only for the target its header names: one moved here would skip what was never sent here. */
function assertSameTarget(file: string, recorded: ReportTarget, expected: ReportTarget): void {
  const got = targetIdentity(recorded);
  if (got !== targetIdentity(expected)) {
    throw new UsageError(
      `${file}: this sync memory records the target ${got}, but this run's target is ${targetIdentity(expected)}: refused, nothing sent; ` +
        'a memory moved from another target would skip records never sent here (move it aside or run examctl synced forget for this target)',
      { code: 'E2504' },
    );
  }
}

/** How a header begins (headerLine); none is longer than 64 KiB. */
const HEADER_START = Buffer.from(`${LINE_PREFIX}{"t":"sync-memory",`);

/** Whether the bytes past the last newline are a line a kill cut short (no other line's start in them). */
function cutShort(tail: Buffer, first: boolean): boolean {
  const header = Buffer.from(HEADER_START);
  header.set(tail.subarray(CRC_AT, CRC_AT + 8), CRC_AT);
  const start = header.subarray(0, tail.length);
  if (first && (tail.length > 65_536 || !start.equals(tail.subarray(0, start.length)))) return false;
  return !/\{"crc":"[0-9a-f]{8}","b":/.test(tail.toString('latin1', 1));
}

/** A header's target as read: a store's path or a server's address. */
function isTarget(header: Partial<HeaderBody>): header is Partial<HeaderBody> & { target: ReportTarget } {
  const { kind, store, baseUrl } = (header.target ?? {}) as Record<string, unknown>;
  if (kind === 'local') return typeof store === 'string';
  return kind === 'remote' && typeof baseUrl === 'string';
}

/** Superseded lines a memory may carry before a run rewrites it (and half as many as it has ids). */
const COMPACT_SLACK = 10_000;

/** Whether a memory is due a rewrite: mostly superseded lines (a full run appends every id each night). */
export function overgrown(lines: number, ids: number): boolean {
  return lines > ids * 1.5 + COMPACT_SLACK;
}

/** How often this process rewrote each memory file: a state service's copy knows its offsets no longer hold. */
const rewrites = new Map<string, number>();
export const rewritesOf = (file: string): number => rewrites.get(file) ?? 0;

/** The memory rewritten one line per id (atomic, 0600) under LOCK: no appended line is lost. */
export async function compact(contents: MemoryContents, target: ReportTarget): Promise<MemoryContents> {
  let length = 0;
  const populations = populationsOf(contents);
  // Counted before (a copy read meanwhile is stored whole) and after the file is replaced.
  rewrites.set(contents.file, rewritesOf(contents.file) + 1);
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
  rewrites.set(contents.file, rewritesOf(contents.file) + 1);
  const lines = contents.entries.size + 1 + populations.size;
  // Rewritten in this format: the run that rewrote it writes as this format from then on (SyncMemory.current).
  return { ...contents, validLength: length, lines, populations, format: SYNC_MEMORY_VERSION };
}

/** A memory as one line per id in this examctl's format: header, population lines, latest entries. */
export function* compactedLines(contents: MemoryContents, target: ReportTarget, populations = populationsOf(contents)) {
  // The instance an older examctl recorded tells another store's memory until a head does (sent-memory.ts, judgeStore).
  yield headerLine(contents.kind, target, newestHeads(populations).length === 0 ? contents.instance : undefined);
  yield* contents.entries.lines();
  // Last: a copy cut among the entries has no population record, never a whole-looking one over lost entries.
  yield* populationLines(populations);
}

/** Compacts a memory if no run holds it now (else a later run does), read again under the lock. */
export async function compactIdle(file: string, kind: SyncKind, target: ReportTarget): Promise<void> {
  const lock = await lockForDeciding(dirname(file), 0).catch(() => undefined);
  if (lock === undefined) return;
  try {
    const contents = await readMemory(file, kind, target);
    if (overgrown(contents.lines, contents.entries.size)) await compact(contents, target);
  } catch {
    // Left as it is: still valid, only longer.
  } finally {
    await lock.release();
  }
}

/** Memories of `kind` maybe `target`'s under another name: a host (a hint), or the store's path or heads. */
export async function sameTargetElsewhere(syncDir: string, target: ReportTarget, kind: SyncKind) {
  const found: (MemoryContents & { moved?: boolean })[] = [];
  const server = serverOf(target);
  for (const dir of (await readdir(syncDir).catch(() => [])).sort()) {
    if (!/^[0-9a-f]{16}$/.test(dir)) continue;
    const file = join(syncDir, dir, `${kind}.ndjson`);
    // Its header first: only a memory of this store's path, or of a path holding no store now, is read whole.
    const head = await readMemory(file, kind, undefined, 65_536).catch(() => undefined);
    if (head?.target === undefined || targetIdentity(head.target) === targetIdentity(target)) continue;
    if (server) {
      if (serverOf(head.target) === server) found.push(head);
    } else if (head.target.kind === 'local' && target.kind === 'local') {
      // A start-up reads no other store's entries (25 of them cost a dry run 0.7 s); one moved here holds its heads.
      // One `local init` set aside (not in its path's directory) names a path a store was made at since: read too.
      const aside = join(syncDir, dir) !== memoryDir(syncDir, head.target);
      const of = (await sameStoreAs(head.target, target)) ?? (aside ? 'gone' : undefined);
      const other = of ? await readMemory(file, kind).catch(() => undefined) : undefined;
      const moved = of === 'gone' && other !== undefined && (await heldBy([other], target)) === true;
      if (other?.target && other.entries.size > 0 && (of === 'path' || moved)) found.push({ ...other, moved });
    }
  }
  return found;
}

/** A remote target's scheme, port and path: two hosts of a server share them. */
function serverOf(target: ReportTarget) {
  if (target.kind !== 'remote' || !URL.canParse(target.baseUrl)) return undefined;
  const url = new URL(target.baseUrl);
  return `${url.protocol}//:${url.port}${url.pathname.replace(/\/+$/, '')}`;
}

/** Takes in `other` as `target`'s if the store has none of its kind (`dryRun`: whether it would). */
export async function adoptSpelling(
  syncDir: string,
  target: ReportTarget,
  other: MemoryContents,
  timeoutMs: number,
  dryRun: boolean,
) {
  const file = memoryFile(syncDir, target, other.kind);
  if (dryRun) return (await readMemory(file, other.kind)).lines <= 1;
  await makeTrustedMemoryDir(syncDir, dirname(file));
  return underLock(dirname(file), undefined, timeoutMs, async () => {
    if ((await readMemory(file, other.kind)).lines > 1) return false;
    await compact(other, target);
    await rename(other.file, file);
    return true;
  });
}

/** Every memory under the sync directory, for `synced show`. */
export async function listMemories(syncDir: string): Promise<MemoryContents[]> {
  await assertTrustedMemoryDir(syncDir, syncDir);
  const dirs = await readdir(syncDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw new UsageError(`cannot read the sync directory ${syncDir}: ${describeSystemError(error, 'directory')}`);
  });
  const found: MemoryContents[] = [];
  for (const dir of dirs.sort()) {
    if (!/^[0-9a-f]{16}$/.test(dir)) continue;
    await assertTrustedMemoryDir(syncDir, join(syncDir, dir));
    for (const kind of SYNC_KINDS) {
      const contents = await readMemory(join(syncDir, dir, `${kind}.ndjson`), kind);
      if (recordsAnything(contents)) found.push(contents);
    }
  }
  return found;
}

/** Forgets a target's memories under its lock; returns how many ids. Never follows a link (unlink removes it). */
export async function forgetMemory(syncDir: string, target: ReportTarget, lockTimeoutMs: number): Promise<number> {
  const dir = memoryDir(syncDir, target);
  await assertTrustedMemoryDir(syncDir, dir);
  const files = SYNC_KINDS.map((kind) => join(dir, `${kind}.ndjson`));
  let forgotten = 0;
  for (const [index, kind] of SYNC_KINDS.entries()) {
    forgotten += (await readMemory(files[index]!, kind).catch(() => ({ entries: new MemoryEntries() }))).entries.size;
  }
  if (!existsSync(dir)) return forgotten;
  const lock = await lockForDeciding(dir, lockTimeoutMs);
  try {
    // Never following a link (rm removes a link itself); one already gone is no error.
    for (const file of files) await rm(file, { force: true });
  } finally {
    await lock.release();
  }
  await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  return forgotten;
}
