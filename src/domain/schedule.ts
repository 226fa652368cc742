/**
 * POST /schedule: the request (Workflow, Upsert, Schedule, Candidates), the Schedule object and
 * each Candidate (integration-api.md "Schedule", "Candidate"; interpretations.md "Schedules").
 * The schedule endpoint numbers only 249 and 250; every other problem here carries code null.
 */
import type { Problem, Validation } from './problem.js';
import type { Candidate, Schedule, ScheduleRequest, Workflow } from './types.js';
import {
  booleanRule,
  enumRule,
  isPlainObject,
  isUnset,
  passThroughRule,
  ruleTable,
  stringRule,
  unknownFieldProblem,
  validateFields,
  type FieldRule,
} from './field-rules.js';
import {
  checkAdjustmentNeedsSpecialNeeds,
  dateTimeFormat,
  emailFormat,
  reasonableAdjustmentRule,
} from './common-rules.js';
import { ALNUM_DASH, PIN_PATTERN } from './text-rules.js';

export const WORKFLOWS: readonly Workflow[] = ['DEFAULT', 'EXTERNAL_ATTEMPTS'];
const ALNUM_DASH_HINT = 'letters, digits and dashes';

const scheduleTable = ruleTable('schedule', [
  stringRule('AssessmentExtId', { max: 64, required: null, pattern: ALNUM_DASH, patternHint: ALNUM_DASH_HINT }),
  stringRule('Title', { max: 100 }),
  stringRule('ScheduleExtId', { max: 64, pattern: ALNUM_DASH, patternHint: ALNUM_DASH_HINT }),
  stringRule('StartDateTime', { max: 64, required: null, format: dateTimeFormat('StartDateTime') }),
  stringRule('EndDateTime', { max: 64, format: dateTimeFormat('EndDateTime') }),
  stringRule('GroupExtId', { max: 64, required: null, pattern: ALNUM_DASH, patternHint: ALNUM_DASH_HINT }),
  stringRule('GroupName', { max: 500, required: null }),
  stringRule('ScheduleGroupExtId', { max: 64 }),
  stringRule('ScheduleGroupName', { max: 500 }),
  booleanRule('LockExamOnConnectionLoss'),
  stringRule('Owner', { max: 500 }),
  stringRule('PIN', {
    max: 4,
    format(s, path, problems) {
      if (PIN_PATTERN.test(s)) return s;
      problems.push({ field: path, code: null, message: 'PIN must be exactly 4 digits' });
      return undefined;
    },
  }),
  booleanRule('UseProctoringService'),
  // The spec says "Alphanumeric" but the demo world's default template is PT-STD: dashes are allowed.
  stringRule('ProctoringServiceTemplateExternalId', { max: 64, pattern: ALNUM_DASH, patternHint: ALNUM_DASH_HINT }),
  booleanRule('UseKeyCode'),
  booleanRule('enableAutomaticDataCleanup'),
  passThroughRule('dataCleanupNoticePeriod'),
]);

const specialNeedsRule: FieldRule = {
  name: 'SpecialNeeds',
  check(value, path, problems) {
    const state = candidateSpecialNeeds(value);
    if (state === 'invalid') {
      problems.push({ field: path, code: null, message: 'SpecialNeeds must be true or false' });
      return undefined;
    }
    return state === undefined ? undefined : state ? 'true' : 'false';
  },
};

const proctorUIdsRule: FieldRule = {
  name: 'ProctorUIds',
  check(value, path, problems) {
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) {
      problems.push({ field: path, code: null, message: 'ProctorUIds must be a list of strings' });
      return undefined;
    }
    let ok = true;
    for (let i = 0; i < value.length; i++) {
      const id: unknown = value[i];
      if (typeof id !== 'string' || id.trim() === '') {
        problems.push({ field: `${path}[${i}]`, code: null, message: 'Each ProctorUIds entry must be a non-empty string' });
        ok = false;
      }
    }
    return ok ? value.slice() : undefined;
  },
};

const candidateString = (name: string): FieldRule => stringRule(name, { max: 500 });

