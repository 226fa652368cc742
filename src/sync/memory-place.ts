/**
 * Where a target's sync memory is kept (docs/sync.md, "Where"): a sync directory, or a state
 * service (`--sync-dir` / EXAMCTL_SYNC_DIR given as an http(s):// address, "A state service").
 * A run on a service locks it, reads the document, works on a private local copy made of it (the
 * same files, locks and appends as a directory's), stores the result when it ends (exit 1, a stop
 * after sending and a signal too) and unlocks; a dry run only reads it.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { makePrivateTempDir } from '../system/private-temp.js';
import { dirname, join, resolve } from 'node:path';
import { hash } from 'node:crypto';
import { givenSyncDir, isStateAddress } from '../context/state-http.js';
import type { CommandDeps } from '../context/command-deps.js';
import { resolveRunsDir } from '../runs/runs-dir.js';
import { targetIdentity, type ReportTarget } from '../report/run-report.js';
import { TargetError } from '../system/errors.js';
import type { SyncKind } from './memory-lines.js';
import { memoryDir, memoryFile, memoryOfText, readMemory, resolveSyncDir, type MemoryContents } from './memory-files.js';
import { SyncMemory, type OpenMemoryOptions } from './sync-memory.js';
import { assertDocumentTarget, DOCUMENT_KINDS, documentText, readDocument, type InFlightRun, type MemoryDocument } from './memory-document.js';
import { StateService, type StateLockInfo } from './state-service.js';
import { lossAdvice } from './memory-loss.js';

export type MemoryPlace = { kind: 'dir'; syncDir: string } | { kind: 'service'; address: string };

/** The sync directory of an invocation (docs/sync.md), a relative one taken from where examctl was started. */
export function syncDirOf(syncDir: string | undefined, runsDir: string | undefined, deps: Pick<CommandDeps, 'env' | 'cwd'>): string {
  return resolve(deps.cwd, resolveSyncDir(syncDir, deps.env, resolveRunsDir(runsDir, deps.env as NodeJS.ProcessEnv)));
}

/** `--sync-dir`, else EXAMCTL_SYNC_DIR, else the default directory: a state service when it is an http(s):// address. */
export function memoryPlaceOf(syncDir: string | undefined, runsDir: string | undefined, deps: Pick<CommandDeps, 'env' | 'cwd'>): MemoryPlace {
  const given = givenSyncDir(syncDir, deps.env);
  if (given !== undefined && isStateAddress(given)) return { kind: 'service', address: given.trim() };
  return { kind: 'dir', syncDir: syncDirOf(syncDir, runsDir, deps) };
}

/** The memory of `kind` as a message names it: its file, or the service's address and the kind. */
export function placeName(place: MemoryPlace, target: ReportTarget, kind: SyncKind): string {
  return place.kind === 'dir' ? memoryFile(place.syncDir, target, kind) : `${place.address} (${kind})`;
}

/** A memory opened where it is kept; `close` ends it there (a service's copy stored and unlocked). */
export interface PlacedMemory {
  memory: SyncMemory;
  /** What messages call it (placeName). */
  name: string;
  /**
   * Run `run` of `population` goes ahead, its population on record in `memory` (SentMemory.started):
   * a state service is given the memory now, marked with the run in flight, so a run killed before
   * its end leaves a memory that says it misses this run (docs/sync.md, "A state service"). A
   * directory's memory is durable line by line already: nothing to do.
   */
  started(run: string, population: string | undefined): Promise<void>;
  /** The runs of `population` a state service's memory says started and never stored their end (InFlightRun). */
  unfinished(population: string | undefined): readonly InFlightRun[];
  /** The same target's memory of another kind, as kept beside this one now (read, no lock). */
  readKind(kind: SyncKind): Promise<MemoryContents>;
  close(): Promise<void>;
}

export interface PlaceOptions extends OpenMemoryOptions {
  /** What takes a service's lock, for its lock info (`examctl user sync`). */
  operation: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Where a memory a service would not take is kept for `synced import` (beside the runs directory). */
  runsDir: string | undefined;
  /** Told when a service's memory could not be stored (also when the run's own end is an error). */
  onUnsaved?: (message: string) => void;
}

/** Opens the memory of `kind` at `place`; a real run on a service locks it (whether it decides or only feeds). */
export async function openPlacedMemory(place: MemoryPlace, target: ReportTarget, kind: SyncKind, options: PlaceOptions): Promise<PlacedMemory> {
  if (place.kind === 'dir') {
    const memory = await SyncMemory.open(place.syncDir, target, kind, options);
    return { memory, name: memory.file, started: () => Promise.resolve(), unfinished: () => [], readKind: (other) => readMemory(memoryFile(place.syncDir, target, other), other, target), close: () => memory.close() };
  }
  const copy = await ServiceCopy.open(place.address, target, options);
  let memory: SyncMemory;
  try {
    memory = await SyncMemory.open(copy.syncDir, target, kind, options);
  } catch (error) {
    await copy.finish(false).catch(() => undefined);
    throw error;
  }
  return {
    memory,
    name: placeName(place, target, kind),
    async started(run, population) {
      await copy.markInFlight({ run, kind, population: population ?? null, since: new Date().toISOString() });
    },
    unfinished: (population) => copy.inFlight.filter((entry) => entry.kind === kind && entry.population === (population ?? null)),
    readKind: (other) => readMemory(memoryFile(copy.syncDir, target, other), other, target),
    async close() {
      try {
        await memory.close();
      } finally {
        await copy.finish(!options.readOnly);
      }
    },
  };
}

