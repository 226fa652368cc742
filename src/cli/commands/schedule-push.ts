import { resolve } from 'node:path';
import { terminalLine } from '../../formats/terminal-text.js';
import type { CallOptions, IntegrationApi } from '../../port/integration-api.js';
import {
  CANDIDATE_COLUMNS,
  SCHEDULE_COLUMNS,
  ScheduleRequests,
  Sittings,
  sittingFieldPath,
  withCandidateLines,
  type PreparedSchedule,
  type ScheduleDefaults,
} from '../../domain/index.js';
import { scheduleTextDoubts } from '../../domain/api-text-doubts.js';
import { SCHEDULE_TABLE } from '../../domain/schedule.js';
import { unknownFieldProblem } from '../../domain/field-rules.js';
import { InputFileError, UsageError } from '../../system/errors.js';
import { feedsMemory, NOT_SENT_NOTE } from '../../sync/sent-memory.js';
import { ScheduleMemory } from '../../sync/schedule-memory.js';
import { onlyWhichOf } from '../../sync/known-ids.js';
import { keepingHeader, normalizeColumnName } from '../../input/index.js';
import { isScheduleRequestRecord, type InputRecord, type SourceRef } from '../../input/record.js';
import { readScheduleFile } from '../../input/schedule-file.js';
import type { SourceRow } from '../../report/run-report.js';
import type { Problem } from '../../domain/problem.js';
import { promptIoOf, promptsAllowed, type CommandDeps } from '../../context/command-deps.js';
import { onlyGlobals, type GlobalOptions } from '../../flags/global-options.js';
import { commandName, type RerunInput } from '../command-declaration.js';
import { withRecordFindings, type Outcome, type RecordJob, type Unit } from '../../pipeline/record-job.js';
import { runPipeline } from '../../pipeline/run-pipeline.js';
import { createdByLostAttempt, outcomeOf } from '../../pipeline/service-answer.js';
import { openTargetDirectory } from '../../context/target.js';
import { type TargetOf } from '../../context/resolved-target.js';
import type { ScheduleFieldName, StoreChoices } from '../../terminal/prompts.js';
import { inputFlagsOf, inputShaping, readInput, sourceRowsOf, type InputFlagOptions } from '../../pipeline/command-input.js';
import type { RecordShaping } from '../../input/field-map.js';
import { readRecordDates, readTypedDateTime, type LocalTimeOptions, type WrittenTime } from '../../domain/local-time.js';
import { quoteWritten } from '../../domain/written-times.js';
import { refuseWithheldPins, withGivenPins } from './withheld-pins.js';
import { askPin, givenPin } from '../../context/pin-source.js';
import { SCHEDULE_PUSH, type SchedulePushOptions } from './schedule-push.options.js';


/** Flag -> Schedule field. Each flag is a default: a CSV column or a request's own field wins. */
const FLAG_FIELDS = {
  scheduleId: 'ScheduleExtId',
  assessment: 'AssessmentExtId',
  title: 'Title',
  start: 'StartDateTime',
  end: 'EndDateTime',
  group: 'GroupExtId',
  groupName: 'GroupName',
  scheduleGroup: 'ScheduleGroupExtId',
  scheduleGroupName: 'ScheduleGroupName',
  owner: 'Owner',
  pin: 'PIN',
  proctoring: 'UseProctoringService',
  proctoringTemplate: 'ProctoringServiceTemplateExternalId',
  lockOnConnectionLoss: 'LockExamOnConnectionLoss',
  keycode: 'UseKeyCode',
  autoCleanup: 'enableAutomaticDataCleanup',
  cleanupNoticePeriod: 'dataCleanupNoticePeriod',
} as const satisfies Partial<Record<keyof SchedulePushOptions, string>>;

/** The values of FLAG_FIELDS' flags, as given. */
type FieldFlags = Pick<SchedulePushOptions, keyof typeof FLAG_FIELDS>;

