/** Finding the local store the way git finds `.git`, and where the search stops: docs/cli.md, "The local store". */
import { dirname, join, posix, relative, resolve, win32 } from 'node:path';

/**
 * Whether two resolved paths name the same directory. Windows and macOS file systems are
 * case-insensitive by default (and Windows drive letters come in either case: `c:\` from one
 * tool, `C:\` from another), so there the comparison ignores case; elsewhere it is exact.
 */
export function samePath(a: string, b: string, platform: NodeJS.Platform = process.platform): boolean {
  if (platform === 'win32' || platform === 'darwin') return a.toLowerCase() === b.toLowerCase();
  return a === b;
}

/**
 * The fs questions the search asks; the CLI answers them with the store's own check (its CURRENT file) and the trust
 * rule.
 */
interface StoreProbe {
  isStore(dir: string): Promise<boolean>;
  /**
   * Why the search must not look in `dir` nor above it (a folder another user owns or group or
   * others can write: what is found there could be theirs), or undefined. Absent: no such stop.
   */
  stopAt?(dir: string): Promise<string | undefined>;
}

export interface StoreDiscovery {
  /** Absolute path of the store to use. */
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

/**
 * The line naming the store when it is not the obvious one (a parent's), so nobody writes to a
 * store they did not mean: `using the local store ../../.examctl-store (found in a parent directory)`.
 * Undefined when the store is the current directory's.
 */
export function describeDiscovery(discovery: StoreDiscovery, cwd: string): string | undefined {
  if (!discovery.found || samePath(dirname(discovery.store), resolve(cwd))) return undefined;
  return `using the local store ${relative(resolve(cwd), discovery.store)} (found in a parent directory: ${discovery.store})`;
}
