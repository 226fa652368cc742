import { mkdir, open, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import { InternalError, StoreDamagedError, TargetError, UsageError } from '../../errors.js';
import { COLLECTION_NAMES } from '../store.js';
import type { Change, CollectionName, Store, StoreIndexer, StoreObserver, StoreOpenOptions, StoreState } from '../store.js';
import { ATOMIC_TEMP_PREFIX, fsyncDirectory, writeFileAtomic } from './atomic-write.js';
import { EntityMap } from './entity-map.js';
import { decodeJournalLine, encodeJournalLine, isCollectionName, serializeChanges } from './journal.js';
import { forEachLine } from './line-reader.js';
import { LOCK_TEMP_PREFIX, StoreLock, pidAlive } from './lock.js';
import { STORE_FORMAT, newerFormatError, readSnapshot, writeSnapshot } from './snapshot.js';
import type { SnapshotEntry } from './snapshot.js';

export const CURRENT_FILE = 'CURRENT';
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
/**
 * Compact once the journal outgrows both this and a quarter of the snapshot. The journal is
 * parsed whole at every load (about 12 ms per MB), the snapshot is not (about 2 ms per MB), so a
 * long journal is what a command's start-up would pay for; a quarter keeps that below the
 * snapshot's own load cost, while a compaction (rewriting the snapshot) still comes only after
 * writes of at least a quarter of its size.
 */
export const DEFAULT_COMPACT_AT_BYTES = 4 * 1024 * 1024;

export const snapshotFileName = (generation: number): string => `snapshot-${generation}.ndjson`;
export const journalFileName = (generation: number): string => `journal-${generation}.ndjson`;
const GENERATION_FILE = /^(?:snapshot|journal)-(\d+)\.ndjson$/;

export interface FileStoreOptions extends StoreOpenOptions {
  /** Journal size (bytes) that triggers compaction; default max(4 MiB, a quarter of the snapshot's size). */
  compactAtBytes?: number;
}

/** `createStore` without force found a store (or lost the race to another process creating one). */
export class StoreExistsError extends UsageError {}

type Maps = Map<CollectionName, EntityMap>;

interface Pending {
  decide: (state: StoreState) => { result: unknown; changes: Change[] };
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

function emptyMaps(): Maps {
  return new Map(COLLECTION_NAMES.map((name) => [name, new EntityMap()]));
}

function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

export function resolveLockTimeout(explicit: number | undefined): number {
  if (explicit !== undefined) return explicit;
  const fromEnv = process.env.EXAMCTL_LOCK_TIMEOUT_MS;
  if (fromEnv === undefined || fromEnv === '') return DEFAULT_LOCK_TIMEOUT_MS;
  const parsed = Number(fromEnv);
  if (!Number.isInteger(parsed) || parsed < 0) {
    throw new UsageError(`EXAMCTL_LOCK_TIMEOUT_MS must be a whole number of milliseconds, got ${JSON.stringify(fromEnv)}`);
  }
  return parsed;
}

interface Manifest {
  format: number;
  generation: number;
}

async function readManifest(dir: string): Promise<Manifest> {
  const path = join(dir, CURRENT_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') throw new StoreDamagedError(`${dir}: not an examctl store (no ${CURRENT_FILE} file)`);
    throw new StoreDamagedError(`${path}: cannot read (${errnoCode(error) ?? String(error)})`, { cause: error });
  }
  let parsed: Partial<Manifest> & { examctl?: unknown };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    throw new StoreDamagedError(`${path}:1: invalid JSON`);
  }
  if (parsed?.examctl !== 'store' || typeof parsed.format !== 'number') {
    throw new StoreDamagedError(`${path}:1: not an examctl store manifest`);
  }
  if (parsed.format > STORE_FORMAT) throw newerFormatError(path, parsed.format);
  if (typeof parsed.generation !== 'number' || !Number.isSafeInteger(parsed.generation) || parsed.generation < 1) {
    throw new StoreDamagedError(`${path}:1: invalid generation`);
  }
  return { format: parsed.format, generation: parsed.generation };
}

async function writeManifest(dir: string, generation: number): Promise<void> {
  await writeFileAtomic(join(dir, CURRENT_FILE), async (writer) => {
    await writer.write(`${JSON.stringify({ examctl: 'store', format: STORE_FORMAT, generation })}\n`);
  });
}

function hintsJson(hints: readonly string[] | undefined): string | undefined {
  return hints === undefined ? undefined : JSON.stringify(hints);
}

/**
 * The snapshot entries of `maps`. An entity never read is copied as its text, with its persisted
 * hints when they came from this indexer version; otherwise it is parsed once to derive them.
 * Without an indexer no hints are written (the header then names none).
 */
function* entitiesOf(maps: Maps, indexer: StoreIndexer | undefined, hintsVersion: string | null): Iterable<SnapshotEntry> {
  const trusted = indexer !== undefined && indexer.version === hintsVersion;
  for (const [collection, map] of maps) {
    const table = map.table;
    if (table !== undefined && trusted) {
      // Unchanged entities with hints of this version: their lines are exactly what entityLine
      // would write, so runs of adjacent ones are copied as one block of bytes.
      const changed = map.changedOrdinals();
      let runStart = 0;
      for (let ordinal = 0; ordinal < table.count; ordinal += 1) {
        if (changed.has(ordinal)) {
          if (ordinal > runStart) yield { collection, key: '', text: '', hintsJson: undefined, lines: table.linesBytes(runStart, ordinal), lineCount: ordinal - runStart };
          runStart = ordinal + 1;
          const key = table.keyOf(ordinal);
          const value = map.changedValue(key);
          if (value !== undefined) yield { collection, key, text: JSON.stringify(value), hintsJson: hintsJson(indexer.hints(collection, key, value)) };
        } else if (ordinal + 1 === table.count || !table.adjacent(ordinal)) {
          yield { collection, key: '', text: '', hintsJson: undefined, lines: table.linesBytes(runStart, ordinal + 1), lineCount: ordinal + 1 - runStart };
          runStart = ordinal + 1;
        }
      }
      for (const [key, value] of map.addedEntries()) {
        yield { collection, key, text: JSON.stringify(value), hintsJson: hintsJson(indexer.hints(collection, key, value)) };
      }
      continue;
    }
    for (const [key, ordinal, value] of map.storedEntries()) {
      if (ordinal >= 0) {
        const hints = indexer === undefined ? undefined : hintsJson(indexer.hints(collection, key, map.get(key)));
        yield { collection, key, text: table!.valueText(ordinal), hintsJson: hints };
      } else {
        yield { collection, key, text: JSON.stringify(value), hintsJson: hintsJson(indexer?.hints(collection, key, value)) };
      }
    }
  }
}

/**
 * The hints of one collection that differ from what the loaded snapshot persisted: hint -> key,
 * or null where a snapshot entity that had the hint no longer does. `complete`: the snapshot's
 * hints are not trusted (another indexer version, or none), so this holds every hint.
 */
interface HintOverlay {
  owners: Map<string, string | null>;
  complete: boolean;
}

/** Writes generation `generation` (snapshot + empty journal) into `dir`, then points CURRENT at it. */
async function writeGeneration(
  dir: string,
  generation: number,
  maps: Maps,
  indexer: StoreIndexer | undefined,
  hintsVersion: string | null,
): Promise<void> {
  const entries = entitiesOf(maps, indexer, hintsVersion);
  await writeSnapshot(join(dir, snapshotFileName(generation)), generation, entries, indexer?.version ?? null);
  await writeFileAtomic(join(dir, journalFileName(generation)), async () => undefined);
  await writeManifest(dir, generation);
}

/** Removes what older generations and killed processes left; only called under the lock. */
async function removeLeftovers(dir: string, keepGeneration: number): Promise<void> {
  let removed = false;
  for (const name of await readdir(dir)) {
    const generation = GENERATION_FILE.exec(name)?.[1];
    let remove = false;
    if (generation !== undefined) remove = Number(generation) !== keepGeneration;
    else if (name.startsWith(ATOMIC_TEMP_PREFIX)) remove = true;
    else if (name.startsWith(LOCK_TEMP_PREFIX)) {
      const pid = Number(/^\.lock-(\d+)-/.exec(name)?.[1]);
      remove = Number.isInteger(pid) && pid > 0 && pid !== process.pid && !pidAlive(pid);
    }
    if (remove) {
      await unlink(join(dir, name)).catch(() => undefined);
      removed = true;
    }
  }
  if (removed) await fsyncDirectory(dir);
}

class FileStore implements Store {
  readonly location: string;
  private maps: Maps = emptyMaps();
  private generation = 0;
  private journal: FileHandle | undefined;
  /** Byte offset just past the last journal line accepted into memory. */
  private journalOffset = 0;
  private journalLines = 0;
  private snapshotBytes = 0;
  private readonly observers: StoreObserver[] = [];
  private indexer: StoreIndexer | undefined;
  /** The indexer version of the hints held by the loaded snapshot's raw entities (null: none). */
  private hintsVersion: string | null = null;
  private readonly hintOverlays = new Map<CollectionName, HintOverlay>();
  private queue: Pending[] = [];
  private batchScheduled = false;
  private serial: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** Set when memory may be ahead of the disk (a failed append): the next batch reloads. */
  private stale = false;
  private readonly lock: StoreLock | undefined;

  constructor(
    dir: string,
    private readonly options: FileStoreOptions,
    lockTimeoutMs: number,
  ) {
    this.location = dir;
    this.lock = options.readOnly ? undefined : new StoreLock(dir, lockTimeoutMs);
  }

  get state(): StoreState {
    return this.maps;
  }

  /** The generation loaded (changes on compaction). For tests and diagnostics. */
  get currentGeneration(): number {
    return this.generation;
  }

  private get journalPath(): string {
    return join(this.location, journalFileName(this.generation));
  }

  observe(observer: StoreObserver): void {
    this.observers.push(observer);
    if (observer.indexer) {
      if (this.indexer && this.indexer !== observer.indexer) throw new InternalError('a store takes one indexer');
      this.indexer = observer.indexer;
    }
  }

  private hintsTrusted(): boolean {
    return this.indexer !== undefined && this.indexer.version === this.hintsVersion;
  }

  /**
   * The key of the entity whose hints (from the registered indexer) include `hint`, in the state
   * as it is now (see Store.keyByHint). Snapshot entities answer from the hints
   * persisted beside them (no value parsed); what changed since the load from an overlay built on
   * the first question and kept true by every change after it.
   */
  keyByHint(collection: CollectionName, hint: string): string | undefined {
    const overlay = this.hintOverlay(collection);
    const owner = overlay.owners.get(hint);
    if (owner !== undefined) return owner ?? undefined;
    if (overlay.complete) return undefined;
    const table = this.maps.get(collection)!.table;
    const ordinal = table === undefined ? -1 : table.hintOwner(hint);
    return ordinal < 0 ? undefined : table!.keyOf(ordinal);
  }

  private hintOverlay(collection: CollectionName): HintOverlay {
    const existing = this.hintOverlays.get(collection);
    if (existing !== undefined) return existing;
    const indexer = this.indexer;
    if (!indexer) throw new InternalError('keyByHint: no indexer registered (pass one to observe)');
    const map = this.maps.get(collection)!;
    const overlay: HintOverlay = { owners: new Map(), complete: !this.hintsTrusted() };
    // Registered first: disownHint asks keyByHint, which must see the overlay being built.
    this.hintOverlays.set(collection, overlay);
    try {
      if (overlay.complete) {
        for (const [key, value] of map) for (const hint of indexer.hints(collection, key, value) ?? []) overlay.owners.set(hint, key);
      } else {
        const table = map.table;
        for (const [key, value] of map.changedEntries()) {
          const ordinal = table === undefined ? -1 : table.find(key);
          if (ordinal >= 0) for (const hint of table!.hintsOf(ordinal) ?? []) this.disownHint(collection, overlay, hint, key);
          if (value !== undefined) for (const hint of indexer.hints(collection, key, value) ?? []) overlay.owners.set(hint, key);
        }
      }
    } catch (error) {
      // A value that does not parse (damage): no half-built overlay may answer later questions.
      this.hintOverlays.delete(collection);
      throw error;
    }
    return overlay;
  }

  private disownHint(collection: CollectionName, overlay: HintOverlay, hint: string, key: string): void {
    if (this.keyByHint(collection, hint) === key) overlay.owners.set(hint, null);
  }

  /** Every entity of `collection` with its hints (undefined: none); for tests and diagnostics. */
  *hintsOf(collection: CollectionName): Iterable<readonly [string, readonly string[] | undefined]> {
    const indexer = this.indexer;
    if (!indexer) throw new InternalError('hintsOf: no indexer registered (pass one to observe)');
    const trusted = this.hintsTrusted();
    const map = this.maps.get(collection)!;
    for (const [key, ordinal, value] of map.storedEntries()) {
      if (ordinal >= 0 && trusted) yield [key, map.table!.hintsOf(ordinal)];
      else yield [key, indexer.hints(collection, key, ordinal >= 0 ? map.get(key) : value)];
    }
  }

  /** Runs journal-touching work one at a time within this process. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.serial.then(work, work);
    this.serial = run.catch(() => undefined);
    return run;
  }

  async load(underLock: boolean): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      const manifest = await readManifest(this.location);
      const snapshotPath = join(this.location, snapshotFileName(manifest.generation));
      const journalPath = join(this.location, journalFileName(manifest.generation));
      let journal: FileHandle | undefined;
      let snapshot: FileHandle | undefined;
      try {
        // The journal is opened first: once open it stays readable even if a compaction unlinks it.
        journal = await open(journalPath, this.lock ? 'r+' : 'r');
        snapshot = await open(snapshotPath, 'r');
      } catch (error) {
        await journal?.close();
        const code = errnoCode(error);
        if (code === 'ENOENT' && attempt < 5) {
          // A compaction by another process may have switched generations between our reads.
          const again = await readManifest(this.location);
          if (again.generation !== manifest.generation) continue;
        }
        const file = journal ? snapshotPath : journalPath;
        throw new StoreDamagedError(`${file}: cannot open (${code ?? String(error)})`, { cause: error });
      }
      let maps: Maps;
      let hintsVersion: string | null;
      try {
        const loaded = await readSnapshot(snapshot, snapshotPath, manifest.generation);
        hintsVersion = loaded.header.hints;
        maps = new Map(COLLECTION_NAMES.map((name) => [name, new EntityMap(loaded.tables.get(name), snapshotPath)]));
        this.snapshotBytes = (await snapshot.stat()).size;
      } catch (error) {
        await journal.close();
        throw error instanceof StoreDamagedError
          ? error
          : new StoreDamagedError(`${snapshotPath}: cannot read (${errnoCode(error) ?? String(error)})`, { cause: error });
      } finally {
        await snapshot.close();
      }
      const previous = this.journal;
      this.journal = journal;
      this.maps = maps;
      this.hintsVersion = hintsVersion;
      this.hintOverlays.clear();
      this.generation = manifest.generation;
      this.journalOffset = 0;
      this.journalLines = 0;
      this.stale = false;
      await previous?.close().catch(() => undefined);
      for (const observer of this.observers) observer.reset();
      await this.readJournal(underLock);
      return;
    }
  }

  /**
   * Applies the complete, checksummed journal lines past our offset. A bad line followed by
   * another line is damage; a bad or unfinished last line is a write that never completed:
   * ignored, and cut off when we hold the lock (so the next append starts on a clean line).
   */
  private async readJournal(underLock: boolean): Promise<void> {
    const journal = this.journal!;
    const file = this.journalPath;
    let size: number;
    try {
      size = (await journal.stat()).size;
    } catch (error) {
      throw new StoreDamagedError(`${file}: cannot read (${errnoCode(error) ?? String(error)})`, { cause: error });
    }
    if (size < this.journalOffset) {
      throw new StoreDamagedError(`${file}: shorter (${size} bytes) than its committed content (${this.journalOffset} bytes)`);
    }
    if (size === this.journalOffset) return;
    let bad: { lineNo: number; reason: string; start: number } | undefined;
    try {
      await forEachLine(journal, this.journalOffset, this.journalLines + 1, (line) => {
        if (bad) throw new StoreDamagedError(`${file}:${bad.lineNo}: ${bad.reason}`);
        if (!line.terminated) {
          bad = { lineNo: line.lineNo, reason: 'incomplete line', start: line.start };
          return;
        }
        const decoded = decodeJournalLine(line.bytes);
        if (!decoded.ok) {
          bad = { lineNo: line.lineNo, reason: decoded.reason, start: line.start };
          return;
        }
        for (const change of decoded.changes) this.apply(change);
        this.journalOffset = line.end;
        this.journalLines = line.lineNo;
      });
    } catch (error) {
      if (error instanceof StoreDamagedError) throw error;
      throw new StoreDamagedError(`${file}: cannot read (${errnoCode(error) ?? String(error)})`, { cause: error });
    }
    if (bad && underLock) {
      await journal.truncate(this.journalOffset);
      await journal.datasync();
    }
  }

  private apply(change: Change): void {
    const map = this.maps.get(change.collection)!;
    const previous = map.get(change.key);
    const overlay = this.hintOverlays.get(change.collection);
    if (overlay !== undefined) {
      // Only once built: until then the overlay is built from the changed entities when first asked.
      const indexer = this.indexer!;
      if (previous !== undefined) {
        for (const hint of indexer.hints(change.collection, change.key, previous) ?? []) {
          this.disownHint(change.collection, overlay, hint, change.key);
        }
      }
      if (change.value !== null && change.value !== undefined) {
        for (const hint of indexer.hints(change.collection, change.key, change.value) ?? []) overlay.owners.set(hint, change.key);
      }
    }
    if (change.value === null || change.value === undefined) map.delete(change.key);
    else map.set(change.key, change.value);
    for (const observer of this.observers) observer.change(change, previous);
  }

  /** Runs one decide(); throws (and applies nothing) if it throws or returns something unwritable. */
  private runDecide(pending: Pending): { result: unknown; serialized: string } {
    const { result, changes } = pending.decide(this.maps);
    if (!Array.isArray(changes)) throw new InternalError('transact: decide() must return { result, changes: Change[] }');
    for (const change of changes) {
      if (!isCollectionName(change?.collection) || typeof change.key !== 'string') {
        throw new InternalError(`transact: invalid change ${JSON.stringify(change)?.slice(0, 200)}`);
      }
    }
    const serialized = serializeChanges(changes);
    try {
      for (const change of changes) this.apply(change);
    } catch (error) {
      // An observer threw halfway: memory no longer matches the disk, so reload before the next batch.
      this.stale = true;
      throw error;
    }
    return { result, serialized };
  }

  transact<T>(decide: (state: StoreState) => { result: T; changes: Change[] }): Promise<T> {
    if (this.closed) return Promise.reject(new InternalError(`store ${this.location} is closed`));
    if (!this.lock) {
      try {
        const noop = () => undefined;
        return Promise.resolve(this.runDecide({ decide, resolve: noop, reject: noop }).result as T);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ decide, resolve: resolve as (value: unknown) => void, reject });
      if (!this.batchScheduled) {
        this.batchScheduled = true;
        void this.exclusive(() => this.runBatch()).catch((error: unknown) => {
          for (const pending of this.queue.splice(0)) pending.reject(error);
        });
      }
    });
  }

  /**
   * Group commit: everything queued by the time the lock is ours is one batch: one catch-up,
   * one journal line, one fsync. Calls arriving meanwhile form the next batch.
   */
  private async runBatch(): Promise<void> {
    const lock = this.lock!;
    try {
      await lock.acquire();
    } catch (error) {
      this.batchScheduled = false;
      for (const pending of this.queue.splice(0)) pending.reject(error);
      return;
    }
    this.batchScheduled = false;
    const batch = this.queue.splice(0);
    const outcomes: Array<{ pending: Pending; ok: true; result: unknown } | { pending: Pending; ok: false; error: unknown }> = [];
    try {
      await this.catchUpUnderLock();
      const serialized: string[] = [];
      for (const pending of batch) {
        try {
          const done = this.runDecide(pending);
          serialized.push(done.serialized);
          outcomes.push({ pending, ok: true, result: done.result });
        } catch (error) {
          outcomes.push({ pending, ok: false, error });
        }
      }
      if (serialized.some((part) => part.length > 0)) await this.append(encodeJournalLine(serialized));
    } catch (error) {
      this.stale = true;
      await lock.release().catch(() => undefined);
      for (const pending of batch) pending.reject(error);
      return;
    }
    for (const outcome of outcomes) {
      if (outcome.ok) outcome.pending.resolve(outcome.result);
      else outcome.pending.reject(outcome.error);
    }
    try {
      if (this.journalOffset >= this.compactThreshold()) await this.compactUnderLock();
    } catch {
      // Everything is already durable in the journal; a failed compaction leaves the old
      // generation in force and is retried after the next write.
    } finally {
      await lock.release().catch(() => undefined);
    }
  }

  private compactThreshold(): number {
    return this.options.compactAtBytes ?? Math.max(DEFAULT_COMPACT_AT_BYTES, this.snapshotBytes / 4);
  }

  private async catchUpUnderLock(): Promise<void> {
    const manifest = await readManifest(this.location);
    if (this.stale || manifest.generation !== this.generation) await this.load(true);
    else await this.readJournal(true);
  }

  private async append(line: string): Promise<void> {
    const journal = this.journal!;
    const buffer = Buffer.from(line, 'utf8');
    try {
      let written = 0;
      while (written < buffer.length) {
        const { bytesWritten } = await journal.write(buffer, written, buffer.length - written, this.journalOffset + written);
        written += bytesWritten;
      }
      await journal.datasync();
    } catch (error) {
      throw new TargetError(`cannot write ${this.journalPath}: ${errnoCode(error) ?? String(error)}`, { cause: error });
    }
    this.journalOffset += buffer.length;
    this.journalLines += 1;
  }

  /**
   * New generation: snapshot of the current state and an empty journal, both durable, then
   * CURRENT is switched atomically, then the old files go. A crash before the switch leaves the
   * old generation in force; after it, the new one. Other processes see the new generation
   * number and reload.
   */
  private async compactUnderLock(): Promise<void> {
    const next = this.generation + 1;
    await writeGeneration(this.location, next, this.maps, this.indexer, this.hintsVersion);
    await removeLeftovers(this.location, next);
    // Then load what was just written, as another process would: the entities written since the
    // last load were objects on the heap, serialised again by every compaction; as the new
    // snapshot's bytes they cost the collector nothing and the next compaction copies them as is.
    await this.load(true);
  }

  /** Compacts now (under the lock), whatever the journal size. */
  compact(): Promise<void> {
    if (!this.lock) return Promise.reject(new InternalError('cannot compact a read-only store'));
    const lock = this.lock;
    return this.exclusive(async () => {
      await lock.acquire();
      try {
        await this.catchUpUnderLock();
        await this.compactUnderLock();
      } finally {
        await lock.release().catch(() => undefined);
      }
    });
  }

  refresh(): Promise<void> {
    if (this.closed) return Promise.reject(new InternalError(`store ${this.location} is closed`));
    return this.exclusive(async () => {
      const manifest = await readManifest(this.location);
      if (manifest.generation !== this.generation) await this.load(false);
      else await this.readJournal(false);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.exclusive(async () => {
      await this.lock?.release();
      await this.journal?.close().catch(() => undefined);
      this.journal = undefined;
    });
  }
}

export type { FileStore };

/** Opens an existing store. Throws StoreDamagedError (exit 3) if it cannot be loaded; never repairs by overwriting. */
export async function openStore(dir: string, options: FileStoreOptions = {}): Promise<Store & FileStore> {
  const store = new FileStore(resolve(dir), options, resolveLockTimeout(options.lockTimeoutMs));
  await store.load(false);
  return store;
}

export async function storeExists(dir: string): Promise<boolean> {
  try {
    await stat(join(dir, CURRENT_FILE));
    return true;
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw new StoreDamagedError(`${join(dir, CURRENT_FILE)}: cannot read (${code ?? String(error)})`, { cause: error });
  }
}

function mapsFrom(initial: Iterable<Change>): Maps {
  const maps = emptyMaps();
  for (const change of initial) {
    if (!isCollectionName(change.collection) || typeof change.key !== 'string') {
      throw new InternalError(`createStore: invalid change ${JSON.stringify(change)?.slice(0, 200)}`);
    }
    const map = maps.get(change.collection)!;
    if (change.value === null || change.value === undefined) map.delete(change.key);
    else map.set(change.key, change.value);
  }
  return maps;
}

export interface CreateStoreOptions {
  /** Replace an existing store (its content is lost). */
  force?: boolean;
  /** Hints to write beside each entity (the engine's indexer), so the first load needs not parse values. */
  indexer?: StoreIndexer;
  lockTimeoutMs?: number;
}

/**
 * Creates a store holding `initial`. A new store is built in a temp directory beside the target
 * and renamed into place (so it appears whole or not at all). With `force`, an existing store is
 * replaced in place under its lock by a new generation, switched by the atomic CURRENT rename: a
 * crash leaves the old store or the new one, and processes that have it open reload.
 */
export async function createStore(dir: string, initial: Iterable<Change>, options: CreateStoreOptions = {}): Promise<void> {
  const target = resolve(dir);
  const maps = mapsFrom(initial);
  if (await storeExists(target)) {
    if (!options.force) throw new StoreExistsError(`a store already exists at ${target}; use --force to replace it`);
    await replaceStore(target, maps, resolveLockTimeout(options.lockTimeoutMs), options.indexer);
    return;
  }
  let entries: string[] | undefined;
  try {
    entries = await readdir(target);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOTDIR') throw new UsageError(`${target} exists and is not a directory`);
    if (code !== 'ENOENT') throw new TargetError(`cannot read ${target}: ${code ?? String(error)}`, { cause: error });
  }
  if (entries && entries.length > 0) {
    throw new UsageError(`${target} exists and is not an examctl store (no ${CURRENT_FILE}); refusing to touch it`);
  }
  const parent = dirname(target);
  await mkdir(parent, { recursive: true });
  const temp = join(parent, `.${basename(target)}.creating-${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    await mkdir(temp, { mode: 0o700 });
    await writeGeneration(temp, 1, maps, options.indexer, null);
    try {
      await rename(temp, target);
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'ENOTEMPTY' || code === 'EEXIST') {
        throw new StoreExistsError(`a store already exists at ${target} (created by another process); use --force to replace it`);
      }
      throw error;
    }
    await fsyncDirectory(parent);
  } catch (error) {
    await rm(temp, { recursive: true, force: true }).catch(() => undefined);
    if (error instanceof UsageError || error instanceof TargetError) throw error;
    throw new TargetError(`cannot create the store at ${target}: ${errnoCode(error) ?? String(error)}`, { cause: error });
  }
}

async function replaceStore(target: string, maps: Maps, lockTimeoutMs: number, indexer: StoreIndexer | undefined): Promise<void> {
  const lock = new StoreLock(target, lockTimeoutMs);
  await lock.acquire();
  try {
    // The old store may be damaged (that is often why it is replaced): take the generation
    // number past every one in use, without reading the old content.
    let highest = 0;
    try {
      highest = (await readManifest(target)).generation;
    } catch (error) {
      if (!(error instanceof StoreDamagedError)) throw error;
    }
    for (const name of await readdir(target)) {
      const generation = GENERATION_FILE.exec(name)?.[1];
      if (generation !== undefined) highest = Math.max(highest, Number(generation));
    }
    const next = highest + 1;
    await writeGeneration(target, next, maps, indexer, null);
    await removeLeftovers(target, next);
  } catch (error) {
    if (error instanceof UsageError || error instanceof TargetError) throw error;
    throw new TargetError(`cannot replace the store at ${target}: ${errnoCode(error) ?? String(error)}`, { cause: error });
  } finally {
    await lock.release().catch(() => undefined);
  }
}