/**
 * The memories of a target at `place`, read (no lock): for `synced show`, `export`, `doctor` and
 * the stale-resume check. A service's document is checked and its target must be `target`'s.
 */
export async function readPlacedMemories(place: MemoryPlace, target: ReportTarget, env: Readonly<Record<string, string | undefined>>): Promise<{ name: string; memories: Map<SyncKind, MemoryContents>; document?: MemoryDocument }> {
  if (place.kind === 'dir') {
    const memories = new Map<SyncKind, MemoryContents>();
    for (const kind of DOCUMENT_KINDS) memories.set(kind, await readMemory(memoryFile(place.syncDir, target, kind), kind, target));
    return { name: memoryDir(place.syncDir, target), memories };
  }
  const service = StateService.at(place.address, env);
  try {
    const text = await service.read();
    if (text === undefined) return { name: place.address, memories: new Map() };
    const document = readDocument(text, place.address, lossAdvice());
    assertDocumentTarget(document, place.address, target);
    return { name: place.address, memories: document.memories, document };
  } finally {
    await service.close();
  }
}

/**
 * A state service's memory as a private local copy for one run: the document's memories written
 * as a sync directory's files in a fresh 0700 directory, removed at the end; stored back (only
 * when the run changed them) under the lock it took first.
 */
export class ServiceCopy {
  private constructor(
    private readonly service: StateService,
    private readonly target: ReportTarget,
    readonly syncDir: string,
    private readonly lockInfo: StateLockInfo | undefined,
    private serial: number,
    /** Each kind's file bytes as written from the document: unchanged files are not stored again. */
    private readonly written: Map<SyncKind, string>,
    private readonly options: Pick<PlaceOptions, 'runsDir' | 'onUnsaved' | 'env'>,
    /** The runs in flight the document names: this run's own is added as it starts and taken out at its end. */
    public inFlight: readonly InFlightRun[],
  ) {}

  /** This run's marks (markInFlight), taken out of the document by its last store. */
  private readonly own: InFlightRun[] = [];

  /**
   * Stores the memory now, naming `entry` as in flight (this run, as it starts: SentMemory.started),
   * before anything is sent. A store that fails stops the run before it sends (exit 3): without it a
   * kill would leave a memory that does not know this run.
   */
  async markInFlight(entry: InFlightRun): Promise<void> {
    if (this.lockInfo === undefined) return;
    this.inFlight = [...this.inFlight.filter((other) => !(other.run === entry.run && other.kind === entry.kind)), entry];
    this.own.push(entry);
    const text = documentText(this.target, (await this.readCopy()).memories, this.serial + 1, this.inFlight);
    try {
      await this.service.write(text, this.lockInfo.ID);
    } catch (error) {
      this.startFailed = true;
      const why = error instanceof Error ? error.message : String(error);
      throw new TargetError(`the sync memory could not be stored on ${this.service.address} as the run started (${why}): nothing was sent`);
    }
    this.serial += 1;
  }

  /** The start store failed: the run sent nothing, so its copy is never stored (markInFlight). */
  private startFailed = false;

  /**
   * After a start store that failed the service keeps what it held; a mark of this run it took
   * all the same (its answer lost, or cut by the request timeout) is taken out, so no later night
   * takes this run for one that did something.
   */
  private async withdrawMark(): Promise<void> {
    const text = await this.service.read().catch(() => undefined);
    const held = text === undefined ? undefined : readDocument(text, this.service.address);
    const others = held?.inFlight.filter((entry) => !this.own.some((own) => own.run === entry.run && own.kind === entry.kind));
    if (held === undefined || others === undefined || others.length === held.inFlight.length) return;
    await this.service.write(documentText(this.target, held.memories, held.serial + 1, others), this.lockInfo?.ID);
  }

