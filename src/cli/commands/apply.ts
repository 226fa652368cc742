import { onlyGlobals } from '../../flags/global-options.js';
import { applyPlan } from '../../pipeline/apply-run.js';
import type { TargetOf } from '../../context/resolved-target.js';
import type { CliDeps } from '../command-declaration.js';
import { resumeEntry } from '../resume-registry.js';
import type { ApplyOptions } from './apply.options.js';

/** The plan's command run again from its kept inputs, settings and target, each request checked (docs/plan.md). */
export async function run({ plan, maxAge, ...globals }: ApplyOptions, deps: CliDeps, _target: TargetOf) {
  return applyPlan(plan, maxAge, onlyGlobals(globals), deps, (command) => resumeEntry(command, deps));
}
