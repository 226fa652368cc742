import { z } from 'zod';
import {
  COLLECTION_CONTENT_FIELDS,
  GROUP_ERROR_FIELDS,
  INVIGILATORS_CONTENT_FIELDS,
  REVIEW_SESSION_FIELDS,
  type AnswerFields,
  type AnswerValue,
} from '../domain/answer-fields.js';
import {
  collectionRequestSchema,
  inputJsonSchema,
  invigilatorIdsSchema,
  scheduleRequestSchema,
  userRequestSchema,
  wireSchema,
} from '../domain/schemas.js';
import { USER_TABLE, USER_VIEW_FIELDS, validateUser } from '../domain/user.js';
import { REVIEW_SESSION_ID_MAX } from '../domain/review-session.js';
import { API_PREFIX } from '../api/url-policy.js';
import { validateCollection } from '../domain/collection.js';
import { validateInvigilatorRemoval } from '../domain/invigilators.js';
import { reviewSessionNotFoundProblem } from '../domain/messages.js';
import type { Validation } from '../domain/problem.js';
import { validateScheduleRequest } from '../domain/schedule.js';
import { refuse } from '../engine/decision.js';
import { failureEnvelope as failureAnswer } from '../api/envelope-reader.js';
import { InternalError } from '../system/errors.js';
import { templateExampleRecord } from '../report/template-files.js';
import { FAILURE_MESSAGES as M } from './failure-messages.js';
import { DEFAULT_BODY_LIMIT_BYTES, MAX_HEADER_BYTES, MAX_URL_BYTES } from './server.js';

// The OpenAPI document and its envelopes (docs/remote.md, "The OpenAPI document"; docs/domain-rules.md, "Answers").

const errorEntry = z.looseObject({
  Code: z.number().int().nullable(),
  Message: z.string(),
  Field: z.string().optional(),
});

/** A success: Success true (a mock must never answer a failure with it), the operation's Content, Errors null. */
function successEnvelopeOf(content: z.ZodType): z.ZodType {
  return z.looseObject({
    Content: content,
    Success: z.literal(true),
    Errors: z.null(),
  });
}

/** A failure, whatever its status: Success always false, no Content, the problems in Errors. */
const failureEnvelope = z.looseObject({
  Content: z.null(),
  Success: z.literal(false),
  Errors: z.array(errorEntry),
});

/** The zod schema of one answer field declared in domain/answer-fields.ts. */
function answerValueSchema(value: AnswerValue): z.ZodType {
  switch (value.kind) {
    case 'string':
    // The API's DateTime is a plain string; not format date-time: a server may answer without an offset.
    case 'date-time':
      return z.string();
    case 'boolean':
      return z.boolean();
    case 'number':
      return z.number();
    case 'integer':
      return z.number().int();
    case 'enum':
      return z.enum(value.values as [string, ...string[]]);
    case 'list':
      return z.array(answerValueSchema(value.of));
    case 'object':
      return answerObjectSchema(value.fields);
  }
}

/** The schema of an AnswerObject (answer-fields.ts): loose, as it is. */
function answerObjectSchema(fields: AnswerFields): z.ZodType {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, field] of Object.entries(fields)) {
    let schema = answerValueSchema(field);
    if (field.nullable === true) schema = schema.nullable();
    schema = schema.describe(field.description);
    shape[name] = field.required === true ? schema : schema.optional();
  }
  return z.looseObject(shape);
}

/** Content.User: each stored field as its request wire value, never the password or memberships; optional: nullable. */
function storedUserSchema(): z.ZodType {
  const shape: Record<string, z.ZodType> = {};
  for (const name of USER_VIEW_FIELDS) {
    const rule = USER_TABLE.byName.get(name)!;
    const wire = wireSchema(rule);
    shape[name] = rule.required === true ? wire : wire.nullable().optional();
  }
  return z.looseObject(shape).describe('The stored user (docs/domain-rules.md, "Answers").');
}

