import { INVIGILATOR_ID_RULE } from '../domain/one-id-per-file.js';
import { EMPTY_LIST_REFUSAL } from '../domain/invigilators.js';
import { USER_EXTERNAL_ID_MAX } from '../domain/user.js';
import type { Validation } from '../domain/problem.js';
import { UsageError } from '../system/errors.js';
import { batchedRecords } from '../input/batches.js';
import { readIdList } from '../input/id-list.js';
import { PROMPT_SOURCE, type InputRecord, type SourceRef } from '../input/record.js';
import { isOkStatus, SCHEDULE_COLUMN, SOURCE_COLUMNS } from '../formats/report-csv-contract.js';
import { describeTarget } from '../report/report-writers.js';
import { promptIoOf, promptsOff, type CommandDeps } from '../context/command-deps.js';
import { openTargetDirectory } from '../context/target.js';
import type { TargetOf } from '../context/resolved-target.js';
import type { GlobalOptions } from '../flags/global-options.js';
import { promptsOffWords } from '../terminal/prompt-state.js';
import { unitPerRecord, type RecordJob, type Unit } from './record-job.js';
import { preparedIds, refuseNotThisRemovalsReport } from './invigilator-removal.js';
import {
  displayNameOf,
  inputPathOf,
  inputShaping,
  noteRead,
  refuseTooLong,
  sayOnce,
  type InputFlagOptions,
  type SheetFlagOptions,
} from './command-input.js';

/* `examctl invigilators remove`'s ids: arguments, then --file (not-ok ones with --only-failed), else asked. */

const ARGUMENTS_SOURCE = '<arguments>';

interface IdEntry {
  id: string;
  source: SourceRef;
}

/** The flags that say which ids to remove from which schedule. */
export type InvigilatorIdFlags = InputFlagOptions &
  SheetFlagOptions & {
    scheduleExtId: string;
    userExtIds?: string[] | undefined;
    file?: string | undefined;
    onlyFailed?: boolean | undefined;
  };

/** The ids to remove (arguments, --file, else asked) and their units, each checked with the whole list. */
export async function invigilatorsRemoveInput(
  input: InvigilatorIdFlags,
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

/** The ids to remove and where each was given: arguments, then --file (not-ok ones with --only-failed), else asked. */
async function idEntries(
  { scheduleExtId, userExtIds, file, sheet, hiddenRows, onlyFailed, ...flags }: InvigilatorIdFlags,
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
  const { promptInvigilatorIds, promptInvigilators } = await import('../terminal/prompts.js');
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
