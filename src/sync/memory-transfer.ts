/**
 * `synced export` and `synced import`: a target's whole memory as one portable document, and put
 * back in place under its lock (what is refused: docs/sync.md, "When the memory is lost").
 */
import { MAX_JSON_DEPTH, scanJsonYielding } from '../system/json-scan.js';
import { targetIdentity, type ReportTarget } from '../report/run-report.js';
import { UsageError } from '../system/errors.js';
import type { Env } from '../system/env-values.js';
import { writeFileAtomic } from '../system/atomic-file.js';
import { systemFailure } from '../system/system-error-words.js';
import { lockForDeciding, makeTrustedMemoryDir } from './memory-access.js';
import { rm, stat } from 'node:fs/promises';
import { FileTooLargeError, NotRegularFileError, readRegularFileWithStat } from '../system/regular-file.js';
import { formatBytes } from '../formats/number-format.js';
import { cannotRead } from '../input/text-source.js';
import { MAX_STATE_BYTES } from '../context/state-http.js';
import { memorySourceCheck } from '../context/loose-permissions.js';
import { SYNC_KINDS, type SyncKind } from './memory-lines.js';
import { heldBy, memoryFile, populationsOf, readMemory, recordsAnything, type MemoryContents } from './memory-files.js';
import {
  assertDocumentTarget,
  documentText,
  newestRunOfMemories,
  readDocument,
  type MemoryDocument,
} from './memory-document.js';
import { readPlacedMemories, type PlaceOptions } from './memory-place.js';
import { memoryDir, type MemoryPlace } from '../context/target.js';
import { forgetBeside, readServiceDocument, readServiceMemory } from './write-ahead.js';
import { jsonObject, withService, type StateService } from './state-service.js';

/** The document of the target's memory at `place` (exit 2 when it has none: nothing to keep). */
export async function exportMemory(place: MemoryPlace, target: ReportTarget, env: Env) {
  const { name, memories } = await readPlacedMemories(place, target, env);
  const held = new Map([...memories].filter(([, contents]) => recordsAnything(contents)));
  if (held.size === 0)
    throw new UsageError(`no sync memory for ${targetIdentity(target)} at ${name}: nothing to export`);
  return { text: documentText(target, held, 0), memories: held, newestRun: newestRunOfMemories(held) };
}

/** Whether a memory whose newest run is `newest` replacing one whose newest is `replaced` forgets the runs since. */
export function forgetsNewerRuns(newest: string | undefined, replaced: string | undefined): boolean {
  return replaced !== undefined && (newest === undefined || newest < replaced);
}

