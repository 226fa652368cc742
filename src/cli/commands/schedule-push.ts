import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CallOptions, IntegrationApi } from '../../api/integration-api.js';
import {
  CANDIDATE_COLUMNS,
  coerceAndValidateScheduleRequest,
  coerceScheduleFields,
  SCHEDULE_COLUMNS,
  SCHEDULE_FIELDS,
  validateScheduleRequest,
} from '../../domain/index.js';
import type { Problem, Validation } from '../../domain/problem.js';
import type { ScheduleRequest } from '../../domain/types.js';
import { InputFileError } from '../../errors.js';
import { normalizeColumnName } from '../../input/index.js';
import { parseJsonDocument } from '../../input/json-document.js';
import type { InputRecord } from '../../input/record.js';
import type { SourceRow } from '../../report/report-writers.js';
import { promptIoOf, promptsAllowed, type CommandDeps } from '../context.js';
import { outcomeOf, runRecords, type Outcome, type RecordJob, type Unit } from '../run-records.js';
import type { TargetOf } from '../target.js';
import { idOf, readInput, sourceRowsOf } from './input-helpers.js';
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

interface Defaults {
  schedule: Record<string, unknown>;
  workflow?: unknown;
  upsert?: unknown;
}

interface SchedulePayload {
  request: ScheduleRequest;
  /** Source line of each candidate, to put a line on the service's `Candidates[i]` errors. */
  candidateLines: number[];
}

/** `examctl schedule push`: one POST /schedule per schedule request. */
export async function run(options: SchedulePushOptions, deps: CommandDeps, target: TargetOf): Promise<number> {
  const defaults = await scheduleDefaults(options, deps);
  const file = options.file;
  const columns = [...CANDIDATE_COLUMNS, ...SCHEDULE_COLUMNS];
  const records = () => oneKindOfRecord(readInput(file, deps, { columns, ignoreUnknownColumns: options.ignoreUnknownColumns ?? false }));
  await completeRequiredFields(defaults, records, options, deps);
  const job: RecordJob<SchedulePayload> = {
    command: 'schedule push',
    records,
    units: (records) => scheduleUnits(records, defaults),
    describeSend: (records) => describeRequests(records, defaults),
    send: async (api, payload, callOptions) => {
      const outcome = await sendSchedule(api, payload, callOptions);
      if (payload.request.Schedule.ScheduleExtId === undefined && outcome.id !== undefined && outcome.status !== 'failed') generated.push(outcome.id);
      return outcome;
    },
  };
  // Ids the service chose: shown, since the admin needs them for the next command (first few only).
  const generated: string[] = [];
  const code = await runRecords(job, options, deps, target);
  if (generated.length > 0) {
    const shown = generated.slice(0, 5).join(', ');
    await deps.stderr.write(`generated ScheduleExtId: ${shown}${generated.length > 5 ? ` and ${generated.length - 5} more (see --report)` : ''}\n`);
  }
  return code;
}