/** `examctl schedule push`: one POST /schedule per schedule request. */
export async function run(
  { file, schedule, workflow, upsert, ignoreUnknownColumns, onlyFailed, sheet, hiddenRows, timezone, changedOnly, requireMemory, syncDir, encoding, map, mapFile, set, dateFormat, pinFile, onlyNew, onlyExisting, reallyNewIds, ...rest }: SchedulePushOptions,
  givenDeps: CommandDeps,
  target: TargetOf,
): Promise<number> {
  const { taken: fieldFlags, rest: globals } = takeFlags(rest, Object.keys(FLAG_FIELDS) as (keyof typeof FLAG_FIELDS)[]);
  const options = onlyGlobals(globals);
  // --pin, --pin-file or EXAMCTL_PIN (pin-source.ts); the journal records its digest whichever it came from.
  const pin = await givenPin({ pin: fieldFlags.pin, pinFile }, givenDeps);
  if (pin !== undefined) fieldFlags.pin = pin;
  let deps: CommandDeps = pin === undefined ? givenDeps : { ...givenDeps, invocation: { ...(givenDeps.invocation ?? {}), pin } };
  // The input's zone and date format go with the run options: a report workbook types its dates by them.
  const runOptions = { ...options, onlyFailed, timezone, dateFormat };
  // Unchanged schedules are left out only when the rest can be sent again as updates.
  if (changedOnly && !upsert) throw new UsageError('--changed-only needs --upsert: a schedule that changed is sent again as an update');
  if (requireMemory && !changedOnly) throw new UsageError('--require-memory goes with --changed-only');
  const only = onlyWhichOf(onlyNew, onlyExisting);
  // A schedule the target has is sent again only as an update.
  if (only === 'existing' && !upsert) throw new UsageError('--only-existing needs --upsert: a schedule the target has is sent again as an update');
  const memory = new ScheduleMemory('schedules', { changedOnly, requireMemory, syncDir, only, reallyNewIds, runsDir: options.runsDir, dryRun: options.dryRun }, deps, target, (payload) => payload.request);
  const inputFlags = inputFlagsOf({ map, mapFile, set, dateFormat, timezone, ...globals });
  const { defaults, records, units, shaping, summaryNotes } = await schedulePushInput({ file, schedule, workflow, upsert, ignoreUnknownColumns, sheet, hiddenRows, encoding, ...inputFlags, ...fieldFlags }, deps);
  // A report's withheld PIN cells take the given PIN; on a terminal it is asked (never typed on the
  // command line, where `ps` shows it). None: the run is refused in `prepare`, with its documents.
  if (defaults.schedule.PIN === undefined) {
    try {
      await refuseWithheldPins(records(), onlyFailed ?? false);
    } catch (error) {
      if (!(error instanceof InputFileError)) throw error;
      const asked = await askPin('the report withholds the schedule PIN', options, deps);
      if (asked !== undefined) {
        defaults.schedule.PIN = asked;
        deps = { ...deps, invocation: { ...(deps.invocation ?? {}), pin: asked } };
      }
    }
  }
  const asked = await completeRequiredFields(defaults, records, shaping, options, deps, target);
  await warnBeforeSending(defaults, records, shaping, options.dryRun ?? false, deps);
  const job: RecordJob<PreparedSchedule, Remembered> = {
    command: commandName(SCHEDULE_PUSH),
    records,
    summaryNotes,
    async *units(batches) {
      for await (const batch of units(batches)) yield batch.map((unit) => memory.leaveOut(memory.unit(unit)));
    },
    describeSend: (records) => describeRequests(records, defaults),
    prepare: async () => {
      // A report's withheld PIN cells take the given PIN; none given, the run is refused before
      // anything is sent (withheld-pins.ts), with its documents written (run-pipeline.ts).
      if (defaults.schedule.PIN === undefined) await refuseWithheldPins(records(), onlyFailed ?? false);
      await memory.open(changedOnly ?? false);
      // Candidate ids a spreadsheet stripped of their leading zeros: refused before anything is sent.
      await memory.refuseLostZeros(records());
      await memory.openKnown('schedules');
    },
    syncMemory: () => memory.note(),
    started: (run) => memory.started(run),
    ending: () => memory.ending(),
    acknowledged: (unit, payload, outcome, run, kept) => {
      if (feedsMemory(outcome, kept)) memory.acknowledged(unit, payload, run, kept);
    },
    unsettled: (unit) => memory.unsettled(unit),
    refused: (unit, taken) => memory.refused(unit, taken),
    intend: (unit, run) => memory.intend(unit, run),
    intentsDurable: () => memory.intentsDurable(),
    // A remote answer does not say created or updated: without Upsert the request only creates; with, the memory says (docs/sync.md, "Created or updated").
    send: async (api, payload, callOptions) => memory.answered(payload, payload.request.Schedule.ScheduleExtId ?? null, memory.withNote(payload, createdUnlessUpsert(payload, await sendSchedule(api, payload, callOptions), callOptions))),
    // No ScheduleExtId: examctl names it, so a resend after a lost answer is not a second schedule (docs/runs.md).
    lostAttemptDid: createdByLostAttempt('/schedule'),
    withChosenId: (payload, id) =>
      payload.request.Schedule.ScheduleExtId === undefined || payload.request.Schedule.ScheduleExtId === ''
        ? { ...payload, request: { ...payload.request, Schedule: { ...payload.request.Schedule, ScheduleExtId: id } } }
        : undefined,
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
  let exitCode: number;
  let remembered: Remembered[];
  try {
    ({ exitCode, remembered } = await runPipeline(job, runOptions, deps, target));
    // After a failed send from prompts: correct the answers (earlier ones as defaults) and send again.
    for (let refused = refusedProblems(remembered); asked !== undefined && refused !== undefined; refused = refusedProblems(remembered)) {
      if (!(await correctAnswers(asked, refused, defaults, deps))) break;
      await memory.close();
      ({ exitCode, remembered } = await runPipeline(job, runOptions, deps, target));
    }
  } catch (error) {
    await memory.close().catch(() => undefined);
    throw error;
  }
  await memory.close();
  const withdrawn = memory.withdrawnLine();
  if (withdrawn !== undefined) await deps.stderr.write(`${withdrawn}\n`);
  if (remembered.some((kept) => 'id' in kept)) {
    // Answers come in as they complete; the note follows the file (first few only).
    const generated = remembered
      .filter((kept): kept is { line: number; id: string } => 'id' in kept)
      .sort((a, b) => a.line - b.line)
      .map((kept) => kept.id);
    const shown = generated.slice(0, 5).join(', ');
    await deps.stderr.write(`generated ScheduleExtId: ${shown}${generated.length > 5 ? ` and ${generated.length - 5} more (see --report)` : ''}\n`);
    if (generated.length === 1) {
      await deps.stderr.write(`to change this schedule later instead of making another: --schedule-id ${generated[0]} --upsert\n`);
    }
  }
  return exitCode;
}

/**
 * The records and the schedule requests they make (whole requests, or sittings rows grouped by
 * schedule), with the defaults from --schedule and the flags: what the pipeline reads, and what
 * `runs show` reads again. `defaults` is the object the units read, so fields asked later count.
 */
/** `runs show` reads a run again (SCHEDULE_PUSH's resume.input). */
export const rerunInput: RerunInput = async (options, deps) => schedulePushInput(options as never, deps);

export async function schedulePushInput(
  options: Pick<SchedulePushOptions, 'file' | 'schedule' | 'workflow' | 'upsert' | 'ignoreUnknownColumns' | 'sheet' | 'hiddenRows' | 'encoding'> & InputFlagOptions & FieldFlags,
  deps: CommandDeps,
): Promise<{ defaults: ScheduleDefaults; shaping: RecordShaping } & Pick<RecordJob<PreparedSchedule>, 'records' | 'units' | 'summaryNotes'>> {
  const { file, schedule, workflow, upsert, ignoreUnknownColumns, sheet, hiddenRows, encoding } = options;
  const { taken: fieldFlags } = takeFlags(options, Object.keys(FLAG_FIELDS) as (keyof typeof FLAG_FIELDS)[]);
  const columns = [...CANDIDATE_COLUMNS, ...SCHEDULE_COLUMNS];
  // Checked before anything is read: the flags, then --start/--end and --schedule read by --date-format/--timezone.
  const shaping = await inputShaping(options, deps, columns, 'schedule push');
  const defaults = await scheduleDefaults(schedule, fieldFlags, workflow, upsert, shaping, deps);
  return {
    defaults,
    shaping,
    records: () => {
      const read = readInput(file, deps, { columns, ignoreUnknownColumns: ignoreUnknownColumns ?? false, sheet, hiddenRows, encoding, command: 'schedule push', shaping });
      return keepingHeader(read, withGivenPins(oneKindOfRecord(read), () => stringOf(defaults.schedule.PIN)));
    },
    units: (batches) => scheduleUnits(batches, defaults),
    summaryNotes: [NOT_SENT_NOTE],
  };
}

type Remembered = { line: number; id: string } | { line: number; problems: Problem[] };

function refusedProblems(remembered: readonly Remembered[]): Problem[] | undefined {
  const refused = remembered.find((kept): kept is { line: number; problems: Problem[] } => 'problems' in kept);
  return refused?.problems;
}

/** What was asked and how, so a correction asks the same way. */
interface AskedFields {
  names: ScheduleFieldName[];
  choices: StoreChoices | undefined;
  dates: LocalTimeOptions;
}

async function correctAnswers(asked: AskedFields, problems: readonly Problem[], defaults: ScheduleDefaults, deps: CommandDeps): Promise<boolean> {
  const { offerCorrection, promptScheduleFields } = await import('../../terminal/prompts.js');
  const io = promptIoOf(deps);
  const given = asked.names.map((name) => ({ name, label: name, value: stringOf(defaults.schedule[name]) }));
  const again = await offerCorrection(given, problems, io);
  if (again === null) return false;
  const earlier = Object.fromEntries(given.map((answer) => [answer.name, answer.value]).filter(([, value]) => value !== undefined));
  const known = Object.fromEntries(Object.entries(defaults.schedule).filter(([field]) => !again.includes(field as ScheduleFieldName)));
  Object.assign(defaults.schedule, await promptScheduleFields(again, io, known, { ...(asked.choices ? { choices: asked.choices } : {}), defaults: earlier, dates: asked.dates }));
  return true;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Splits `keys` off `options`, typed so that what is left no longer holds them. */
function takeFlags<T extends object, K extends keyof T>(options: T, keys: readonly K[]): { taken: Pick<T, K>; rest: Omit<T, K> } {
  const taken = {} as Pick<T, K>;
  const rest: Partial<T> = { ...options };
  for (const key of keys) {
    taken[key] = options[key];
    delete rest[key];
  }
  return { taken, rest: rest as Omit<T, K> };
}

async function scheduleDefaults(
  scheduleFile: string | undefined,
  fieldFlags: FieldFlags,
  workflow: SchedulePushOptions['workflow'],
  upsert: boolean | undefined,
  shaping: RecordShaping,
  deps: CommandDeps,
): Promise<ScheduleDefaults> {
  const defaults: ScheduleDefaults = scheduleFile === undefined ? { schedule: {} } : await readScheduleFile(resolve(deps.cwd, scheduleFile), scheduleFile);
  const written: WrittenTime[] = [];
  if (scheduleFile !== undefined) {
    const problems: Problem[] = [];
    defaults.schedule = readRecordDates(defaults.schedule, shaping.dates, problems, '', written);
    // The file's own faults are said of the file, before anything is read: not of every schedule the fields fill.
    for (const key of Object.keys(defaults.schedule)) if (!SCHEDULE_TABLE.byName.has(key)) problems.push(unknownFieldProblem(SCHEDULE_TABLE, '', key));
    for (const field of ['StartDateTime', 'EndDateTime'] as const) {
      const value = defaults.schedule[field];
      const reading = typeof value === 'string' ? readTypedDateTime(field, value, shaping.dates) : undefined;
      if (reading !== undefined && !reading.ok) problems.push({ field, code: null, message: reading.message });
    }
    if (problems[0] !== undefined) throw new UsageError(`--schedule ${scheduleFile}: ${problems[0].message}`);
  }
  for (const [flag, field] of Object.entries(FLAG_FIELDS)) {
    const value = fieldFlags[flag as keyof typeof FLAG_FIELDS];
    if (value === undefined) continue;
    if (typeof value === 'string' && (flag === 'start' || flag === 'end')) {
      // --start/--end as a file's date-time would be read: an offset, or a local time in --timezone.
      const reading = readTypedDateTime(field, value, shaping.dates);
      if (!reading.ok) throw new UsageError(`--${flag}: ${reading.message}`);
      defaults.schedule[field] = reading.value;
      if (reading.value !== value.trim()) written.push({ field, text: value.trim(), value: reading.value, ...(reading.zone !== undefined ? { zone: reading.zone } : {}) });
      continue;
    }
    defaults.schedule[field] = value;
  }
  if (workflow !== undefined) defaults.workflow = workflow;
  if (upsert !== undefined) defaults.upsert = upsert;
  if (written.length > 0) defaults.written = written;
  return defaults;
}

/** The required Schedule fields and the flag that gives each. */
const REQUIRED_FIELD_FLAGS = {
  AssessmentExtId: '--assessment',
  StartDateTime: '--start',
  GroupExtId: '--group',
  GroupName: '--group-name',
} as const;
type RequiredField = keyof typeof REQUIRED_FIELD_FLAGS;

/**
 * A candidates file carries no schedule columns, so the required schedule fields must come
 * from flags or --schedule: asked on a terminal, else a usage error naming the flags. Files
 * with the columns (sittings, whole JSON requests) are checked per record instead.
 */
async function completeRequiredFields(
  defaults: ScheduleDefaults,
  records: () => AsyncIterable<InputRecord>,
  shaping: RecordShaping,
  options: GlobalOptions,
  deps: CommandDeps,
  target: TargetOf,
): Promise<AskedFields | undefined> {
  let first: InputRecord | undefined;
  for await (const record of records()) {
    first = record;
    break;
  }
  if (first === undefined || isScheduleRequestRecord(first)) return undefined;
  const header = new Set(fieldColumns(first, shaping).map(normalizeColumnName));
  const missing = (Object.keys(REQUIRED_FIELD_FLAGS) as RequiredField[]).filter(
    (field) => defaults.schedule[field] === undefined && !header.has(normalizeColumnName(field)),
  );
  if (missing.length === 0) return undefined;
  const { missingValue, promptScheduleFields } = await import('../../terminal/prompts.js');
  if (!promptsAllowed(options, deps)) throw missingValue(missing.map((field) => REQUIRED_FIELD_FLAGS[field]).join(', '));
  const flags = missing.map((field) => REQUIRED_FIELD_FLAGS[field]).join(' ');
  await deps.stderr.write(`${terminalLine(`${first.source.file} holds candidates only: the schedule's required fields are asked (next time: ${flags})`)}\n`);
  // On the local target the store's assessments and groups are pickers: an id it lacks is not offered.
  const choices = await storeChoices(deps, target);
  // The Start prompt reads what --start would (--date-format, --timezone).
  Object.assign(defaults.schedule, await promptScheduleFields(missing, promptIoOf(deps), defaults.schedule, { ...(choices ? { choices } : {}), dates: shaping.dates }));
  return { names: missing, choices, dates: shaping.dates };
}

async function storeChoices(deps: CommandDeps, target: TargetOf): Promise<StoreChoices | undefined> {
  const directory = await (deps.openDirectory ?? openTargetDirectory)(await target(), deps);
  if (directory === null) return undefined;
  try {
    return { assessments: directory.assessments(), hierarchies: directory.hierarchies() };
  } finally {
    await directory.close();
  }
}

/** Schedules whose start is past, and rows with an empty ScheduleExtId, are named, at most this many, then counted. */
const PAST_SHOWN = 5;

/**
 * Said before anything is sent, because neither can be undone: a candidates file without a
 * schedule id makes a new schedule on every run (three runs, three schedules), and a schedule
 * whose StartDateTime is already past is activated at once and can no longer be updated.
 */
async function warnBeforeSending(defaults: ScheduleDefaults, records: () => AsyncIterable<InputRecord>, shaping: RecordShaping, dryRun: boolean, deps: CommandDeps): Promise<void> {
  const { clockFromEnv } = await import('../../engine/clock.js');
  const now = clockFromEnv(deps.env)().getTime();
  const past: string[] = [];
  let pastCount = 0;
  let generatesId = false;
  // Rows (or requests) of a file that has ScheduleExtId, whose own is empty: named, for the column is there.
  const emptyIds: string[] = [];
  let emptyIdCount = 0;
  const seen = new Set<string>();
  for await (const record of records()) {
    // A candidates file's schedule is the flags' alone: one look settles it, with no pass over the file.
    const candidatesOnly = seen.size === 0 && !isScheduleRequestRecord(record) && Object.keys(scheduleCells(record)).length === 0 && !hasScheduleColumns(record, shaping);
    const schedule = isScheduleRequestRecord(record) ? ((record.fields.Schedule ?? {}) as Record<string, unknown>) : { ...defaults.schedule, ...scheduleCells(record) };
    const id = typeof schedule.ScheduleExtId === 'string' && schedule.ScheduleExtId.trim() !== '' ? schedule.ScheduleExtId.trim() : undefined;
    if (id === undefined) {
      generatesId = true;
      if (isScheduleRequestRecord(record) || hasFieldColumn(record, shaping, 'ScheduleExtId')) {
        emptyIdCount += 1;
        if (emptyIds.length < PAST_SHOWN) emptyIds.push(`${record.source.file}:${record.source.line}`);
      }
    }
    const key = id ?? `line ${record.source.line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const start = typeof schedule.StartDateTime === 'string' ? Date.parse(schedule.StartDateTime) : Number.NaN;
    if (!Number.isNaN(start) && start < now) {
      pastCount += 1;
      // The start as the file (or --start) wrote it, with the zone used, then UTC: the row is found by what it says.
      const utc = new Date(start).toISOString();
      const quoted = quoteWritten(utc, [...(record.written ?? []), ...(defaults.written ?? [])]);
      const when = quoted === utc ? String(schedule.StartDateTime) : quoted;
      if (past.length < PAST_SHOWN) past.push(`${id ?? (candidatesOnly ? 'the new schedule' : `${record.source.file}:${record.source.line}`)} (${when})`);
    }
    if (candidatesOnly) break;
  }
  if (generatesId && !dryRun) {
    const without =
      emptyIdCount === 0
        ? 'no --schedule-id (and no ScheduleExtId column): every run makes a new schedule'
        : `no --schedule-id, and ScheduleExtId is empty on ${emptyIds.join(', ')}${emptyIdCount > emptyIds.length ? ` and ${emptyIdCount - emptyIds.length} more` : ''}: ` +
          'every run makes a new schedule for such rows';
    await deps.stderr.write(
      `${terminalLine(`note: ${without}, so running this again makes another one. The generated id is printed at the end; give it with --schedule-id <id> --upsert to update that schedule instead.`)}\n`,
    );
  }
  if (pastCount > 0) {
    await deps.stderr.write(
      `warning: StartDateTime already past for ${past.join(', ')}${pastCount > past.length ? ` and ${pastCount - past.length} more` : ''}: ` +
        'such a schedule is activated at once and can no longer be updated\n',
    );
  }
}

/**
 * The API fields a record's file gives as columns: its header read through --map (or its keys),
 * and the --set fields, which count as a column of every row.
 */
function fieldColumns(record: InputRecord, shaping: RecordShaping): string[] {
  const header = record.raw?.header ?? Object.keys(record.fields);
  const names = header.map((name) => shaping.map.get(normalizeColumnName(name)) ?? name);
  return [...names, ...shaping.set.keys(), ...(shaping.computed?.fieldsOf(header) ?? [])];
}

function hasFieldColumn(record: InputRecord, shaping: RecordShaping, field: string): boolean {
  return fieldColumns(record, shaping).some((name) => normalizeColumnName(name) === normalizeColumnName(field));
}

function hasScheduleColumns(record: InputRecord, shaping: RecordShaping): boolean {
  return hasFieldColumn(record, shaping, 'ScheduleExtId') || hasFieldColumn(record, shaping, 'StartDateTime');
}

/** A sittings row's own schedule cells (ScheduleExtId, StartDateTime), which win over the flags. */
function scheduleCells(record: InputRecord): Record<string, unknown> {
  const cells: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(record.fields)) {
    const key = normalizeColumnName(name);
    if (key === normalizeColumnName('ScheduleExtId') && value !== '' && value !== undefined) cells.ScheduleExtId = value;
    if (key === normalizeColumnName('StartDateTime') && value !== '' && value !== undefined) cells.StartDateTime = value;
  }
  return cells;
}

/** A JSON file holds whole requests or candidate rows, not both: a structural error, found before sending. */
async function* oneKindOfRecord(records: AsyncIterable<InputRecord>): AsyncIterable<InputRecord> {
  let requests: boolean | undefined;
  for await (const record of records) {
    const isRequest = isScheduleRequestRecord(record);
    if (requests !== undefined && requests !== isRequest) {
      throw new InputFileError(
        record.source.file,
        record.source.line,
        Object.keys(record.fields).length === 0
          ? 'is an empty object among candidate records: neither a candidate (no CandidateExtId) nor a whole schedule request; remove it'
          : 'mixes whole schedule requests (with Schedule and Candidates) and candidate records; use one kind per file',
      );
    }
    requests = isRequest;
    yield record;
  }
}

/**
 * Whole requests become units as they are read; sittings rows are grouped, and since rows of
 * one schedule may be anywhere in the file, their units follow once the file was read.
 */
async function* scheduleUnits(batches: AsyncIterable<readonly InputRecord[]>, defaults: ScheduleDefaults): AsyncIterable<readonly Unit<PreparedSchedule>[]> {
  const sittings = new Sittings<{ source: SourceRef; rows: SourceRow[] | undefined; record: InputRecord }>(defaults);
  const requests = new ScheduleRequests(defaults);
  for await (const batch of batches) {
    const units: Unit<PreparedSchedule>[] = [];
    for (const record of batch) {
      if (isScheduleRequestRecord(record)) {
        const { id, prepared } = requests.prepare(record.fields, record.source.line);
        units.push(withTextDoubts(withRecordFindings({ source: record.source, id, prepared, rows: sourceRowsOf(record), written: defaults.written }, record), [record]));
      } else {
        sittings.add(sittingRow(record), { source: record.source, rows: sourceRowsOf(record), record });
      }
    }
    if (units.length > 0) yield units;
  }
  const units: Unit<PreparedSchedule>[] = [];
  for (const sitting of sittings.all()) {
    const rows = sitting.attached.flatMap((attached) => attached.rows ?? []);
    const unit = { source: (sitting.attached[0] as { source: SourceRef }).source, id: sitting.id(), prepared: sitting.prepare(), rows: rows.length > 0 ? rows : undefined, written: defaults.written };
    const records = sitting.attached.map((attached) => attached.record);
    units.push(withTextDoubts(withRecordFindings(unit, sittingFindings(records)), records));
  }
  if (units.length > 0) yield units;
}

/**
 * A valid schedule wider than the API text's words (PIN, template id) is sent with warnings
 * (docs/domain-rules.md); a PIN read from a spreadsheet's number cell is said to be one.
 */
function withTextDoubts(unit: Unit<PreparedSchedule>, records: readonly InputRecord[]): Unit<PreparedSchedule> {
  const pinFromNumberCell = records.some((record) => record.bareNumbers?.includes('PIN') === true);
  const doubts = unit.prepared.ok ? scheduleTextDoubts(unit.prepared.value.request.Schedule, { pinFromNumberCell }) : [];
  return doubts.length > 0 ? { ...unit, warnings: [...(unit.warnings ?? []), ...doubts] } : unit;
}

/**
 * What the reader found in the rows of one sitting, as if one record: an unreadable cell in any
 * row fails the schedule (its request would lack that value), each problem and warning naming its row.
 */
function sittingFindings(records: readonly InputRecord[]): InputRecord {
  const problems = records.flatMap((record) => (record.problems ?? []).map((problem) => ({ ...problem, field: sittingFieldPath(problem.field), line: record.source.line })));
  const warnings = records.flatMap((record) => (record.warnings ?? []).map((warning) => ({ ...warning, field: sittingFieldPath(warning.field), line: record.source.line })));
  const mapped = records.flatMap((record) => (record.mapped ?? []).map((value) => ({ ...value, field: sittingFieldPath(value.field), line: record.source.line })));
  const written = records.flatMap((record) => record.written ?? []);
  const first = records[0] as InputRecord;
  return {
    ...first,
    ...(problems.length > 0 ? { problems } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
    mapped: mapped.length > 0 ? mapped : undefined,
    written: written.length > 0 ? written : undefined,
  };
}

/** For the remote confirmation: schedules (one request each) and candidates, grouped as scheduleUnits groups them. */
async function describeRequests(records: AsyncIterable<InputRecord>, defaults: ScheduleDefaults): Promise<string> {
  const sittings = new Sittings(defaults);
  let requests = 0;
  let candidates = 0;
  for await (const record of records) {
    if (isScheduleRequestRecord(record)) {
      requests += 1;
      if (Array.isArray(record.fields.Candidates)) candidates += record.fields.Candidates.length;
      continue;
    }
    sittings.add(sittingRow(record), undefined);
    candidates += 1;
  }
  const schedules = requests + sittings.size;
  return `${schedules} ${schedules === 1 ? 'schedule' : 'schedules'} (${candidates} ${candidates === 1 ? 'candidate' : 'candidates'})`;
}

function sittingRow(record: InputRecord): { line: number; csv: boolean; fields: Record<string, unknown> } {
  return { line: record.source.line, csv: record.raw !== undefined, fields: record.fields };
}

/**
 * The service names its API field (`Upsert`); the person at the command line needs the command.
 * Worded for a resume too (`runs resume` replays the run's own flags: the update is a new run).
 */
function namingUpsertFlag(problem: Problem): Problem {
  if (!/^duplicate scheduleextid/i.test(problem.message.trim())) return problem;
  const base = problem.message.replace(/\s*\(use Upsert to update it\)\s*$/i, '');
  return { ...problem, message: `${base} (schedule push --upsert updates it)` };
}

/** An ok answer to a request without Upsert made the schedule (a duplicate is refused): `created`. */
function createdUnlessUpsert(payload: PreparedSchedule, outcome: Outcome, options: CallOptions): Outcome {
  return outcome.status === 'failed' || outcome.action !== undefined || options.dryRun === true || payload.request.Upsert === true ? outcome : { ...outcome, action: 'created' };
}

async function sendSchedule(api: IntegrationApi, payload: PreparedSchedule, options: CallOptions): Promise<Outcome> {
  const result = await api.createSchedule(payload.request, options);
  const outcome = outcomeOf(result);
  const errors = withCandidateLines(outcome.errors, payload.candidateLines).map(namingUpsertFlag);
  const id = result.envelope.Success && typeof result.envelope.Content === 'string' && result.envelope.Content !== '' ? result.envelope.Content : undefined;
  return { ...outcome, errors, ...(id !== undefined ? { id } : {}) };
}
