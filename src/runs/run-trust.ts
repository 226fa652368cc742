import { lstat } from 'node:fs/promises';
import { RunJournalError } from './run-errors.js';
import { JOURNAL_FILE } from './run-journal.js';
import { join } from 'node:path';
import { kindOf } from '../system/regular-file.js';
import { currentTrustContext, directoryProblem, entryProblem } from '../system/trusted-place.js';
import { describeSystemError } from '../system/system-error-words.js';

/**
 * Which runs `runs list|show|resume` may use (docs/security.md, "Other local users": "Runs
 * directory"): a resume sends the user's token to the target a journal names, so a journal
 * another user could have written is never read, nor one that is not a regular file.
 */
export interface RunTrust {
  /** The current user's id; undefined where there are no uids (Windows): nothing is checked. */
  uid: number | undefined;
}

/** The real one. Tests inject another uid to play "another user" (they run as root). */
export function currentTrust(): RunTrust {
  return { uid: typeof process.getuid === 'function' ? process.getuid() : undefined };
}

/** Why the runs directory cannot be used (in a folder another user can write, too), or undefined: trusted-place.ts. */
export async function runsDirProblem(runsDir: string, trust: RunTrust): Promise<string | undefined> {
  if (trust.uid === undefined) return undefined;
  const problem = await directoryProblem(runsDir, { uid: trust.uid, home: currentTrustContext().home });
  if (problem === undefined) return undefined;
  return problem.startsWith(`${runsDir} `)
    ? `the runs directory ${problem}`
    : `the runs directory ${runsDir} cannot be trusted: ${problem}`;
}

/** Why one run cannot be used, or undefined (also without `trust`): its directory and journal, links not followed. */
export async function runProblem(
  runsDir: string,
  id: string,
  trust: RunTrust | undefined,
): Promise<string | undefined> {
  if (trust?.uid === undefined) return undefined;
  const dir = join(runsDir, id);
  const entry = await lstat(dir).catch((error: NodeJS.ErrnoException) => error);
  if (entry instanceof Error)
    return entry.code === 'ENOENT' ? undefined : `cannot read ${dir}: ${describeSystemError(entry, 'directory')}`;
  if (!entry.isDirectory()) return `${dir} is not a directory (${kindOf(entry)})`;
  const risk = 'anyone who can write there could plant a run';
  const loose = entryProblem(dir, entry, { uid: trust.uid, home: undefined }, { ownerOnly: true, risk });
  if (loose !== undefined) return `the run directory ${loose}`;
  const file = join(dir, JOURNAL_FILE);
  const journal = await lstat(file).catch((error: NodeJS.ErrnoException) => error);
  if (journal instanceof Error)
    return journal.code === 'ENOENT' ? undefined : `cannot read ${file}: ${describeSystemError(journal, 'file')}`;
  if (!journal.isFile()) return `${file} is not a regular file (${kindOf(journal)}): refused`;
  if (journal.uid !== trust.uid)
    return `the run journal ${file} is owned by uid ${journal.uid}, not by you (uid ${String(trust.uid)})`;
  return undefined;
}

/** Throws the refusal (exit 2, E2400: an untrusted place) when the runs directory or the run cannot be used. */
export async function assertTrustedRun(runsDir: string, id: string, trust: RunTrust): Promise<void> {
  const problem = (await runsDirProblem(runsDir, trust)) ?? (await runProblem(runsDir, id, trust));
  if (problem !== undefined) throw new RunJournalError(`run ${id} not used: ${problem}`, { code: 'E2400' });
}

/** Throws the refusal (exit 2, E2400) when the runs directory cannot be used. */
export async function assertTrustedRunsDir(runsDir: string, trust: RunTrust): Promise<void> {
  const problem = await runsDirProblem(runsDir, trust);
  if (problem !== undefined) throw new RunJournalError(`${problem}; no run in it is used`, { code: 'E2400' });
}
