import { INVIGILATOR_ID_RULE } from '../../domain/one-id-per-file.js';
import { EMPTY_LIST_REFUSAL } from '../../domain/invigilators.js';
import { USER_EXTERNAL_ID_MAX } from '../../domain/user.js';
import type { Validation } from '../../domain/problem.js';
import { UsageError } from '../../system/errors.js';
import { batchedRecords } from '../../input/batches.js';
import { readIdList } from '../../input/id-list.js';
import { PROMPT_SOURCE, type InputRecord, type SourceRef } from '../../input/record.js';
import { isOkStatus, SCHEDULE_COLUMN, SOURCE_COLUMNS } from '../../formats/report-csv-contract.js';
import { describeTarget } from '../../report/report-writers.js';
import { promptIoOf, promptsOff, type CommandDeps } from '../../context/command-deps.js';
import { onlyGlobals, type GlobalOptions } from '../../flags/global-options.js';
import { commandName } from '../command-declaration.js';
import { unitPerRecord, type RerunInput, type RecordJob, type Unit } from '../../pipeline/record-job.js';
import { checkReportOption } from '../../pipeline/report-sinks.js';
import { runPipeline } from '../../pipeline/run-pipeline.js';
import { removedByLostAttempt } from '../../pipeline/service-answer.js';
import { preparedIds, refuseNotThisRemovalsReport, RemovalCall } from '../../pipeline/invigilator-removal.js';
import { openTargetDirectory } from '../../context/target.js';
import { type TargetOf } from '../../context/resolved-target.js';
import { INVIGILATORS_REMOVE, type InvigilatorsRemoveOptions } from './invigilators-remove.options.js';
import {
  displayNameOf,
  inputPathOf,
  inputShaping,
  noteRead,
  refuseTooLong,
  sayOnce,
  type InputFlagOptions,
} from '../../pipeline/command-input.js';
import { say } from '../../formats/terminal-text.js';
import { promptsOffWords } from '../../terminal/prompt-state.js';
import { namedFirst } from '../../formats/number-format.js';
import { takeTableFlags } from '../../flags/option-table.js';

const ARGUMENTS_SOURCE = '<arguments>';

interface IdEntry {
  id: string;
  source: SourceRef;
}

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
    // With --missing-ok a 319 is ok and unchanged: still what a lost removal would leave (a resume cannot tell).
    lostAttemptDid:
      missingOk === true
        ? (answer) =>
            removedByLostAttempt(answer) ??
            (answer.status === 'ok' && answer.action === 'unchanged' ? 'removed' : undefined)
        : removedByLostAttempt,
    // Who is no longer an invigilator, named after the summary; a failed 319 (not an invigilator) too.
    remember: (_unit, id, outcome) =>
      outcome.status === 'failed' && removedByLostAttempt(outcome) === undefined
        ? undefined
        : {
            id,
            was:
              outcome.action === 'sent'
                ? 'unknown'
                : outcome.status === 'ok' && outcome.action !== 'unchanged'
                  ? 'removed'
                  : 'absent',
          },
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

/** The ids to remove (arguments, --file, else asked) and their units, each checked with the whole list. */
async function invigilatorsRemoveInput(
  input: Pick<
    InvigilatorsRemoveOptions,
    'scheduleExtId' | 'userExtIds' | 'file' | 'sheet' | 'hiddenRows' | 'onlyFailed'
  > &
    InputFlagOptions,
  options: GlobalOptions,
  deps: CommandDeps,
  target: TargetOf,
): Promise<Pick<RecordJob<string>, 'records' | 'units' | 'unitCount' | 'readIds' | 'readsOnlyFailedItself'>> {
  const { scheduleExtId } = input;
  const entries = await idEntries(input, deps, () => promptedIds(scheduleExtId, options, deps, target));
  const prepared = preparedIds(scheduleExtId, entries);
  const unitOf = new Map<InputRecord, Unit<string>>();
  const records = entries.map(({ id, source }, index): InputRecord => {
    // A report fed back with --only-failed is checked against the schedule its rows name.
    const rows = [
      {
        line: source.line,
        header: REMOVAL_REPORT_HEADER,
        cells: [source.file, String(source.line), id, scheduleExtId],
      },
    ];
    const record: InputRecord = { source, fields: { UserExtId: id } };
    unitOf.set(record, { source, id, prepared: prepared[index] as Validation<string>, rows });
    return record;
  });
  return {
    // One batch: every id is dispatched before the call leaves, so it carries them all.
    records: () =>
      batchedRecords(async function* () {
        yield records;
      }),
    ...unitPerRecord((record) => unitOf.get(record) as Unit<string>, INVIGILATOR_ID_RULE),
    // --only-failed was applied to the id list above.
    readsOnlyFailedItself: true,
  };
}

/** An invigilators report's columns before status...: where each id was given, and the schedule it was removed from. */
const REMOVAL_REPORT_HEADER: readonly string[] = [...SOURCE_COLUMNS, SCHEDULE_COLUMN];

/** How many ids the line names before it only counts. */
const NAMED_IDS = 20;

