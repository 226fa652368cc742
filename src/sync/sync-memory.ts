import { type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { appendDurably } from '../system/durable-write.js';
import { StoreLock, underLock } from '../system/lock.js';
import {
  assertTrustedMemoryDir,
  FeedingMarker,
  lockForDeciding,
  liveFeeders,
  makeTrustedMemoryDir,
  openMemoryFile,
  type OnWait,
} from './memory-access.js';
import type { ReportTarget } from '../report/run-report.js';
import { RunJournalWriteError } from '../runs/run-errors.js';
import { JournalGroupEncoder } from '../runs/journal-encoder.js';
import { describeSystemError, systemFailure } from '../system/system-error-words.js';
import type { MemoryEntries } from './memory-entries.js';
import type { RunFile } from './replayed-file.js';
import { keptHeads, type SeenHead } from './store-standing.js';
import {
  entryBody,
  forgetBody,
  headerLine,
  newerPopulation,
  populationBody,
  SYNC_MEMORY_VERSION,
  type MemoryEntry,
  type PopulationRecord,
  type SyncKind,
} from './memory-lines.js';
import {
  compact,
  compactIdle,
  memoryFile,
  memoryOfText,
  overgrown,
  populationsOf,
  type MemoryContents,
} from './memory-files.js';

export interface OpenMemoryOptions {
  /** Hold the target's lock for the whole run: a run that decides from the memory runs alone. */
  lock: boolean;
  /** A lock file's wait before a second run on the same target is refused. */
  lockTimeoutMs: number;
  /** A dry run reads the memory and never writes it. */
  readOnly: boolean;
  /** A dry run's: a file to read instead. */
  from?: string | undefined;
  /** Told once when this run waits for another run on the same target. */
  onWait?: OnWait;
  /** Told a note: a rewrite skipped, a service's memory taking in what a lost run wrote ahead. */
  onNote?: (message: string) => void;
}

/** Where a torn last line past `validLength` begins (a kill mid-write, or a write in progress), or undefined. */
async function tornAt(handle: FileHandle, validLength: number): Promise<number | undefined> {
  const tail = Buffer.alloc(Math.max(0, (await handle.stat()).size - validLength));
  const { bytesRead } = await handle.read(tail, 0, tail.length, validLength);
  const whole = tail.lastIndexOf(0x0a, bytesRead - 1) + 1;
  return whole < bytesRead ? validLength + whole : undefined;
}

const GROUP_DELAY_MS = 20;
const GROUP_LINES = 1024;

/**
 * One target's memory of one kind (docs/sync.md): checksummed lines, group-committed with O_APPEND,
 * a line one write: feeders may run together, their lines never mix; a run that decides runs alone.
 */
export class SyncMemory {
  /** Bodies of the entry lines to append with the next group. */
  private pending: string[] = [];
  /** Checksums and encodes each group into one reused buffer (the groups are written one after another). */
  private readonly encoder = new JournalGroupEncoder();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private kicked = 0;
  /** Whether the file is of this format (to an older one, a feeder appends no batch tags). */
  current = false;
  /** The store instance an older examctl's header names (none: not recorded). */
  instance: string | undefined;
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
    /** The populations the file records; undefined for format 1 (taken from its entries). */
    private readonly populationRecords: Map<string, PopulationRecord> | undefined,
  ) {}

  static async open(syncDir: string, target: ReportTarget, kind: SyncKind, options: OpenMemoryOptions) {
    const file = options.from ?? memoryFile(syncDir, target, kind);
    const dir = dirname(file);
    let lock: StoreLock | undefined;
    let marker: FeedingMarker | undefined;
    if (options.readOnly) await assertTrustedMemoryDir(syncDir, dir);
    else {
      await makeTrustedMemoryDir(syncDir, dir);
      if (options.lock) lock = await lockForDeciding(dir, options.lockTimeoutMs, options.onWait);
      else marker = await FeedingMarker.enter(dir, options.lockTimeoutMs, options.onWait);
    }
    let handle: FileHandle | undefined;
    try {
      const opened = await openMemoryFile(
        file,
        options.readOnly ? 'read' : 'append',
        Buffer.from(headerLine(kind, target), 'utf8'),
      );
      handle = opened?.handle;
      let contents = memoryOfText(opened?.bytes ?? Buffer.alloc(0), file, kind, options.from ? undefined : target);
      // docs/sync.md, "Format": on a full disk only a format 1 file's rewrite is a failure.
      const format1 = contents.populations === undefined && contents.lines > 0;
      const older = contents.format !== undefined && contents.format < SYNC_MEMORY_VERSION;
      if (lock !== undefined && (overgrown(contents.lines, contents.entries.size) || format1 || older)) {
        const compacted = await compact(contents, target).catch((error: unknown) => {
          if (format1) throw error;
          options.onNote?.(
            `the sync memory ${file} was not rewritten (${describeSystemError(error, 'file')}): used as it is; a later run rewrites it`,
          );
        });
        if (compacted !== undefined) {
          contents = compacted;
          // The compacted file replaced the one open: open it (in the same trusted directory) again.
          await handle?.close();
          handle = (await openMemoryFile(file, 'append'))?.handle;
        }
      }
      if (options.readOnly) await handle?.close();
      const memory = new SyncMemory(
        file,
        kind,
        target,
        contents.entries,
        lock,
        marker,
        contents.lines,
        contents.populations,
      );
      memory.current = contents.format === undefined || contents.format >= SYNC_MEMORY_VERSION;
      memory.instance = contents.instance;
      if (!options.readOnly && handle !== undefined)
        await memory.openForAppend(contents, handle, options.lockTimeoutMs);
      return memory;
    } catch (error) {
      await handle?.close().catch(() => undefined);
      await lock?.release();
      await marker?.leave();
      // A write it needs (a rewrite, a file begun anew) on a full disk: exit 3 naming it.
      throw systemFailure(error, `cannot write the sync memory ${file}`);
    }
  }

  /**
   * A torn last line cut off (docs/sync.md, "Format") only by a run alone on the memory (a feeder's write in
   * progress looks torn to another), decided under LOCK on the tail read again.
   */
  private async openForAppend(contents: MemoryContents, handle: FileHandle, lockTimeoutMs: number): Promise<void> {
    this.handle = handle;
    try {
      if ((await tornAt(handle, contents.validLength)) !== undefined) {
        const dir = dirname(this.file);
        await underLock(dir, this.lock, lockTimeoutMs, async () => {
          const cut = await tornAt(handle, contents.validLength);
          if (cut !== undefined && (this.lock !== undefined || (await liveFeeders(dir)).length <= 1))
            await handle.truncate(cut);
        });
      }
      // A file with no line (made empty without hard links, or killed before its first): the header first.
      if (contents.lines === 0 && (await handle.stat()).size === 0)
        await appendDurably(handle.fd, Buffer.from(headerLine(this.kind, this.target), 'utf8'), null);
    } catch (error) {
      throw this.cannotWrite(error);
    }
  }

  /** The populations real runs synced to this target, by `populationKey`. */
  populations(): Map<string, PopulationRecord> {
    return populationsOf({ populations: this.populationRecords, entries: this.entries });
  }

  /** Records run `run` of population `key` (start or end) and the head it saw. Not format 1. */
  recordPopulation(key: string, run: string, ended = false, file?: string, seen?: SeenHead) {
    const known = this.populationRecords;
    const count = this.entries.populationsOfEntries().get(key)?.count ?? 0;
    const before = known?.get(key);
    const heads = keptHeads(before?.heads ?? [], seen);
    // The line adds this run's file once (its start); the record keeps the others (newerPopulation).
    const added: RunFile[] | undefined =
      file === undefined || before?.files?.some(([known]) => known === run) ? undefined : [[run, file]];
    const record: PopulationRecord = {
      ...newerPopulation(before, { run, count: 0, ended, ...(added && { files: added }) }),
      count,
      ...(heads.length > 0 && { heads }),
    };
    if (
      before?.run === record.run &&
      before.count === count &&
      before.ended === record.ended &&
      added === undefined &&
      seen === undefined
    )
      return;
    if (known === undefined) return;
    known.set(key, record);
    this.append(populationBody(key, { ...record, files: added }));
  }

  /** Records the head a batch of acknowledgements stands on (store-standing.ts, batchTag). */
  recordHead(key: string, seen: SeenHead): void {
    const before = this.populationRecords?.get(key);
    if (before === undefined) return;
    const record: PopulationRecord = { ...before, heads: keptHeads(before.heads ?? [], seen) };
    this.populationRecords!.set(key, record);
    this.append(populationBody(key, { ...record, files: undefined }));
  }

  /** How many groups of lines were handed to a write so far: a batch of acknowledgements ends with one. */
  get groups(): number {
    return this.kicked;
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
    this.kicked += 1;
    const handle = this.handle!;
    this.flushing = this.flushing.then(async () => {
      if (this.failure !== undefined) return;
      try {
        await appendDurably(handle.fd, this.encoder.encode(bodies), null);
      } catch (error) {
        this.failure = this.cannotWrite(error);
      }
    });
  }

  /** What was recorded, on disk now; throws (exit 3) when a write failed: nothing goes that is not on record first. */
  async durable(): Promise<void> {
    if (this.handle === undefined) return;
    this.kick();
    await this.flushing;
    if (this.failure !== undefined) throw this.failure;
  }

  /** Everything remembered on disk, the file closed and the lock released; throws when a write failed (exit 3). */
  async close(): Promise<void> {
    try {
      await this.durable().catch(() => undefined);
      await this.handle?.close().catch(() => undefined);
      this.handle = undefined;
    } finally {
      await this.lock?.release();
      await this.marker?.leave();
    }
    if (this.failure !== undefined) throw this.failure;
    // When no other run feeds or decides (never waits): docs/sync.md, "Format".
    if ((this.lock ?? this.marker) !== undefined && overgrown(this.lines, this.entries.size))
      await compactIdle(this.file, this.kind, this.target);
  }

  private cannotWrite(error: unknown): RunJournalWriteError {
    return new RunJournalWriteError(
      `cannot write the sync memory ${this.file}: ${describeSystemError(error, 'file')} (the next --changed-only run sends again what it could not remember)`,
    );
  }
}