const responseContents = {
  schedule: z.string().describe('The schedule external id.'),
  reviewSession: answerObjectSchema(REVIEW_SESSION_FIELDS).describe(
    'The review session object (docs/domain-rules.md, "Answers").',
  ),
  collection: answerObjectSchema(COLLECTION_CONTENT_FIELDS),
  user: z.looseObject({
    User: storedUserSchema(),
    GroupErrors: z
      .array(answerObjectSchema(GROUP_ERROR_FIELDS))
      .describe('One entry per hierarchy that could not be processed.'),
  }),
  invigilators: answerObjectSchema(INVIGILATORS_CONTENT_FIELDS),
};

/** Component schemas live inside the document; a per-schema $schema is noise there. */
function jsonSchema(schema: z.ZodType): object {
  const { $schema: _ignored, ...rest } = inputJsonSchema(schema);
  return rest;
}

function jsonBody(ref: string, example: unknown, description?: string): object {
  return {
    required: true,
    ...(description ? { description } : {}),
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` }, example } },
  };
}

/** The `{externalId}` of a route's path, the one parameter the API's routes have. */
function externalIdParameter(description: string, schema: object): object[] {
  return [{ name: 'externalId', in: 'path', required: true, description, schema }];
}

const RETRY_AFTER = {
  description: 'Seconds to wait before retrying (the server always sends 1).',
  required: true,
  schema: { type: 'integer', minimum: 0 },
};

/**
 * A status the server answers itself, besides 200 and 400 (each with a failure envelope): its example's words for
 * an operation (failure-messages.ts), the headers it always sends with it (declared so generated clients and
 * checkers can rely on them), and whether only an operation with a body can meet it.
 */
interface StatusFailure {
  description: string;
  example(operation: { path: string; hasBody: boolean }): string;
  headers?: Record<string, object>;
  bodyOnly?: true;
}

/** By status: integer keys, so in ascending order. */
const FAILURES: Record<string, StatusFailure> = {
  '403': {
    description:
      'Not allowed to use the external API (missing or unknown token). Answered before the body is read; the connection is closed when a body was announced.',
    example: () => M.notAllowed(),
  },
  '404': { description: 'No such route.', example: () => M.noSuchRoute(`${API_PREFIX}/no-such-route`) },
  '405': {
    description: 'The route exists but not with this method; the Allow header lists the methods.',
    example: ({ path }) => M.methodNotAllowed('PUT', `${API_PREFIX}${path}`),
    headers: {
      Allow: {
        description: "The route's methods, comma-separated; HEAD wherever GET is.",
        required: true,
        schema: { type: 'string', minLength: 1 },
      },
    },
  },
  '408': {
    description: 'The request (headers or body) did not arrive in time.',
    example: ({ hasBody }) => (hasBody ? M.bodyTooSlow() : M.headersTooSlow()),
  },
  '413': {
    description: `The body is larger than the limit (${DEFAULT_BODY_LIMIT_BYTES / 1024 / 1024} MiB). Answered before the body is read; the connection is closed.`,
    example: () => M.bodyTooLarge(DEFAULT_BODY_LIMIT_BYTES),
    bodyOnly: true,
  },
  '414': {
    description: `The request URL is longer than ${MAX_URL_BYTES / 1024} KiB.`,
    example: () => M.urlTooLong(MAX_URL_BYTES),
  },
  '429': {
    description: 'Too many requests; only with `local serve --faults 429:P%` (injected). Carries Retry-After.',
    example: () => M.injected('429'),
    headers: { 'Retry-After': RETRY_AFTER },
  },
  '431': {
    description: `The request headers are larger than ${MAX_HEADER_BYTES / 1024} KiB.`,
    example: () => M.headersTooLarge(MAX_HEADER_BYTES),
  },
  '500': { description: 'Internal server error (or injected with `--faults 500:P%`).', example: () => M.internal() },
  '503': {
    description:
      'The store is busy (locked by another examctl process) or unreadable, or injected with `--faults 503:P%`. Carries Retry-After; retry.',
    example: () => M.storeBusy(),
    headers: { 'Retry-After': RETRY_AFTER },
  },
};

/**
 * One entry of the document's paths: the operation under its route below the API prefix (`/user`), which
 * its examples name too, with its answers, the 200's schema and description in `ok`.
 */
function operation(
  path: string,
  method: 'get' | 'post' | 'delete',
  [okRef, okDescription]: [string, string],
  examples: OperationExamples,
  fields: object,
): [string, object] {
  // Every operation but the GET sends a body, and its examples show one.
  const hasBody = examples.request !== undefined;
  const failure = (example: unknown) => ({
    'application/json': { schema: { $ref: '#/components/schemas/FailureEnvelope' }, example },
  });
  const responses = {
    '200': {
      description: okDescription,
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${okRef}` }, example: examples.ok } },
    },
    '400': {
      description:
        'The request was rejected; Errors lists every problem (Code null for the conditions the API does not number). ' +
        (hasBody
          ? `Also a body not declared \`Content-Type: application/json\` ("${M.notJson()}", answered before the body is read; ` +
            'a request without a body needs no Content-Type), and a body that is not valid UTF-8 or not valid JSON.'
          : ''),
      content: failure(examples.refused),
    },
    ...Object.fromEntries(
      Object.entries(FAILURES)
        .filter(([, row]) => hasBody || row.bodyOnly !== true)
        .map(([status, { description, example, headers }]) => [
          status,
          { description, ...(headers && { headers }), content: failure(failureAnswer(example({ path, hasBody }))) },
        ]),
    ),
  };
  return [path, { [method]: { ...fields, responses } }];
}

