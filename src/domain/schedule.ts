/** POST /schedule (docs/api-reference.md, "Schedule"; codes: docs/domain-rules.md, "Codes per endpoint"). */
import { UNNUMBERED } from './codes.js';
import { quotedValue, type Problem, type Validation } from './problem.js';
import {
  booleanRule,
  caseInsensitivePattern,
  checkList,
  enumRule,
  isPlainObject,
  isUnset,
  passThroughRule,
  ruleTable,
  stringRule,
  tableWire,
  validateFields,
  type FieldOf,
  type FieldRule,
  type RecordOf,
} from './field-rules.js';
import {
  checkAdjustmentNeedsSpecialNeeds,
  dateTimeFormat,
  emailFormat,
  reasonableAdjustmentRule,
} from './common-rules.js';
import { ALNUM, ALNUM_DASH } from './text-rules.js';

export const WORKFLOWS = ['DEFAULT', 'EXTERNAL_ATTEMPTS'] as const;
export type Workflow = (typeof WORKFLOWS)[number];
const ALNUM_DASH_ID = { pattern: ALNUM_DASH, patternHint: 'letters, digits and dashes' };

/** A template id refused: one written with dashes (`PT-STD`) is told so and shown without them. */
function templateIdMessage(value: string): string {
  const words =
    'ProctoringServiceTemplateExternalId may contain only letters and digits: the API text says "Alphanumeric"';
  const undashed = value.replaceAll('-', '');
  if (!value.includes('-') || !ALNUM.test(undashed)) return words;
  return `${words}, without the dashes of "alphanumeric and dashes" it says of the ids beside it; a template id has none (did you mean ${quotedValue(undashed)}?)`;
}

/** Schedule Title is string(100) (code points); a title the engine generates must fit too. */
export const SCHEDULE_TITLE_MAX = 100;

export const SCHEDULE_TABLE = ruleTable('schedule', [
  stringRule('AssessmentExtId', { max: 64, required: null, ...ALNUM_DASH_ID }),
  stringRule('Title', { max: SCHEDULE_TITLE_MAX, name: true }),
  stringRule('ScheduleExtId', { max: 64, ...ALNUM_DASH_ID }),
  stringRule('StartDateTime', { max: 64, required: null, format: dateTimeFormat('StartDateTime') }),
  stringRule('EndDateTime', { max: 64, format: dateTimeFormat('EndDateTime') }),
  stringRule('GroupExtId', { max: 64, required: null, ...ALNUM_DASH_ID }),
  stringRule('GroupName', { max: 500, required: null, name: true }),
  stringRule('ScheduleGroupExtId', { max: 64 }),
  stringRule('ScheduleGroupName', { max: 500, name: true }),
  booleanRule('LockExamOnConnectionLoss'),
  stringRule('Owner', { max: 500 }),
  stringRule('PIN', {
    max: 4,
    doc: 'PIN for candidates, kept as a string (0420 is fine); four digits expected, anything else is sent with a warning.',
  }),
  booleanRule('UseProctoringService'),
  // "Alphanumeric", where the ids beside it say "alphanumeric and dashes": letters and digits.
  stringRule('ProctoringServiceTemplateExternalId', {
    max: 64,
    pattern: ALNUM,
    patternHint: 'letters and digits (no dashes)',
    patternMessage: templateIdMessage,
  }),
  booleanRule('UseKeyCode'),
  booleanRule('enableAutomaticDataCleanup'),
  passThroughRule('dataCleanupNoticePeriod'),
]);

const SPECIAL_NEEDS_ANY_CASE = caseInsensitivePattern(['true', 'false']);

const SPECIAL_NEEDS_DOC =
  'The string "true" or "false" (any case, surrounding spaces ignored; a JSON boolean is taken too), sent as the string. Null or empty leaves it unset.';
const specialNeedsRule: FieldRule<'SpecialNeeds', 'true' | 'false', false> = {
  name: 'SpecialNeeds',
  emptyIsUnset: true,
  // Read as yes/no like any boolean cell, then sent as the string "true"/"false" by the check.
  cell: 'boolean',
  wire: (zod) => zod.enum(['true', 'false']).describe(SPECIAL_NEEDS_DOC),
  input: (zod) =>
    zod
      .union([zod.enum(['true', 'false']), zod.string().regex(SPECIAL_NEEDS_ANY_CASE), zod.boolean()])
      .describe(SPECIAL_NEEDS_DOC),
  check(value, path, problems) {
    const state = candidateSpecialNeeds(value);
    if (state === 'invalid') {
      problems.push({ field: path, code: UNNUMBERED, message: 'SpecialNeeds must be true or false' });
      return undefined;
    }
    return state === undefined ? undefined : state ? 'true' : 'false';
  },
};

