/**
 * What `runs resume` decides before it runs the run's command again (docs/runs.md, "runs resume"): nothing to resume
 * said (a finished run's report instead), the PIN it sends, a command or input that cannot be run again refused,
 * and the directory, options and input the command runs with.
 */
import { printJson, type CommandDeps } from '../context/command-deps.js';
import type { GlobalOptions } from '../flags/global-options.js';
import { say } from '../formats/terminal-text.js';
import { CHANGED_INPUT_ADVICE, changedDigestedFile, type OpenedResume } from '../runs/resume-plan.js';
import { NothingToResumeError, RunJournalError } from '../runs/run-errors.js';
import type { Env } from '../system/env-values.js';
import { namedCopyOf } from './command-input.js';

/** Nothing to resume: said (exit 0), with --json's document; a finished run named is returned for `runs show`. */
export async function nothingToResume(error: unknown, json: boolean, deps: CommandDeps): Promise<string | undefined> {
  if (!(error instanceof NothingToResumeError)) throw error;
  await say(deps, `examctl: ${error.message}`);
  if (error.finishedRun !== undefined) return error.finishedRun;
  if (json) await printJson(deps, { run: null, resumed: false, reason: error.message });
  return undefined;
}

/**
 * The PIN a resume sends, and the environment its command reads: EXAMCTL_PIN (a job's other steps may set it) is a
 * PIN-started run's only, and the command reads it no more. A run started with a PIN needs it again: asked on a
 * terminal rather than typed where `ps` shows it (resumedOptions refuses a PIN missing or different).
 */
export async function resumePin(
  opened: OpenedResume,
  flags: { pin?: string | undefined; pinFile?: string | undefined },
  given: GlobalOptions,
  deps: CommandDeps,
): Promise<{ pin: string | undefined; env: Env }> {
  const { askPin, givenPin } = await import('../context/pin-source.js');
  const { header } = opened.record;
  const pinned = typeof header.options.pinSha256 === 'string';
  const env = { ...deps.env, EXAMCTL_PIN: undefined };
  let pin = await givenPin(flags, pinned ? deps : { ...deps, env });
  if (pin === undefined && pinned) pin = await askPin(`run ${header.id} was started with a PIN`, given, deps);
  return { pin, env };
}

/** A run whose command cannot run again (exit 2), or a file it read besides its input changed since (exit 2). */
export async function refuseUnresumable<E extends object>(
  entry: E,
  opened: OpenedResume,
): Promise<Exclude<E, { readonly notResumable: string }>> {
  const { id, command } = opened.record.header;
  if ('notResumable' in entry)
    throw new RunJournalError(`run ${id}: ${command} cannot be resumed: ${entry.notResumable}`);
  const fileChanged = await changedDigestedFile(opened.record);
  if (fileChanged !== undefined) throw new RunJournalError(`run ${id}: ${fileChanged}; ${CHANGED_INPUT_ADVICE}`);
  return entry as Exclude<E, { readonly notResumable: string }>;
}

/** A --store given to the resume: not used (the recorded target is), said. */
export function storeNotUsedLine(given: GlobalOptions): string | undefined {
  return given.store === undefined ? undefined : '--store not used: a resume takes the recorded target';
}

/**
 * How the command runs again: from the directory the run started in (its relative paths are that directory's), its
 * input as the run read it (a kept copy under the name it had), and over later runs, a row a later run sent another
 * request for too (docs/sync.md, "Stale input").
 */
export function resumedRun(
  opened: OpenedResume,
  options: Record<string, unknown>,
  overLater: boolean,
  cwd: string,
): { options: Record<string, unknown>; cwd: string; fileDeps: { pipedFile?: string; stdinFile?: string } } {
  const { header } = opened.record;
  const recordedCwd = header.options.cwd;
  const named = namedCopyOf(header.input);
  return {
    options: { ...options, ...(named && { file: named.file }), ...(overLater && { allowOldFile: true }) },
    cwd: typeof recordedCwd === 'string' ? recordedCwd : cwd,
    fileDeps: named?.deps ?? {},
  };
}
