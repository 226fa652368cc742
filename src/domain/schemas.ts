/**
 * zod schemas of the request bodies as the API takes them, composed from the rule tables: each
 * field is its rule's `wire` schema (built here on demand: this module and world.ts are the only
 * domain modules that load zod, and index.ts re-exports neither, so a CLI run that only validates
 * never loads it). They describe; they do not validate: `z.toJSONSchema(schema, { io: 'input' })`
 * is how src/server/openapi.ts builds the OpenAPI document and templates.ts `examctl schema`.
 * The validators (validateUser etc.) are the one validator, of the run pipeline and the engine;
 * every value they accept satisfies these schemas (test/domain/schemas.test.ts).
 */
import { z } from 'zod';
import { tableWire, wireOf, type FieldRule } from './field-rules.js';
import { USER_TABLE } from './user.js';
import { CANDIDATE_TABLE, SCHEDULE_REQUEST_TABLE } from './schedule.js';
import { COLLECTION_TABLE } from './collection.js';
import { invigilatorIdsWire } from './invigilators.js';

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
