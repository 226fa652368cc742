/** Writing a whole generation (a new store, a compaction, a replacement) and removing the old ones. */
import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ATOMIC_TEMP_PREFIX, fsyncDirectory, writeFileAtomic } from '../../system/atomic-file.js';
import type { StoreIndexer } from './contract.js';
import { LOCK_TEMP_PREFIX } from '../../system/lock.js';
import { processAlive } from '../../system/process-liveness.js';
import { generationOfFile, journalFileName, snapshotFileName, writeManifest } from './manifest.js';
import { writeSnapshot } from './snapshot.js';
import { snapshotEntries, type Maps } from './snapshot-entries.js';

/** Writes generation `generation` (snapshot + empty journal) into `dir`, then points CURRENT at it. */
export async function writeGeneration(
  dir: string,
  generation: number,
  maps: Maps,
  indexer: StoreIndexer | undefined,
  hintsVersion: string | null,
): Promise<void> {
  const entries = snapshotEntries(maps, indexer, hintsVersion);
  await writeSnapshot(join(dir, snapshotFileName(generation)), generation, entries, indexer?.version ?? null);
  await writeFileAtomic(join(dir, journalFileName(generation)), async () => undefined);
  await writeManifest(dir, generation);
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

/** The highest generation any snapshot or journal file in `dir` belongs to (0: none). */
export async function highestGenerationIn(dir: string): Promise<number> {
  let highest = 0;
  for (const name of await readdir(dir)) highest = Math.max(highest, generationOfFile(name) ?? 0);
  return highest;
}
