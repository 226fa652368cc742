import { resolve } from 'node:path';
import { ExamctlError, ExitCode, UsageError } from '../../system/errors.js';
import { printJson } from '../../context/command-deps.js';
import { onlyGlobals, type GlobalOptions } from '../../flags/global-options.js';
import { say } from '../../formats/terminal-text.js';
import { type PlanDocument, readPlan } from '../../runs/plan-document.js';
import { actionWords } from '../../report/plan-actions.js';
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
} from '../../pipeline/plan-apply.js';
import type { ResolvedTarget, TargetOf } from '../../context/resolved-target.js';
import type { CliDeps } from '../command-declaration.js';
import { resumeEntry } from '../resume-registry.js';
import type { ApplyOptions } from './apply.options.js';

/** The global flags that name a file or directory: apply's own, read from where apply runs (docs/plan.md, "Apply"). */
const TYPED_PATHS = ['store', 'tokenFile', 'report', 'runsDir'] as const;

/** The plan's command run again from its kept inputs, settings and target, each request checked (docs/plan.md). */
export async function run({ plan: given, maxAge, ...globals }: ApplyOptions, deps: CliDeps, _target: TargetOf) {
  const options = onlyGlobals(globals);
  const path = resolve(deps.cwd, given);
  const plan = await readPlan(path, given);
  const place = planPlace(plan, deps);
  const dryRun = options.dryRun === true;
  // Applied already: a dry run says so too, as apply would (its own run moved the store since the plan).
  // The plan's own settings and target; a target flag given to apply must name the same (refused otherwise).
  const flags = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  // Apply's own paths mean where apply was typed; the plan's (its inputs, its --store) where the plan was made.
  for (const name of TYPED_PATHS)
    if (typeof flags[name] === 'string') flags[name] = resolve(deps.cwd, flags[name] as string);
  const { targetOnce } = await import('../../context/target.js');
  const before = await appliedBefore(place);
  if (before !== undefined) {
    const invocation = { ...plan.options, ...flags };
    const target = targetOnce(invocation as GlobalOptions, { ...deps, cwd: plan.cwd, invocation });
    return appliedAlready(plan, given, before, place, await target(), options.json === true, deps);
  }
  const entry = resumeEntry(plan.command, deps);
  if ('notResumable' in entry)
    throw new UsageError(`plan ${given}: ${plan.command} cannot be applied: ${entry.notResumable}`);
  // Never asks: the plan a person reviewed is the confirmation (docs/plan.md, "At a terminal").
  const kept = await keptInputs(plan, place, given);
  const runOptions: Record<string, unknown> = { ...plan.options, ...flags, ...kept, yes: true };
  // The command reads the kept copy under the name the dry run read, as a piped --file's copy is read: its rows and
  // problems name the file the person reviewed. The journal keeps the copy's path, which a resume reads.
  const reviewed = typeof plan.options.file === 'string' && kept.file !== undefined ? plan.options.file : undefined;
  // The id of the run that applies the plan (applying.onRun).
  let run: string | undefined;
  const runDeps: CliDeps = {
    ...deps,
    cwd: plan.cwd,
    invocation: runOptions,
    ...(reviewed === undefined ? {} : { pipedFile: reviewed, stdinFile: kept.file }),
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
    return appliedAlready(plan, given, first, place, await target(), options.json === true, deps);
  }
  if (!dryRun) await keepPlan(place, path);
  await say(
    deps,
    `applying plan ${plan.id} (${plan.command}, made at ${plan.created}) from ${given}: ${actionWords(plan.counts, true)}`,
  );
  const command = await entry.run();
  let exitCode: number;
  try {
    exitCode = await command(
      (reviewed === undefined ? runOptions : { ...runOptions, file: reviewed }) as never,
      runDeps,
      target,
    );
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
  deps: CliDeps,
): Promise<number> {
  const { words, exitCode } = await judgeApplied(plan, given, before, place, target);
  await say(deps, words);
  if (json) await printJson(deps, { plan: plan.id, applied: false, reason: words });
  return exitCode;
}