/** A memory document to import: bounded, a regular file of the user's own (another user's is no memory of yours). */
export async function readMemoryDocumentFile(file: string, path: string, env: Env): Promise<string> {
  try {
    const { size } = await stat(path);
    if (size > MAX_STATE_BYTES)
      throw new UsageError(
        `${file}: ${formatBytes(size)} is more than a sync memory examctl reads (${formatBytes(MAX_STATE_BYTES)})`,
      );
    // Judged on the handle it is read through.
    const check = await memorySourceCheck('synced import', path, env);
    const read = await readRegularFileWithStat(path, { followLinks: true, maxBytes: MAX_STATE_BYTES, check });
    return read.bytes.toString('utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if (error instanceof NotRegularFileError || error instanceof FileTooLargeError)
      throw new UsageError(`${file}: ${error.message}`);
    throw cannotRead(file, error);
  }
}

/** `force`: import a document older than the memory already there. */
type ImportOptions = Pick<PlaceOptions, 'lockTimeoutMs' | 'onWait' | 'env'> & { force: boolean };

/** Reads and checks a document for `target` (every entry parsed), then replaces the memory at `place`, locked. */
export async function importMemory(
  place: MemoryPlace,
  target: ReportTarget,
  text: string,
  source: string,
  options: ImportOptions,
): Promise<{ document: MemoryDocument; replaced: string | undefined }> {
  // Ctrl-C stops a long one at once (readDocument holds the event loop).
  await scanJsonYielding(text, { depth: MAX_JSON_DEPTH });
  const document = readDocument(text, source);
  // Every entry parsed and checked: a line that is not one is exit 2 naming it.
  for (const contents of document.memories.values()) for (const _entry of contents.entries.values());
  // The target is found as for every command (docs/cli.md, "The local store"), never taken from the file.
  await assertDocumentTarget(document, source, target, {
    done: 'nothing written',
    way:
      document.target.kind === 'local'
        ? `; to import it as the memory of the store it is of, give --store ${document.target.store}`
        : `; to import it as the memory of ${document.target.baseUrl}, give --base-url ${document.target.baseUrl} or that target's --profile`,
  });
  if ((await heldBy(document.memories.values(), target)) === false) {
    throw new UsageError(
      `${source}: the store ${targetIdentity(target)} is not the one this sync memory is of (it holds none of the store heads the memory saw, or another store instance than an older examctl's memory names; or it was restored to before them all): ` +
        'refused, nothing written (the store holds nothing the memory remembers)',
      { code: 'E2504' },
    );
  }
  const newest = newestRunOfMemories(document.memories);
  // A copy older than the memory there would forget what the runs since sent; one taken while a
  // run still wrote lacks that run's end, which the memory there may hold (docs/sync.md, "Format").
  // Returns the newest run of the memory it replaces (a damaged one has none: an import replaces it).
  const refuseStale = (present: ReadonlyMap<SyncKind, MemoryContents> = new Map()): string | undefined => {
    const replaced = newestRunOfMemories(present);
    if (options.force) return replaced;
    if (forgetsNewerRuns(newest, replaced)) {
      throw new UsageError(
        `${source}: its newest run is ${newest ?? '(none)'}, older than the memory already there (newest run ${replaced}): importing it would forget what the runs since sent; ` +
          'refused, nothing written. Export the memory there first if in doubt; give --force to replace it anyway',
        { code: 'E2506' },
      );
    }
    for (const [kind, contents] of document.memories) {
      const here = present.get(kind);
      if (here === undefined) continue;
      const held = populationsOf(here);
      for (const [key, record] of populationsOf(contents)) {
        if (record.ended !== false || held.get(key)?.run !== record.run || held.get(key)?.ended !== true) continue;
        throw new UsageError(
          `${source}: it was exported while run ${record.run} still wrote its ${kind} memory (it lacks that run's end), and the memory here holds the end: importing it would forget what that run did last; ` +
            'refused, nothing written. Export again now; give --force to replace it anyway',
          { code: 'E2506' },
        );
      }
    }
    return replaced;
  };
  if (place.kind === 'service') {
    const replaced = await underServiceLock(
      place.address,
      target,
      'examctl synced import',
      options,
      async (service, lockId, present, text) => {
        const replaced = refuseStale(present?.memories);
        // A document that could not be read whole: the serial its JSON says, if any (a service keeps a version per
        // serial).
        const serial = present?.serial ?? jsonObject(text).serial;
        const next = (typeof serial === 'number' && Number.isSafeInteger(serial) && serial > 0 ? serial : 0) + 1;
        await service.write(documentText(target, document.memories, next), lockId);
        return replaced;
      },
    );
    return { document, replaced };
  }
  const dir = memoryDir(place.syncDir, target);
  await makeTrustedMemoryDir(place.syncDir, dir);
  const lock = await lockForDeciding(dir, options.lockTimeoutMs, options.onWait);
  try {
    const present = new Map<SyncKind, MemoryContents>();
    for (const kind of SYNC_KINDS) {
      // A damaged memory is what an import replaces: only one that can be read has a newest run to compare.
      const contents = await readMemory(memoryFile(place.syncDir, target, kind), kind, target).catch(() => undefined);
      if (contents !== undefined) present.set(kind, contents);
    }
    const replaced = refuseStale(present);
    for (const kind of SYNC_KINDS) {
      const file = memoryFile(place.syncDir, target, kind);
      const memoryText = document.texts.get(kind);
      if (memoryText === undefined) await rm(file, { force: true });
      else
        await writeFileAtomic(file, (writer) => writer.write(memoryText), { mode: 0o600 }).catch((error: unknown) =>
          Promise.reject(systemFailure(error, `cannot write ${file}`)),
        );
    }
    return { document, replaced };
  } finally {
    await lock.release();
  }
}

/**
 * `use` run on a state service's document under its lock: the document as it is (undefined: none,
 * or damaged: what an import or a forget replaces); another target's is refused (exit 2).
 */
async function underServiceLock<T>(
  address: string,
  target: ReportTarget,
  operation: string,
  options: Omit<ImportOptions, 'force'>,
  use: (
    service: StateService,
    lockId: string,
    present: MemoryDocument | undefined,
    text: string | undefined,
  ) => Promise<T>,
): Promise<T> {
  return withService(address, options.env, async (service) => {
    const lock = await service.lock(operation, options.lockTimeoutMs, options.onWait);
    try {
      const text = await service.read();
      let present: MemoryDocument | undefined;
      try {
        present = text === undefined ? undefined : readDocument(text, address);
        await readServiceMemory(service, present, true);
      } catch {
        // Damaged: replaced or forgotten as it is.
      }
      if (present !== undefined) await assertDocumentTarget(present, address, target);
      return await use(service, lock.ID, present, text);
    } finally {
      await service.unlock(lock);
    }
  });
}

/** The memories a state service keeps (whatever target its document names), for `synced show`. */
export async function serviceMemories(address: string, env: Env): Promise<MemoryContents[]> {
  return withService(address, env, async (service) =>
    [...((await readServiceDocument(service))?.memories.values() ?? [])].filter(recordsAnything),
  );
}

/** `synced forget` on a state service: its document removed under its lock; returns how many ids it remembered. */
export async function forgetServiceMemory(
  address: string,
  target: ReportTarget,
  options: Omit<ImportOptions, 'force'>,
): Promise<number> {
  return underServiceLock(address, target, 'examctl synced forget', options, async (service, lockId, present) => {
    let forgotten = 0;
    for (const contents of present?.memories.values() ?? []) forgotten += contents.entries.size;
    await service.remove(lockId);
    await forgetBeside(service);
    return forgotten;
  });
}

/** `synced unlock`: a state service's lock released; a sync directory has none to release (its LOCK is taken over). */
export async function releaseServiceLock(place: MemoryPlace, lockId: string, env: Env): Promise<string> {
  if (place.kind === 'dir') {
    throw new UsageError(
      `${place.syncDir} is a sync directory: a LOCK whose process is gone is taken over by the next run there, so there is nothing to release (this is for a state service's lock)`,
    );
  }
  await withService(place.address, env, (service) => service.unlock({ ID: lockId }));
  return place.address;
}
