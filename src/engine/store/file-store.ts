/** The file store: a generation loaded, transactions journaled, compaction; its modules: docs/store.md. */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { InternalError, StoreDamagedError, StoreReplacedError, TargetError } from '../../system/errors.js';
import {
  COLLECTION_NAMES,
  type Change,
  type CollectionName,
  type Store,
  type StoreIndexer,
  type StoreOpenOptions,
  type StoreState,
} from './contract.js';
import { EntityMap } from './entity-map.js';
import { removeLeftovers, writeGeneration } from './create-store.js';
import { GroupCommit, type Decide } from './group-commit.js';
import { encodeJournalLine, serializeChanges, decodeJournalLine, headBefore, type DecodedLine } from './journal.js';
import { NOFOLLOW, NONBLOCK, openRegularFile } from '../../system/regular-file.js';
import { DSYNC_FLAG, appendDurablySync, appendDurably } from '../../system/durable-write.js';
import { JournalWriteMode, type JournalWriteTiming } from './journal-write-mode.js';
import { DEFAULT_LOCK_TIMEOUT_MS, StoreLock } from '../../system/lock.js';
import { LockLease, type LeaseTiming } from './lock-lease.js';
import { journalFileName, ManifestReader, readManifest, snapshotFileName } from './manifest.js';
import { nextHead, openStoreFile, standingOf, unrecordedHead, writeHistory } from './store-head.js';
import type { StoreHead } from '../../port/integration-api.js';
import { readSnapshot } from './snapshot.js';
import { readStoreInstance } from './store-instance.js';
import { emptyMaps, type Maps } from './snapshot-entries.js';
import { describeSystemError, storeFileUnreadable, systemErrorCode } from '../../system/system-error-words.js';
import { streamLines } from '../../system/file-lines.js';

/** Compact once the journal outgrows both this and a quarter of the snapshot (docs/store.md, "Compaction": why). */
const DEFAULT_COMPACT_AT_BYTES = 4 * 1024 * 1024;

/** Appends are durable when their write returns (src/system/durable-write.ts). */
const JOURNAL_WRITE_FLAGS = constants.O_RDWR | DSYNC_FLAG;

interface FileStoreOptions extends StoreOpenOptions {
  /** Journal size (bytes) that triggers compaction; default max(4 MiB, a quarter of the snapshot's size). */
  compactAtBytes?: number;
  /** When journal lines are written on the event loop, when through the thread pool; for tests. */
  journalWriteTiming?: JournalWriteTiming;
  /** How long the lock lease is kept idle, held and handed over (lock-lease.ts); for tests. */
  leaseTiming?: LeaseTiming;
}

class FileStore implements Store {
  readonly location: string;
  private maps: Maps = emptyMaps();
  private generation = 0;
  /** The generation's journal file, named once a load (followPath opens it before each batch). */
  private journalPath = '';
  /** CURRENT, read before each batch (followPath). */
  private readonly current: ManifestReader;
  private journal: FileHandle | undefined;
  /** The journal at the path as the last check opened it on the event loop, if not `journal` (followPath). */
  private pathJournal: number | undefined;
  private readonly journalPosition: JournalPosition = { offset: 0, lines: 0, last: 0, head: '', heads: new Set() };
  /** The bytes of the line at `journalPosition.last`, as appended or as a check found them (undefined: not known). */
  private lastLine: Buffer | undefined;
  private snapshotBytes = 0;
  private indexer: StoreIndexer | undefined;
  /** The indexer version of the hints held by the loaded snapshot's raw entities (null: none). */
  private hintsVersion: string | null = null;
  private readonly hints = new HintLookup({
    maps: () => this.maps,
    indexer: () => this.indexer,
    hintsTrusted: () => this.hintsTrusted(),
  });
  private readonly commits: GroupCommit;
  private closed = false;
  /** Synchronous appends while the disk is fast, thread-pool ones when it is not. */
  private readonly writeMode: JournalWriteMode;
  /** Set when memory may be ahead of the disk (a failed append): the next batch reloads. */
  private stale = false;
  private readonly lease: LockLease | undefined;
  /** The lock lease was kept since the last batch: nobody else wrote, so no catch-up is needed. */
  private leaseKept = false;
  /** Memory holds everything committed by anyone, as long as the lock stays ours (see refresh). */
  private memoryCaughtUp = false;
  /** refresh's check of the path, queued and not begun. */
  private queuedCheck: Promise<void> | undefined;

