/**
 * How `examctl apply` runs the plan's command (docs/plan.md, "Apply"): with which options and from where, the plan
 * claimed before any request goes (of two applies, the first), a refusal before sending leaving it applicable again,
 * and what a plan applied already says.
 */
import { resolve } from 'node:path';
import { ExamctlError, ExitCode, UsageError } from '../system/errors.js';
import { printJson, type CommandDeps } from '../context/command-deps.js';
import type { ResolvedTarget, TargetOf } from '../context/resolved-target.js';
import type { GlobalOptions } from '../flags/global-options.js';
import type { KeptOptions } from '../flags/option-table.js';
import { say } from '../formats/terminal-text.js';
import { actionWords } from '../report/plan-actions.js';
import { type PlanDocument, readPlan } from '../runs/plan-document.js';
import {
  type AppliedRecord,
  appliedBefore,
  DEFAULT_PLAN_MAX_AGE_MS,
  forgetApplied,
  judgeApplied,
  keepPlan,
  keptInputs,
  planGuard,
  planPlace,
  recordApplied,
  recordApplyEnded,
  refuseMovedPlan,
} from './plan-apply.js';

/** The global flags that name a file or directory: apply's own, read from where apply runs (docs/plan.md, "Apply"). */
const TYPED_PATHS = ['store', 'tokenFile', 'report', 'runsDir'] as const;

/** The flags given to apply, laid over the plan's; a target flag must name the plan's target (refused otherwise). */
export function applyFlags(options: object, cwd: string): Record<string, unknown> {
  const flags = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  for (const name of TYPED_PATHS) if (typeof flags[name] === 'string') flags[name] = resolve(cwd, flags[name]);
  return flags;
}

/** A plan of a command that cannot run again is refused (exit 2); else its entry. */
export function refuseUnappliable<E extends object>(
  entry: E,
  plan: Pick<PlanDocument, 'command'>,
  given: string,
): Exclude<E, { readonly notResumable: string }> {
  if ('notResumable' in entry)
    throw new UsageError(`plan ${given}: ${plan.command} cannot be applied: ${entry.notResumable}`);
  return entry as Exclude<E, { readonly notResumable: string }>;
}

/**
 * The options the plan's command runs with, never asking (the plan a person reviewed is the confirmation): the kept
 * copy of its input read under the name the dry run read (`file`), so its rows name the file the person reviewed.
 */
export function applyRunOptions(
  plan: Pick<PlanDocument, 'options'>,
  flags: Record<string, unknown>,
  kept: Record<string, string>,
): { runOptions: Record<string, unknown>; file?: string; fileDeps: { pipedFile?: string; stdinFile?: string } } {
  const runOptions: Record<string, unknown> = { ...plan.options, ...flags, ...kept, yes: true };
  const reviewed = typeof plan.options.file === 'string' && kept.file !== undefined ? plan.options.file : undefined;
  if (reviewed === undefined) return { runOptions, fileDeps: {} };
  return { runOptions, file: reviewed, fileDeps: { pipedFile: reviewed, stdinFile: kept.file } };
}

/** What apply needs of the plan's command (cli's resume registry): how it runs and which options it keeps. */
type ApplyEntry =
  | {
      readonly run: () => Promise<(options: never, deps: CommandDeps, target: TargetOf) => Promise<number>>;
      readonly keptOptions: KeptOptions;
    }
  | { readonly notResumable: string };

/** The plan's command run again from its kept inputs, settings and target, each request checked (docs/plan.md). */
export async function applyPlan(
  given: string,
  maxAge: number | undefined,
  options: GlobalOptions,
  deps: CommandDeps,
  entryOf: (command: string) => ApplyEntry,
): Promise<number> {
  const json = options.json === true;
  const dryRun = options.dryRun === true;
  const path = resolve(deps.cwd, given);
  const plan = await readPlan(path, given);
  const place = planPlace(plan, deps);
  const flags = applyFlags(options, deps.cwd);
  const { targetOnce } = await import('../context/target.js');
  // Applied already: a dry run says so too, as apply would (its own run moved the store since the plan).
  const before = await appliedBefore(place);
  if (before !== undefined) {
    const invocation = { ...plan.options, ...flags };
    const target = targetOnce(invocation as GlobalOptions, { ...deps, cwd: plan.cwd, invocation });
    return appliedAlready(plan, given, before, place, await target(), json, deps);
  }
  const entry = refuseUnappliable(entryOf(plan.command), plan, given);
  const { runOptions, file, fileDeps } = applyRunOptions(plan, flags, await keptInputs(plan, place, given));
  // The id of the run that applies the plan (applying.onRun).
  let run: string | undefined;
  const runDeps: CommandDeps = {
    ...deps,
    cwd: plan.cwd,
    invocation: runOptions,
    ...fileDeps,
    ...(options.report === undefined ? {} : { reportName: options.report }),
    keptOptions: entry.keptOptions,
    commandFlags: entry.keptOptions.names,
    applying: {
      ...planGuard(plan, given),
      // The run's id, on record before any request goes: applied again, the plan is judged by where that run stands.
      onRun: async (id) => {
        run = id;
        if (!dryRun) await recordApplied(place, { started, run });
      },
    },
  };
  const target = targetOnce(runOptions as GlobalOptions, runDeps);
  await refuseMovedPlan(plan, given, await target(), maxAge ?? DEFAULT_PLAN_MAX_AGE_MS, runDeps);
  const started = deps.now().toISOString();
  // Of two applies at once, the one that records first goes; the other is judged as a plan applied already.
  if (!dryRun && !(await recordApplied(place, { started }, true))) {
    const first = (await appliedBefore(place)) ?? { started: 'an unknown time' };
    return appliedAlready(plan, given, first, place, await target(), json, deps);
  }
  // The plan kept beside its record: a resume of the run checks each request against it.
  if (!dryRun) await keepPlan(place, path);
  await say(
    deps,
    `applying plan ${plan.id} (${plan.command}, made at ${plan.created}) from ${given}: ${actionWords(plan.counts, true)}`,
  );
  const command = await entry.run();
  let exitCode: number;
  try {
    exitCode = await command((file === undefined ? runOptions : { ...runOptions, file }) as never, runDeps, target);
  } catch (error) {
    // Refused before anything was sent (exit 2): the plan may be applied again.
    if (!dryRun && error instanceof ExamctlError && error.exitCode === ExitCode.Usage) await forgetApplied(place);
    throw error;
  }
  if (!dryRun)
    await recordApplyEnded(place, { started, ...(run === undefined ? {} : { run }), exitCode }, await target());
  return exitCode;
}

/** A plan applied before sends nothing: says so, as its run ended (judgeApplied refuses one not finished). */
async function appliedAlready(
  plan: PlanDocument,
  given: string,
  before: AppliedRecord,
  place: string,
  target: ResolvedTarget,
  json: boolean,
  deps: CommandDeps,
): Promise<number> {
  const { words, exitCode } = await judgeApplied(plan, given, before, place, target);
  await say(deps, words);
  if (json) await printJson(deps, { plan: plan.id, applied: false, reason: words });
  return exitCode;
}
