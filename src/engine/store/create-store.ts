/** Making a store: a new one appears whole or not at all; an existing one is replaced by a new generation. */
import type { ErrorCodeId } from '../../system/error-codes.js';
import { constants } from 'node:fs';
import { access, mkdir, readdir, rename, rm, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import { StoreDamagedError, TargetError, UsageError } from '../../system/errors.js';
import { fsyncDirectory, ATOMIC_TEMP_PREFIX, probeMakeDir, writeFileAtomic } from '../../system/atomic-file.js';
import { retryWhileBusy, RM_RETRY } from '../../system/busy-retry.js';
import type { Change, StoreIndexer } from './contract.js';
import { DEFAULT_LOCK_TIMEOUT_MS, StoreLock, LOCK_TEMP_PREFIX } from '../../system/lock.js';
import {
  CURRENT_FILE,
  journalFileName,
  readManifest,
  generationOfFile,
  snapshotFileName,
  writeManifest,
} from './manifest.js';
import { firstHead } from './store-head.js';
import { mapsFrom, type Maps, snapshotEntries } from './snapshot-entries.js';
import { keepStoreInstance, writeStoreInstance } from './store-instance.js';
import { describeSystemError, systemErrorCode, systemFailure } from '../../system/system-error-words.js';
import { processAlive } from '../../system/process-liveness.js';
import { writeSnapshot } from './snapshot.js';
import { storeExists } from './current-file.js';

/** `createStore` without force found a store (or lost the race to another process creating one). */
export class StoreExistsError extends UsageError {
  static override readonly defaultCode: ErrorCodeId = 'E2300';
}

/** Why a run cannot write the store or make it (none yet: tried in the nearest existing parent). */
export async function storeUnwritable(dir: string): Promise<string | undefined> {
  if (await storeExists(dir)) {
    const denied = (path: string) =>
      access(path, constants.W_OK).then(
        () => undefined,
        (error: unknown) => `a run cannot write ${path}: ${describeSystemError(error)}`,
      );
    const journal = join(dir, journalFileName((await readManifest(dir)).generation));
    return (await denied(dir)) ?? denied(journal);
  }
  const { place, error } = await probeMakeDir(dirname(resolve(dir)));
  return error === undefined
    ? undefined
    : `no store yet, and none can be created in ${place}: ${describeSystemError(error, 'directory')}`;
}

interface CreateStoreOptions {
  /** Replace an existing store (its content is lost). */
  force?: boolean;
  /** Hints to write beside each entity (the engine's indexer), so the first load needs not parse values. */
  indexer?: StoreIndexer;
  /** How long a replacement waits for the existing store's lock (ms). Default DEFAULT_LOCK_TIMEOUT_MS. */
  lockTimeoutMs?: number;
}

/** Creates a store holding `initial`, or with `force` replaces one (docs/store.md, "Creating and replacing"). */
export async function createStore(
  dir: string,
  initial: Iterable<Change>,
  options: CreateStoreOptions = {},
): Promise<'created' | 'replaced'> {
  const target = resolve(dir);
  const maps = mapsFrom(initial);
  if (await storeExists(target)) {
    if (!options.force) throw new StoreExistsError(`a store already exists at ${target}; use --force to replace it`);
    await replaceStore(target, maps, options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS, options.indexer);
    return 'replaced';
  }
  let entries: string[] | undefined;
  try {
    entries = await readdir(target);
  } catch (error) {
    const code = systemErrorCode(error);
    if (code === 'ENOTDIR') throw new UsageError(`${target} exists and is not a directory`);
    if (code !== 'ENOENT')
      throw new TargetError(`cannot read ${target}: ${describeSystemError(error, 'directory')}`, { cause: error });
  }
  if (entries && entries.length > 0) {
    throw new UsageError(`${target} exists and is not an examctl store (no ${CURRENT_FILE}); refusing to touch it`);
  }
  const parent = dirname(target);
  await mkdir(parent, { recursive: true });
  const temp = join(parent, `.${basename(target)}.creating-${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    await mkdir(temp, { mode: 0o700 });
    await writeStoreInstance(temp);
    await writeGeneration(temp, 1, maps, options.indexer, null);
    try {
      // Retried while an antivirus or indexer still holds a file of the new directory (Windows).
      await retryWhileBusy(() => rename(temp, target));
    } catch (error) {
      const code = systemErrorCode(error);
      // Windows says EPERM where POSIX says ENOTEMPTY for a directory renamed onto a store.
      if (
        code === 'ENOTEMPTY' ||
        code === 'EEXIST' ||
        (code === 'EPERM' && (await storeExists(target).catch(() => false)))
      ) {
        throw new StoreExistsError(
          `a store already exists at ${target} (created by another process); use --force to replace it`,
        );
      }
      throw error;
    }
    await fsyncDirectory(parent);
  } catch (error) {
    await rm(temp, { recursive: true, force: true, ...RM_RETRY }).catch(() => undefined);
    throw systemFailure(error, `cannot create the store at ${target}`, 'directory');
  }
  return 'created';
}

async function replaceStore(
  target: string,
  maps: Maps,
  lockTimeoutMs: number,
  indexer: StoreIndexer | undefined,
): Promise<void> {
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
    for (const name of await readdir(target)) highest = Math.max(highest, generationOfFile(name) ?? 0);
    const next = highest + 1;
    // A new instance before the switch: a crash in between leaves the old content under a new
    // id, so a sync memory of it is not used (everything sent again), never the reverse. A
    // failure seen before the switch puts the old id back: the old content stays as it was.
    const putBack = await keepStoreInstance(target);
    await writeStoreInstance(target);
    try {
      await writeGeneration(target, next, maps, indexer, null);
    } catch (error) {
      if ((await readManifest(target).catch(() => undefined))?.generation !== next)
        await putBack().catch(() => undefined);
      throw error;
    }
    await removeLeftovers(target, next);
  } catch (error) {
    throw systemFailure(error, `cannot replace the store at ${target}`);
  } finally {
    await lock.release().catch(() => undefined);
  }
}

/* Writing a whole generation (a new store, a compaction, a replacement) and removing the old ones. */
/**
 * Writes generation `generation` (snapshot + empty journal) into `dir`, then points CURRENT at it.
 * `head`: a compaction's, the head it keeps (its history written before: store-head.ts); else a new history begins.
 */
export async function writeGeneration(
  dir: string,
  generation: number,
  maps: Maps,
  indexer: StoreIndexer | undefined,
  hintsVersion: string | null,
  head?: string,
): Promise<void> {
  const entries = snapshotEntries(maps, indexer, hintsVersion);
  await writeSnapshot(join(dir, snapshotFileName(generation)), generation, entries, indexer?.version ?? null);
  await writeFileAtomic(join(dir, journalFileName(generation)), async () => undefined);
  await writeManifest(dir, generation, head ?? firstHead());
}

/** Removes what older generations and killed processes left; only called under the lock. */
export async function removeLeftovers(dir: string, keepGeneration: number): Promise<void> {
  let removed = false;
  for (const name of await readdir(dir)) {
    const generation = generationOfFile(name);
    let remove = false;
    if (generation !== undefined) remove = generation !== keepGeneration;
    else if (name.startsWith(ATOMIC_TEMP_PREFIX)) remove = true;
    else if (name.startsWith(LOCK_TEMP_PREFIX)) {
      const pid = Number(/^\.lock-(\d+)-/.exec(name)?.[1]);
      remove = Number.isInteger(pid) && pid > 0 && pid !== process.pid && !processAlive(pid);
    }
    if (remove) {
      await unlink(join(dir, name)).catch(() => undefined);
      removed = true;
    }
  }
  if (removed) await fsyncDirectory(dir);
}
