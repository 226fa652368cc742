import { getAsset, isSea } from 'node:sea';
import { sep } from 'node:path';
import { readRegularFileWithStat, SETTINGS_FILE_MAX_BYTES } from './regular-file.js';

/**
 * The bytes of a file that ships with examctl (package.json, fixtures/world.json, the
 * program's hash) when examctl runs as a one-file executable (scripts/build-release.mjs): there is no
 * package on disk, the build places the package root at the executable's own path (so
 * `new URL('../package.json', import.meta.url)` names `<executable>/package.json`), and each
 * shipped file is an asset named by its path from that root. Undefined anywhere else, or for a
 * path that is not one of them: the caller reads the file.
 */
export function shippedAsset(path: string): Buffer | undefined {
  if (!isSea() || !path.startsWith(process.execPath + sep)) return undefined;
  try {
    return Buffer.from(getAsset(path.slice(process.execPath.length + 1).split(sep).join('/')));
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
