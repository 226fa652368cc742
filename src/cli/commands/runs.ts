import { resolve } from 'node:path';
import { ExitCode } from '../../system/errors.js';
import { openResume, changedDigestedFile, CHANGED_INPUT_ADVICE } from '../../runs/resume-plan.js';
import { scanRun, resolveRunId } from '../../runs/read-run.js';
import { resolveRunsDir } from '../../runs/runs-dir.js';
import { NothingToResumeError, RunJournalError } from '../../runs/run-errors.js';
import { assertTrustedRun, assertTrustedRunsDir } from '../../runs/run-trust.js';
import { printJson, type CommandDeps, type ResumeContext } from '../../context/command-deps.js';
import { onlyGlobals, type GlobalOptions } from '../../flags/global-options.js';
import type { CliDeps } from '../command-declaration.js';
import { refuseOverLaterRuns, refuseReplacedStore, resumedOptions } from '../../pipeline/run-journaling.js';
import { resumeEntry } from '../resume-registry.js';
import {
  RUNS_RESUME,
  type RunsListOptions,
  type RunsPruneOptions,
  type RunsResumeOptions,
  type RunsShowOptions,
} from './runs.options.js';
import { takeTableFlags } from '../../flags/option-table.js';
import { say } from '../../formats/terminal-text.js';
import { runInput, runProfileOf, showRun } from '../../pipeline/run-show.js';
import { namedCopyOf } from '../../pipeline/command-input.js';
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
    if (!(error instanceof NothingToResumeError)) throw error;
    await say(deps, `examctl: ${error.message}`);
    const [, globals] = takeTableFlags(options, RUNS_RESUME.options);
    if (error.finishedRun !== undefined) return runShow({ ...globals, id: error.finishedRun }, deps);
    if (globals.json === true) await printJson(deps, { run: null, resumed: false, reason: error.message });
    return ExitCode.Ok;
  }
}

async function resumeRun(
  { id, pin: pinFlag, pinFile, targetFromRun, overLaterRuns, force, ...globals }: RunsResumeOptions,
  deps: CliDeps,
): Promise<number> {
  const given = onlyGlobals(globals);
  const runsDir = resolveRunsDir(given.runsDir, deps.env);
  const wanted = await trustedRunId(runsDir, id ?? 'unfinished', deps);
  const { askPin, givenPin } = await import('../../context/pin-source.js');
  const opened = await openResume(runsDir, wanted);
  try {
    const pinned = typeof opened.record.header.options.pinSha256 === 'string';
    // EXAMCTL_PIN (a job's other steps may set it) is a PIN-started run's only; the command reads it no more.
    const env = { ...deps.env, EXAMCTL_PIN: undefined };
    let pin = await givenPin({ pin: pinFlag, pinFile }, pinned ? deps : { ...deps, env });
    // A run started with a PIN needs it again: asked on a terminal rather than typed where `ps` shows it.
    if (pin === undefined && pinned) pin = await askPin(`run ${wanted} was started with a PIN`, given, deps);
    const entry = resumeEntry(opened.record.header.command, deps);
    if ('notResumable' in entry)
      throw new RunJournalError(
        `run ${wanted}: ${opened.record.header.command} cannot be resumed: ${entry.notResumable}`,
      );
    const fileChanged = await changedDigestedFile(opened.record);
    if (fileChanged !== undefined) throw new RunJournalError(`run ${wanted}: ${fileChanged}; ${CHANGED_INPUT_ADVICE}`);
    const options = resumedOptions(opened, given, pin, entry.keptOptions.digested);
    const { confirmResumeTarget } = await import('../../pipeline/resume-target.js');
    await confirmResumeTarget(
      opened,
      { ...given, ...(targetFromRun === undefined ? {} : { targetFromRun }) },
      deps,
      options,
    );
    await refuseReplacedStore(opened.record.header);
    if (given.store !== undefined) await say(deps, '--store not used: a resume takes the recorded target');
    const overLater = overLaterRuns === true || force === true;
    const recordedCwd = opened.record.header.options.cwd;
    const runCwd = typeof recordedCwd === 'string' ? recordedCwd : deps.cwd;
    const { refuseResumeAgainstMemory } = await import('../../sync/stale-resume.js');
    // The memory knows the newest run of each population wherever it ran, and whether it was lost since this run
    // started (docs/runs.md, "runs resume").
    // Made again once the run holds the memory: a later run may go on record while it waits.
    const check: ResumeContext['check'] = async (held) => {
      if (!overLater) await refuseOverLaterRuns(runsDir, opened.record.header);
      await refuseResumeAgainstMemory(
        opened.record.header,
        given.runsDir,
        { env: deps.env, cwd: runCwd },
        { laterRuns: !overLater, lostMemory: force !== true },
        held,
      );
    };
    await check();
    const [run, { targetOnce }] = await Promise.all([entry.run(), import('../../context/target.js')]);
    const named = namedCopyOf(opened.record.header.input);
    // An apply's run sends the plan's requests only, resumed too (docs/plan.md, "Apply").
    const planned = opened.record.header.plan;
    const { keptPlanGuard } = await import('../../pipeline/plan-apply.js');
    const applying =
      planned === undefined ? undefined : await keptPlanGuard(resolve(deps.cwd, runsDir), planned, wanted);
    const resumedDeps: CliDeps = {
      ...deps,
      env,
      cwd: runCwd,
      resume: { ...opened, check },
      ...(applying === undefined ? {} : { applying }),
      invocation: options,
      keptOptions: entry.keptOptions,
      commandFlags: entry.keptOptions.names,
      ...runProfileOf(opened.record.header),
      ...named?.deps,
    };
    // Over later runs: a row a later run sent another request for goes too (docs/sync.md, "Stale input").
    return await run(
      { ...options, ...(named && { file: named.file }), ...(overLater && { allowOldFile: true }) } as never,
      resumedDeps,
      targetOnce(options as GlobalOptions, resumedDeps),
    );
  } finally {
    // The pipeline ended the attempt; this releases the run when the command stopped before it.
    await opened.journal.close();
    await opened.record.close();
  }
}
