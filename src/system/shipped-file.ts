import { getAsset, isSea } from 'node:sea';
import { sep } from 'node:path';
import { readRegularFileWithStat, SETTINGS_FILE_MAX_BYTES } from './regular-file.js';

/**
 * The bytes of a file shipped as an asset of the one-file executable (docs/ci.md, "Releasing the
 * one-file executables"); undefined elsewhere, or for a path not shipped: the caller reads the file.
 */
export function shippedAsset(path: string): Buffer | undefined {
  if (!isSea() || !path.startsWith(process.execPath + sep)) return undefined;
  try {
    return Buffer.from(
      getAsset(
        path
          .slice(process.execPath.length + 1)
          .split(sep)
          .join('/'),
      ),
    );
  } catch {
    return undefined;
  }
}

/** The demo world as named: the one-file executable has no such file. */
export const DEMO_WORLD = `the demo world ${isSea() ? 'built into examctl' : '(fixtures/world.json)'}`;

/** A file that ships with examctl: its asset, else a regular file of at most `maxBytes`. */
export async function readShippedFile(path: string, maxBytes = SETTINGS_FILE_MAX_BYTES): Promise<Buffer> {
  return shippedAsset(path) ?? (await readRegularFileWithStat(path, { followLinks: true, maxBytes })).bytes;
}
