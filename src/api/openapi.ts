import { z } from 'zod';
import {
  collectionRequestSchema,
  invigilatorIdsSchema,
  scheduleRequestSchema,
  userRequestSchema,
} from '../domain/schemas.js';

/*
 * The OpenAPI document of the integration API. The request bodies are generated from the
 * domain's zod schemas (src/domain/schemas.ts), which are composed from the rule tables: each
 * field's type, maxLength, pattern, enum and range come from the same parameters as the check
 * that validates it, and each description names the API's codes. The response envelopes are
 * written here: they describe answers, not rules.
 */

const errorEntry = z.looseObject({
  Code: z.number().int().nullable(),
  Message: z.string(),
  Field: z.string().optional(),
});

function envelopeOf(content: z.ZodType): z.ZodType {
  return z.looseObject({
    Content: content.nullable(),
    Success: z.boolean(),
    Errors: z.array(errorEntry).nullable(),
  });
}

const responseContents = {
  schedule: z.string().describe('The schedule external id.'),
  reviewSession: z
    .looseObject({
      ExternalId: z.string(),
      AssessmentExtId: z.string().optional(),
      ScheduleExtId: z.string().nullable().optional(),
      Title: z.string().optional(),
      Results: z.array(
        z.looseObject({
          CandidateExtId: z.string(),
          PassedStatus: z.enum(['NOT_SATISFACTORY', 'SATISFACTORY', 'NOT_SUBMITTED', 'VOIDED']),
          Score: z.number().nullable().optional(),
        }),
      ),
    })
    .describe('The review session object (integration-api.md, Review session).'),
  collection: z.looseObject({ ExternalId: z.string(), Errors: z.array(z.unknown()) }),
  user: z.looseObject({
    User: z.looseObject({ ExternalId: z.string(), FirstName: z.string(), LastName: z.string() }),
    GroupErrors: z.array(z.looseObject({ ExternalId: z.string(), Code: z.number().int(), Error: z.string() })),
  }),
  invigilators: z.looseObject({
    SuccessfullyRemoved: z.array(z.string()),
    Errors: z.array(z.looseObject({ UserExtId: z.string(), Code: z.number().int(), Error: z.string() })),
  }),
};

type JsonSchema = Record<string, unknown>;

/**
 * draft-2020-12 is OpenAPI 3.1's schema dialect. `io: 'input'` documents what a client sends
 * (the rule checks run as preprocess steps, which are transparent there); 'any' keeps a
 * construct JSON Schema cannot say from failing the whole document.
 */
function jsonSchema(schema: z.ZodType): JsonSchema {
  const converted = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as JsonSchema;
  // Component schemas live inside the document; a per-schema $schema is noise there.
  const { $schema: _ignored, ...rest } = converted;
  return rest;
}

function jsonBody(ref: string, description?: string): object {
  return {
    required: true,
    ...(description ? { description } : {}),
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } },
  };
}

function responses(okRef: string, okDescription: string): object {
  const envelopeRef = { 'application/json': { schema: { $ref: `#/components/schemas/${okRef}` } } };
  const failure = { 'application/json': { schema: { $ref: '#/components/schemas/FailureEnvelope' } } };
  return {
    '200': { description: okDescription, content: envelopeRef },
    '400': { description: 'The request was rejected; Errors lists every problem.', content: failure },
    '403': { description: 'Not allowed to use the external API (missing or unknown token).', content: failure },
    '500': { description: 'Internal server error.', content: failure },
  };
}

/** The OpenAPI 3.1 document of the integration API as the local server serves it. */
export function buildOpenApiDocument(version = '0.0.0'): object {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Assessment Integration API (examctl local engine)',
      version,
      description:
        'Schedules, review sessions, collections, users and invigilators. Every request carries ' +
        '`Authorization: EAPI <token>` and `Content-Type: application/json`.',
    },
    servers: [{ url: '/api/v1/integrations' }],
    security: [{ eapi: [] }],
    paths: {
      '/schedule': {
        post: {
          operationId: 'createSchedule',
          summary: 'Create or update a schedule and register candidates',
          requestBody: jsonBody('ScheduleRequest'),
          responses: responses('ScheduleEnvelope', 'Content is the schedule external id.'),
        },
      },
      '/external/review-sessions/{externalId}': {
        get: {
          operationId: 'getReviewSession',
          summary: 'Read a review session',
          parameters: [{ name: 'externalId', in: 'path', required: true, schema: { type: 'string', maxLength: 60 } }],
          responses: responses('ReviewSessionEnvelope', 'Content is the review session. Unknown id: 400 code 1101.'),
        },
      },
      '/collections': {
        post: {
          operationId: 'addCollection',
          summary: 'Create a collection',
          requestBody: jsonBody('CollectionRequest'),
          responses: responses('CollectionEnvelope', 'Content has the ExternalId of the created collection.'),
        },
      },
      '/user': {
        post: {
          operationId: 'upsertUser',
          summary: 'Create or update a user and its hierarchy memberships',
          requestBody: jsonBody('UserRequest'),
          responses: responses('UserEnvelope', 'Content.User is the stored user; failed hierarchies are in GroupErrors.'),
        },
      },
      '/schedule/{externalId}/invigilators': {
        delete: {
          operationId: 'removeInvigilators',
          summary: 'Remove invigilators from a schedule',
          parameters: [{ name: 'externalId', in: 'path', required: true, schema: { type: 'string' } }],
          requestBody: jsonBody('InvigilatorIds', 'The external ids of the invigilators to remove.'),
          responses: responses(
            'InvigilatorsEnvelope',
            'Content lists the removed ids and per-user errors (319). Whole-request errors (100, 200, 300, 301, 302, 305) also come with 200 and Success false.',
          ),
        },
      },
    },
    components: {
      securitySchemes: {
        eapi: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'The value `EAPI <token>`.' },
      },
      schemas: {
        ScheduleRequest: jsonSchema(scheduleRequestSchema),
        UserRequest: jsonSchema(userRequestSchema),
        CollectionRequest: jsonSchema(collectionRequestSchema),
        InvigilatorIds: jsonSchema(invigilatorIdsSchema),
        ScheduleEnvelope: jsonSchema(envelopeOf(responseContents.schedule)),
        ReviewSessionEnvelope: jsonSchema(envelopeOf(responseContents.reviewSession)),
        CollectionEnvelope: jsonSchema(envelopeOf(responseContents.collection)),
        UserEnvelope: jsonSchema(envelopeOf(responseContents.user)),
        InvigilatorsEnvelope: jsonSchema(envelopeOf(responseContents.invigilators)),
        FailureEnvelope: jsonSchema(envelopeOf(z.null())),
      },
    },
  };
}
