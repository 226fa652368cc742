import { getAsset, isSea } from 'node:sea';
import { readFile } from 'node:fs/promises';
import { sep } from 'node:path';

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

/** A file that ships with examctl: from the executable's assets, or else the package on disk (a world file given by path too). */
export async function readShippedFile(path: string): Promise<Buffer> {
  return shippedAsset(path) ?? (await readFile(path));
}
