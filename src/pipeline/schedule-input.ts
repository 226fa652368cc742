import { resolve } from 'node:path';
import type { CallOptions, IntegrationApi } from '../port/integration-api.js';
import {
  prepareScheduleRequest,
  scheduleIdOf,
  Sittings,
  sittingFieldPath,
  withCandidateLines,
  type PreparedSchedule,
  type ScheduleDefaults,
} from '../domain/sittings.js';
import { SCHEDULE_TABLE, type Workflow } from '../domain/schedule.js';
import { scheduleTextDoubts } from '../domain/api-text-doubts.js';
import { RECORD_COLUMNS } from '../domain/columns.js';
import { SCHEDULE_ID_RULE } from '../domain/one-id-per-file.js';
import { isGiven, unknownFieldProblem } from '../domain/field-rules.js';
import type { Problem } from '../domain/problem.js';
import { readRecordDates, readTypedDateTime, writtenTime, type WrittenTime } from '../domain/local-time.js';
import { InputFileError, UsageError } from '../system/errors.js';
import { keepingHeader } from '../input/batches.js';
import { isScheduleRequestRecord, type InputRecord, type SourceRef } from '../input/record.js';
import { readScheduleFile } from '../input/schedule-file.js';
import type { RecordShaping } from '../input/field-map.js';
import { refuseWithheldPins, withGivenPins } from '../input/withheld-pins.js';
import type { SourceRow } from '../report/run-report.js';
import type { CommandDeps } from '../context/command-deps.js';
import { FLAG_FIELDS } from '../context/settings.js';
import { typedPin } from '../context/pin-source.js';
import { OneIdPerFile, withRecordFindings, type Outcome, type RecordJob, type Unit } from './record-job.js';
import { outcomeOf } from './service-answer.js';
import {
  inputShaping,
  noteRead,
  readInput,
  sourceRowsOf,
  type InputFlagOptions,
  type SheetFlagOptions,
} from './command-input.js';

/* `schedule push`'s input (docs/input-formats.md), and how one request is sent and its answer read. */

/** The values of FLAG_FIELDS' flags, as given. */
type FieldFlags = { [flag in keyof typeof FLAG_FIELDS]?: string | boolean | undefined };

/** What `schedule push` reads its input by. */
interface ScheduleInputOptions extends InputFlagOptions, SheetFlagOptions, FieldFlags {
  file: string;
  schedule?: string | undefined;
  workflow?: Workflow | undefined;
  upsert?: boolean | undefined;
  ignoreUnknownColumns?: boolean | undefined;
}

/**
 * `synced adopt-schedules`' input: the requests as `schedule push` builds them, with the PIN it took (the --schedule
 * file's beats EXAMCTL_PIN, a typed one beats the file's). A report's withheld PIN cells need the PIN that was pushed
 * (--pin-file, EXAMCTL_PIN): never asked here.
 */
export async function adoptedSchedulesInput(
  { pin, pinFile, ...flags }: ScheduleInputOptions & { pin?: string; pinFile?: string },
  deps: CommandDeps,
) {
  const { pin: given, pinField } = await typedPin({ pin, pinFile }, deps);
  const input = await schedulePushInput({ ...flags, pin: pinField }, deps);
  if (!isGiven(input.defaults.schedule.PIN) && given !== undefined) input.defaults.schedule.PIN = given;
  if (!isGiven(input.defaults.schedule.PIN)) await refuseWithheldPins(input.records(), false);
  return input;
}

/** The records and the schedule requests they make; `defaults` is the units' own, so fields asked later count. */
export async function schedulePushInput(
  options: ScheduleInputOptions,
  deps: CommandDeps,
): Promise<
  { defaults: ScheduleDefaults; shaping: RecordShaping } & Pick<
    RecordJob<PreparedSchedule>,
    'records' | 'units' | 'readIds'
  >
