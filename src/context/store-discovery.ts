/** Finding the local store the way git finds `.git`, and where the search stops: docs/cli.md, "The local store". */
import { dirname, join, posix, relative, resolve, win32 } from 'node:path';

/** Case-insensitive on Windows and macOS, as their file systems are (`c:\` from one tool, `C:\` from another). */
export function samePath(a: string, b: string, platform: NodeJS.Platform = process.platform): boolean {
  if (platform === 'win32' || platform === 'darwin') return a.toLowerCase() === b.toLowerCase();
  return a === b;
}

/** The fs questions the search asks; the CLI answers with the store's CURRENT file and the trust rule. */
interface StoreProbe {
  isStore(dir: string): Promise<boolean>;
  /** Why the search must not look in `dir` nor above it (a store found there could be another user's). */
  stopAt?(dir: string): Promise<string | undefined>;
}

export interface StoreDiscovery {
  store: string;
  /** True when an existing store was found (here or in a parent); false: the current directory's, not there yet. */
  found: boolean;
}

/** The directories to look in, nearest first: `start`, then its parents, stopping before `home` and the root. */
export function searchDirectories(
  start: string,
  home: string | undefined,
  platform: NodeJS.Platform = process.platform,
): string[] {
  const path = platform === 'win32' ? win32 : posix;
  const from = path.resolve(start);
  const stop = home === undefined || home === '' ? undefined : path.resolve(home);
  const atStop = (dir: string) => stop !== undefined && samePath(dir, stop, platform);
  const dirs = [from];
  if (atStop(from)) return dirs;
  for (let dir = path.dirname(from); ; dir = path.dirname(dir)) {
    const root = path.dirname(dir) === dir;
    if (root || atStop(dir)) break;
    dirs.push(dir);
  }
  return dirs;
}

export async function discoverStore(options: {
  cwd: string;
  home: string | undefined;
  storeName: string;
  probe: StoreProbe;
}): Promise<StoreDiscovery> {
  for (const dir of searchDirectories(options.cwd, options.home)) {
    if ((await options.probe.stopAt?.(dir)) !== undefined) break;
    const candidate = join(dir, options.storeName);
    if (await options.probe.isStore(candidate)) return { store: candidate, found: true };
  }
  return { store: join(resolve(options.cwd), options.storeName), found: false };
}

/** The line naming a parent's store, so nobody writes to a store they did not mean; undefined for the cwd's. */
export function describeDiscovery(discovery: StoreDiscovery, cwd: string): string | undefined {
  if (!discovery.found || samePath(dirname(discovery.store), resolve(cwd))) return undefined;
  return `using the local store ${relative(resolve(cwd), discovery.store)} (found in a parent directory: ${discovery.store})`;
}