const proctorUIdsRule: FieldRule<'ProctorUIds', string[], false> = {
  name: 'ProctorUIds',
  cell: 'list',
  wire: (zod) =>
    zod.array(zod.string().min(1).regex(/\S/)).describe('Proctor user ids, each a non-empty string (not blank).'),
  check(value, path, problems) {
    return checkList(value, path, problems, 'ProctorUIds', 'strings', (id, at) => {
      if (typeof id === 'string' && id.trim() !== '') return id;
      problems.push({ field: at, code: UNNUMBERED, message: 'Each ProctorUIds entry must be a non-empty string' });
      return undefined;
    });
  },
};

const candidateString = <Name extends string>(name: Name): FieldRule<Name, string, false> =>
  stringRule(name, { max: 500 });

/** Free-text candidate fields a platform user has too, copied onto the user behind a candidate. */
export const CANDIDATE_USER_PROFILE_FIELDS = [
  'Photo',
  'Company',
  'City',
  'State',
  'CountryCode',
  'PostalCode',
  'AddressLine1',
  'AddressLine2',
  'PhoneNumber',
] as const;

export const CANDIDATE_TABLE = ruleTable('candidate', [
  stringRule('CandidateExtId', { max: 500, required: null, ...ALNUM_DASH_ID }),
  stringRule('FirstName', { max: 500, required: null, name: true }),
  stringRule('LastName', { max: 500, required: null, name: true }),
  stringRule('Email', { max: 500, required: null, format: emailFormat(null) }),
  stringRule('UserName', { max: 500, name: true }),
  candidateString('Password'),
  specialNeedsRule,
  reasonableAdjustmentRule,
  stringRule('AttemptExtId', {
    max: 500,
    doc: 'Required on every candidate when Workflow is EXTERNAL_ATTEMPTS; must not be set otherwise.',
  }),
  ...CANDIDATE_USER_PROFILE_FIELDS.map(candidateString),
  ...(['RegistrationNumber', 'VoucherId', 'CompId'] as const).map(candidateString),
  proctorUIdsRule,
]);

/** The Schedule and a Candidate as their tables' checks return them. */
export type Schedule = RecordOf<typeof SCHEDULE_TABLE>;
export type Candidate = RecordOf<typeof CANDIDATE_TABLE>;
/** A schedule's and a candidate's field names. */
export type ScheduleField = FieldOf<typeof SCHEDULE_TABLE>;
export type CandidateField = FieldOf<typeof CANDIDATE_TABLE>;

/** A candidate's SpecialNeeds ("true"/"false" on the wire, a boolean accepted); undefined when unset. */
function candidateSpecialNeeds(value: unknown): boolean | undefined | 'invalid' {
  if (isUnset(value)) return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && SPECIAL_NEEDS_ANY_CASE.test(value)) return value.trim().toLowerCase() === 'true';
  return 'invalid';
}

/**
 * One candidate, with the rules across its fields (250) and against the request's Workflow (AttemptExtId);
 * `workflow` null: the Workflow is itself invalid, so that rule cannot be decided.
 */
function checkCandidate(
  input: unknown,
  workflow: Workflow | null,
  prefix: string,
  problems: Problem[],
): Candidate | null {
  const out = validateFields(input, CANDIDATE_TABLE, prefix, problems);
  if (out === null) return null;
  const record = input as Record<string, unknown>;
  checkAdjustmentNeedsSpecialNeeds(
    record['ReasonableAdjustmentPercentage'],
    candidateSpecialNeeds(record['SpecialNeeds']),
    `${prefix}ReasonableAdjustmentPercentage`,
    problems,
  );
  const attempt = record['AttemptExtId'];
  const message =
    workflow === 'EXTERNAL_ATTEMPTS' && isUnset(attempt)
      ? 'AttemptExtId is required for every candidate when Workflow is EXTERNAL_ATTEMPTS'
      : workflow === 'DEFAULT' && !isUnset(attempt)
        ? 'AttemptExtId must not be set when Workflow is DEFAULT (use Workflow EXTERNAL_ATTEMPTS)'
        : undefined;
  if (message !== undefined) problems.push({ field: `${prefix}AttemptExtId`, code: UNNUMBERED, message });
  return out;
}

/** One candidate; field paths are relative to the candidate. */
export function validateCandidate(input: unknown, context: { workflow: Workflow }): Validation<Candidate> {
  const problems: Problem[] = [];
  const out = checkCandidate(input, context.workflow, '', problems);
  if (problems.length > 0 || out === null) return { ok: false, problems };
  return { ok: true, value: out };
}

