import type { ApiResult, CallOptions, IntegrationApi } from '../../port/integration-api.js';
import { capProblems, problemsFrom } from '../../api/envelope-errors.js';
import { ErrorCode, validateInvigilatorRemoval } from '../../domain/index.js';
import { INVIGILATOR_ID_RULE } from '../../domain/one-id-per-file.js';
import { EMPTY_LIST_REFUSAL } from '../../domain/invigilators.js';
import type { Problem, Validation } from '../../domain/problem.js';
import type { InvigilatorsResponseContent } from '../../domain/types.js';
import { UsageError } from '../../system/errors.js';
import { batchedRecords, readIdList } from '../../input/index.js';
import type { InputRecord, SourceRef } from '../../input/record.js';
import { dryRunReportRefused, isDryRunStatus, isOkStatus, noStatusColumn, notARunReport, SCHEDULE_COLUMN, SOURCE_COLUMNS } from '../../formats/report-csv-contract.js';
import { describeTarget } from '../../report/report-writers.js';
import { promptIoOf, promptsAllowed, type CommandDeps } from '../../context/command-deps.js';
import { onlyGlobals, type GlobalOptions } from '../../flags/global-options.js';
import { commandName, type RerunInput } from '../command-declaration.js';
import { checkReportOption } from '../../pipeline/report-sinks.js';
import { unitPerRecord, type Outcome, type RecordJob, type Unit } from '../../pipeline/record-job.js';
import { runPipeline } from '../../pipeline/run-pipeline.js';
import { failureProblems, removedByLostAttempt } from '../../pipeline/service-answer.js';
import { openTargetDirectory } from '../../context/target.js';
import { type TargetOf } from '../../context/resolved-target.js';
import { INVIGILATORS_REMOVE, type InvigilatorsRemoveOptions } from './invigilators-remove.options.js';
import { displayNameOf, inputPathOf, inputShaping, sayOnce, type InputFlagOptions } from '../../pipeline/command-input.js';
import { say } from '../../formats/terminal-text.js';

const ARGUMENTS_SOURCE = '<arguments>';
const PROMPT_SOURCE = '<prompt>';

interface IdEntry {
  id: string;
  source: SourceRef;
}

/**
 * `examctl invigilators remove`: one DELETE call for the schedule, one report item per id. A 319:
 * docs/interpretations.md, "Invigilators" (with --missing-ok, docs/ci.md, "A job that runs twice").
 */
export async function run(
  { scheduleExtId, userExtIds, file, sheet, hiddenRows, onlyFailed, map, mapFile, missingOk, ...globals }: InvigilatorsRemoveOptions,
  deps: CommandDeps,
  target: TargetOf,
): Promise<number> {
  const options = onlyGlobals(globals);
  await checkReportOption(options, deps);
  const removal = new RemovalCall(scheduleExtId, missingOk ?? false);
  const job: RecordJob<string, RemovedId> = {
    command: commandName(INVIGILATORS_REMOVE),
    ...(await invigilatorsRemoveInput({ scheduleExtId, userExtIds, file, sheet, hiddenRows, onlyFailed, map, mapFile, profile: globals.profile, baseUrl: globals.baseUrl, target: globals.target, store: globals.store }, options, deps, target)),
    send: (api, id, callOptions) => removal.outcomeFor(api, id, callOptions),
    sendsTogether: true,
    // With --missing-ok a 319 is ok and unchanged: still what a lost removal would leave (a resume cannot tell).
    lostAttemptDid: missingOk === true ? (answer) => removedByLostAttempt(answer) ?? (answer.status === 'ok' && answer.action === 'unchanged' ? 'removed' : undefined) : removedByLostAttempt,
    // Who is no longer an invigilator, named after the summary (removed; 319: was not one; a resume's `sent`: cannot tell).
    // A failed 319 (every error of the item one) was not an invigilator: named too.
    remember: (_unit, id, outcome) =>
      outcome.status === 'failed' && removedByLostAttempt(outcome) === undefined
        ? undefined
        : { id, was: outcome.action === 'sent' ? 'unknown' : outcome.status === 'ok' && outcome.action !== 'unchanged' ? 'removed' : 'absent' },
  };
  const { exitCode, remembered } = await runPipeline(job, { ...options, onlyFailed }, deps, target);
  await sayWhoWasRemoved(scheduleExtId, remembered, options.dryRun ?? false, deps);
  return exitCode;
}

