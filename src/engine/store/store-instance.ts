/**
 * A store's instance id (docs/store.md, "Files": INSTANCE), kept in the file INSTANCE beside
 * CURRENT, so a memory of a store since replaced at the same path is never taken for the new one.
 */
import { randomBytes } from 'node:crypto';
import { link, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ATOMIC_TEMP_PREFIX, writeFileAtomic } from '../../system/atomic-file.js';
import { readRegularFile } from '../../system/regular-file.js';
import { storeFileUnreadable, systemErrorCode } from '../../system/system-error-words.js';

const INSTANCE_FILE = 'INSTANCE';

/** Gives the store in `dir` a new instance id (atomic replace); called before its content is switched. */
export async function writeStoreInstance(dir: string, id = randomBytes(16).toString('base64url')): Promise<string> {
  await writeFileAtomic(join(dir, INSTANCE_FILE), async (writer) => {
    await writer.write(`${id}\n`);
  });
  return id;
}

/**
 * Keeps the store's instance id before a new one is written; the answer puts it back (a replacement
 * that failed before its switch). Kept by a hard link where it can be: putting back needs no room.
 */
export async function keepStoreInstance(dir: string): Promise<() => Promise<unknown>> {
  const [file, kept] = [join(dir, INSTANCE_FILE), join(dir, `${ATOMIC_TEMP_PREFIX}${INSTANCE_FILE}`)];
  if (
    await link(file, kept).then(
      () => true,
      () => false,
    )
  )
    return () => rename(kept, file);
  const id = await readStoreInstance(dir).catch(() => undefined);
  return async () => (id === undefined ? rm(file, { force: true }) : writeStoreInstance(dir, id));
}

/** The store's instance id; undefined for a store made before stores had one (or no store at all). */
export async function readStoreInstance(dir: string): Promise<string | undefined> {
  try {
    const id = (await readRegularFile(join(dir, INSTANCE_FILE))).trim();
    return id === '' ? undefined : id;
  } catch (error) {
    const code = systemErrorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw storeFileUnreadable(join(dir, INSTANCE_FILE), error);
  }
}
