/**
 * The request bodies as the API takes them, composed from the rule tables' `wire` builders (this
 * module and world.ts are the only domain modules that load zod; index.ts re-exports neither).
 * They describe, for the OpenAPI document (src/server/openapi.ts) and `examctl schema`; the
 * validators are the one validator, and the document takes all they accept (test/domain/schemas.test.ts).
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
