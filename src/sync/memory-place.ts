/** Where a target's sync memory is kept: a directory, or a state service via a private copy (docs/sync.md, "Where"). */
import { existsSync } from 'node:fs';
import { mkdir, open, rm, writeFile } from 'node:fs/promises';
import { makePrivateTempDir } from '../system/private-temp.js';
import type { Env } from '../system/env-values.js';
import { join } from 'node:path';
import { memoryDir, type MemoryPlace } from '../context/target.js';
import type { ReportTarget } from '../report/run-report.js';
import { messageOf, TargetError } from '../system/errors.js';
import { systemFailure } from '../system/system-error-words.js';
import { SYNC_KINDS, type SyncKind } from './memory-lines.js';
import { memoryFile, readMemory, rewritesOf, type MemoryContents } from './memory-files.js';
import { SyncMemory, type OpenMemoryOptions } from './sync-memory.js';
import { assertDocumentTarget, documentSum, documentText, readDocument } from './memory-document.js';
import { jsonObject, StateService, withService, type StateLockInfo } from './state-service.js';
import { lossAdvice } from './memory-loss.js';
import {
  besideAddress,
  MAX_DELTAS,
  readServiceDocument,
  readServiceMemory,
  storeDelta,
  writeAhead,
} from './write-ahead.js';

export interface PlaceOptions extends OpenMemoryOptions {
  /** What takes a service's lock, for its lock info (`examctl user sync`). */
  operation: string;
  env: Env;
}

/**
 * Opens the memory of `kind` at `place`; a real run on a service locks it (whether it decides or only feeds). `close`
 * ends it there (a service's copy stored and unlocked).
 */
export async function openPlacedMemory(
  place: MemoryPlace,
  target: ReportTarget,
  kind: SyncKind,
  options: PlaceOptions,
) {
  const copy = place.kind === 'dir' ? undefined : await ServiceCopy.open(place.address, target, options);
  const syncDir = place.kind === 'dir' ? place.syncDir : copy!.syncDir;
  let memory: SyncMemory;
  try {
    memory = await SyncMemory.open(syncDir, target, kind, options);
  } catch (error) {
    await copy?.finish(false).catch(() => undefined);
    throw error;
  }
  return {
    memory,
    /** Its file, or the service's address and the kind. */
    name: place.kind === 'dir' ? memory.file : `${place.address} (${kind})`,
    /** The run whose intents written ahead a service's memory took in (it never stored its end). */
    foldedRun: copy?.foldedRun,
    /** What `run` recorded so far reaches a service before more is sent (docs/sync.md, "Written ahead"). */
    writeAhead: async (run: string) => copy?.writeAhead(run),
    /** The same target's memory of another kind, as kept beside this one now (read, no lock). */
    readKind: (other: SyncKind) => readMemory(memoryFile(syncDir, target, other), other, target),
    async close() {
      try {
        await memory.close();
      } finally {
        await copy?.finish(!options.readOnly, kind);
      }
    },
  };
}

/** The memories of a target at `place`, read without a lock; a service's document must be of `target`. */
export async function readPlacedMemories(place: MemoryPlace, target: ReportTarget, env: Env) {
  if (place.kind === 'dir')
    return { name: memoryDir(place.syncDir, target), memories: await readMemories(place.syncDir, target) };
  return withService(place.address, env, async (service) => {
    const document = await readServiceDocument(service, lossAdvice());
    if (document !== undefined) await assertDocumentTarget(document, place.address, target);
    return { name: place.address, memories: document?.memories ?? new Map<SyncKind, MemoryContents>() };
  });
}

/** Every kind's memory of `target` in `syncDir` (a service's copy too), read without a lock. */
async function readMemories(syncDir: string, target: ReportTarget): Promise<Map<SyncKind, MemoryContents>> {
  const memories = new Map<SyncKind, MemoryContents>();
  for (const kind of SYNC_KINDS) memories.set(kind, await readMemory(memoryFile(syncDir, target, kind), kind, target));
  return memories;
}

/** A state service's memory as one run's private 0700 copy, stored back if changed, under the lock it took first. */
export class ServiceCopy {
  private constructor(
    private readonly service: StateService,
    private readonly target: ReportTarget,
    readonly syncDir: string,
    private readonly lockInfo: StateLockInfo | undefined,
    private serial: number,
    /** Each kind's copy as last stored or written ahead: its file's rewrites and the length on record. */
    private readonly pushed: Map<SyncKind, Mark>,
    /** The memory as the service holds it: its document, the deltas on it, where each kind's copy ends then. */
    private stored:
      | {
          base: string;
          bytes: number;
          deltas: number;
          deltaBytes: number;
          at: Map<SyncKind, Mark>;
        }
      | undefined,
  ) {}

  /** The run under way, and how many batches it wrote ahead on the document of `serial`. */
  private run: string | undefined;
  private batches = 0;
  private pushing: Promise<void> = Promise.resolve();

  /** Uploads the lines gained since last stored or written ahead, batch after batch (docs/sync.md, "Written ahead"). */
  writeAhead(run: string): Promise<void> {
    if (this.lockInfo === undefined) return Promise.resolve();
    this.run = run;
    this.pushing = this.pushing.then(() => this.pushNow(run));
    return this.pushing;
  }

