/**
 * What `runs resume` decides before it runs the run's command again (docs/runs.md, "runs resume"): nothing to resume
 * said (a finished run's report instead), the PIN it sends, a command or input that cannot be run again refused,
 * and the directory, options and input the command runs with.
 */
import type { StoreKeyKind } from '../port/integration-api.js';
import { resolve } from 'node:path';
import { printJson, type CommandDeps } from '../context/command-deps.js';
import type { GlobalOptions } from '../flags/global-options.js';
import { say } from '../formats/terminal-text.js';
import { CHANGED_INPUT_ADVICE, changedDigestedFile, type OpenedResume } from '../runs/resume-plan.js';
import type { RunIndex } from '../runs/read-run.js';
import { NothingToResumeError, RunJournalError } from '../runs/run-errors.js';
import type { Env } from '../system/env-values.js';
import type { PlanGuard } from '../runs/plan-document.js';
import { namedCopyOf } from './command-input.js';
import { lostByStore } from './run-journaling.js';

/** Nothing to resume: said (exit 0), with --json's document; a finished run named is returned for `runs show`. */
export async function nothingToResume(error: unknown, json: boolean, deps: CommandDeps): Promise<string | undefined> {
  if (!(error instanceof NothingToResumeError)) throw error;
  await say(deps, `examctl: ${error.message}`);
  if (error.finishedRun !== undefined) return error.finishedRun;
  if (json) await printJson(deps, { run: null, resumed: false, reason: error.message });
  return undefined;
}

/**
 * Whether a finished run's local store lost rows it applied (restored since, docs/runs.md, "runs resume"): a resume
 * sends exactly those again. `entry` is the run's command (cli/resume-registry.ts): its store keys, if it has any.
 */
export async function localStoreLost(
  record: RunIndex,
  entry: { readonly storeKeys?: StoreKeyKind } | { readonly notResumable: string },
): Promise<boolean> {
  const keys = 'storeKeys' in entry ? entry.storeKeys : undefined;
  const { target } = record.header;
  if (keys === undefined || target.kind !== 'local' || record.header.storeHead === undefined) return false;
  const { storeHead } = await import('../context/target.js');
  const local = { kind: 'local' as const, store: target.store, report: target };
  return (await lostByStore((asked) => storeHead(local, asked, true), record, keys)) > 0;
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

/**
 * An apply's run sends the plan's requests only, resumed too (docs/plan.md, "Apply"): the guard of the plan apply kept
 * for it (E2601 where it is gone or another), each request checked against it; none for another command's run.
 */
export async function resumedPlanGuard(
  opened: OpenedResume,
  runsDir: string,
  cwd: string,
): Promise<PlanGuard | undefined> {
  const { plan, id } = opened.record.header;
  if (plan === undefined) return undefined;
  const { keptPlanGuard } = await import('./plan-apply.js');
  return keptPlanGuard(resolve(cwd, runsDir), plan, id);
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
