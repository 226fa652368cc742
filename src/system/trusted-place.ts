import type { ErrorCodeId } from './error-codes.js';
import { constants, lstatSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import { lstat, open, type FileHandle } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { UsageError } from './errors.js';
import { describeSystemError } from './system-error-words.js';
import { userHome } from './user-dirs.js';
import { NOFOLLOW, NONBLOCK } from './regular-file.js';
import type { Env } from './env-values.js';

/*
 * The one rule for every place examctl takes trust from, and how the entry and the directories
 * above it are judged (on the handle, never a path checked then opened): docs/security.md, "The
 * rule". Nothing is checked on Windows (docs/security.md, "On Windows"), nor where process.getuid
 * is missing.
 */

const DIRECTORY = constants.O_DIRECTORY ?? 0;

interface TrustContext {
  /** The user's id; undefined (Windows): nothing is checked. */
  uid: number | undefined;
  /** Where the walk up stops (inclusive): the user's own directory. */
  home: string | undefined;
}

/** The real context: the process's uid (none on Windows) and the home (userHome). */
export function currentTrustContext(env: Env = process.env): TrustContext {
  const uid = process.platform === 'win32' || typeof process.getuid !== 'function' ? undefined : process.getuid();
  return { uid, home: userHome(env) };
}

/** A place examctl will not take trust from: exit 2, naming the path and the fix. */
export class UntrustedPlaceError extends UsageError {
  static override readonly defaultCode: ErrorCodeId = 'E2400';
  constructor(
    readonly place: string,
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${place}: ${reason}; examctl trusts nothing another user can write (docs/security.md, "Other local users")`);
  }
}

/**
 * Why one entry (the place itself, or a directory above it) is not to be trusted, or undefined; `risk`: what a
 * writer there could do, said before the fix.
 */
export function entryProblem(
  path: string,
  entry: Pick<Stats, 'uid' | 'mode'>,
  context: TrustContext,
  options: { ownerOnly?: boolean; risk?: string } = {},
): string | undefined {
  if (context.uid === undefined) return undefined;
  const ownerOk = entry.uid === context.uid || (!options.ownerOnly && entry.uid === 0);
  if (!ownerOk) {
    return `${path} is owned by uid ${entry.uid}, not by you (uid ${context.uid})${options.ownerOnly ? '' : ' or root'}: use a place of your own`;
  }
  if ((entry.mode & 0o022) !== 0) {
    const who = (entry.mode & 0o002) !== 0 ? 'others' : 'group';
    // The advice the user can follow: a folder of theirs they can close; root's they can only avoid.
    const fix =
      entry.uid === context.uid
        ? `chmod go-w ${path}`
        : 'use a path outside it (a link in it is judged by it: name the place by its own path)';
    const risk = options.risk === undefined ? '' : `: ${options.risk}`;
    return `${path} is writable by ${who} (mode ${(entry.mode & 0o7777).toString(8)})${risk}; ${fix}`;
  }
  return undefined;
}

/*
 * The walks up (an entry and its directory per level, each place's real path) make their calls
 * synchronously: a few dozen metadata calls a start (~60 of a dry run's ~85 thread-pool round trips,
 * each a wake-up of a pool thread and of the event loop, several times the call's own cost). Any
 * failure is "not there".
 */
const statOf = (path: string): Stats | undefined => tried(() => statSync(path));
const lstatOf = (path: string): Stats | undefined => tried(() => lstatSync(path));
const realPathOrUndefined = (path: string): string | undefined => tried(() => realpathSync.native(path));

function tried<T>(call: () => T): T | undefined {
  try {
    return call();
  } catch {
    return undefined;
  }
}

/** Sticky and root's: like /tmp, where nobody can rename or remove another user's entries. The walk stops there. */
function isStickyRootDir(entry: Stats): boolean {
  return entry.isDirectory() && entry.uid === 0 && (entry.mode & 0o1000) !== 0;
}

/** Why a directory above a place (from `dir` upward) is not to be trusted, or undefined. */
function walkUp(dir: string, context: TrustContext): string | undefined {
  for (let current = resolve(dir); ; current = dirname(current)) {
    const entry = statOf(current);
    // A directory that is not there yet is made by examctl (0700); it is judged once it exists.
    if (entry !== undefined) {
      if (isStickyRootDir(entry)) return undefined;
      const problem = entryProblem(current, entry, context);
      if (problem !== undefined) return problem;
    }
    if (context.home !== undefined && current === context.home) return undefined;
    if (dirname(current) === current) return undefined;
  }
}

/** The directories above `path` as named, and as the real path lies (links resolved), checked. */
async function directoriesProblem(path: string, context: TrustContext, realPath?: string): Promise<string | undefined> {
  if (context.uid === undefined) return undefined;
  const named = dirname(resolve(path));
  // Another user's link at the name or on the way picks which place is used: refused, named first (the fix).
  const problem = (await plantedEntryProblem(path, context, false)) ?? walkUp(named, context);
  if (problem !== undefined) return problem;
  const real = realPath ?? realPathOrUndefined(named);
  const realDir = realPath === undefined ? real : dirname(realPath);
  if (realDir !== undefined && realDir !== named) return walkUp(realDir, context);
  return undefined;
}

/** Where the opened handle really is: /proc/self/fd on Linux, else the path's realpath. */
function realPathOf(handle: FileHandle, path: string): string | undefined {
  if (process.platform === 'linux') {
    const link = tried(() => readlinkSync(`/proc/self/fd/${handle.fd}`));
    if (link !== undefined && link.startsWith('/')) return link;
  }
  return realPathOrUndefined(path);
}

/** Why an opened file (or directory) is not to be trusted: its own fstat, then the directories above it. */
export async function openedProblem(
  path: string,
  handle: FileHandle,
  context: TrustContext,
  options: { ownerOnly?: boolean; stat?: Stats } = {},
): Promise<string | undefined> {
  if (context.uid === undefined) return undefined;
  const entry = options.stat ?? (await handle.stat());
  const own = entryProblem(path, entry, context, options);
  if (own !== undefined) return own;
  return directoriesProblem(path, context, realPathOf(handle, path));
}

/** Throws UntrustedPlaceError for an opened file that fails the rule. */
export async function assertOpenedTrusted(
  place: string,
  path: string,
  handle: FileHandle,
  context: TrustContext,
  options: { ownerOnly?: boolean; stat?: Stats } = {},
): Promise<void> {
  const problem = await openedProblem(path, handle, context, options);
  if (problem !== undefined) throw new UntrustedPlaceError(place, path, problem);
}

interface DirectoryTrustOptions {
  /** Only the user, not root, may own the directory itself (a store found by searching). */
  ownerOnly?: boolean;
  /** Refuse the directory itself being a symbolic link (one examctl names and makes itself). */
  noLink?: boolean;
}

/**
 * Why a directory place (runs, store, sync directory) is not to be trusted, or undefined. It is
 * opened (O_DIRECTORY, O_NOFOLLOW with `noLink`) and judged by fstat; one not there yet is judged
 * by the directories it would be made in.
 */
export async function directoryProblem(
  path: string,
  context: TrustContext,
  options: DirectoryTrustOptions = {},
): Promise<string | undefined> {
  if (context.uid === undefined) return undefined;
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | DIRECTORY | NONBLOCK | (options.noLink ? NOFOLLOW : 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return directoriesProblem(path, context);
    // O_DIRECTORY|O_NOFOLLOW on a link: ELOOP on some systems, ENOTDIR on Linux.
    if (
      code === 'ELOOP' ||
      (code === 'ENOTDIR' && options.noLink && (await lstat(path).catch(() => undefined))?.isSymbolicLink())
    )
      return `${path} is a symbolic link: refused, never followed`;
    if (code === 'ENOTDIR') return `${path} is not a directory`;
    return `cannot open ${path}: ${describeSystemError(error, 'directory')}`;
  }
  return openedProblem(path, handle, context, options).finally(() => handle.close().catch(() => undefined));
}

/** Throws UntrustedPlaceError for a directory place that fails the rule (see directoryProblem). */
export async function assertDirectoryTrusted(
  place: string,
  path: string,
  context: TrustContext,
  options: DirectoryTrustOptions = {},
): Promise<void> {
  const problem = await directoryProblem(path, context, options);
  if (problem !== undefined) throw new UntrustedPlaceError(place, path, problem);
}

/**
 * Why an output must not be written (docs/security.md, "The report place is checked before
 * sending"), or a place not used (`replaced` false: the entry at the name is read, not renamed over).
 */
export async function plantedEntryProblem(
  path: string,
  context: TrustContext = currentTrustContext(),
  replaced = true,
): Promise<string | undefined> {
  if (context.uid === undefined) return undefined;
  const full = resolve(path);
  // Another user's entry at the name or link on the way, where others write; their link in a folder
  // of the user's (made while others could write it); a file a sticky folder keeps.
  for (let at = full; dirname(at) !== at; at = dirname(at)) {
    const entry = lstatOf(at);
    const dir = entry && statOf(dirname(at));
    if (entry === undefined || dir === undefined || entry.uid === context.uid) continue;
    const sticky =
      replaced && at === full && entry.isFile() && dir.mode & 0o1000 && context.uid && dir.uid !== context.uid;
    const mine = context.uid !== 0 && dir.uid === context.uid && entry.isSymbolicLink();
    if (!sticky && (entry.uid === 0 || (!mine && !entryProblem(at, dir, context)))) continue;
    if (!sticky && (at === full ? entry.isFile() : !entry.isSymbolicLink())) continue;
    const where = sticky ? 'sticky folder (only its owner may replace it)' : 'folder another user can write';
    // The user removes it (and closes the folder): it is theirs to clean.
    const closed = dir.mode & 0o022 ? `; chmod go-w ${dirname(at)}` : '';
    const fix = mine ? `a folder of yours: rm ${at}${closed}` : `a ${where}: choose another path`;
    return `${at} is already there, owned by uid ${entry.uid}, in ${fix}`;
  }
  return undefined;
}
