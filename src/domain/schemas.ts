/**
 * zod schemas of the request bodies, composed from the rule tables: each field is its rule's
 * `wire` schema (built here on demand: this module and world.ts are the only domain modules that
 * load zod, and index.ts re-exports neither, so a CLI run that only validates never loads it) (type, lengths, pattern, enum, range, item shape, described with the codes)
 * with the rule's own check run in front of it. Nothing here restates a rule:
 *
 * - a field's check runs as a `z.preprocess` step, so parsing reports exactly the problems the
 *   fast validators report (field path in `path`, the API code in `params.code`, same message)
 *   and hands the wire value (trimmed, upper-cased, normalised dates) to the wire schema;
 * - the rules across fields (250, AttemptExtId against Workflow, EndDateTime after
 *   StartDateTime, unique CandidateExtIds, unknown fields) run as a `superRefine` calling the
 *   same functions the validators call; it runs even after field problems (`when`), as the
 *   validators report everything at once;
 * - `z.toJSONSchema(schema, { io: 'input' })` documents the wire schemas (a preprocess step is
 *   transparent there), which is how src/server/openapi.ts builds the OpenAPI document.
 *
 * The fast validators (validateUser etc.) stay the validators of the run pipeline and the
 * engine; these schemas are for code that composes zod (and for the document). Problem order can
 * differ (zod walks the table's order, the validators the record's); the set is the same.
 */
import { z } from 'zod';
import type { Problem } from './problem.js';
import {
  isPlainObject,
  notAnObjectProblem,
  optionalInputOf,
  requiredInputOf,
  wireOf,
  unknownFieldProblem,
  type FieldRule,
  type RuleTable,
} from './field-rules.js';
import { checkUserCrossFields, USER_TABLE } from './user.js';
import {
  CANDIDATE_TABLE,
  candidatesShapeProblem,
  checkCandidateCrossFields,
  checkCandidateIdUnique,
  checkScheduleCrossFields,
  effectiveWorkflow,
  SCHEDULE_REQUEST_TABLE,
  SCHEDULE_TABLE,
  scheduleMissingProblem,
  scheduleRequestBodyProblem,
  UPSERT_RULE,
  WORKFLOW_RULE,
} from './schedule.js';
import { COLLECTION_TABLE } from './collection.js';
import { checkInvigilatorIds, invigilatorIdsWire } from './invigilators.js';

/** The rule's wire schema (built once per rule). */
export function wireSchema(rule: FieldRule): z.ZodType {
  return wireOf(z, rule);
}

/** `Candidates[3].Email` -> ['Candidates', 3, 'Email']. */
export function fieldPathSegments(field: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const part of field.split('.')) {
    if (part === '') continue;
    const m = /^([^[]*)((?:\[\d+\])*)$/.exec(part);
    if (m === null) {
      out.push(part);
      continue;
    }
    if (m[1] !== '') out.push(m[1] as string);
    for (const idx of (m[2] ?? '').matchAll(/\[(\d+)\]/g)) out.push(Number(idx[1]));
  }
  return out;
}

/**
 * Problems as zod issues. `drop` leading path segments are removed because zod prefixes the
 * segments of the enclosing schemas itself (a field's check names its field; the object adds it).
 */
function pushProblems(ctx: { issues: z.core.$ZodRawIssue[] }, problems: readonly Problem[], input: unknown, drop: number): void {
  for (const p of problems) {
    ctx.issues.push({ code: 'custom', message: p.message, input, path: fieldPathSegments(p.field).slice(drop), params: { code: p.code } });
  }
}

/**
 * Output of a schema whose check failed. A field that failed holds this in its object's output,
 * so the rules across fields see it as set but neither a boolean, a number nor a string, as
 * they see an invalid raw value in the validators.
 */
const FAILED: unknown = z.NEVER;

/** One field: its rule's check (problems and wire value), then its wire schema. */
export function fieldSchema(rule: FieldRule, required = rule.required === true): z.ZodType {
  return z.preprocess(
    (value, ctx) => {
      const problems: Problem[] = [];
      const wire = rule.check(value, rule.name, problems);
      if (problems.length === 0) return wire;
      pushProblems(ctx, problems, value, 1);
      return FAILED;
    },
    // What the API takes: the rule's tolerated input, and for an optional field null (and '' where the check reads it as unset).
    required ? requiredInputOf(z, rule) : optionalInputOf(z, rule).optional(),
  );
}

type CrossCheck = (out: Record<string, unknown>, problems: Problem[]) => void;