  private async pushNow(run: string): Promise<void> {
    const { lines, at: now, rewritten } = await this.tails(this.pushed);
    try {
      // Rewritten (compacted): stored whole; lines appended since `now` go again (replayed, they change nothing).
      if (rewritten) {
        await this.storeWhole(now);
        this.batches = 0;
      } else if (Object.keys(lines).length > 0) {
        await writeAhead(this.service, { serial: this.serial, run, from: this.batches }, lines);
        this.batches += 1;
      }
    } catch (error) {
      // Its first batch: nothing was sent, so its copy is never stored (finish).
      this.startFailed ||= !this.startedAhead;
      const why = messageOf(error);
      throw new TargetError(
        `the sync memory could not be stored on ${this.service.address} before the requests it was for went out (${why}): ${this.startedAhead ? 'they were not sent' : 'nothing was sent'}`,
        { code: 'E3050' },
      );
    }
    this.startedAhead = true;
    for (const [kind, at] of now) this.pushed.set(kind, at);
  }

  /** Whether the first batch failed (nothing sent: the copy is never stored), or one succeeded. */
  private startFailed = false;
  private startedAhead = false;
  /** The run whose intents written ahead the copy took in (it never stored its end; open). */
  foldedRun: string | undefined;

  /**
   * After a failed first batch, a level the service took all the same (its answer lost) is taken out unless it
   * carries an earlier run's intents: no later night takes this run for one that did something.
   */
  private async withdrawMark(): Promise<void> {
    const at = besideAddress(this.service.address, 'intents-0');
    const text = await this.service.read(at);
    if (text !== undefined && this.foldedRun === undefined && jsonObject(text).run === this.run)
      await this.service.remove(undefined, at);
  }

  /** A copy removed under the run reads as no memory: stored, every user would be forgotten. Refused. */
  private async assertCopy(): Promise<void> {
    if (!existsSync(join(this.syncDir, COPY_MARK)))
      throw new TargetError(`this run's copy of the memory (${this.syncDir}) was removed while the run ran`);
  }

  /** Locks the service (a run that writes), reads its document and writes it out. */
  static async open(address: string, target: ReportTarget, options: PlaceOptions): Promise<ServiceCopy> {
    const service = new StateService(address, options.env);
    let lockInfo: StateLockInfo | undefined;
    let syncDir: string | undefined;
    try {
      if (!options.readOnly) lockInfo = await service.lock(options.operation, options.lockTimeoutMs, options.onWait);
      const text = await service.read();
      const document = text === undefined ? undefined : readDocument(text, address, lossAdvice());
      const held = await readServiceMemory(service, document, false);
      if (document !== undefined) await assertDocumentTarget(document, address, target);
      syncDir = await makePrivateTempDir('synced');
      const dir = memoryDir(syncDir, target);
      await mkdir(dir, { mode: 0o700 });
      await writeFile(join(syncDir, COPY_MARK), '', { mode: 0o600, flag: 'wx' });
      const pushed = new Map<SyncKind, Mark>();
      // What a run that never stored its end wrote ahead is folded in, tentative (docs/sync.md, "Written ahead").
      const folded = held.folded;
      if (folded !== undefined)
        options.onNote?.(
          `the sync memory at ${address} holds what run ${folded.run} wrote ahead and never stored as its end (killed, or its runner lost): taken in, its requests as tentative`,
        );
      for (const kind of SYNC_KINDS) {
        const memoryText = document?.texts.get(kind);
        const text = (memoryText ?? '') + (folded?.lines[kind] ?? '');
        if (text === '') continue;
        const file = memoryFile(syncDir, target, kind);
        await writeFile(file, text, { mode: 0o600, flag: 'wx' });
        pushed.set(kind, { rewrites: rewritesOf(file), size: Buffer.byteLength(memoryText ?? '') });
      }
      const stored =
        document === undefined
          ? undefined
          : {
              base: document.sha256,
              bytes: text!.length,
              deltas: held.deltas,
              deltaBytes: held.deltaBytes,
              at: new Map(pushed),
            };
      const copy = new ServiceCopy(service, target, syncDir, lockInfo, document?.serial ?? 0, pushed, stored);
      copy.foldedRun = folded?.run;
      return copy;
    } catch (error) {
      if (syncDir !== undefined) await rm(syncDir, { recursive: true, force: true }).catch(() => undefined);
      if (lockInfo !== undefined) await service.unlock(lockInfo).catch(() => undefined);
      await service.close();
      throw systemFailure(
        error,
        `cannot write this run's copy of the sync memory in ${syncDir ?? 'the private temp folder'}`,
      );
    }
  }