/** `runs show` reads a run again (INVIGILATORS_REMOVE's resume.input); it needs no target: asking one means the ids were given at prompts. */
export const rerunInput: RerunInput = async (options, deps) =>
  invigilatorsRemoveInput(options as never, options as GlobalOptions, deps, () => Promise.reject(new UsageError('its ids were given at prompts')));

/**
 * The ids to remove (arguments, --file, else asked) and their units, each checked with the whole
 * list: what the pipeline reads, and what `runs show` reads again.
 */
async function invigilatorsRemoveInput(
  { scheduleExtId, userExtIds, file, sheet, hiddenRows, onlyFailed, ...flags }: Pick<InvigilatorsRemoveOptions, 'scheduleExtId' | 'userExtIds' | 'file' | 'sheet' | 'hiddenRows' | 'onlyFailed'> & InputFlagOptions,
  options: GlobalOptions,
  deps: CommandDeps,
  target: TargetOf,
): Promise<Pick<RecordJob<string>, 'records' | 'units' | 'oneUnitPerRecord' | 'readIds' | 'readsOnlyFailedItself'>> {
  const entries = await idEntries({ scheduleExtId, userExtIds, file, sheet, hiddenRows, onlyFailed, ...flags }, deps, () => promptedIds(scheduleExtId, options, deps, target));
  const prepared = preparedIds(scheduleExtId, entries);
  const unitOf = new Map<InputRecord, Unit<string>>();
  const records = entries.map((entry, index): InputRecord => {
    // The report's rows name the schedule (REMOVAL_REPORT_HEADER): a report fed back with --only-failed is checked against it.
    const rows = [{ line: entry.source.line, header: REMOVAL_REPORT_HEADER, cells: [entry.source.file, String(entry.source.line), entry.id, scheduleExtId] }];
    const record: InputRecord = { source: entry.source, fields: { UserExtId: entry.id } };
    unitOf.set(record, { source: entry.source, id: entry.id, prepared: prepared[index] as Validation<string>, rows });
    return record;
  });
  return {
    // One batch: every id is dispatched before the call leaves, so it carries them all.
    records: () => batchedRecords(async function* () {
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

/** What became of an id: removed by this run, not an invigilator (319), or gone with no telling which (a resend of an interrupted attempt's). */
interface RemovedId {
  id: string;
  was: 'removed' | 'absent' | 'unknown';
}

async function sayWhoWasRemoved(scheduleExtId: string, remembered: readonly RemovedId[], dryRun: boolean, deps: CommandDeps): Promise<void> {
  const list = (ids: string[]) => `${ids.slice(0, NAMED_IDS).join(', ')}${ids.length > NAMED_IDS ? ` and ${ids.length - NAMED_IDS} more` : ''}`;
  const ids = (was: RemovedId['was']) => remembered.filter((kept) => kept.was === was).map((kept) => kept.id);
  const [removed, notThere, unknown] = [ids('removed'), ids('absent'), ids('unknown')];
  if (removed.length > 0) await say(deps, `${dryRun ? 'would remove' : 'removed'} from ${scheduleExtId}: ${list(removed)}`);
  if (notThere.length > 0) await say(deps, `not invigilators of ${scheduleExtId} (nothing to remove): ${list(notThere)}`);
  if (unknown.length > 0) {
    await say(deps, `no longer invigilators of ${scheduleExtId} (the interrupted attempt may have removed them, or they were not): ${list(unknown)}`);
  }
}

/** The ids to remove, with where each was given: arguments, then --file (only the not-ok ones with --only-failed), else asked. */
async function idEntries(
  { scheduleExtId, userExtIds, file, sheet, hiddenRows, onlyFailed, map, mapFile, profile, baseUrl, target, store }: Pick<InvigilatorsRemoveOptions, 'scheduleExtId' | 'userExtIds' | 'file' | 'sheet' | 'hiddenRows' | 'onlyFailed'> & InputFlagOptions,
  deps: CommandDeps,
  prompted: () => Promise<IdEntry[]>,
): Promise<IdEntry[]> {
  const entries: IdEntry[] = (userExtIds ?? []).map((id, index) => ({ id, source: { file: ARGUMENTS_SOURCE, line: index + 1, index } }));
  if (onlyFailed && file === undefined) throw notARunReport('give the report with --file');
  if (file !== undefined) {
    // --map "Staff ID=UserExtId" names the id column; a map onto any other field is refused (exit 2).
    const shaping = await inputShaping({ map, mapFile, profile, baseUrl, target, store }, deps, [{ name: 'UserExtId', kind: 'string' }], 'invigilators remove');
    const idColumn = [...shaping.map].find(([, field]) => field === 'UserExtId')?.[0];
    const listed = await readIdList(inputPathOf(file, deps), {
      displayName: displayNameOf(file),
      sheet,
      hiddenRows,
      idColumn,
      notice: (text) => sayOnce(deps, text),
    });
    // Without a status column every id would be sent again: the original list picked by mistake.
    if (onlyFailed && listed.length > 0 && listed[0]!.status === undefined) throw noStatusColumn(file);
    // A dry run's report: none of its ids was removed, so --only-failed would leave out the valid ones.
    const dry = onlyFailed ? listed.find((entry) => isDryRunStatus(entry.status)) : undefined;
    if (dry !== undefined) throw dryRunReportRefused(dry.source.file, dry.source.line, 'invigilators remove');
    // Another schedule's report: its failures were about that schedule, not this one.
    const other = onlyFailed ? listed.find((entry) => entry.schedule !== undefined && entry.schedule !== scheduleExtId) : undefined;
    if (other !== undefined) {
      throw new UsageError(`${other.source.file}:${other.source.line}: --only-failed: this report is of a removal from schedule ${other.schedule}, not ${scheduleExtId}: nothing was sent (run it against ${other.schedule}, or give ${scheduleExtId}'s ids as a list)`);
    }
    for (const entry of listed) {
      if (onlyFailed && isOkStatus(entry.status)) continue;
      entries.push({ id: entry.id, source: entry.source });
    }
  }
  if (entries.length === 0 && file === undefined) entries.push(...(await prompted()));
  if (entries.length === 0) throw noInvigilatorIds();
  return entries;
}

/**
 * No id at all, however it came to be (none given, a --file without ids, prompts off): exit 2
 * naming the API's code 100 for such a list (docs/interpretations.md, "Invigilators"); `why`
 * says why nobody was asked.
 */
function noInvigilatorIds(why?: string): UsageError {
  return new UsageError(`no invigilator user ids: give them as arguments or with --file (${why === undefined ? '' : `${why}; `}${EMPTY_LIST_REFUSAL})`);
}

/**
 * The list is checked whole: a problem with the schedule fails every id, a problem with an id
 * fails that id only, and the others are sent.
 */
function preparedIds(scheduleExtId: string, entries: readonly IdEntry[]): Validation<string>[] {
  const validation = validateInvigilatorRemoval(scheduleExtId, entries.map((e) => e.id));
  const perId = new Map<number, Problem[]>();
  const whole: Problem[] = [];
  for (const problem of validation.ok ? [] : validation.problems) {
    const index = /^UserExtIds\[(\d+)\]$/.exec(problem.field)?.[1];
    if (index === undefined) whole.push(problem);
    else perId.set(Number(index), [...(perId.get(Number(index)) ?? []), problem]);
  }
  return entries.map((entry, index) => {
    const problems = whole.length > 0 ? whole : perId.get(index);
    return problems ? { ok: false, problems } : { ok: true, value: entry.id };
  });
}

/**
 * One DELETE for every id dispatched together: the pipeline sends a `sendsTogether` job's units
 * in one go, so the ids asked for before the call leaves all ride on it, and each gets its own
 * outcome from the one answer.
 */
class RemovalCall {
  private ids: string[] = [];
  private answer: Promise<(id: string) => Outcome> | undefined;

  constructor(
    private readonly scheduleExtId: string,
    /** --missing-ok: a 319 is ok (already not an invigilator). */
    private readonly missingOk: boolean,
  ) {}

  async outcomeFor(api: IntegrationApi, id: string, options: CallOptions): Promise<Outcome> {
    this.ids.push(id);
    // The call leaves once the ids dispatched with this one are in (after the current turn).
    this.answer ??= Promise.resolve().then(() => this.send(api, options));
    const outcomeOf = await this.answer;
    return outcomeOf(id);
  }

  private async send(api: IntegrationApi, options: CallOptions): Promise<(id: string) => Outcome> {
    const ids = this.ids;
    this.ids = [];
    this.answer = undefined;
    return interpret(await api.removeInvigilators(this.scheduleExtId, ids, options), this.scheduleExtId, this.missingOk, options.dryRun === true);
  }
}

/**
 * No ids given: on a terminal, the local target offers the schedule's invigilators as a checklist;
 * a remote target cannot list them, so they are typed. Otherwise a usage error naming what is missing.
 */
async function promptedIds(scheduleExtId: string, options: GlobalOptions, deps: CommandDeps, targetOf: TargetOf): Promise<IdEntry[]> {
  const { PROMPTS_OFF, promptInvigilatorIds, promptInvigilators } = await import('../../terminal/prompts.js');
  if (!promptsAllowed(options, deps)) throw noInvigilatorIds(PROMPTS_OFF);
  const target = await targetOf();
  const directory = await (deps.openDirectory ?? openTargetDirectory)(target, deps);
  let ids: string[];
  try {
    if (directory === null) {
      ids = await promptInvigilatorIds(scheduleExtId, promptIoOf(deps));
    } else {
      const invigilators = directory.invigilatorsOf(scheduleExtId);
      if (invigilators === null) throw new UsageError(`no schedule ${scheduleExtId} on ${describeTarget(target.report)}: nothing to choose from`);
      if (invigilators.length === 0) throw new UsageError(`schedule ${scheduleExtId} has no invigilators on ${describeTarget(target.report)}: nothing to remove`);
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

/**
 * Each id's outcome from the one answer: ok (`removed`, when SuccessfullyRemoved lists it), failed for a 319
 * (or, with --missing-ok, ok, `already not an invigilator`), for any other error and when it is not named.
 */
function interpret(result: ApiResult<InvigilatorsResponseContent>, scheduleExtId: string, missingOk: boolean, dryRun: boolean): (id: string) => Outcome {
  const { envelope } = result;
  if (!envelope.Success) {
    const problems = failureProblems(result);
    return () => ({ status: 'failed', errors: problems });
  }
  const byUser = new Map<string, Problem[]>();
  const content = envelope.Content as Partial<InvigilatorsResponseContent> | null;
  // Ids compare ignoring case, as the service's do (docs/domain-rules.md).
  const removed = new Set(Array.isArray(content?.SuccessfullyRemoved) ? content.SuccessfullyRemoved.map((id) => String(id).toLowerCase()) : []);
  for (const entry of Array.isArray(content?.Errors) ? content.Errors : []) {
    const user = typeof entry?.UserExtId === 'string' ? entry.UserExtId.toLowerCase() : '';
    const problems = problemsFrom([{ Code: entry?.Code, Message: entry?.Error }]);
    byUser.set(user, [...(byUser.get(user) ?? []), ...problems.map((p) => ({ ...p, field: 'UserExtId' }))]);
  }
  const missing = missingOk ? alreadyNotAnInvigilator(scheduleExtId) : undefined;
  return (id) => {
    const listed = byUser.get(id.toLowerCase());
    if (dryRun && !listed) return { status: 'ok', errors: [] };
    if (!listed) return removed.has(id.toLowerCase()) ? { status: 'ok', errors: [], action: 'removed' } : { status: 'failed', errors: [UNCONFIRMED] };
    const notAnInvigilator = listed.every((e) => e.code === ErrorCode.NotAnInvigilator);
    if (notAnInvigilator && missing !== undefined) return { status: 'ok', errors: [], action: 'unchanged', note: missing };
    // A 319 without the flag: failed, nothing of that item was done (docs/interpretations.md, "Invigilators").
    return notAnInvigilator ? { status: 'failed', errors: capProblems(listed), note: notAnInvigilator319(scheduleExtId) } : { status: 'failed', errors: capProblems(listed) };
  };
}

/** An id a 200 names neither as removed nor with an error: it may still be an invigilator. */
const UNCONFIRMED: Problem = { field: 'UserExtId', code: null, message: 'the service did not confirm removing it' };

/** A 319 without --missing-ok: what failed, and the flag that takes it as done. */
function notAnInvigilator319(scheduleExtId: string): string {
  return `not an invigilator of ${scheduleExtId}: nothing to remove (with --missing-ok that is ok)`;
}

/** --missing-ok's note on an id the service answered 319 for: the end state asked for, reached before. */
function alreadyNotAnInvigilator(scheduleExtId: string): string {
  return `already not an invigilator of ${scheduleExtId} (the service answered 319): nothing to remove (--missing-ok)`;
}
