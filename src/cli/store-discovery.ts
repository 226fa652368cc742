/**
 * Finding the local store the way git finds `.git`: in the current directory, else in a parent,
 * so `examctl` run from a project's subdirectory uses the project's store instead of quietly
 * creating a second one. The search stops below the home directory and below the filesystem
 * root (neither is searched unless it is where examctl runs): a stray `~/.examctl-store` must
 * not capture every project under the home directory. Nothing found: the store is the one in the
 * current directory, created on first use as before. `--store` and EXAMCTL_STORE skip the search.
 */
import { dirname, join, relative, resolve } from 'node:path';

/** The one fs question the search asks; the CLI answers it with the store's own check (its CURRENT file). */
export interface StoreProbe {
  isStore(dir: string): Promise<boolean>;
}

export interface StoreDiscovery {
  /** Absolute path of the store to use. */
  store: string;
  /** True when an existing store was found (here or in a parent); false: the current directory's, not there yet. */
  found: boolean;
  /** The directories whose store was looked for, nearest first. */
  searched: string[];
}

/** The directories to look in, nearest first: `start`, then its parents, stopping before `home` and the root. */
export function searchDirectories(start: string, home: string | undefined): string[] {
  const from = resolve(start);
  const stop = home === undefined || home === '' ? undefined : resolve(home);
  const dirs = [from];
  if (from === stop) return dirs;
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const root = dirname(dir) === dir;
    if (root || dir === stop) break;
    dirs.push(dir);
  }
  return dirs;
}

export async function discoverStore(options: { cwd: string; home: string | undefined; storeName: string; probe: StoreProbe }): Promise<StoreDiscovery> {
  const searched: string[] = [];
  for (const dir of searchDirectories(options.cwd, options.home)) {
    searched.push(dir);
    const candidate = join(dir, options.storeName);
    if (await options.probe.isStore(candidate)) return { store: candidate, found: true, searched };
  }
  return { store: join(resolve(options.cwd), options.storeName), found: false, searched };
}

/**
 * The line naming the store when it is not the obvious one (a parent's), so nobody writes to a
 * store they did not mean: `using the local store ../../.examctl-store (found in a parent directory)`.
 * Undefined when the store is the current directory's.
 */
export function describeDiscovery(discovery: StoreDiscovery, cwd: string): string | undefined {
  if (!discovery.found || dirname(discovery.store) === resolve(cwd)) return undefined;
  return `using the local store ${relative(resolve(cwd), discovery.store)} (found in a parent directory: ${discovery.store})`;
}
