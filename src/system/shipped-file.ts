import { getAsset, isSea } from 'node:sea';
import { readFile } from 'node:fs/promises';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** A shipped file's text, from the executable's assets or else the package on disk. */
export async function readShippedFile(url: URL): Promise<string> {
  const path = fileURLToPath(url);
  return (shippedAsset(path) ?? (await readFile(path))).toString('utf8');
}