  constructor(
    dir: string,
    private readonly options: FileStoreOptions,
  ) {
    this.location = dir;
    this.current = new ManifestReader(dir);
    this.writeMode = new JournalWriteMode(options.journalWriteTiming);
    this.lease = options.readOnly
      ? undefined
      : new LockLease(new StoreLock(dir, options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS), dir, options.leaseTiming);
    const lease = this.lease;
    this.commits = new GroupCommit({
      acquireLock: async () => {
        if (this.journal === undefined) throw new InternalError(`store ${this.location} is closed`);
        this.leaseKept = await lease!.acquire();
        if (!this.leaseKept) this.memoryCaughtUp = false;
      },
      releaseLock: () => lease!.releaseNow(),
      keepLock: () => lease!.batchDone(),
      catchUp: () => this.catchUpUnderLock(),
      decide: (decide) => this.runDecide(decide),
      append: (serialized) => this.append(encodeJournalLine(serialized, this.journalPosition.head)),
      markStale: () => {
        this.stale = true;
      },
      stale: () => this.stale,
      afterCommit: async () => {
        if (this.journalPosition.offset >= this.compactThreshold()) await this.compactUnderLock();
      },
    });
  }

  get state(): StoreState {
    return this.maps;
  }

  get head(): string {
    return this.journalPosition.head;
  }

  /** The generation loaded (changes on compaction). For tests and diagnostics. */
  get currentGeneration(): number {
    return this.generation;
  }

  useIndexer(indexer: StoreIndexer): void {
    if (this.indexer && this.indexer !== indexer) throw new InternalError('a store takes one indexer');
    this.indexer = indexer;
  }

  private hintsTrusted(): boolean {
    return this.indexer !== undefined && this.indexer.version === this.hintsVersion;
  }

  keyByHint(collection: CollectionName, hint: string): string | undefined {
    return this.hints.keyByHint(collection, hint);
  }

  private instance: string | undefined;

