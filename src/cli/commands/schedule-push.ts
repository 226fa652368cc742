import { resolve } from 'node:path';
import type { CallOptions, IntegrationApi } from '../../api/integration-api.js';
import {
  CANDIDATE_COLUMNS,
  isScheduleRequest,
  SCHEDULE_COLUMNS,
  ScheduleRequests,
  Sittings,
  withCandidateLines,
  type PreparedSchedule,
  type ScheduleDefaults,
} from '../../domain/index.js';
import { InputFileError } from '../../errors.js';
import { normalizeColumnName } from '../../input/index.js';
import type { InputRecord, SourceRef } from '../../input/record.js';
import { readScheduleFile } from '../../input/schedule-file.js';
import type { SourceRow } from '../../report/report-writers.js';
import { promptIoOf, promptsAllowed, type CommandDeps } from '../context.js';
import { withRecordFindings, type Outcome, type RecordJob, type Unit } from '../pipeline/record-job.js';
import { runPipeline } from '../pipeline/run-pipeline.js';
import { outcomeOf } from '../pipeline/service-answer.js';
import type { TargetOf } from '../target.js';
import { readInput, sourceRowsOf } from './input-helpers.js';
import type { SchedulePushOptions } from './schedule-push.options.js';


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

/** `examctl schedule push`: one POST /schedule per schedule request. */
export async function run(options: SchedulePushOptions, deps: CommandDeps, target: TargetOf): Promise<number> {
  const defaults = await scheduleDefaults(options, deps);
  const file = options.file;
  const columns = [...CANDIDATE_COLUMNS, ...SCHEDULE_COLUMNS];
  const records = () => oneKindOfRecord(readInput(file, deps, { columns, ignoreUnknownColumns: options.ignoreUnknownColumns ?? false, sheet: options.sheet, timezone: options.timezone }));
  await completeRequiredFields(defaults, records, options, deps);
  const job: RecordJob<PreparedSchedule, { line: number; id: string }> = {
    command: 'schedule push',
    records,
    units: (batches) => scheduleUnits(batches, defaults),
    describeSend: (records) => describeRequests(records, defaults),
    send: sendSchedule,
    // Ids the service chose: shown, since the admin needs them for the next command.
    remember: (unit, _payload, outcome) => (unit.id === null && outcome.id !== undefined && outcome.status !== 'failed' ? { line: unit.source.line, id: outcome.id } : undefined),
  };
  const { exitCode, remembered } = await runPipeline(job, options, deps, target);
  if (remembered.length > 0) {
    // Answers come in as they complete; the note follows the file (first few only).
    const generated = [...remembered].sort((a, b) => a.line - b.line).map((kept) => kept.id);
    const shown = generated.slice(0, 5).join(', ');
    await deps.stderr.write(`generated ScheduleExtId: ${shown}${generated.length > 5 ? ` and ${generated.length - 5} more (see --report)` : ''}\n`);
  }
  return exitCode;
}

