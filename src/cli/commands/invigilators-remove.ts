import { UsageError } from '../../system/errors.js';
import type { CommandDeps } from '../../context/command-deps.js';
import { onlyGlobals, type GlobalOptions } from '../../flags/global-options.js';
import { commandName } from '../command-declaration.js';
import type { RerunInput, RecordJob } from '../../pipeline/record-job.js';
import { checkReportOption } from '../../pipeline/report-sinks.js';
import { runPipeline } from '../../pipeline/run-pipeline.js';
import { RemovalCall, sayWhoWasRemoved, type RemovedId } from '../../pipeline/invigilator-removal.js';
import { invigilatorsRemoveInput } from '../../pipeline/invigilator-ids.js';
import type { TargetOf } from '../../context/resolved-target.js';
import { INVIGILATORS_REMOVE, type InvigilatorsRemoveOptions } from './invigilators-remove.options.js';
import { takeTableFlags } from '../../flags/option-table.js';

/**
 * `examctl invigilators remove`: one DELETE call for the schedule, one report item per id. A 319:
 * docs/interpretations.md, "Invigilators" (with --missing-ok, docs/ci.md, "A job that runs twice").
 */
export async function run(
  // `planOut` is read by the pipeline (a dry run's plan: plan-tap.ts).
  { missingOk, planOut: _planOut, ...given }: InvigilatorsRemoveOptions,
  deps: CommandDeps,
  target: TargetOf,
): Promise<number> {
  const [{ scheduleExtId, onlyFailed }, globals] = takeTableFlags(given, INVIGILATORS_REMOVE.options);
  const options = onlyGlobals(globals);
  await checkReportOption(options, deps);
  const removal = new RemovalCall(scheduleExtId, missingOk ?? false);
  const job: RecordJob<string, RemovedId> = {
    command: commandName(INVIGILATORS_REMOVE),
    ...(await invigilatorsRemoveInput(given, options, deps, target)),
    send: (api, id, callOptions) => removal.outcomeFor(api, id, callOptions),
    sendsTogether: true,
    confirmAction: 'remove',
    lostAttemptDid: removal.lostAttemptDid,
    remember: removal.remember,
  };
  const { exitCode, remembered } = await runPipeline(job, { ...options, onlyFailed }, deps, target);
  await sayWhoWasRemoved(scheduleExtId, remembered, options.dryRun ?? false, deps);
  return exitCode;
}

/** The run's input read again by `runs show`, with no target: asking one means the ids were given at prompts. */
export const rerunInput: RerunInput = async (options, deps) =>
  invigilatorsRemoveInput(options as never, options as GlobalOptions, deps, () =>
    Promise.reject(new UsageError('its ids were given at prompts')),
  );