const candidateTable = ruleTable('candidate', [
  stringRule('CandidateExtId', { max: 500, required: null, pattern: ALNUM_DASH, patternHint: ALNUM_DASH_HINT }),
  stringRule('FirstName', { max: 500, required: null }),
  stringRule('LastName', { max: 500, required: null }),
  stringRule('Email', { max: 500, required: null, format: emailFormat(null) }),
  candidateString('UserName'),
  candidateString('Password'),
  specialNeedsRule,
  reasonableAdjustmentRule,
  candidateString('AttemptExtId'),
  ...[
    'Photo',
    'Company',
    'City',
    'State',
    'CountryCode',
    'PostalCode',
    'AddressLine1',
    'AddressLine2',
    'PhoneNumber',
    'RegistrationNumber',
    'VoucherId',
    'CompId',
  ].map(candidateString),
  proctorUIdsRule,
]);

export const SCHEDULE_FIELDS: readonly string[] = scheduleTable.rules.map((r) => r.name);
export const CANDIDATE_FIELDS: readonly string[] = candidateTable.rules.map((r) => r.name);
export const SCHEDULE_REQUEST_FIELDS: readonly string[] = ['Workflow', 'Upsert', 'Schedule', 'Candidates'];

/** A candidate's SpecialNeeds (string "true"/"false" on the wire, boolean accepted): true/false, undefined when unset. */
export function candidateSpecialNeeds(value: unknown): boolean | undefined | 'invalid' {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const lower = value.trim().toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
  }
  return 'invalid';
}

/** `workflow` null: the request's Workflow is itself invalid, so the AttemptExtId rule cannot be decided. */
function checkCandidate(input: unknown, workflow: Workflow | null, prefix: string, problems: Problem[]): Record<string, unknown> | null {
  const out = validateFields(input, candidateTable, prefix, problems);
  if (out === null) return null;
  const record = input as Record<string, unknown>;
  checkAdjustmentNeedsSpecialNeeds(
    record['ReasonableAdjustmentPercentage'],
    candidateSpecialNeeds(record['SpecialNeeds']),
    `${prefix}ReasonableAdjustmentPercentage`,
    problems,
  );
  const attempt = record['AttemptExtId'];
  if (workflow === 'EXTERNAL_ATTEMPTS' && isUnset(attempt)) {
    problems.push({ field: `${prefix}AttemptExtId`, code: null, message: attemptRequiredMessage() });
  } else if (workflow === 'DEFAULT' && !isUnset(attempt)) {
    problems.push({ field: `${prefix}AttemptExtId`, code: null, message: attemptForbiddenMessage() });
  }
  return out;
}

export function attemptRequiredMessage(): string {
  return 'AttemptExtId is required for every candidate when Workflow is EXTERNAL_ATTEMPTS';
}

export function attemptForbiddenMessage(): string {
  return 'AttemptExtId must not be set when Workflow is DEFAULT (use Workflow EXTERNAL_ATTEMPTS)';
}

/** One candidate; field paths are relative to the candidate. */
export function validateCandidate(input: unknown, context: { workflow: Workflow }): Validation<Candidate> {
  const problems: Problem[] = [];
  const out = checkCandidate(input, context.workflow, '', problems);
  if (problems.length > 0 || out === null) return { ok: false, problems };
  return { ok: true, value: out as unknown as Candidate };
}

/** The Schedule object alone; paths are relative to it (validateScheduleRequest prefixes `Schedule.`). */
export function validateSchedule(input: unknown): Validation<Schedule> {
  const problems: Problem[] = [];
  const out = checkSchedule(input, '', problems);
  if (problems.length > 0 || out === null) return { ok: false, problems };
  return { ok: true, value: out as unknown as Schedule };
}

function checkSchedule(input: unknown, prefix: string, problems: Problem[]): Record<string, unknown> | null {
  const out = validateFields(input, scheduleTable, prefix, problems);
  if (out === null) return null;
  const start = out['StartDateTime'];
  const end = out['EndDateTime'];
  // Both are normalised UTC strings of one width here, so string order is time order.
  if (typeof start === 'string' && typeof end === 'string' && end <= start) {
    problems.push({ field: `${prefix}EndDateTime`, code: null, message: endNotAfterStartMessage() });
  }
  return out;
}

