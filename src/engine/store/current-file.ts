/**
 * Whether a folder holds a store, by its CURRENT file (manifest.ts reads and writes it), and no more: a dry
 * run with no store yet asks this and loads no engine or store code.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { storeFileUnreadable, systemErrorCode } from '../../system/system-error-words.js';

/** The file naming a store's generation in force: a store is a folder with one. */
export const CURRENT_FILE = 'CURRENT';

export async function storeExists(dir: string): Promise<boolean> {
  try {
    await stat(join(dir, CURRENT_FILE));
    return true;
  } catch (error) {
    const code = systemErrorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw storeFileUnreadable(join(dir, CURRENT_FILE), error);
  }
}
