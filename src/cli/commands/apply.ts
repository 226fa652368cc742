import { resolve } from 'node:path';
import { onlyGlobals, type GlobalOptions } from '../../flags/global-options.js';
import { say } from '../../formats/terminal-text.js';
import { readPlan } from '../../runs/plan-document.js';
import {
  DEFAULT_PLAN_MAX_AGE_MS,
  appliedBefore,
  keptInputs,
  planPlace,
  refuseMovedPlan,
} from '../../pipeline/plan-apply.js';
import {
  appliedAlready,
  applyFlags,
  applyingLine,
  applyRunOptions,
  PlanApplying,
  refuseUnappliable,
} from '../../pipeline/apply-run.js';
import type { TargetOf } from '../../context/resolved-target.js';
import type { CliDeps } from '../command-declaration.js';
import { resumeEntry } from '../resume-registry.js';
import type { ApplyOptions } from './apply.options.js';

/** The plan's command run again from its kept inputs, settings and target, each request checked (docs/plan.md). */
export async function run({ plan: given, maxAge, ...globals }: ApplyOptions, deps: CliDeps, _target: TargetOf) {
  const options = onlyGlobals(globals);
  const json = options.json === true;
  const path = resolve(deps.cwd, given);
  const plan = await readPlan(path, given);
  const place = planPlace(plan, deps);
  const flags = applyFlags(options, deps.cwd);
  const { targetOnce } = await import('../../context/target.js');
  // Applied already: a dry run says so too, as apply would (its own run moved the store since the plan).
  const before = await appliedBefore(place);
  if (before !== undefined) {
    const invocation = { ...plan.options, ...flags };
    const target = targetOnce(invocation as GlobalOptions, { ...deps, cwd: plan.cwd, invocation });
    return appliedAlready(plan, given, before, place, await target(), json, deps);
  }
  const entry = refuseUnappliable(resumeEntry(plan.command, deps), plan, given);
  const { runOptions, file, fileDeps } = applyRunOptions(plan, flags, await keptInputs(plan, place, given));
  const applying = new PlanApplying(place, path, options.dryRun === true);
  const runDeps: CliDeps = {
    ...deps,
    cwd: plan.cwd,
    invocation: runOptions,
    ...fileDeps,
    ...(options.report === undefined ? {} : { reportName: options.report }),
    keptOptions: entry.keptOptions,
    commandFlags: entry.keptOptions.names,
    applying: applying.guard(plan, given),
  };
  const target = targetOnce(runOptions as GlobalOptions, runDeps);
  await refuseMovedPlan(plan, given, await target(), maxAge ?? DEFAULT_PLAN_MAX_AGE_MS, runDeps);
  const first = await applying.claim(deps.now());
  if (first !== undefined) return appliedAlready(plan, given, first, place, await target(), json, deps);
  await say(deps, applyingLine(plan, given));
  const command = await entry.run();
  let exitCode: number;
  try {
    exitCode = await command((file === undefined ? runOptions : { ...runOptions, file }) as never, runDeps, target);
  } catch (error) {
    await applying.refused(error);
    throw error;
  }
  await applying.ended(exitCode, await target());
  return exitCode;
}