> {
  const { file, schedule, workflow, upsert, ignoreUnknownColumns, sheet, hiddenRows, encoding } = options;
  const columns = RECORD_COLUMNS.schedules;
  // Checked before anything is read: the flags, then --start/--end and --schedule read by --date-format/--timezone.
  const shaping = await inputShaping(options, deps, columns, 'schedule push');
  const defaults = await scheduleDefaults(schedule, options, workflow, upsert, shaping, deps);
  // Whole requests' ids (a sittings row's id names the schedule it is part of).
  const ids = new OneIdPerFile(SCHEDULE_ID_RULE, (record) =>
    isScheduleRequestRecord(record) ? scheduleIdOf(record.fields, defaults) : null,
  );
  // One reader for every pass: each read after the first checks the file is the one it read.
  const read = readInput(file, deps, {
    columns,
    ignoreUnknownColumns: ignoreUnknownColumns ?? false,
    sheet,
    hiddenRows,
    encoding,
    command: 'schedule push',
    shaping,
  });
  return {
    defaults,
    shaping,
    records: () =>
      keepingHeader(
        read,
        withGivenPins(oneKindOfRecord(read), () =>
          isGiven(defaults.schedule.PIN) ? stringOf(defaults.schedule.PIN) : undefined,
        ),
      ),
    units: (batches) => scheduleUnits(batches, defaults, ids),
    readIds: (records) => ids.read(records),
  };
}

export function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

