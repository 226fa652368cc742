/** --strict (docs/cli.md, "--strict"): every warning fails its record, its errors its warnings. */
import type { Problem } from '../domain/problem.js';
import type { FieldWarning } from '../domain/spreadsheet-warnings.js';
import type { RunOptions, Unit } from './record-job.js';
import { resolveSettings } from '../context/settings.js';
import type { CommandDeps } from '../context/command-deps.js';

/**
 * Whether a run fails its warned records (docs/cli.md, "--strict": the flag, else the profile's). A
 * profile that cannot be read is the command's to refuse before this: here it says nothing.
 */
export async function warningsFail(options: Pick<RunOptions, 'strict' | 'profile' | 'baseUrl' | 'target' | 'store'>, deps: Pick<CommandDeps, 'env' | 'runProfile'>): Promise<boolean> {
  if (options.strict !== undefined) return options.strict;
  // A run read again (a resume) with the profile it was started with.
  return (await resolveSettings(options, deps.env, deps.runProfile).catch(() => undefined))?.values.strict?.value === true;
}

/** A warning as the problem that fails its record under --strict: the same field, line, code and text. */
function warningProblem(warning: FieldWarning): Problem {
  const problem: Problem = { field: warning.field, code: warning.code, message: warning.message };
  if (warning.line !== undefined) problem.line = warning.line;
  return problem;
}

/** The units, each one with a warning failed by it (after any problem it had). */
export async function* failingWarned<P>(batches: AsyncIterable<readonly Unit<P>[]>): AsyncIterable<readonly Unit<P>[]> {
  for await (const batch of batches) {
    // Most batches have no warning: passed on as they are, no copy.
    yield batch.some(warned) ? batch.map((unit) => (warned(unit) ? failed(unit) : unit)) : batch;
  }
}

function warned(unit: Unit<unknown>): boolean {
  return unit.warnings !== undefined && unit.warnings.length > 0;
}

function failed<P>(unit: Unit<P>): Unit<P> {
  const problems = (unit.warnings ?? []).map(warningProblem);
  return { ...unit, prepared: { ok: false, problems: unit.prepared.ok ? problems : [...unit.prepared.problems, ...problems] } };
}