async function scheduleDefaults(options: SchedulePushOptions, deps: CommandDeps): Promise<ScheduleDefaults> {
  const defaults: ScheduleDefaults = options.schedule === undefined ? { schedule: {} } : await readScheduleFile(resolve(deps.cwd, options.schedule), options.schedule);
  for (const [flag, field] of Object.entries(FLAG_FIELDS)) {
    const value = options[flag as keyof typeof FLAG_FIELDS];
    if (value !== undefined) defaults.schedule[field] = value;
  }
  if (options.workflow !== undefined) defaults.workflow = options.workflow;
  if (options.upsert !== undefined) defaults.upsert = options.upsert;
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
async function completeRequiredFields(defaults: ScheduleDefaults, records: () => AsyncIterable<InputRecord>, options: SchedulePushOptions, deps: CommandDeps): Promise<void> {
  let first: InputRecord | undefined;
  for await (const record of records()) {
    first = record;
    break;
  }
  if (first === undefined || isRequestRecord(first)) return;
  const header = new Set((first.raw?.header ?? Object.keys(first.fields)).map(normalizeColumnName));
  const missing = (Object.keys(REQUIRED_FIELD_FLAGS) as RequiredField[]).filter(
    (field) => defaults.schedule[field] === undefined && !header.has(normalizeColumnName(field)),
  );
  if (missing.length === 0) return;
  const { missingValue, promptScheduleFields } = await import('../prompts.js');
  if (!promptsAllowed(options, deps)) throw missingValue(missing.map((field) => REQUIRED_FIELD_FLAGS[field]).join(', '));
  const flags = missing.map((field) => REQUIRED_FIELD_FLAGS[field]).join(' ');
  await deps.stderr.write(`${first.source.file} holds candidates only: the schedule's required fields are asked (next time: ${flags})\n`);
  Object.assign(defaults.schedule, await promptScheduleFields(missing, promptIoOf(deps), defaults.schedule));
}

function isRequestRecord(record: InputRecord): boolean {
  return !record.raw && isScheduleRequest(record.fields);
}

/** A JSON file holds whole requests or candidate rows, not both: a structural error, found before sending. */
async function* oneKindOfRecord(records: AsyncIterable<InputRecord>): AsyncIterable<InputRecord> {
  let requests: boolean | undefined;
  for await (const record of records) {
    const isRequest = isRequestRecord(record);
    if (requests !== undefined && requests !== isRequest) {
      throw new InputFileError(
        record.source.file,
        record.source.line,
        'mixes whole schedule requests (with Schedule and Candidates) and candidate records; use one kind per file',
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
      if (isRequestRecord(record)) {
        const { id, prepared } = requests.prepare(record.fields, record.source.line);
        units.push(withRecordFindings({ source: record.source, id, prepared, rows: sourceRowsOf(record) }, record));
      } else {
        sittings.add(sittingRow(record), { source: record.source, rows: sourceRowsOf(record), record });
      }
    }
    if (units.length > 0) yield units;
  }
  const units: Unit<PreparedSchedule>[] = [];
  for (const sitting of sittings.all()) {
    const rows = sitting.attached.flatMap((attached) => attached.rows ?? []);
    const unit = { source: (sitting.attached[0] as { source: SourceRef }).source, id: sitting.id(), prepared: sitting.prepare(), rows: rows.length > 0 ? rows : undefined };
    units.push(withRecordFindings(unit, sittingFindings(sitting.attached.map((attached) => attached.record))));
  }
  if (units.length > 0) yield units;
}

/**
 * What the reader found in the rows of one sitting, as if one record: an unreadable cell in any
 * row fails the schedule (its request would lack that value), each problem naming its row.
 */
function sittingFindings(records: readonly InputRecord[]): InputRecord {
  const problems = records.flatMap((record) => (record.problems ?? []).map((problem) => ({ ...problem, line: record.source.line })));
  const warnings = records.flatMap((record) => record.warnings ?? []);
  const first = records[0] as InputRecord;
  return { ...first, ...(problems.length > 0 ? { problems } : {}), ...(warnings.length > 0 ? { warnings } : {}) };
}

/** For the remote confirmation: schedules (one request each) and candidates, grouped as scheduleUnits groups them. */
async function describeRequests(records: AsyncIterable<InputRecord>, defaults: ScheduleDefaults): Promise<string> {
  const sittings = new Sittings(defaults);
  let requests = 0;
  let candidates = 0;
  for await (const record of records) {
    if (isRequestRecord(record)) {
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

async function sendSchedule(api: IntegrationApi, payload: PreparedSchedule, options: CallOptions): Promise<Outcome> {
  const result = await api.createSchedule(payload.request, options);
  const outcome = outcomeOf(result);
  const errors = withCandidateLines(outcome.errors, payload.candidateLines);
  const id = result.envelope.Success && typeof result.envelope.Content === 'string' && result.envelope.Content !== '' ? result.envelope.Content : undefined;
  return { ...outcome, errors, ...(id !== undefined ? { id } : {}) };
}