const BEYOND_THE_SCHEMA = 'A body this schema accepts is refused only for a rule the schema cannot express: ';

/**
 * The OpenAPI 3.1 document of the integration API as the local server serves it. `baseUrl`
 * (`http://host:port`, or `local serve --public-url`) makes `servers` absolute: tools such as
 * Prism ignore a relative one and would route `/user` instead of `/api/v1/integrations/user`.
 */
export function buildOpenApiDocument(version = '0.0.0', baseUrl?: string): object {
  const examples = operationExamples();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Assessment Integration API (examctl local engine)',
      version,
      description:
        'Schedules, review sessions, collections, users and invigilators. Every request carries ' +
        '`Authorization: EAPI <token>`, and every request with a body `Content-Type: application/json`.',
      // The document is examctl's (generated by it, under its licence), not the platform's.
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // One tag per resource: viewers and client generators group the operations by it.
    tags: [
      { name: 'Schedules', description: 'Exam schedules with their candidates, and their invigilators.' },
      { name: 'Review sessions', description: 'Results of review sessions.' },
      { name: 'Collections', description: 'Collections of items.' },
      { name: 'Users', description: 'Users with their hierarchy memberships and permissions.' },
    ],
    servers: [{ url: `${baseUrl === undefined ? '' : baseUrl.replace(/\/+$/, '')}${API_PREFIX}` }],
    security: [{ eapi: [] }],
    paths: Object.fromEntries([
      operation('/schedule', 'post', ['ScheduleEnvelope', 'Content is the schedule external id.'], examples.schedule, {
        operationId: 'createSchedule',
        tags: ['Schedules'],
        summary: 'Create or update a schedule and register candidates',
        description:
          BEYOND_THE_SCHEMA +
          'across fields (EndDateTime after StartDateTime; AttemptExtId on every candidate with EXTERNAL_ATTEMPTS and on none otherwise; ' +
          'CandidateExtIds unique ignoring case; ReasonableAdjustmentPercentage only with SpecialNeeds true, 250), the calendar (a real day and time, ' +
          'no leap second) and the platform state (the assessment, owner, hierarchies and proctoring template exist; a ScheduleExtId already used ' +
          'without Upsert is "Duplicate ScheduleExtId"; an activated schedule cannot be updated; the span must exceed duration + extra time; ' +
          'the workflow of an existing schedule cannot change).',
        requestBody: jsonBody('ScheduleRequest', examples.schedule.request),
      }),
      operation(
        '/external/review-sessions/{externalId}',
        'get',
        ['ReviewSessionEnvelope', 'Content is the review session. Unknown id: 400 code 1101.'],
        examples.reviewSession,
        {
          operationId: 'getReviewSession',
          tags: ['Review sessions'],
          summary: 'Read a review session',
          parameters: externalIdParameter(
            `The review session external id, string(${REVIEW_SESSION_ID_MAX}): a longer one is 400 with code null; an unknown one 400 with code 1101.`,
            { type: 'string', maxLength: REVIEW_SESSION_ID_MAX },
          ),
          description: 'HEAD answers as GET, without the body.',
        },
      ),
      operation(
        '/collections',
        'post',
        ['CollectionEnvelope', 'Content has the ExternalId of the created collection.'],
        examples.collection,
        {
          operationId: 'addCollection',
          tags: ['Collections'],
          summary: 'Create a collection',
          description:
            BEYOND_THE_SCHEMA +
            'the platform state (the owner exists and may view collections, 806-808; taxonomies and repositories exist, are repositories, ' +
            'published and accessible, 900 and 1000-1003; an ExternalId already used, 810).',
          requestBody: jsonBody('CollectionRequest', examples.collection.request),
        },
      ),
      operation(
        '/user',
        'post',
        ['UserEnvelope', 'Content.User is the stored user; failed hierarchies are in GroupErrors.'],
        examples.user,
        {
          operationId: 'upsertUser',
          tags: ['Users'],
          summary: 'Create or update a user and its hierarchy memberships',
          description:
            BEYOND_THE_SCHEMA +
            'across fields (ReasonableAdjustmentPercentage only with SpecialNeeds true, 250; Labels unique after trimming, 236; ' +
            'Hierarchies ExternalIds unique, 243; AllowedIpAddresses unique in canonical form, 239), the calendar (DateOfBirth a real day, 246), ' +
            'the address syntax of AllowedIpAddresses (238, stated in words) and the platform state (Role required when the user is created, 240, ' +
            'and known, 241; UserName, SynchronizationKey and the ExternalId ignoring case not held by another user, 214, 232, 233; a root hierarchy ' +
            'exists). Hierarchies that cannot be processed are reported in GroupErrors with 200.',
          requestBody: jsonBody('UserRequest', examples.user.request),
        },
      ),
      operation(
        '/schedule/{externalId}/invigilators',
        'delete',
        [
          'InvigilatorsEnvelope',
          'Content lists the removed ids and per-user errors (319). Whole-request errors (100, 200, 300, 301, 302, 305) also come with 200 and Success false.',
        ],
        examples.invigilators,
        {
          operationId: 'removeInvigilators',
          tags: ['Schedules'],
          summary: 'Remove invigilators from a schedule',
          parameters: externalIdParameter(
            'The schedule external id. Empty (`/schedule//invigilators`) or blank: 200 with Success false and code 300.',
            // No minLength: an empty id is a request the server answers (300), not one the document forbids.
            { type: 'string' },
          ),
          description:
            'No body, null or [] is code 100 with HTTP 200 (as the API lists it); any other body that is not an array is 400. ' +
            BEYOND_THE_SCHEMA +
            'the platform state (the schedule exists, 301, is not archived, 302, or finished, 305; each id is an invigilator of it, 319).',
          requestBody: jsonBody(
            'InvigilatorIds',
            examples.invigilators.request,
            'The external ids of the invigilators to remove.',
          ),
        },
      ),
    ]),
    components: {
      securitySchemes: {
        eapi: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'The value `EAPI <token>`.' },
      },
      schemas: {
        ScheduleRequest: jsonSchema(scheduleRequestSchema),
        UserRequest: jsonSchema(userRequestSchema),
        CollectionRequest: jsonSchema(collectionRequestSchema),
        InvigilatorIds: jsonSchema(invigilatorIdsSchema),
        ScheduleEnvelope: jsonSchema(successEnvelopeOf(responseContents.schedule)),
        ReviewSessionEnvelope: jsonSchema(successEnvelopeOf(responseContents.reviewSession)),
        CollectionEnvelope: jsonSchema(successEnvelopeOf(responseContents.collection)),
        UserEnvelope: jsonSchema(successEnvelopeOf(responseContents.user)),
        // Whole-request errors of this route come with 200 too (docs/interpretations.md, "Envelope and errors").
        InvigilatorsEnvelope: jsonSchema(z.union([successEnvelopeOf(responseContents.invigilators), failureEnvelope])),
        FailureEnvelope: jsonSchema(failureEnvelope),
      },
    },
  };
}