async function scheduleDefaults(
  scheduleFile: string | undefined,
  fieldFlags: FieldFlags,
  workflow: Workflow | undefined,
  upsert: boolean | undefined,
  shaping: RecordShaping,
  deps: CommandDeps,
): Promise<ScheduleDefaults> {
  const path = resolve(deps.cwd, scheduleFile ?? '');
  const defaults: ScheduleDefaults =
    scheduleFile === undefined ? { schedule: {} } : await readScheduleFile(path, scheduleFile, noteRead(deps, path));
  const written: WrittenTime[] = [];
  if (scheduleFile !== undefined) {
    const problems: Problem[] = [];
    defaults.schedule = readRecordDates(defaults.schedule, shaping.dates, problems, '', written);
    // The file's own faults are said of the file, before anything is read: not of every schedule the fields fill.
    for (const key of Object.keys(defaults.schedule))
      if (!SCHEDULE_TABLE.byName.has(key)) problems.push(unknownFieldProblem(SCHEDULE_TABLE, '', key));
    for (const field of ['StartDateTime', 'EndDateTime'] as const) {
      const value = defaults.schedule[field];
      const reading = typeof value === 'string' ? readTypedDateTime(field, value, shaping.dates) : undefined;
      // Code null: the API's DateTime rule (unnumbered); thrown as a usage error, never reported.
      if (reading !== undefined && !reading.ok) problems.push({ field, code: null, message: reading.message });
    }
    if (problems[0] !== undefined) throw new UsageError(`--schedule ${scheduleFile}: ${problems[0].message}`);
  }
  for (const [flag, field] of Object.entries(FLAG_FIELDS)) {
    const value = fieldFlags[flag as keyof typeof FLAG_FIELDS];
    if (value === undefined) continue;
    if (typeof value === 'string' && (flag === 'start' || flag === 'end')) {
      const reading = readTypedDateTime(field, value, shaping.dates);
      if (!reading.ok) throw new UsageError(`--${flag}: ${reading.message}`);
      defaults.schedule[field] = reading.value;
      if (reading.value !== value.trim()) written.push(writtenTime(field, value, reading));
      continue;
    }
    defaults.schedule[field] = value;
  }
  if (workflow !== undefined) defaults.workflow = workflow;
  if (upsert !== undefined) defaults.upsert = upsert;
  if (written.length > 0) defaults.written = written;
  return defaults;
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

/** Whole requests become units as read; sittings rows are grouped, so their units follow the whole read. */
async function* scheduleUnits(
  batches: AsyncIterable<readonly InputRecord[]>,
  defaults: ScheduleDefaults,
  ids: OneIdPerFile,
): AsyncIterable<readonly Unit<PreparedSchedule>[]> {
  ids.start();
  const sittings = new Sittings<{ source: SourceRef; rows: SourceRow[] | undefined; record: InputRecord }>(defaults);
  for await (const batch of batches) {
    const units: Unit<PreparedSchedule>[] = [];
    for (const record of batch) {
      if (isScheduleRequestRecord(record)) {
        const { id, prepared } = prepareScheduleRequest(record.fields, record.source.line, defaults);
        const unit = withTextDoubts(
          withRecordFindings(
            { source: record.source, id, prepared, rows: sourceRowsOf(record), written: defaults.written },
            record,
          ),
          [record],
        );
        units.push(ids.checked(unit, record));
      } else {
        sittings.add(sittingRow(record), { source: record.source, rows: sourceRowsOf(record), record });
      }
    }
    if (units.length > 0) yield units;
  }
  const units: Unit<PreparedSchedule>[] = [];
  for (const sitting of sittings.all()) {
    const rows = sitting.attached.flatMap((attached) => attached.rows ?? []);
    const unit = {
      source: (sitting.attached[0] as { source: SourceRef }).source,
      id: sitting.id(),
      prepared: sitting.prepare(),
      rows: rows.length > 0 ? rows : undefined,
      written: defaults.written,
    };
    const records = sitting.attached.map((attached) => attached.record);
    units.push(withTextDoubts(withRecordFindings(unit, sittingFindings(records)), records));
  }
  if (units.length > 0) yield units;
}

/** A valid schedule wider than the API text's words is sent with warnings (docs/domain-rules.md). */
function withTextDoubts(unit: Unit<PreparedSchedule>, records: readonly InputRecord[]): Unit<PreparedSchedule> {
  const pinFromNumberCell = records.some((record) => record.bareNumbers?.includes('PIN') === true);
  const doubts = unit.prepared.ok
    ? scheduleTextDoubts(unit.prepared.value.request.Schedule, { pinFromNumberCell })
    : [];
  return doubts.length > 0 ? { ...unit, warnings: [...(unit.warnings ?? []), ...doubts] } : unit;
}

/** One sitting's rows as one record: an unreadable cell in any row fails the schedule, naming its row. */
function sittingFindings(records: readonly InputRecord[]): InputRecord {
  const inRows = <T extends { field: string }>(of: (record: InputRecord) => readonly T[] | undefined) =>
    records.flatMap((record) =>
      (of(record) ?? []).map((item) => ({ ...item, field: sittingFieldPath(item.field), line: record.source.line })),
    );
  const problems = inRows((record) => record.problems);
  const warnings = inRows((record) => record.warnings);
  const mapped = inRows((record) => record.mapped);
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
export async function describeRequests(
  records: AsyncIterable<InputRecord>,
  defaults: ScheduleDefaults,
): Promise<string> {
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

/** The service names its API field (`Upsert`); the person at the command line needs the command. */
function namingUpsertFlag(problem: Problem): Problem {
  if (!/^duplicate scheduleextid/i.test(problem.message.trim())) return problem;
  const base = problem.message.replace(/\s*\(use Upsert to update it\)\s*$/i, '');
  return { ...problem, message: `${base} (schedule push --upsert updates it)` };
}

/** A request without ScheduleExtId with the id examctl chose (RecordJob.withChosenId); undefined if it has one. */
export function withChosenScheduleId(payload: PreparedSchedule, id: string): PreparedSchedule | undefined {
  return payload.request.Schedule.ScheduleExtId === undefined || payload.request.Schedule.ScheduleExtId === ''
    ? { ...payload, request: { ...payload.request, Schedule: { ...payload.request.Schedule, ScheduleExtId: id } } }
    : undefined;
}

/** An ok answer to a request without Upsert made the schedule (a duplicate is refused): `created`. */
export function createdUnlessUpsert(payload: PreparedSchedule, outcome: Outcome, options: CallOptions): Outcome {
  return outcome.status === 'failed' ||
    outcome.action !== undefined ||
    options.dryRun === true ||
    payload.request.Upsert === true
    ? outcome
    : { ...outcome, action: 'created' };
}

export async function sendSchedule(
  api: IntegrationApi,
  payload: PreparedSchedule,
  options: CallOptions,
): Promise<Outcome> {
  const result = await api.createSchedule(payload.request, options);
  const outcome = outcomeOf(result);
  const errors = withCandidateLines(outcome.errors, payload.candidateLines).map(namingUpsertFlag);
  const id =
    result.envelope.Success && typeof result.envelope.Content === 'string' && result.envelope.Content !== ''
      ? result.envelope.Content
      : undefined;
  return { ...outcome, errors, ...(id !== undefined ? { id } : {}) };
}