  async load(underLock: boolean): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      const manifest = await readManifest(this.location);
      // After CURRENT: a replacement writes INSTANCE before it switches CURRENT (docs/store.md).
      const instance =
        this.options.stopWhenReplaced || manifest.head === undefined
          ? await readStoreInstance(this.location)
          : undefined;
      if (this.options.stopWhenReplaced && this.generation > 0 && instance !== this.instance)
        throw new StoreReplacedError(
          `${this.location} was replaced (local init --force) under this run: stopped; run the file again`,
        );
      this.instance = instance;
      const snapshotPath = join(this.location, snapshotFileName(manifest.generation));
      const journalPath = join(this.location, journalFileName(manifest.generation));
      let journal: FileHandle | undefined;
      let snapshot: FileHandle | undefined;
      try {
        // The journal is opened first: once open it stays readable even if a compaction unlinks it.
        // Regular files only: a FIFO planted in the store would hang the open past any signal.
        journal = await openRegularFile(journalPath, this.lease ? { flags: JOURNAL_WRITE_FLAGS } : {});
        snapshot = await openRegularFile(snapshotPath);
      } catch (error) {
        await journal?.close();
        const code = systemErrorCode(error);
        if (code === 'ENOENT' && attempt < 5) {
          // A compaction by another process may have switched generations between our reads.
          const again = await readManifest(this.location);
          if (again.generation !== manifest.generation) continue;
        }
        const file = journal ? snapshotPath : journalPath;
        throw new StoreDamagedError(
          code === 'ENOTREG' ? (error as Error).message : `${file}: cannot open: ${describeSystemError(error, 'file')}`,
          { cause: error },
        );
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
        throw error instanceof StoreDamagedError ? error : storeFileUnreadable(snapshotPath, error);
      } finally {
        await snapshot.close();
      }
      this.maps = maps;
      this.hintsVersion = hintsVersion;
      this.hints.clear();
      this.generation = manifest.generation;
      this.journalPath = journalPath;
      const head = manifest.head ?? unrecordedHead(manifest.generation, instance);
      Object.assign(this.journalPosition, { offset: 0, lines: 0, last: 0, head, heads: new Set([head]) });
      this.stale = false;
      await this.readJournal(journal, underLock);
      return;
    }
  }

  /** Reads on in `journal`, the store's at its path now (the one before closed): its lines past memory's position. */
  private async readJournal(journal: FileHandle, underLock: boolean): Promise<void> {
    const previous = this.journal;
    this.journal = journal;
    this.usePathJournal(undefined);
    this.lastLine = undefined;
    await previous?.close().catch(() => undefined);
    return replayJournal(journal, this.journalPath, this.journalPosition, (change) => this.apply(change), underLock);
  }

  private apply(change: Change): void {
    const map = this.maps.get(change.collection)!;
    const previous = map.get(change.key);
    this.hints.beforeChange(change, previous);
    if (change.value === null || change.value === undefined) map.delete(change.key);
    else map.set(change.key, change.value);
  }

  /**
   * Runs one decide(); throws (and applies nothing) if it throws or returns a value JSON cannot
   * hold. A change's collection and key are typed (CollectionName, string): every caller is the
   * engine's TypeScript, so they are not checked again here.
   */
  private runDecide(decide: Decide): { result: unknown; serialized: string } {
    const { result, changes } = decide(this.maps);
    const serialized = serializeChanges(changes);
    try {
      for (const change of changes) this.apply(change);
    } catch (error) {
      // The hints of a change threw halfway: memory no longer matches the disk, so reload before the next batch.
      this.stale = true;
      throw error;
    }
    return { result, serialized };
  }

  transact<T>(
    decide: (state: StoreState) => { result: T; changes: Change[] },
    committed?: (head: string) => void,
  ): Promise<T> {
    if (this.closed) return Promise.reject(new InternalError(`store ${this.location} is closed`));
    if (!this.lease) {
      try {
        return Promise.resolve(this.runDecide(decide).result as T);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.commits.submit<T>(decide, committed);
  }

  private compactThreshold(): number {
    return this.options.compactAtBytes ?? Math.max(DEFAULT_COMPACT_AT_BYTES, this.snapshotBytes / 4);
  }

  /** Before each batch, under the kept lease too: the directory may have been replaced meanwhile (followPath). */
  private async catchUpUnderLock(): Promise<void> {
    await this.followPath(true);
    this.memoryCaughtUp = true;
  }

  /**
   * Brings memory to the store at its path (docs/store.md, "A directory replaced"): the journal is
   * opened there again and its line at memory's position must give memory's head; if it does not
   * (the directory was restored, moved or copied back), the store is loaded from the path, or a
   * run stops (it wrote to a history the path no longer holds). Never judged by file identity.
   * Its reads (a few hundred bytes, no sync) are made on the event loop, and the batch appends
   * through the descriptor opened (`pathJournal`); the thread pool only where that cannot tell.
   */
  private async followPath(underLock: boolean): Promise<void> {
    const manifest = this.current.readSync();
    if (this.stale) return this.load(underLock);
    if (manifest.generation !== this.generation) {
      // Another INSTANCE (local init --force) is load's to refuse, in its own words.
      if (this.options.stopWhenReplaced && (await readStoreInstance(this.location)) === this.instance)
        await this.stopIfNotHeld((await readStoreHead(this.location, [this.journalPosition.head])).holds.length > 0);
      return this.loadReplaced(underLock);
    }
    const first = manifest.head ?? unrecordedHead(manifest.generation, await readStoreInstance(this.location));
    const path = this.journalPath;
    const position = this.journalPosition;
    const opened = openJournalSync(path, this.lease !== undefined);
    const line = Buffer.allocUnsafe(position.offset - position.last);
    // Nothing past memory's end (its size when opened: a line appended since is a later state): this
    // batch needs no replay and appends through the descriptor.
    if (
      opened !== undefined &&
      opened.size === position.offset &&
      headAt(position, first, line, readSync(opened.fd, line, 0, line.length, position.last), this.lastLine) === true
    ) {
      // Bytes that give memory's head: the next check compares them instead of hashing (a serve that only reads).
      this.lastLine = line;
      return this.usePathJournal(opened.fd);
    }
    if (opened !== undefined) closeSync(opened.fd);
    const journal = await openStoreFile(path, this.lease ? { flags: JOURNAL_WRITE_FLAGS } : {});
    const same =
      journal !== undefined &&
      (headAt(
        position,
        first,
        line,
        (await journal.read(line, 0, line.length, position.last)).bytesRead,
        this.lastLine,
      ) ??
        (await replayedHeadAt(journal, path, position, first)));
    if (!same) {
      await journal?.close();
      await this.stopIfNotHeld(false);
      return this.loadReplaced(underLock);
    }
    await this.readJournal(journal, underLock);
  }

  /**
   * Loads the store the path now holds. Under the lock, the `LOCK` this process holds may have gone
   * with the directory it was in: it is taken again at the path first, so no other writer can
   * take the new directory's while this batch writes there (docs/store.md, "A directory replaced").
   */
  private async loadReplaced(underLock: boolean): Promise<void> {
    if (underLock) await this.lease?.retake();
    return this.load(underLock);
  }

  /** The journal descriptor this batch appends through (undefined: `journal`'s); the previous one is closed. */
  private usePathJournal(fd: number | undefined): void {
    if (this.pathJournal !== undefined) closeSync(this.pathJournal);
    this.pathJournal = fd;
  }

  /**
   * A run's store whose history no longer holds what the run wrote: it stops, as for a replaced
   * store (a resume would keep rows the restore undid); a server reloads.
   */
  private async stopIfNotHeld(held: boolean): Promise<void> {
    if (held || !this.options.stopWhenReplaced) return;
    throw new StoreReplacedError(
      `${this.location} was restored or replaced under this run (the store there does not hold what this run last wrote): stopped; run the file again`,
    );
  }

  private async append(line: string): Promise<string> {
    // The journal at the path, as this batch's catch-up found it (followPath).
    const fd = this.pathJournal ?? this.journal!.fd;
    const buffer = Buffer.from(line, 'utf8');
    const at = this.journalPosition.offset;
    try {
      if (this.writeMode.syncNext()) {
        const started = performance.now();
        appendDurablySync(fd, buffer, at);
        this.writeMode.recordSync(performance.now() - started);
      } else {
        await appendDurably(fd, buffer, at);
      }
    } catch (error) {
      throw new TargetError(`cannot write ${this.journalPath}: ${describeSystemError(error, 'file')}`, {
        cause: error,
      });
    }
    this.journalPosition.last = at;
    this.journalPosition.offset += buffer.length;
    this.journalPosition.lines += 1;
    this.journalPosition.head = nextHead(this.journalPosition.head, buffer.subarray(0, -1));
    this.journalPosition.heads.add(this.journalPosition.head);
    this.lastLine = buffer;
    return this.journalPosition.head;
  }

  /** Where the store stands now, and which of `asked` it holds (store-head.ts). */
  standing(asked?: readonly string[]): Promise<StoreHead> {
    return readStoreHead(this.location, asked);
  }

  /** New generation, switched in by CURRENT (docs/store.md, "Compaction": the steps, what a crash leaves). */
  private async compactUnderLock(): Promise<void> {
    const { head, heads } = this.journalPosition;
    const [users, schedules] = [this.maps.get('users')!, this.maps.get('schedules')!];
    const isLive = (key: string) => (key.startsWith('users:') ? users : schedules).has(key.slice(key.indexOf(':') + 1));
    await writeHistory(this.location, this.generation, heads, this.journal!, isLive, users.size + schedules.size);
    await writeGeneration(this.location, this.generation + 1, this.maps, this.indexer, this.hintsVersion, head);
    await removeLeftovers(this.location, this.generation + 1);
    // Then load what was just written, as another process would: as snapshot bytes, the entities
    // cost the collector nothing and the next compaction copies them as they are.
    await this.load(true);
  }

  /** Compacts now (under the lock), whatever the journal size. */
  compact(): Promise<void> {
    if (!this.lease) return Promise.reject(new InternalError('cannot compact a read-only store'));
    const lease = this.lease;
    return this.commits.exclusive(async () => {
      this.leaseKept = await lease.acquire();
      try {
        await this.catchUpUnderLock();
        await this.compactUnderLock();
      } finally {
        await lease.releaseNow().catch(() => undefined);
      }
    });
  }

  refresh(): Promise<void> {
    if (this.closed) return Promise.reject(new InternalError(`store ${this.location} is closed`));
    // The lock is ours and memory caught up: nobody else can have written, so there is nothing
    // to read, and a read need not queue behind our writes (whenDurable covers those).
    if (this.lease?.held && this.memoryCaughtUp && !this.stale) return Promise.resolve();
    // The check begins at the end of this turn of the event loop, so after every call made in the
    // turn, and those calls share it (a serve's requests whose bytes came in the turn, each asking
    // twice: its token, then its answer), as a turn's writes share a session.
    // Stale: a failed write left changes in memory that are not on the disk; a read must not see them.
    if (this.queuedCheck === undefined) {
      const turnEnded = new Promise((resolve) => setImmediate(resolve));
      this.queuedCheck = this.commits.exclusive(async () => {
        await turnEnded;
        this.queuedCheck = undefined;
        await this.followPath(false);
      });
    }
    return this.queuedCheck;
  }

  whenDurable(): Promise<void> {
    return this.lease ? this.commits.whenDurable() : Promise.resolve();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.commits.exclusive(async () => {
      await this.lease?.releaseNow();
      this.usePathJournal(undefined);
      await this.journal?.close().catch(() => undefined);
      this.journal = undefined;
    });
  }
}

export type { FileStore };

/**
 * Opens an existing store. Throws StoreDamagedError (exit 3) if it cannot be loaded; never
 * repairs by overwriting. Settings come from the caller (see lockTimeoutFromEnv).
 */
export async function openStore(dir: string, options: FileStoreOptions = {}): Promise<Store & FileStore> {
  const store = new FileStore(resolve(dir), options);
  try {
    await store.load(false);
  } catch (error) {
    // The journal is open before its replay can fail: a long-lived caller (local serve) would
    // keep its descriptor until garbage collection.
    await store.close().catch(() => undefined);
    throw error;
  }
  return store;
}

/** Where a store stands, read from its files, its snapshot left unread (store-head.ts). */
export async function readStoreHead(dir: string, asked: readonly string[] = []): Promise<StoreHead> {
  for (let attempt = 0; ; attempt += 1) {
    const { generation, head } = await readManifest(dir);
    const first = head ?? unrecordedHead(generation, await readStoreInstance(dir));
    const position: JournalPosition = { offset: 0, lines: 0, last: 0, head: first, heads: new Set([first]) };
    const path = join(dir, journalFileName(generation));
    // Not there: a compaction by another process switched generations between the reads: read again.
    const journal = await openStoreFile(path, {}, attempt < 5);
    if (journal === undefined) continue;
    try {
      await replayJournal(journal, path, position, () => undefined, false);
      const standing = await standingOf(dir, generation, position.heads, asked, journal).catch(
        (error: unknown) => error,
      );
      // Its heads and serials files are removed once a compaction moved on: read again.
      if (attempt < 5 && (await readManifest(dir)).generation !== generation) continue;
      if (standing instanceof Error) throw standing;
      return standing as StoreHead;
    } finally {
      await journal.close();
    }
  }
}

/* Reading a journal forward from where memory is: the replay of a load, and the catch-up before a write. */
/** Just past the last journal line accepted into memory, and the heads (store-head.ts) up to it. */
export interface JournalPosition {
  offset: number;
  lines: number;
  /** Where the last line accepted begins. */
  last: number;
  head: string;
  /** The generation's first head and each line's. */
  heads: Set<string>;
}

/**
 * Applies the complete, checksummed journal lines past `position`, moving it line by line (so it
 * stays true to memory even when a later line throws); a bad line as docs/store.md, "Damage and
 * exit status 3" says (a last one cut off under the lock, so the next append starts clean).
 */
export async function replayJournal(
  journal: FileHandle,
  file: string,
  position: JournalPosition,
  apply: (change: Change) => void,
  underLock: boolean,
): Promise<void> {
  let size: number;
  try {
    size = (await journal.stat()).size;
  } catch (error) {
    throw storeFileUnreadable(file, error);
  }
  if (size < position.offset) {
    throw new StoreDamagedError(
      `${file}: shorter (${size} bytes) than its committed content (${position.offset} bytes)`,
    );
  }
  if (size === position.offset) return;
  let bad: { lineNo: number; reason: string; start: number } | undefined;
  try {
    const from = { offset: position.offset, lineNo: position.lines + 1 };
    await streamLines(
      journal,
      (line) => {
        if (bad) throw new StoreDamagedError(`${file}:${bad.lineNo}: ${bad.reason}`);
        const decoded: DecodedLine = line.terminated
          ? decodeJournalLine(line.bytes)
          : { ok: false, reason: 'incomplete line' };
        if (!decoded.ok) {
          bad = { lineNo: line.lineNo, reason: decoded.reason, start: line.start };
          return;
        }
        for (const change of decoded.changes) apply(change);
        position.last = line.start;
        position.offset = line.end;
        position.lines = line.lineNo;
        position.head = nextHead(position.head, line.bytes);
        position.heads.add(position.head);
      },
      from,
    );
  } catch (error) {
    if (error instanceof StoreDamagedError) throw error;
    throw storeFileUnreadable(file, error);
  }
  if (bad && underLock) {
    await journal.truncate(position.offset);
    await journal.datasync();
  }
}

/**
 * Whether a journal at the store's path holds memory's head at memory's `position`, from `line`
 * (`bytesRead` bytes read from `position.last` into a buffer of the last line's length): the same
 * bytes as `known` (that line as appended or found before: its `p` and its body, so its head), else
 * its `p` and its bytes, hashed; undefined where it has no `p` (an older examctl's): replayedHeadAt tells.
 */
function headAt(
  position: JournalPosition,
  first: string,
  line: Buffer,
  bytesRead: number,
  known: Buffer | undefined,
): boolean | undefined {
  if (position.heads.values().next().value !== first) return false;
  if (position.lines === 0) return true;
  if (bytesRead < line.length || line[line.length - 1] !== 0x0a) return false;
  if (known !== undefined) return line.equals(known);
  const before = headBefore(line.subarray(0, -1));
  return before === undefined ? undefined : nextHead(before, line.subarray(0, -1)) === position.head;
}

/** headAt from every line of `journal` up to memory's position, starting at `first`. */
async function replayedHeadAt(
  journal: FileHandle,
  file: string,
  position: JournalPosition,
  first: string,
): Promise<boolean> {
  const replayed: JournalPosition = { offset: 0, lines: 0, last: 0, head: first, heads: new Set([first]) };
  await replayJournal(journal, file, replayed, () => undefined, false);
  return [...replayed.heads][position.lines] === position.head;
}

/** The journal at `path` opened on the event loop, regular files only, with its size; undefined if not there. */
function openJournalSync(path: string, write: boolean): { fd: number; size: number } | undefined {
  let fd: number;
  try {
    fd = openSync(path, (write ? JOURNAL_WRITE_FLAGS : constants.O_RDONLY) | NOFOLLOW | NONBLOCK);
  } catch {
    // Not there, a link, unreadable: the thread-pool path opens it again and says why.
    return undefined;
  }
  const stat = fstatSync(fd);
  if (stat.isFile()) return { fd, size: stat.size };
  closeSync(fd);
  return undefined;
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

/** What the lookup reads of its store, as it is at the moment of asking. */
interface HintSource {
  maps(): Maps;
  indexer(): StoreIndexer | undefined;
  /** The loaded snapshot's persisted hints come from the registered indexer's version. */
  hintsTrusted(): boolean;
}

/** Store.keyByHint for the file store (docs/store.md, "Loading"); an overlay is built when first asked. */
export class HintLookup {
  private readonly overlays = new Map<CollectionName, HintOverlay>();

  constructor(private readonly source: HintSource) {}

  /** Forgets every overlay: the state was replaced (a load). */
  clear(): void {
    this.overlays.clear();
  }

  keyByHint(collection: CollectionName, hint: string): string | undefined {
    const overlay = this.overlay(collection);
    const owner = overlay.owners.get(hint);
    if (owner !== undefined) return owner ?? undefined;
    if (overlay.complete) return undefined;
    const table = this.source.maps().get(collection)!.table;
    const ordinal = table === undefined ? -1 : table.hintOwner(hint);
    return ordinal < 0 ? undefined : table!.keyOf(ordinal);
  }

  /**
   * Keeps a built overlay true across `change`, called before the change reaches the map.
   * An overlay not built yet is left alone: it is built from the changed entities when first asked.
   */
  beforeChange(change: Change, previous: unknown): void {
    const overlay = this.overlays.get(change.collection);
    if (overlay === undefined) return;
    const indexer = this.source.indexer()!;
    if (previous !== undefined) {
      for (const hint of indexer.hints(change.collection, change.key, previous) ?? [])
        this.disown(change.collection, overlay, hint, change.key);
    }
    if (change.value !== null && change.value !== undefined) {
      for (const hint of indexer.hints(change.collection, change.key, change.value) ?? [])
        overlay.owners.set(hint, change.key);
    }
  }

  private overlay(collection: CollectionName): HintOverlay {
    const existing = this.overlays.get(collection);
    if (existing !== undefined) return existing;
    const indexer = this.source.indexer();
    if (!indexer) throw new InternalError('keyByHint: no indexer registered (pass one to useIndexer)');
    const map = this.source.maps().get(collection)!;
    const overlay: HintOverlay = { owners: new Map(), complete: !this.source.hintsTrusted() };
    // Registered first: disown asks keyByHint, which must see the overlay being built.
    this.overlays.set(collection, overlay);
    try {
      if (overlay.complete) {
        for (const [key, value] of map)
          for (const hint of indexer.hints(collection, key, value) ?? []) overlay.owners.set(hint, key);
      } else {
        const table = map.table;
        for (const [key, value] of map.changedEntries()) {
          const ordinal = table === undefined ? -1 : table.find(key);
          if (ordinal >= 0)
            for (const hint of table!.hintsOf(ordinal) ?? []) this.disown(collection, overlay, hint, key);
          if (value !== undefined)
            for (const hint of indexer.hints(collection, key, value) ?? []) overlay.owners.set(hint, key);
        }
      }
    } catch (error) {
      // A value that does not parse (damage): no half-built overlay may answer later questions.
      this.overlays.delete(collection);
      throw error;
    }
    return overlay;
  }

  private disown(collection: CollectionName, overlay: HintOverlay, hint: string, key: string): void {
    if (this.keyByHint(collection, hint) === key) overlay.owners.set(hint, null);
  }
}
