import { open, stat, type FileHandle } from 'node:fs/promises';
import { constants, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import type { Env } from '../system/env-values.js';
import { NONBLOCK } from '../system/regular-file.js';
import { configPath, type ExamctlConfig } from './config-file.js';

/*
 * Loose permissions on examctl's own files (each function below says which), said once on stderr where they matter and
 * listed by `doctor` (docs/security.md, "Other local users"). Places others can write are refused outright
 * (src/system/trusted-place.ts).
 */

async function modeOf(path: string): Promise<number | undefined> {
  if (process.platform === 'win32') return undefined;
  return (await stat(path).catch(() => undefined))?.mode;
}

/** The config file holds a token (a profile's `token`) and group or others can read it. */
export async function configTokenExposed(env: Env, config: ExamctlConfig | undefined): Promise<string | undefined> {
  if (!Object.values(config?.profiles ?? {}).some((profile) => profile.token !== undefined)) return undefined;
  const file = configPath(env);
  const mode = await modeOf(file);
  if (mode === undefined || (mode & 0o077) === 0) return undefined;
  return `the config file ${file} holds a token and is readable by group or others (mode ${(mode & 0o777).toString(8)}); chmod 600 ${file}`;
}

/** A token or PIN file group or others can read: the warning, for the reader (mode from its handle) and doctor. */
export function tokenFileModeWarning(file: string, mode: number, via: string): string | undefined {
  if (process.platform === 'win32' || (mode & 0o077) === 0) return undefined;
  return `${via}: ${file} is readable by group or others (mode ${(mode & 0o777).toString(8)}); consider chmod 600 ${file}`;
}

/** The token file a command would read (doctor's check): as above, from the file's current mode. */
export async function tokenFileExposed(file: string, via: string): Promise<string | undefined> {
  const mode = await modeOf(file);
  return mode === undefined ? undefined : tokenFileModeWarning(file, mode, via);
}

/** A runs directory whose runs `runs resume|show|list` would refuse (another's, or writable by group or others). */
export async function runsDirWarning(runsDir: string): Promise<string | undefined> {
  const { currentTrust, runsDirProblem } = await import('../runs/run-trust.js');
  const problem = await runsDirProblem(runsDir, currentTrust());
  return problem === undefined ? undefined : `${problem}; runs resume, show and list refuse the runs kept there`;
}

/** The trust rule as a check on the handle a file is read through (a profile's map file as its config is). */
export async function trustedFileCheck(
  place: string,
  path: string,
  env: Env,
): Promise<(handle: FileHandle, stat: Stats) => Promise<void>> {
  const { assertOpenedTrusted, currentTrustContext } = await import('../system/trusted-place.js');
  const context = currentTrustContext(env);
  return (handle, stat) => assertOpenedTrusted(place, path, handle, context, { stat });
}

/**
 * A file that becomes the sync memory (`synced import`, `synced adopt --file`), judged on its handle by the sync
 * directory's rule: exit 2 naming its owner, mode and how to bring it in (docs/sync.md, "A colleague's export").
 */
export async function memorySourceCheck(
  via: string,
  path: string,
  env: Env,
): Promise<(handle: FileHandle, stat: Stats) => Promise<void>> {
  const { openedProblem, currentTrustContext, UntrustedPlaceError } = await import('../system/trusted-place.js');
  const context = currentTrustContext(env);
  return async (handle, stat) => {
    const problem = await openedProblem(path, handle, context, { stat });
    if (problem === undefined) return;
    const mode = (stat.mode & 0o7777).toString(8).padStart(4, '0');
    throw new UntrustedPlaceError(
      `${via} ${path} (owner uid ${stat.uid}, mode ${mode}) would become the sync memory, not taken`,
      path,
      `${problem}; to bring in a file another user gave you, copy it into a folder of your own, compare its sha256sum with the one its sender tells you, and give the copy (docs/sync.md, "A colleague's export")`,
    );
  };
}

/** memorySourceCheck on a file another reader opens after (`synced adopt --file`), which names what it cannot open. */
export async function refuseOthersMemoryFile(via: string, path: string, env: Env): Promise<void> {
  const [{ openRegularFile }, { UntrustedPlaceError }] = await Promise.all([
    import('../system/regular-file.js'),
    import('../system/trusted-place.js'),
  ]);
  const check = await memorySourceCheck(via, path, env);
  const handle = await openRegularFile(path, { followLinks: true, check }).catch((error: unknown) => {
    if (error instanceof UntrustedPlaceError) throw error;
  });
  await handle?.close();
}

/** A place examctl takes trust from, as doctor names it. */
interface TrustedPlace {
  what: string;
  path: string;
  kind: 'file' | 'directory';
}

/**
 * Each place failing the trust rule (src/system/trusted-place.ts), as commands would judge it: a file on its opened
 * handle, a file not there by its directory, a directory not there by where it would be made.
 */
export async function untrustedPlaces(places: readonly TrustedPlace[], env: Env): Promise<string[]> {
  const { currentTrustContext, directoryProblem, openedProblem } = await import('../system/trusted-place.js');
  const context = currentTrustContext(env);
  const found: string[] = [];
  for (const place of places) {
    const handle =
      place.kind === 'directory'
        ? undefined
        : await open(place.path, constants.O_RDONLY | NONBLOCK).catch(() => undefined);
    const problem =
      handle === undefined
        ? await directoryProblem(place.kind === 'directory' ? place.path : dirname(place.path), context)
        : await openedProblem(place.path, handle, context).finally(() => handle.close());
    if (problem !== undefined) found.push(`${place.what} ${place.path} is not trusted: ${problem}`);
  }
  return found;
}