async function scheduleDefaults(options: SchedulePushOptions, deps: CommandDeps): Promise<Defaults> {
  const defaults: Defaults = { schedule: {} };
  if (options.schedule !== undefined) {
    const parsed = await readScheduleFile(options.schedule, deps);
    if ('Schedule' in parsed) {
      if (!isObject(parsed.Schedule)) throw new InputFileError(options.schedule, undefined, 'Schedule must be a JSON object');
      Object.assign(defaults.schedule, parsed.Schedule);
      defaults.workflow = parsed.Workflow;
      defaults.upsert = parsed.Upsert;
    } else {
      Object.assign(defaults.schedule, parsed);
    }
  }
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
async function completeRequiredFields(defaults: Defaults, records: () => AsyncIterable<InputRecord>, options: SchedulePushOptions, deps: CommandDeps): Promise<void> {
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

async function readScheduleFile(file: string, deps: CommandDeps): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(resolve(deps.cwd, file), 'utf8');
  } catch (error) {
    throw new InputFileError(file, undefined, `cannot read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const parsed = parseJsonDocument(text, file);
  if (!isObject(parsed)) throw new InputFileError(file, undefined, 'must hold one JSON object: the Schedule fields, or a request with Schedule');
  return parsed;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isRequestRecord(record: InputRecord): boolean {
  return !record.raw && ('Schedule' in record.fields || 'Candidates' in record.fields);
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

async function* scheduleUnits(records: AsyncIterable<InputRecord>, defaults: Defaults): AsyncIterable<Unit<SchedulePayload>> {
  const groups = new Map<string, SittingGroup>();
  const seenIds = new Map<string, number>();
  for await (const record of records) {
    if (isRequestRecord(record)) {
      yield requestUnit(record, defaults, seenIds);
      continue;
    }
    addRow(groups, record, defaults);
  }
  // Rows of one schedule may be anywhere in the file, so a sittings file is grouped in full first.
  for (const group of groups.values()) yield groupUnit(group);
}

/** For the remote confirmation: schedules (one request each) and candidates, grouped as scheduleUnits groups them. */
async function describeRequests(records: AsyncIterable<InputRecord>, defaults: Defaults): Promise<string> {
  const groups = new Map<string, SittingGroup>();
  let requests = 0;
  let candidates = 0;
  for await (const record of records) {
    if (isRequestRecord(record)) {
      requests += 1;
      if (Array.isArray(record.fields.Candidates)) candidates += record.fields.Candidates.length;
      continue;
    }
    addRow(groups, record, defaults);
    candidates += 1;
  }
  const schedules = requests + groups.size;
  return `${schedules} ${schedules === 1 ? 'schedule' : 'schedules'} (${candidates} ${candidates === 1 ? 'candidate' : 'candidates'})`;
}

/** A whole request from JSON: the flags fill what it leaves out. */
function requestUnit(record: InputRecord, defaults: Defaults, seenIds: Map<string, number>): Unit<SchedulePayload> {
  const fields = record.fields;
  const body: Record<string, unknown> = { ...fields };
  if (fields.Workflow === undefined && defaults.workflow !== undefined) body.Workflow = defaults.workflow;
  if (fields.Upsert === undefined && defaults.upsert !== undefined) body.Upsert = defaults.upsert;
  if (isObject(fields.Schedule)) body.Schedule = { ...defaults.schedule, ...fields.Schedule };
  const scheduleId = isObject(body.Schedule) ? idOf(body.Schedule, 'ScheduleExtId') : null;
  const validation = validateScheduleRequest(body);
  const problems: Problem[] = validation.ok ? [] : [...validation.problems];
  if (scheduleId !== null) {
    const first = seenIds.get(scheduleId);
    if (first !== undefined) {
      problems.push({ field: 'Schedule.ScheduleExtId', code: null, message: `ScheduleExtId ${scheduleId} is already used on line ${first} of this file` });
    } else {
      seenIds.set(scheduleId, record.source.line);
    }
  }
  const candidates = Array.isArray(fields.Candidates) ? fields.Candidates : [];
  return {
    source: record.source,
    id: scheduleId,
    prepared: problems.length > 0 || !validation.ok ? { ok: false, problems } : { ok: true, value: { request: validation.value, candidateLines: candidates.map(() => record.source.line) } },
    rows: sourceRowsOf(record),
  };
}

interface SittingGroup {
  source: InputRecord['source'];
  /** CSV cells are strings to coerce; JSON values are taken as typed. */
  csv: boolean;
  /** Schedule fields, plus the request-level Workflow and Upsert. */
  fields: Record<string, unknown>;
  /** Line that set each field (absent: the field comes from the flags). */
  setOn: Map<string, number>;
  candidates: Record<string, unknown>[];
  candidateLines: number[];
  rows: SourceRow[];
  problems: Problem[];
}

const SCHEDULE_ROW_FIELDS = new Set<string>([...SCHEDULE_FIELDS, 'Workflow', 'Upsert']);

/**
 * One candidate row: its schedule columns name (and describe) the schedule it belongs to.
 * An empty schedule cell means "as the other rows say"; two different values for one
 * schedule are an error on the later line.
 */
function addRow(groups: Map<string, SittingGroup>, record: InputRecord, defaults: Defaults): void {
  const csv = record.raw !== undefined;
  const scheduleCells: Record<string, unknown> = {};
  const candidate: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(record.fields)) {
    if (SCHEDULE_ROW_FIELDS.has(name)) scheduleCells[name] = value;
    else candidate[name] = value;
  }
  // Coerced only to compare "yes" and "true" as equal; the request is checked (and coerced) whole below.
  const rowFields = csv ? coerceScheduleFields(scheduleCells).fields : scheduleCells;
  const key = String(rowFields.ScheduleExtId ?? defaults.schedule.ScheduleExtId ?? '');
  let group = groups.get(key);
  if (!group) {
    const fields: Record<string, unknown> = { ...defaults.schedule };
    if (defaults.workflow !== undefined) fields.Workflow = defaults.workflow;
    if (defaults.upsert !== undefined) fields.Upsert = defaults.upsert;
    group = { source: record.source, csv, fields, setOn: new Map(), candidates: [], candidateLines: [], rows: [], problems: [] };
    groups.set(key, group);
  }
  const line = record.source.line;
  for (const [name, value] of Object.entries(rowFields)) {
    const firstLine = group.setOn.get(name);
    if (firstLine === undefined) {
      group.setOn.set(name, line);
      group.fields[name] = value;
    } else if (JSON.stringify(group.fields[name]) !== JSON.stringify(value)) {
      group.problems.push({
        line,
        field: requestPath(name),
        code: null,
        message: `${name} is ${JSON.stringify(value)} here but ${JSON.stringify(group.fields[name])} on line ${firstLine}; rows of one schedule must agree`,
      });
    }
  }
  group.candidates.push(candidate);
  group.candidateLines.push(line);
  const rows = sourceRowsOf(record);
  if (rows) group.rows.push(...rows);
}

function requestPath(name: string): string {
  return name === 'Workflow' || name === 'Upsert' ? name : `Schedule.${name}`;
}

function groupUnit(group: SittingGroup): Unit<SchedulePayload> {
  const { Workflow, Upsert, ...schedule } = group.fields;
  const body: Record<string, unknown> = { Schedule: schedule, Candidates: group.candidates };
  if (Workflow !== undefined) body.Workflow = Workflow;
  if (Upsert !== undefined) body.Upsert = Upsert;
  const validation = group.csv ? coerceAndValidateScheduleRequest(body) : validateScheduleRequest(body);
  const lineOf = (field: string): number | undefined => {
    const candidate = /^Candidates\[(\d+)\]/.exec(field);
    if (candidate) return group.candidateLines[Number(candidate[1])];
    const name = /^(?:Schedule\.)?([A-Za-z]+)/.exec(field)?.[1];
    return name === undefined ? undefined : group.setOn.get(name);
  };
  const problems = [...group.problems, ...(validation.ok ? [] : withLines(validation.problems, lineOf))];
  const prepared: Validation<SchedulePayload> =
    problems.length > 0 || !validation.ok
      ? { ok: false, problems }
      : { ok: true, value: { request: validation.value, candidateLines: group.candidateLines } };
  return { source: group.source, id: idOf(schedule, 'ScheduleExtId'), prepared, rows: group.rows.length > 0 ? group.rows : undefined };
}

function withLines(problems: readonly Problem[], lineOf: (field: string) => number | undefined): Problem[] {
  return problems.map((problem) => {
    if (problem.line !== undefined) return problem;
    const line = lineOf(problem.field);
    return line === undefined ? problem : { ...problem, line };
  });
}

async function sendSchedule(api: IntegrationApi, payload: SchedulePayload, options: CallOptions): Promise<Outcome> {
  const result = await api.createSchedule(payload.request, options);
  const outcome = outcomeOf(result);
  const lines = payload.candidateLines;
  const errors = withLines(outcome.errors, (field) => {
    const candidate = /^Candidates\[(\d+)\]/.exec(field);
    return candidate ? lines[Number(candidate[1])] : undefined;
  });
  const id = result.envelope.Success && typeof result.envelope.Content === 'string' && result.envelope.Content !== '' ? result.envelope.Content : undefined;
  return { ...outcome, errors, ...(id !== undefined ? { id } : {}) };
}