  /** The copy's memories as its files hold them now (each read once), and whether any differs from the document's. */
  private async readCopy(): Promise<{ memories: Map<SyncKind, MemoryContents>; changed: boolean }> {
    const memories = new Map<SyncKind, MemoryContents>();
    let changed = false;
    for (const kind of DOCUMENT_KINDS) {
      const file = memoryFile(this.syncDir, this.target, kind);
      const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : Promise.reject(error)));
      if ((bytes === undefined ? undefined : digestOf(bytes)) !== this.written.get(kind)) changed = true;
      if (bytes !== undefined) memories.set(kind, memoryOfText(bytes, file, kind, this.target));
    }
    return { memories, changed };
  }

  /** Locks the service (a run that writes), reads its document and writes it out; exit 2 for a document of another target. */
  static async open(address: string, target: ReportTarget, options: PlaceOptions): Promise<ServiceCopy> {
    const service = StateService.at(address, options.env);
    let lockInfo: StateLockInfo | undefined;
    let syncDir: string | undefined;
    try {
      if (!options.readOnly) lockInfo = await service.lock(options.operation, options.lockTimeoutMs, options.onWait);
      const text = await service.read();
      const document = text === undefined ? undefined : readDocument(text, address, lossAdvice());
      if (document !== undefined) assertDocumentTarget(document, address, target);
      syncDir = await makePrivateTempDir('synced');
      const dir = memoryDir(syncDir, target);
      await mkdir(dir, { mode: 0o700 });
      const written = new Map<SyncKind, string>();
      for (const [kind, memoryText] of document?.texts ?? []) {
        await writeFile(memoryFile(syncDir, target, kind), memoryText, { mode: 0o600, flag: 'wx' });
        written.set(kind, digestOf(memoryText));
      }
      return new ServiceCopy(service, target, syncDir, lockInfo, document?.serial ?? 0, written, options, document?.inFlight ?? []);
    } catch (error) {
      if (syncDir !== undefined) await rm(syncDir, { recursive: true, force: true }).catch(() => undefined);
      if (lockInfo !== undefined) await service.unlock(lockInfo).catch(() => undefined);
      await service.close();
      throw error;
    }
  }

  /**
   * Ends the run's use of the service: with `store`, the copy stored when the run changed it
   * (exit 3 when that fails, saying what the next night does and where the memory was kept); then
   * the lock released (exit 3 when that fails: the next run would be refused) and the copy removed.
   */
  async finish(store: boolean): Promise<void> {
    let failure: TargetError | undefined;
    try {
      if (store && this.lockInfo !== undefined && this.startFailed) await this.withdrawMark().catch(() => undefined);
      else if (store && this.lockInfo !== undefined) await this.store();
    } catch (error) {
      failure = await this.unsaved(error);
    }
    try {
      if (this.lockInfo !== undefined) await this.service.unlock(this.lockInfo);
    } catch (error) {
      const words = error instanceof Error ? error.message : String(error);
      const message =
        `the lock of the sync memory at ${this.service.address} was not released (${words}): the next run is refused until it is; ` +
        `release it with examctl synced unlock ${this.lockInfo!.ID} --sync-dir ${this.service.address}`;
      failure = failure === undefined ? new TargetError(message) : new TargetError(`${failure.message}; ${message}`);
    } finally {
      await rm(this.syncDir, { recursive: true, force: true }).catch(() => undefined);
      await this.service.close();
    }
    if (failure !== undefined) throw failure;
  }

  private async store(): Promise<void> {
    const { memories, changed } = await this.readCopy();
    // This run's own marks come out now that it ended: stored also when the memory did not change.
    const ended = this.inFlight.filter((entry) => !this.own.includes(entry));
    if (!changed && ended.length === this.inFlight.length) return;
    this.pending = documentText(this.target, memories, this.serial + 1, ended);
    await this.service.write(this.pending, this.lockInfo?.ID);
  }

  /** The document a failed store was to write. */
  private pending: string | undefined;

  /** A store that failed: the document kept beside the runs directory for `synced import`, and the words saying what it costs. */
  private async unsaved(error: unknown): Promise<TargetError> {
    const why = error instanceof Error ? error.message : String(error);
    let kept = '';
    if (this.pending !== undefined) {
      const file = join(dirname(resolveRunsDir(this.options.runsDir, this.options.env as NodeJS.ProcessEnv)), `sync-memory-unsaved-${digestOf(targetIdentity(this.target)).slice(0, 12)}-${Date.now()}.json`);
      try {
        await mkdir(dirname(file), { recursive: true, mode: 0o700 });
        await writeFile(file, this.pending, { mode: 0o600, flag: 'wx' });
        kept = ` This run's memory is kept in ${file}: examctl synced import ${file} --sync-dir ${this.service.address} stores it (before the next night).`;
      } catch {
        // Nowhere to keep it: the words say what the next night does without it.
      }
    }
    const message =
      `the sync memory was not saved to ${this.service.address} (${why}): the service still holds it as it was before this run, so the next night sends again ` +
      'what this run sent (--changed-only), and cannot disable the users this run created or remove the links it added once they leave the file.' +
      kept;
    this.options.onUnsaved?.(message);
    return new TargetError(message);
  }
}

function digestOf(text: string | Buffer): string {
  return hash('sha256', text, 'hex');
}