/** The Schedule's fields, then EndDateTime after StartDateTime on checked values. */
function checkSchedule(input: unknown, prefix: string, problems: Problem[]): Schedule | null {
  const out = validateFields(input, SCHEDULE_TABLE, prefix, problems);
  if (out === null) return null;
  const start = out['StartDateTime'];
  const end = out['EndDateTime'];
  // Both are normalised UTC strings of one width here, so string order is time order; both named
  // (UTC, as the rule compares them; the CLI quotes them as the file wrote them first).
  if (typeof start === 'string' && typeof end === 'string' && end <= start) {
    problems.push({
      field: `${prefix}EndDateTime`,
      code: UNNUMBERED,
      message: `EndDateTime must be after StartDateTime: EndDateTime ${end}, StartDateTime ${start}`,
    });
  }
  return out;
}

export const WORKFLOW_RULE = enumRule('Workflow', WORKFLOWS);
export const UPSERT_RULE = booleanRule('Upsert', 'Update the schedule when it exists.');
/** Schedule by its table; each candidate in validateScheduleRequest (it needs the Workflow). */
const scheduleRule: FieldRule<'Schedule', Schedule, true> = {
  name: 'Schedule',
  required: true,
  check(value, path, problems) {
    if (value !== undefined && value !== null) return checkSchedule(value, `${path}.`, problems) ?? undefined;
    problems.push({ field: path, code: UNNUMBERED, message: 'Schedule is required' });
    return undefined;
  },
  wire: (zod) => tableWire(zod, SCHEDULE_TABLE).describe('The schedule (required).'),
};

/** The list as given: validateScheduleRequest checks each candidate against the Workflow. */
const candidatesRule: FieldRule<'Candidates', unknown[], true> = {
  name: 'Candidates',
  required: true,
  check(value, path, problems) {
    if (Array.isArray(value)) return value;
    const message =
      value === undefined || value === null
        ? 'Candidates is required (an empty list is allowed)'
        : 'Candidates must be a list of candidate objects';
    problems.push({ field: path, code: UNNUMBERED, message });
    return undefined;
  },
  wire: (zod) =>
    zod
      .array(tableWire(zod, CANDIDATE_TABLE))
      .describe(
        'The candidates to register (required; may be empty). CandidateExtIds are unique within the request, ignoring case.',
      ),
};

export const SCHEDULE_REQUEST_TABLE = ruleTable('schedule request', [
  WORKFLOW_RULE,
  UPSERT_RULE,
  scheduleRule,
  candidatesRule,
]);

/** POST /schedule's body as SCHEDULE_REQUEST_TABLE reads it, each of its Candidates checked. */
export type ScheduleRequest = Omit<RecordOf<typeof SCHEDULE_REQUEST_TABLE>, 'Candidates'> & { Candidates: Candidate[] };

/**
 * One whole POST /schedule body. Workflow absent behaves as DEFAULT and stays absent on the wire;
 * CandidateExtIds are unique case-insensitively, since candidates become users (233).
 */
export function validateScheduleRequest(body: unknown): Validation<ScheduleRequest> {
  const refused = (message: string): Validation<ScheduleRequest> => ({
    ok: false,
    problems: [{ field: '', code: UNNUMBERED, message }],
  });
  if (!isPlainObject(body)) return refused('A schedule request must be a JSON object with Schedule and Candidates');
  // A request whose every field is empty: the one problem reported.
  const allEmpty = SCHEDULE_REQUEST_TABLE.rules.every((rule) => isEmptyValue(body[rule.name]));
  if (allEmpty && Object.keys(body).every((k) => SCHEDULE_REQUEST_TABLE.names.has(k)))
    return refused('All fields of the request body are empty');
  const problems: Problem[] = [];
  const out = validateFields(body, SCHEDULE_REQUEST_TABLE, '', problems) as Record<string, unknown>;
  const candidates = out['Candidates'];
  if (Array.isArray(candidates)) {
    // An invalid Workflow has its own problem; guessing one would add misleading AttemptExtId errors.
    const attemptWorkflow = (out['Workflow'] as Workflow | undefined) ?? (isUnset(body['Workflow']) ? 'DEFAULT' : null);
    const list: Record<string, unknown>[] = [];
    const firstIndexById = new Map<string, number>();
    for (let i = 0; i < candidates.length; i++) {
      const candidate = checkCandidate(candidates[i], attemptWorkflow, `Candidates[${i}].`, problems);
      if (candidate === null) continue;
      list.push(candidate);
      const id = candidate['CandidateExtId'];
      if (typeof id !== 'string') continue;
      const first = firstIndexById.get(id.toLowerCase());
      if (first === undefined) {
        firstIndexById.set(id.toLowerCase(), i);
      } else {
        const message = `CandidateExtId ${id} appears more than once in this request (first at Candidates[${first}]); ids are compared ignoring case`;
        problems.push({ field: `Candidates[${i}].CandidateExtId`, code: UNNUMBERED, message });
      }
    }
    out['Candidates'] = list;
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
