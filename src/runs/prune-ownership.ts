import { lstat, readdir, rm, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RM_RETRY } from '../busy-retry.js';
import { kindOf } from '../regular-file.js';
import type { RunTrust } from './run-trust.js';

/*
 * What `runs prune` may remove (docs/security.md, "Other local users"). In a shared runs
 * directory another user can plant an entry that looks like a run: a directory of theirs, or a
 * symbolic link to a directory elsewhere (their own, or one of the user's). Prune removes only
 * what is plainly the user's run: a real directory (never a link followed out of the runs
 * directory), owned by the user, holding only regular files the user owns. Anything else is
 * left alone and said. Where there are no uids (Windows) ownership is not checked; the kinds are.
 */

/** The lstat fields the predicate reads: kinds and owner. */
export interface EntryStat {
  uid: number;
  isFile(): boolean;
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSymbolicLink(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSocket(): boolean;
}

/** Why prune must leave `entry` (a run directory, or a file in one) alone, or undefined when it may remove it. */
export function pruneRefusal(entry: EntryStat, want: 'directory' | 'file', trust: RunTrust): string | undefined {
  const kindOk = want === 'directory' ? entry.isDirectory() : entry.isFile();
  if (!kindOk) return `${kindOf(entry)}, not a ${want === 'directory' ? 'directory' : 'regular file'}`;
  if (trust.uid !== undefined && entry.uid !== trust.uid) return `owned by uid ${entry.uid}, not by you`;
  return undefined;
}

/**
 * Why the run directory `dir` (and what it holds) must be left alone, or undefined. Read with
 * lstat only: a link is judged as a link, never followed.
 */
export async function runDirRefusal(dir: string, trust: RunTrust): Promise<string | undefined> {
  const entry = await lstat(dir).catch((error: NodeJS.ErrnoException) => error);
  if (entry instanceof Error) return entry.code === 'ENOENT' ? 'gone' : `cannot read it: ${entry.code ?? entry.message}`;
  const refusal = pruneRefusal(entry, 'directory', trust);
  if (refusal !== undefined) return refusal;
  for (const name of await readdir(dir)) {
    const inner = await lstat(join(dir, name)).catch(() => undefined);
    if (inner === undefined) continue; // removed meanwhile
    const innerRefusal = pruneRefusal(inner, 'file', trust);
    if (innerRefusal !== undefined) return `${name} is ${innerRefusal}`;
  }
  return undefined;
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
 * Removes a run directory that `runDirRefusal` accepted (checked again here, after the caller took
 * the run's lock): each regular file the user owns, then the directory. Resolves the reason it
 * was left instead, when something changed meanwhile.
 */
export async function removeOwnedRun(dir: string, trust: RunTrust): Promise<string | undefined> {
  const refusal = await runDirRefusal(dir, trust);
  if (refusal !== undefined) return refusal;
  for (const name of await readdir(dir)) await rm(join(dir, name), { force: true, ...RM_RETRY });
  await rmdir(dir);
  return undefined;
}