export function endNotAfterStartMessage(): string {
  return 'EndDateTime must be after StartDateTime';
}

const workflowRule = enumRule('Workflow', WORKFLOWS);
const upsertRule = booleanRule('Upsert');
const requestFieldNames = new Set(SCHEDULE_REQUEST_FIELDS);
// Only used to name unknown top-level fields; Schedule and Candidates are checked by their own tables.
const requestTable = ruleTable(
  'schedule request',
  SCHEDULE_REQUEST_FIELDS.map((name) => ({ name, check: () => undefined })),
);

/**
 * One whole POST /schedule body. Workflow absent behaves as DEFAULT for the AttemptExtId rule
 * and stays absent on the wire. CandidateExtIds must be unique within the request, compared
 * case-insensitively because candidates become users whose ExternalIds collide that way (233).
 */
export function validateScheduleRequest(input: unknown): Validation<ScheduleRequest> {
  const problems: Problem[] = [];
  if (!isPlainObject(input)) {
    return { ok: false, problems: [{ field: '', code: null, message: 'A schedule request must be a JSON object with Schedule and Candidates' }] };
  }
  const out: Record<string, unknown> = {};
  const allEmpty = SCHEDULE_REQUEST_FIELDS.every((name) => isEmptyValue(input[name]));
  if (allEmpty && Object.keys(input).every((k) => requestFieldNames.has(k))) {
    return { ok: false, problems: [{ field: '', code: null, message: emptyScheduleBodyMessage() }] };
  }
  const workflow = workflowRule.check(input['Workflow'], 'Workflow', problems) as Workflow | undefined;
  if (workflow !== undefined) out['Workflow'] = workflow;
  const upsert = upsertRule.check(input['Upsert'], 'Upsert', problems);
  if (upsert !== undefined) out['Upsert'] = upsert;

  if (input['Schedule'] === undefined || input['Schedule'] === null) {
    problems.push({ field: 'Schedule', code: null, message: 'Schedule is required' });
  } else {
    const schedule = checkSchedule(input['Schedule'], 'Schedule.', problems);
    if (schedule !== null) out['Schedule'] = schedule;
  }

  const candidates = input['Candidates'];
  if (candidates === undefined || candidates === null) {
    problems.push({ field: 'Candidates', code: null, message: 'Candidates is required (an empty list is allowed)' });
  } else if (!Array.isArray(candidates)) {
    problems.push({ field: 'Candidates', code: null, message: 'Candidates must be a list of candidate objects' });
  } else {
    // An invalid Workflow has its own problem; guessing one would add misleading AttemptExtId errors.
    const effectiveWorkflow: Workflow | null = workflow ?? (isUnset(input['Workflow']) ? 'DEFAULT' : null);
    const list: Record<string, unknown>[] = [];
    const firstIndexById = new Map<string, number>();
    for (let i = 0; i < candidates.length; i++) {
      const prefix = `Candidates[${i}].`;
      const candidate = checkCandidate(candidates[i], effectiveWorkflow, prefix, problems);
      if (candidate === null) continue;
      list.push(candidate);
      const id = candidate['CandidateExtId'];
      if (typeof id === 'string') {
        const key = id.toLowerCase();
        const first = firstIndexById.get(key);
        if (first !== undefined) {
          problems.push({ field: `${prefix}CandidateExtId`, code: null, message: duplicateCandidateMessage(id, first) });
        } else {
          firstIndexById.set(key, i);
        }
      }
    }
    out['Candidates'] = list;
  }

  for (const key of Object.keys(input)) {
    if (!requestFieldNames.has(key)) problems.push(unknownFieldProblem(requestTable, '', key));
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: out as unknown as ScheduleRequest };
}

function isEmptyValue(v: unknown): boolean {
  if (isUnset(v)) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isPlainObject(v)) return Object.keys(v).length === 0;
  return false;
}

export function emptyScheduleBodyMessage(): string {
  return 'All fields of the request body are empty';
}

export function duplicateCandidateMessage(id: string, firstIndex: number): string {
  return `CandidateExtId ${id} appears more than once in this request (first at Candidates[${firstIndex}]); ids are compared ignoring case`;
}