/** Removed by this run, not an invigilator (319), or gone with no telling which (an interrupted attempt's resend). */
interface RemovedId {
  id: string;
  was: 'removed' | 'absent' | 'unknown';
}

async function sayWhoWasRemoved(
  scheduleExtId: string,
  remembered: readonly RemovedId[],
  dryRun: boolean,
  deps: CommandDeps,
): Promise<void> {
  const list = (ids: string[]) => namedFirst(ids, NAMED_IDS);
  const ids = (was: RemovedId['was']) => remembered.filter((kept) => kept.was === was).map((kept) => kept.id);
  const [removed, notThere, unknown] = [ids('removed'), ids('absent'), ids('unknown')];
  if (removed.length > 0)
    await say(deps, `${dryRun ? 'would remove' : 'removed'} from ${scheduleExtId}: ${list(removed)}`);
  if (notThere.length > 0)
    await say(deps, `not invigilators of ${scheduleExtId} (nothing to remove): ${list(notThere)}`);
  if (unknown.length > 0) {
    await say(
      deps,
      `no longer invigilators of ${scheduleExtId} (the interrupted attempt may have removed them, or they were not): ${list(unknown)}`,
    );
  }
}

/** The ids to remove and where each was given: arguments, then --file (not-ok ones with --only-failed), else asked. */
async function idEntries(
  {
    scheduleExtId,
    userExtIds,
    file,
    sheet,
    hiddenRows,
    onlyFailed,
    ...flags
  }: Parameters<typeof invigilatorsRemoveInput>[0],
  deps: CommandDeps,
  prompted: () => Promise<IdEntry[]>,
): Promise<IdEntry[]> {
  const entries: IdEntry[] = (userExtIds ?? []).map((id, index) => ({
    id,
    source: { file: ARGUMENTS_SOURCE, line: index + 1, index },
  }));
  if (file !== undefined) {
    // --map "Staff ID=UserExtId" names the id column; a map onto any other field is refused (exit 2).
    const shaping = await inputShaping(flags, deps, [{ name: 'UserExtId', kind: 'string' }], 'invigilators remove');
    const idColumn = [...shaping.map].find(([, field]) => field === 'UserExtId')?.[0];
    const listed = await readIdList(inputPathOf(file, deps), {
      displayName: displayNameOf(file),
      sheet,
      hiddenRows,
      idColumn,
      runReportOnly: onlyFailed,
      notice: (text) => sayOnce(deps, text),
      same: noteRead(deps, inputPathOf(file, deps)),
    });
    if (onlyFailed) refuseNotThisRemovalsReport(listed, file, scheduleExtId);
    for (const entry of listed) {
      if (onlyFailed && isOkStatus(entry.status)) continue;
      entries.push({ id: entry.id, source: entry.source });
    }
  }
  if (entries.length === 0 && file === undefined) entries.push(...(await prompted()));
  if (entries.length === 0) throw noInvigilatorIds();
  for (const { id, source } of entries)
    refuseTooLong(id, `${source.file}:${source.line}`, USER_EXTERNAL_ID_MAX, 'user');
  return entries;
}

/** No id at all: exit 2 naming the API's code 100 for such a list (docs/interpretations.md, "Invigilators"). */
function noInvigilatorIds(why?: string): UsageError {
  return new UsageError(
    `no invigilator user ids: give them as arguments or with --file (${why === undefined ? '' : `${why}; `}${EMPTY_LIST_REFUSAL})`,
  );
}

/** No ids given: on a terminal a checklist (local) or typed ids (remote); otherwise a usage error. */
async function promptedIds(
  scheduleExtId: string,
  options: GlobalOptions,
  deps: CommandDeps,
  targetOf: TargetOf,
): Promise<IdEntry[]> {
  const { promptInvigilatorIds, promptInvigilators } = await import('../../terminal/prompts.js');
  const off = promptsOff(options, deps);
  if (off !== undefined) throw noInvigilatorIds(promptsOffWords(off));
  const target = await targetOf();
  const directory = await (deps.openDirectory ?? openTargetDirectory)(target, deps);
  let ids: string[];
  try {
    if (directory === null) {
      ids = await promptInvigilatorIds(scheduleExtId, promptIoOf(deps));
    } else {
      const invigilators = directory.invigilatorsOf(scheduleExtId);
      if (invigilators === null)
        throw new UsageError(
          `no schedule ${scheduleExtId} on ${describeTarget(target.report)}: nothing to choose from`,
        );
      if (invigilators.length === 0)
        throw new UsageError(
          `schedule ${scheduleExtId} has no invigilators on ${describeTarget(target.report)}: nothing to remove`,
        );
      const choices = invigilators.map((id) => {
        const person = directory.userOf(id);
        const name = person === null ? '' : [person.FirstName, person.LastName].filter((part) => part !== '').join(' ');
        return { value: id, name: name === '' ? id : `${id}  ${name}` };
      });
      ids = await promptInvigilators(choices, promptIoOf(deps));
    }
  } finally {
    await directory?.close();
  }
  return ids.map((id, index) => ({ id, source: { file: PROMPT_SOURCE, line: index + 1, index } }));
}
