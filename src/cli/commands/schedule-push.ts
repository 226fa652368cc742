import type { PreparedSchedule } from '../../domain/sittings.js';
import { isGiven } from '../../domain/field-rules.js';
import { SCHEDULE_NOTES, ScheduleMemory } from '../../sync/schedule-memory.js';
import { onlyWhichOf } from '../../sync/known-ids.js';
import { storeHoldsSchedule } from '../../sync/adopt-sittings.js';
import type { CommandDeps } from '../../context/command-deps.js';
import { onlyGlobals } from '../../flags/global-options.js';
import { commandName } from '../command-declaration.js';
import type { RerunInput, RecordJob } from '../../pipeline/record-job.js';
import { runPipeline } from '../../pipeline/run-pipeline.js';
import { createdByLostAttempt } from '../../pipeline/service-answer.js';
import type { TargetOf } from '../../context/resolved-target.js';
import {
  createdUnlessUpsert,
  describeRequests,
  schedulePushInput,
  sendSchedule,
  withChosenScheduleId,
} from '../../pipeline/schedule-input.js';
import {
  completeRequiredFields,
  correctAnswers,
  refusedProblems,
  sayAfterRun,
  warnBeforeSending,
  type Remembered,
} from '../../pipeline/schedule-questions.js';
import { refuseWithheldPins } from '../../input/withheld-pins.js';
import { schedulePinToSend, typedPin } from '../../context/pin-source.js';
import { clockFromEnv } from '../../engine/clock.js';
import {
  SCHEDULE_FIELD_OPTIONS,
  SCHEDULE_PUSH,
  SCHEDULE_PUSH_SYNC_OPTIONS,
  type SchedulePushOptions,
} from './schedule-push.options.js';
import { FILE_OPTIONS } from './file-options.js';
import { takeTableFlags } from '../../flags/option-table.js';

/** `examctl schedule push`: one POST /schedule per schedule request. */
export async function run(given: SchedulePushOptions, deps: CommandDeps, target: TargetOf): Promise<number> {
  const [input, own] = takeTableFlags(given, FILE_OPTIONS);
  // `planOut` is read by the pipeline (a dry run's plan: plan-tap.ts).
  const [{ clearPin, ...memoryFlags }, { file, schedule, workflow, upsert, pinFile, planOut: _planOut, ...rest }] =
    takeTableFlags(own, SCHEDULE_PUSH_SYNC_OPTIONS);
  const { onlyFailed, timezone, dateFormat } = input;
  const [fieldFlags, globals] = takeTableFlags(rest, SCHEDULE_FIELD_OPTIONS);
  const options = onlyGlobals(globals);
  // --pin, --pin-file or EXAMCTL_PIN (pin-source.ts); the journal records the digest of the one sent.
  const { pin, typed, pinField } = await typedPin({ pin: fieldFlags.pin, pinFile }, deps);
  fieldFlags.pin = pinField;
  const runOptions = { ...options, onlyFailed, timezone, dateFormat };
  const only = onlyWhichOf(memoryFlags.onlyNew, memoryFlags.onlyExisting);
  const memory = new ScheduleMemory(
    'schedules',
    { ...memoryFlags, only, runsDir: options.runsDir, dryRun: options.dryRun },
    deps,
    target,
    (payload) => payload.request,
  );
  const { defaults, records, units, readIds, shaping } = await schedulePushInput(
    { file, schedule, workflow, upsert, ...input, ...globals, ...fieldFlags },
    deps,
  );
  const sent = await schedulePinToSend(
    { typed, pin, file: schedule, clearPin, filePin: defaults.schedule.PIN },
    records,
    onlyFailed ?? false,
    options,
    deps,
  );
  if (sent !== undefined) {
    defaults.schedule.PIN = sent;
    deps = { ...deps, invocation: { ...(deps.invocation ?? {}), pin: sent } };
  }
  const asked = await completeRequiredFields(defaults, records, shaping, options, deps, target);
  await warnBeforeSending(
    defaults,
    records,
    shaping,
    options.dryRun ?? false,
    clockFromEnv(deps.env)().getTime(),
    deps,
  );
  const job: RecordJob<PreparedSchedule, Remembered> = {
    command: commandName(SCHEDULE_PUSH),
    records,
    readIds,
    summaryNotes: SCHEDULE_NOTES,
    async *units(batches) {
      for await (const batch of units(batches)) yield batch.map((unit) => memory.leaveOut(memory.unit(unit)));
    },
    describeSend: (records) => describeRequests(records, defaults),
    confirmAction: 'send',
    prepare: async () => {
      if (!isGiven(defaults.schedule.PIN)) await refuseWithheldPins(records(), onlyFailed ?? false);
      await memory.open(memoryFlags.changedOnly ?? false);
      await memory.refuseOldFile(
        file,
        memoryFlags.allowOldFile === true || memoryFlags.changedOnly !== true,
        records(),
      );
      // Candidate ids a spreadsheet stripped of their leading zeros: refused before anything is sent.
      await memory.refuseLostZeros(records());
    },
    ...memory.hooks(),
    // The platform's answer does not say created or updated: without Upsert the request only creates; with, the
    // memory says (docs/sync.md, "Created or updated").
    send: async (api, payload, callOptions) =>
      memory.answered(
        payload,
        payload.request.Schedule.ScheduleExtId ?? null,
        memory.withNote(
          payload,
          createdUnlessUpsert(payload, await sendSchedule(api, payload, callOptions), callOptions),
        ),
      ),
    // No ScheduleExtId: examctl names it, so a resend after a lost answer is not a second schedule (docs/runs.md).
    lostAttemptDid: createdByLostAttempt('/schedule'),
    storeKeys: SCHEDULE_PUSH.storeKeys,
    holds: (directory, payload, key) =>
      storeHoldsSchedule(directory, (withChosenScheduleId(payload, key) ?? payload).request),
    withChosenId: withChosenScheduleId,
    // Ids the service chose: shown, since the admin needs them for the next command. A refused
    // schedule whose fields were asked: its problems, to offer correcting the answers.
    remember: (unit, _payload, outcome) =>
      outcome.status === 'failed'
        ? asked === undefined
          ? undefined
          : { line: unit.source.line, problems: outcome.errors }
        : unit.id === null && outcome.id !== undefined
          ? { line: unit.source.line, id: outcome.id }
          : undefined,
  };
  const { exitCode, remembered } = await memory.closingOnFailure(async () => {
    let outcome = await runPipeline(job, runOptions, deps, target);
    for (
      let refused = refusedProblems(outcome.remembered);
      asked !== undefined && refused !== undefined;
      refused = refusedProblems(outcome.remembered)
    ) {
      if (!(await correctAnswers(asked, refused, defaults, deps))) break;
      outcome = await runPipeline(job, runOptions, deps, target);
    }
    return outcome;
  });
  await sayAfterRun(memory.said, remembered, deps);
  return exitCode;
}

/** The run's input read again by `runs show`. */
export const rerunInput: RerunInput = async (options, deps) => ({
  ...(await schedulePushInput(options as never, deps)),
  summaryNotes: SCHEDULE_NOTES,
});