/** The checked fields of `table` as a zod object, with the problems a field check cannot see. */
function recordSchema(table: RuleTable, shape: Record<string, z.ZodType>, cross?: CrossCheck): z.ZodType {
  const object = z
    .looseObject(shape)
    .superRefine(
      (out, ctx) => {
        const problems: Problem[] = [];
        // Loose so that unknown keys reach this check and get the validators' message (and hint).
        for (const key of Object.keys(out)) {
          if (!table.byName.has(key)) problems.push(unknownFieldProblem(table, '', key));
        }
        cross?.(out, problems);
        pushProblems(ctx, problems, out, 0);
      },
      { when: () => true },
    )
    // The API refuses unknown fields; the check above reports them, the document says so.
    .meta({ additionalProperties: false });
  return z.preprocess((value, ctx) => {
    if (isPlainObject(value)) return value;
    pushProblems(ctx, [notAnObjectProblem(table, '')], value, 0);
    return FAILED;
  }, object);
}

function tableShape(table: RuleTable): Record<string, z.ZodType> {
  return Object.fromEntries(table.rules.map((rule) => [rule.name, fieldSchema(rule)]));
}

function tableSchema(table: RuleTable, cross?: CrossCheck): z.ZodType {
  return recordSchema(table, tableShape(table), cross);
}

/** POST /user. Role stays optional (240 depends on whether the user exists). */
export const userRequestSchema = tableSchema(USER_TABLE, checkUserCrossFields);

/** The Schedule object of POST /schedule. */
export const scheduleSchema = tableSchema(SCHEDULE_TABLE, (out, problems) => checkScheduleCrossFields(out, '', problems));

/** One candidate; the rules that need the request (Workflow, duplicates) run on the request. */
export const candidateSchema = tableSchema(CANDIDATE_TABLE);

/** The description of a schedule request field, from its rule in the request table. */
function requestFieldDoc(name: string): string {
  const rule = SCHEDULE_REQUEST_TABLE.byName.get(name);
  return (rule === undefined ? undefined : wireSchema(rule).description) ?? name;
}

const candidatesFieldSchema = z
  .preprocess((value, ctx) => {
    const problem = candidatesShapeProblem(value);
    if (problem === null) return value;
    pushProblems(ctx, [problem], value, 1);
    return FAILED;
  }, z.array(candidateSchema))
  .describe(requestFieldDoc('Candidates'));

const scheduleFieldSchema = z
  .preprocess((value, ctx) => {
    if (value !== undefined && value !== null) return value;
    pushProblems(ctx, [scheduleMissingProblem()], value, 1);
    return FAILED;
  }, scheduleSchema)
  .describe(requestFieldDoc('Schedule'));

/** POST /schedule: Workflow, Upsert, Schedule and Candidates. */
export const scheduleRequestSchema = z.preprocess(
  (value, ctx) => {
    const problem = scheduleRequestBodyProblem(value);
    if (problem === null) return value;
    pushProblems(ctx, [problem], value, 0);
    return FAILED;
  },
  recordSchema(
    SCHEDULE_REQUEST_TABLE,
    {
      Workflow: fieldSchema(WORKFLOW_RULE),
      Upsert: fieldSchema(UPSERT_RULE),
      Schedule: scheduleFieldSchema,
      Candidates: candidatesFieldSchema,
    },
    (out, problems) => {
      const candidates = out['Candidates'];
      if (!Array.isArray(candidates)) return;
      const workflow = effectiveWorkflow(out['Workflow']);
      const firstIndexById = new Map<string, number>();
      for (let i = 0; i < candidates.length; i++) {
        const candidate: unknown = candidates[i];
        if (candidate === FAILED || !isPlainObject(candidate)) continue;
        checkCandidateCrossFields(candidate, workflow, `Candidates[${i}].`, problems);
        checkCandidateIdUnique(candidate, i, firstIndexById, problems);
      }
    },
  ),
);

/** POST /collections. */
export const collectionRequestSchema = tableSchema(COLLECTION_TABLE);

/** The body of DELETE /schedule/{externalId}/invigilators (the path id is checked apart). */
export const invigilatorIdsSchema = z.preprocess((value, ctx) => {
  const problems: Problem[] = [];
  const ids = checkInvigilatorIds(value, problems);
  if (problems.length === 0) return ids;
  pushProblems(ctx, problems, value, 1);
  return FAILED;
}, invigilatorIdsWire(z));

/** Problems back from a ZodError produced by these schemas (or any zod schema: code null). */
export function problemsFromZodIssues(issues: readonly z.core.$ZodIssue[]): Problem[] {
  return issues.map((issue) => {
    const params = (issue as { params?: { code?: unknown } }).params;
    const code = typeof params?.code === 'number' ? (params.code as Problem['code']) : null;
    const field = issue.path
      .map((seg, i) => (typeof seg === 'number' ? `[${seg}]` : i === 0 ? String(seg) : `.${String(seg)}`))
      .join('');
    return { field, code, message: issue.message };
  });
}
