/** The request bodies as the API takes them, from the tables (docs/domain-rules.md, "One definition per field"). */
import { z } from 'zod';
import { tableWire, wireOf, type FieldRule } from './field-rules.js';
import { USER_TABLE } from './user.js';
import { CANDIDATE_TABLE, SCHEDULE_REQUEST_TABLE } from './schedule.js';
import { COLLECTION_TABLE } from './collection.js';
import { invigilatorIdsWire } from './invigilators.js';
import { withPortablePatterns } from './portable-pattern.js';

export type JsonSchema = Record<string, unknown>;

/**
 * A schema in draft-2020-12 (OpenAPI 3.1): `io: 'input'` documents what a client sends, 'any' keeps what JSON
 * Schema cannot say from failing the document; its patterns are made portable across regex engines.
 */
export function inputJsonSchema(schema: z.ZodType): JsonSchema {
  return withPortablePatterns(
    z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as JsonSchema,
  );
}

/** The rule's wire schema (built once per rule). */
export function wireSchema(rule: FieldRule): z.ZodType {
  return wireOf(z, rule);
}

/** POST /user. Role stays optional (240 depends on whether the user exists). */
export const userRequestSchema = tableWire(z, USER_TABLE);

/** One candidate; the rules that need the request (Workflow, duplicates) are the validator's. */
export const candidateSchema = tableWire(z, CANDIDATE_TABLE);

/** POST /schedule: Workflow, Upsert, Schedule and Candidates. */
export const scheduleRequestSchema = tableWire(z, SCHEDULE_REQUEST_TABLE);

/** POST /collections. */
export const collectionRequestSchema = tableWire(z, COLLECTION_TABLE);

/** The body of DELETE /schedule/{externalId}/invigilators (the path id is checked apart). */
export const invigilatorIdsSchema = invigilatorIdsWire(z);
