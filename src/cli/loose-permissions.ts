import { stat } from 'node:fs/promises';

/*
 * Loose permissions on examctl's own files, said once on stderr where they matter and listed by
 * `doctor` (docs/security.md, "Other local users"): a config file holding a token that others
 * can read; a token file that others can read; a runs directory others can write (they could plant a run; `runs resume|show|list`
 * refuse it); a store others can write (they could change what the local engine holds).
 * Windows has no such modes: nothing is said there.
 */

async function modeOf(path: string): Promise<number | undefined> {
  if (process.platform === 'win32') return undefined;
  return (await stat(path).catch(() => undefined))?.mode;
}

/** The config file holds a token (a profile's `token`) and group or others can read it. */
export async function configTokenExposed(file: string, holdsToken: boolean): Promise<string | undefined> {
  if (!holdsToken) return undefined;
  const mode = await modeOf(file);
  if (mode === undefined || (mode & 0o077) === 0) return undefined;
  return `the config file ${file} holds a token and is readable by group or others (mode ${(mode & 0o777).toString(8)}); chmod 600 ${file}`;
}

/** A token file's mode lets group or others read it: the warning, for the reader (mode from its open handle) and doctor alike. */
export function tokenFileModeWarning(file: string, mode: number, via: string): string | undefined {
  if (process.platform === 'win32' || (mode & 0o077) === 0) return undefined;
  return `${via}: ${file} is readable by group or others (mode ${(mode & 0o777).toString(8)}); consider chmod 600 ${file}`;
}

/** The token file a command would read (doctor's check): as above, from the file's current mode. */
export async function tokenFileExposed(file: string, via: string): Promise<string | undefined> {
  const mode = await modeOf(file);
  return mode === undefined ? undefined : tokenFileModeWarning(file, mode, via);
}

/** A store that others can write. */
export async function storeWritableByOthers(dir: string): Promise<string | undefined> {
  const mode = await modeOf(dir);
  if (mode === undefined || (mode & 0o002) === 0) return undefined;
  return `the store ${dir} is writable by others (mode ${(mode & 0o7777).toString(8)}): any local user can change what the local engine holds; chmod o-w ${dir}`;
}

/** A runs directory whose runs `runs resume|show|list` would refuse (another's, or writable by group or others). */
export async function runsDirWarning(runsDir: string): Promise<string | undefined> {
  const { currentTrust, runsDirProblem } = await import('../runs/run-trust.js');
  const problem = await runsDirProblem(runsDir, currentTrust());
  return problem === undefined ? undefined : `${problem}; runs resume, show and list refuse the runs kept there`;
}