  /** Ends the run's use of the service: the copy stored if changed (`store`), the lock released, the copy removed. */
  async finish(store: boolean, kind?: SyncKind): Promise<void> {
    let failure: TargetError | undefined;
    try {
      if (store && this.lockInfo !== undefined && this.startFailed) await this.withdrawMark().catch(() => undefined);
      else if (store && this.lockInfo !== undefined) await this.store();
    } catch (error) {
      failure = this.unsaved(error, kind);
    }
    try {
      if (this.lockInfo !== undefined) await this.service.unlock(this.lockInfo);
    } catch (error) {
      const words = messageOf(error);
      const message =
        `the lock of the sync memory at ${this.service.address} was not released (${words}): the next run is refused until it is; ` +
        `release it with examctl synced unlock ${this.lockInfo!.ID} --sync-dir ${this.service.address}`;
      // Said after the store's failure, which keeps its code (E3050).
      if (failure === undefined) failure = new TargetError(message);
      else failure.message += `; ${message}`;
    } finally {
      await rm(this.syncDir, { recursive: true, force: true }).catch(() => undefined);
      await this.service.close();
    }
    if (failure !== undefined) throw failure;
  }

  /** The run's end, a delta or the memory whole: docs/sync.md, "Stored as deltas" (MAX_DELTAS). */
  private async store(): Promise<void> {
    await this.assertCopy();
    const { lines, at, rewritten } = await this.tails(this.stored?.at ?? new Map());
    const bytes = Object.values(lines).reduce((sum, text) => sum + text.length, 0);
    if (bytes === 0 && !rewritten) return;
    if (
      this.stored !== undefined &&
      !rewritten &&
      this.stored.deltas < MAX_DELTAS &&
      this.stored.deltaBytes + bytes <= this.stored.bytes / 2
    ) {
      await storeDelta(this.service, this.stored.deltas + 1, {
        base: this.stored.base,
        serial: this.serial + 1,
        run: this.run ?? '',
        lines,
      });
      return;
    }
    await this.storeWhole(at);
  }

  /** The memory stored whole: a new document, serial one up (the old deltas stay until new ones replace them). */
  private async storeWhole(at: Map<SyncKind, Mark>): Promise<void> {
    await this.assertCopy();
    const text = documentText(this.target, await readMemories(this.syncDir, this.target), this.serial + 1);
    await this.service.write(text, this.lockInfo?.ID);
    this.serial += 1;
    this.stored = { base: documentSum(text), bytes: text.length, deltas: 0, deltaBytes: 0, at: new Map(at) };
  }

  /** The whole lines each kind's copy gained past `from` (fileTail), where they end, and whether one was rewritten. */
  private async tails(from: Map<SyncKind, Mark>) {
    const lines: Partial<Record<SyncKind, string>> = {};
    const at = new Map<SyncKind, Mark>();
    let rewritten = false;
    for (const kind of SYNC_KINDS) {
      const tail = await fileTail(memoryFile(this.syncDir, this.target, kind), from.get(kind));
      rewritten ||= tail === undefined ? from.has(kind) : tail.rewritten;
      if (tail === undefined) continue;
      at.set(kind, tail.at);
      if (tail.text !== '') lines[kind] = tail.text;
    }
    return { lines, at, rewritten };
  }

  /** A store that failed: the words saying what it costs. */
  private unsaved(error: unknown, kind?: SyncKind): TargetError {
    // Kept in a file (StateService.write):
    if ((error as { whole?: boolean }).whole === true) return error as TargetError;
    const why = messageOf(error);
    // What the run wrote ahead is on the service: the next night takes it in (docs/sync.md, "Written ahead").
    const cost = this.startedAhead
      ? 'the service holds it as it was before this run plus what this run wrote ahead, which the next night takes in (its requests as tentative, checked again).'
      : 'the service still holds it as it was before this run, so the next night sends again what this run sent (--changed-only), and cannot disable the users this run created or remove the links it added once they leave the file.';
    return new TargetError(
      `the sync memory${kind === 'users' || !kind ? '' : ` (${kind})`} was not saved to ${this.service.address} (${why}): ${cost}`,
      { code: 'E3050' },
    );
  }
}

/** Where a copy's file was last stored or written ahead: its rewrites by then (`rewritesOf`) and its length. */
type Mark = { rewrites: number; size: number };

/** Made with the copy: gone, the copy was removed under the run (a writer of the copy never makes this again). */
const COPY_MARK = 'copy-of-the-service';

/** The whole lines of a memory file past `from`, where they end; `rewritten`: compacted since, offsets void. */
async function fileTail(file: string, from: Mark | undefined) {
  const handle = await open(file, 'r').catch((error: NodeJS.ErrnoException) =>
    error.code === 'ENOENT' ? undefined : Promise.reject(error),
  );
  if (handle === undefined) return undefined;
  try {
    const { size } = await handle.stat();
    const rewrites = rewritesOf(file);
    const rewritten = from !== undefined && (from.rewrites !== rewrites || size < from.size);
    const start = from === undefined || rewritten ? 0 : from.size;
    const bytes = Buffer.alloc(Math.max(0, size - start));
    await handle.read(bytes, 0, bytes.length, start);
    const whole = bytes.lastIndexOf(0x0a) + 1;
    return { at: { rewrites, size: start + whole }, text: bytes.toString('utf8', 0, whole), rewritten };
  } finally {
    await handle.close();
  }
}
