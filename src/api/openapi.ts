import { z } from 'zod';

/**
 * Request-body schemas for the OpenAPI document, written from the spec's field tables
 * (integration-api.md, "Resources"). They describe; they do not validate: the engine checks
 * every request with the domain's rule tables, and src/domain's zod schemas are wrappers over
 * those rules (z.unknown().transform), whose JSON Schema would be an empty `{}`. A test pins
 * the property names here to the domain's field lists so the two cannot drift apart.
 */
const str = (max: number, description?: string) => {
  const schema = z.string().max(max);
  return description ? schema.describe(description) : schema;
};
const extId = (max = 64) => str(max).regex(/^[A-Za-z0-9-]+$/);
const dateTime = z.string().describe('RFC 3339 with a zone; sent as UTC yyyy-mm-ddThh:mm:ss.sssZ');

export const scheduleDoc = z.strictObject({
  AssessmentExtId: extId(),
  Title: str(100).optional(),
  ScheduleExtId: extId().optional(),
  StartDateTime: dateTime,
  EndDateTime: dateTime.optional().describe('Default: start + assessment duration + 60 minutes'),
  GroupExtId: extId(),
  GroupName: str(500),
  ScheduleGroupExtId: extId().optional(),
  ScheduleGroupName: str(500).optional(),
  LockExamOnConnectionLoss: z.boolean().optional(),
  Owner: str(500).optional(),
  PIN: z.string().regex(/^\d{4}$/).optional(),
  UseProctoringService: z.boolean().optional(),
  ProctoringServiceTemplateExternalId: str(64).optional(),
  UseKeyCode: z.boolean().optional(),
  enableAutomaticDataCleanup: z.boolean().optional(),
  dataCleanupNoticePeriod: z.string().optional(),
});

export const candidateDoc = z.strictObject({
  CandidateExtId: extId(500),
  FirstName: str(500),
  LastName: str(500),
  Email: str(500),
  UserName: str(500).optional(),
  Password: str(500).optional(),
  SpecialNeeds: z.enum(['true', 'false']).optional(),
  ReasonableAdjustmentPercentage: z.number().int().min(0).max(999).optional(),
  AttemptExtId: str(500).optional(),
  Photo: str(500).optional(),
  Company: str(500).optional(),
  City: str(500).optional(),
  State: str(500).optional(),
  CountryCode: str(500).optional(),
  PostalCode: str(500).optional(),
  AddressLine1: str(500).optional(),
  AddressLine2: str(500).optional(),
  PhoneNumber: str(500).optional(),
  RegistrationNumber: str(500).optional(),
  VoucherId: str(500).optional(),
  CompId: str(500).optional(),
  ProctorUIds: z.array(z.string()).optional(),
});

export const scheduleRequestDoc = z.strictObject({
  Workflow: z.enum(['DEFAULT', 'EXTERNAL_ATTEMPTS']).optional(),
  Upsert: z.boolean().optional(),
  Schedule: scheduleDoc,
  Candidates: z.array(candidateDoc),
});

export const hierarchyDoc = z.strictObject({
  ExternalId: str(64),
  IsCoordinator: z.boolean().optional(),
  IsAdministrator: z.boolean().optional(),
  HasViewReportsPermissions: z.boolean().optional(),
  HasReScoringPermissions: z.boolean().optional(),
  Action: z.enum(['UPSERT', 'DELETE']).optional(),
});

export const userRequestDoc = z.strictObject({
  ExternalId: str(64).regex(/^[-_a-zA-Z0-9@]+$/),
  LastName: str(500),
  FirstName: str(500),
  Email: str(100).optional(),
  UserName: str(50).regex(/^\S+$/).optional(),
  Role: str(500).optional().describe('Required when the user is created'),
  Photo: str(500).optional(),
  DateOfBirth: str(10).optional().describe('YYYY-MM-DD or YYYYMMDD'),
  Company: str(100).optional(),
  CountryCode: str(20).optional(),
  State: str(50).optional(),
  City: str(50).optional(),
  PostalCode: str(50).optional(),
  PostalAddress: str(500).optional(),
  AddressLine1: str(500).optional(),
  AddressLine2: str(500).optional(),
  PhoneNumber: str(50).optional(),
  CellularPhone: str(50).optional(),
  SpecialNeeds: z.boolean().optional(),
  ReasonableAdjustmentPercentage: z.number().int().min(0).max(999).optional(),
  EnableReadSpeaker: z.boolean().optional(),
  DisableLogin: z.boolean().optional(),
  DisablePasswordReset: z.boolean().optional(),
  SynchronizationKey: str(64).optional().describe('A GUID (deprecated)'),
  Labels: z.array(z.string().min(1).max(100)).max(20).optional(),
  AllowedIpAddresses: z.array(z.string()).max(100).optional(),
  Password: z.string().min(5).max(500).optional(),
  Hierarchies: z.array(hierarchyDoc).optional(),
});

const idTitleDoc = z.looseObject({ ExternalId: z.string(), Title: z.string().optional() });

export const collectionRequestDoc = z.strictObject({
  ExternalId: str(64).regex(/^[A-Za-z0-9]+$/).optional(),
  Title: z.string().min(1).max(99),
  Owner: str(64).optional(),
  Taxonomies: z.array(idTitleDoc).nullable().optional(),
  LoRepositoryExternalIds: z.array(idTitleDoc).nullable().optional(),
  ObjectiveRepositories: z.array(idTitleDoc).nullable().optional(),
});

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
        ScheduleRequest: jsonSchema(scheduleRequestDoc),
        UserRequest: jsonSchema(userRequestDoc),
        CollectionRequest: jsonSchema(collectionRequestDoc),
        InvigilatorIds: jsonSchema(z.array(z.string())),
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