/*
 * The `example` of every request body and answer in the OpenAPI document (docs/remote.md, "The
 * OpenAPI document"), so a mock (Stoplight Prism) answers and a viewer shows real values. Nothing
 * is typed twice: each refusal is the domain's own verdict on the example with one cell broken.
 */
interface OperationExamples {
  /** The request body (absent for a GET). */
  request?: unknown;
  /** The 200 answer's envelope. */
  ok: unknown;
  /** The 400 answer's envelope. */
  refused: unknown;
}

type Fields = Record<string, unknown>;

function success(content: unknown): object {
  return { Content: content, Success: true, Errors: null };
}

function refusalOf(validation: Validation<unknown>): object {
  if (validation.ok) throw new InternalError('an OpenAPI refusal example passed validation');
  return refuse(validation.problems).result.envelope;
}

function operationExamples(): Record<
  'schedule' | 'reviewSession' | 'collection' | 'user' | 'invigilators',
  OperationExamples
> {
  const user = templateExampleRecord('users') as Fields;
  const schedule = templateExampleRecord('sittings') as Fields & { Schedule: Fields };
  const collection = templateExampleRecord('collection') as Fields;
  const invigilator = templateExampleRecord('invigilators') as string;
  // The stored user is the request without what is never answered (the password) or answered apart (memberships).
  const { Password: _password, Hierarchies: _hierarchies, ...storedUser } = user;
  return {
    schedule: {
      request: schedule,
      ok: success(schedule.Schedule.ScheduleExtId),
      refused: refusalOf(
        validateScheduleRequest({
          ...schedule,
          Schedule: { ...schedule.Schedule, EndDateTime: schedule.Schedule.StartDateTime },
        }),
      ),
    },
    reviewSession: {
      ok: success({
        ExternalId: 'RS-MATH1-OCT',
        AssessmentExtId: String(schedule.Schedule.AssessmentExtId),
        ScheduleExtId: 'S-PAST',
        Title: 'Mathematics 1 - October review',
        Results: [{ CandidateExtId: 'c-1001', PassedStatus: 'SATISFACTORY', Score: 87.5 }],
      }),
      refused: refuse([reviewSessionNotFoundProblem('RS-NOPE')]).result.envelope,
    },
    collection: {
      request: collection,
      ok: success({ ExternalId: collection.ExternalId, Errors: [] }),
      refused: refusalOf(validateCollection({ ...collection, ExternalId: `${String(collection.ExternalId)} 2` })),
    },
    user: {
      request: user,
      ok: success({ User: storedUser, GroupErrors: [] }),
      refused: refusalOf(validateUser({ ...user, Email: String(user.Email).replace('@', '(at)') }, { isCreate: true })),
    },
    invigilators: {
      request: [invigilator],
      ok: success({ SuccessfullyRemoved: [invigilator], Errors: [] }),
      refused: refusalOf(validateInvigilatorRemoval('S-MATH1-DEC', invigilator)),
    },
  };
}
