import { ExitCode } from '../../system/errors.js';
import { openResume } from '../../runs/resume-plan.js';
import { scanRun, resolveRunId } from '../../runs/read-run.js';
import { resolveRunsDir } from '../../runs/runs-dir.js';
import { assertTrustedRun, assertTrustedRunsDir } from '../../runs/run-trust.js';
import type { CommandDeps } from '../../context/command-deps.js';
import { onlyGlobals, type GlobalOptions } from '../../flags/global-options.js';
import type { CliDeps } from '../command-declaration.js';
import { resumedOptions } from '../../pipeline/run-journaling.js';
import {
  localStoreLost,
  nothingToResume,
  refuseUnresumable,
  resumedPlanGuard,
  resumePin,
} from '../../pipeline/resume-run.js';
import { resumeEntry } from '../resume-registry.js';
import {
  RUNS_RESUME,
  type RunsListOptions,
  type RunsPruneOptions,
  type RunsResumeOptions,
  type RunsShowOptions,
} from './runs.options.js';
import { takeTableFlags } from '../../flags/option-table.js';
import { runInput, runProfileOf, showRun } from '../../pipeline/run-show.js';
import { listRunsOut, pruneRunsOut, trustOf } from '../../pipeline/run-listing.js';
import { leaverRows } from '../../sync/run-show-leavers.js';

/*
 * `examctl runs ...` (docs/runs.md): the run journals of the user, read; and a killed or stopped
 * run continued by the command that started it, with its recorded options.
 */

/** The run `wanted` names, once the runs directory and the run passed the ownership checks (exit 2 otherwise). */
async function trustedRunId(runsDir: string, wanted: string, deps: CommandDeps): Promise<string> {
  const trust = trustOf(deps);
  await assertTrustedRunsDir(runsDir, trust);
  const id = await resolveRunId(runsDir, wanted, trust);
  await assertTrustedRun(runsDir, id, trust);
  return id;
}

export async function runList({ since, ...globals }: RunsListOptions, deps: CommandDeps): Promise<number> {
  return listRunsOut(since, onlyGlobals(globals), deps);
}

/** `runs show <id|last>`: the run report rebuilt from the journal, streamed (docs/runs.md, "runs show"). */
export async function runShow({ id, ...globals }: RunsShowOptions, deps: CliDeps): Promise<number> {
  const options = onlyGlobals(globals);
  const runsDir = resolveRunsDir(options.runsDir, deps.env);
  const run = await scanRun(runsDir, await trustedRunId(runsDir, id, deps));
  try {
    return await showRun(run, options, deps, {
      input: (withUnits) => runInput(run, resumeEntry(run.header.command, deps), deps, withUnits),
      leavers: leaverRows,
    });
  } finally {
    await run.close();
  }
}

export async function runPrune({ all, olderThan, ...globals }: RunsPruneOptions, deps: CommandDeps): Promise<number> {
  return pruneRunsOut({ maxAgeMs: olderThan, all }, onlyGlobals(globals), deps);
}

/**
 * `runs resume [id]`: takes the run over (exit 2 when finished, held, or its input changed), then runs its
 * command again with the recorded options and target; the pipeline sends what the journal did not settle.
 */
export async function runResume(options: RunsResumeOptions, deps: CliDeps): Promise<number> {
  try {
    return await resumeRun(options, deps);
  } catch (error) {
    const [, globals] = takeTableFlags(options, RUNS_RESUME.options);
    const finished = await nothingToResume(error, globals.json === true, deps);
    return finished === undefined ? ExitCode.Ok : runShow({ ...globals, id: finished }, deps);
  }
}

async function resumeRun(
  { id, pin: pinFlag, pinFile, targetFromRun, overLaterRuns, force, ...globals }: RunsResumeOptions,
  deps: CliDeps,
): Promise<number> {
  const given = onlyGlobals(globals);
  const runsDir = resolveRunsDir(given.runsDir, deps.env);
  const wanted = await trustedRunId(runsDir, id ?? 'unfinished', deps);
  const opened = await openResume(runsDir, wanted, (record) =>
    localStoreLost(record, resumeEntry(record.header.command, deps)),
  );
  try {
    const { header } = opened.record;
    const { pin, env } = await resumePin(opened, { pin: pinFlag, pinFile }, given, deps);
    const entry = await refuseUnresumable(resumeEntry(header.command, deps), opened);
    const options = resumedOptions(opened, given, pin, entry.keptOptions.digested);
    const { confirmResumeTarget } = await import('../../pipeline/resume-target.js');
    await confirmResumeTarget(
      opened,
      { ...given, ...(targetFromRun === undefined ? {} : { targetFromRun }) },
      deps,
      options,
    );
    const { resumeChecked } = await import('../../sync/stale-resume.js');
    const { resumed, check } = await resumeChecked(opened, options, { runsDir, given }, { overLaterRuns, force }, deps);
    const [run, { targetOnce }] = await Promise.all([entry.run(), import('../../context/target.js')]);
    const applying = await resumedPlanGuard(opened, runsDir, deps.cwd);
    const resumedDeps: CliDeps = {
      ...deps,
      env,
      cwd: resumed.cwd,
      resume: { ...opened, check },
      ...(applying === undefined ? {} : { applying }),
      invocation: options,
      keptOptions: entry.keptOptions,
      commandFlags: entry.keptOptions.names,
      ...runProfileOf(header),
      ...resumed.fileDeps,
    };
    return await run(resumed.options as never, resumedDeps, targetOnce(options as GlobalOptions, resumedDeps));
  } finally {
    // The pipeline ended the attempt; this releases the run when the command stopped before it.
    await opened.journal.close();
    await opened.record.close();
  }
}
