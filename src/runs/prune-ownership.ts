import { constants } from 'node:fs';
import { lstat, open, readdir, rmdir, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { kindOf } from '../system/regular-file.js';
import type { RunTrust } from './run-trust.js';
import { describeSystemError } from '../system/system-error-words.js';

/*
 * What `runs prune` may remove (docs/security.md, "Other local users"). In a shared runs
 * directory another user can plant an entry that looks like a run: a directory of theirs, or a
 * symbolic link to a directory elsewhere (their own, or one of the user's). Prune removes only
 * what is plainly the user's run: a real directory (never a link followed out of the runs
 * directory), owned by the user, holding only regular files the user owns. Anything else is
 * left alone and said. Where there are no uids (Windows) ownership is not checked; the kinds are.
 */

/** The lstat fields the predicate reads: kinds and owner. */
export type EntryStat = Parameters<typeof kindOf>[0] & { uid: number; isFile(): boolean };

/** Why prune must leave `entry` (a run directory, or a file in one) alone, or undefined when it may remove it. */
export function pruneRefusal(entry: EntryStat, want: 'directory' | 'file', trust: RunTrust): string | undefined {
  const kindOk = want === 'directory' ? entry.isDirectory() : entry.isFile();
  if (!kindOk) return `${kindOf(entry)}, not a ${want === 'directory' ? 'directory' : 'regular file'}`;
  if (trust.uid !== undefined && entry.uid !== trust.uid) return `owned by uid ${entry.uid}, not by you`;
  return undefined;
}

/** A run directory opened once (O_DIRECTORY, O_NOFOLLOW): what is read and removed is reached through the handle. */
interface OpenedRunDir {
  handle: FileHandle;
  /** The directory as the handle sees it: /proc/self/fd/N on Linux (a rename or swap of the path changes nothing), else the path. */
  base: string;
}

const DIR_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Opens and judges the run directory itself; a reason to leave it (never a throw). */
async function openRunDir(dir: string, trust: RunTrust): Promise<OpenedRunDir | string> {
  let handle: FileHandle;
  try {
    handle = await open(dir, DIR_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'gone';
    if (code === 'ELOOP') return 'a symbolic link, not a directory';
    if (code === 'ENOTDIR') {
      const entry = await lstat(dir).catch(() => undefined);
      return entry === undefined ? 'gone' : `${kindOf(entry)}, not a directory`;
    }
    return `cannot read it: ${describeSystemError(error)}`;
  }
  try {
    const refusal = pruneRefusal(await handle.stat(), 'directory', trust);
    if (refusal !== undefined) {
      await handle.close();
      return refusal;
    }
  } catch (error) {
    await handle.close().catch(() => undefined);
    return `cannot read it: ${describeSystemError(error)}`;
  }
  const base = process.platform === 'linux' ? `/proc/self/fd/${handle.fd}` : dir;
  return { handle, base };
}

/**
 * Why the run directory `dir` (and what it holds) must be left alone, or undefined. Opened once
 * without following a link and judged on that handle, each entry with lstat (never followed);
 * then `then` acts on the names through the handle. Never throws (a run directory that vanished
 * or changed kind meanwhile is a reason, not an internal error).
 */
export async function runDirRefusal(dir: string, trust: RunTrust, then?: (base: string, names: string[]) => Promise<void>): Promise<string | undefined> {
  const opened = await openRunDir(dir, trust);
  if (typeof opened === 'string') return opened;
  try {
    let names: string[];
    try {
      names = await readdir(opened.base);
      for (const name of names) {
        const inner = await lstat(join(opened.base, name)).catch(() => undefined);
        if (inner === undefined) continue; // removed meanwhile
        const innerRefusal = pruneRefusal(inner, 'file', trust);
        if (innerRefusal !== undefined) return `${name} is ${innerRefusal}`;
      }
    } catch (error) {
      return `cannot read it: ${describeSystemError(error)}`;
    }
    await then?.(opened.base, names);
    return undefined;
  } catch (error) {
    return `cannot remove it: ${describeSystemError(error)}`;
  } finally {
    await opened.handle.close().catch(() => undefined);
  }
}

/**
 * Why nothing in the runs directory can be removed safely, or undefined: where others may write
 * and the sticky bit is off, they could swap a checked run directory for a link between the check
 * and the removal. (The sticky bit, as on /tmp, forbids renaming another user's entries.)
 */
export async function runsDirPruneRefusal(runsDir: string, trust: RunTrust): Promise<string | undefined> {
  if (trust.uid === undefined) return undefined;
  const entry = await stat(runsDir).catch(() => undefined);
  if (entry === undefined || (entry.mode & 0o022) === 0 || (entry.mode & 0o1000) !== 0) return undefined;
  return `the runs directory ${runsDir} is writable by ${(entry.mode & 0o002) !== 0 ? 'others' : 'group'} without the sticky bit (mode ${(entry.mode & 0o7777).toString(8)}): nothing pruned; chmod go-w ${runsDir} (or chmod +t)`;
}

/**
 * Removes a run directory that `runDirRefusal` accepted (judged again here on the handle it is
 * removed through, after the caller took the run's lock): each regular file the user owns, then
 * the directory. Resolves the reason it was left instead, when something changed meanwhile;
 * never throws. `release` (the caller's lock) is let go whenever the directory stays.
 */
export async function removeOwnedRun(dir: string, trust: RunTrust, release: () => Promise<void> = async () => undefined): Promise<string | undefined> {
  let left = await runDirRefusal(dir, trust, async (base, names) => {
    // Through the handle: a path swapped for a link meanwhile is not where these unlinks land.
    for (const name of names) await unlink(join(base, name)).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : Promise.reject(error)));
  });
  // rmdir never follows a link and removes only an empty directory.
  left ??= await rmdir(dir).then(
    () => undefined,
    (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : `cannot remove it: ${describeSystemError(error)}`),
  );
  if (left !== undefined) await release().catch(() => undefined);
  return left;
}
