import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/server/openapi.js';
import { portablePattern } from '../../src/domain/portable-pattern.js';
import { HIERARCHY_TABLE, USER_FIELDS } from '../../src/domain/user.js';
import { CANDIDATE_TABLE, SCHEDULE_REQUEST_TABLE, SCHEDULE_TABLE } from '../../src/domain/schedule.js';
import { COLLECTION_TABLE } from '../../src/domain/collection.js';

type Schema = {
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  type?: string;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  format?: string;
  enum?: string[];
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  minItems?: number;
  description?: string;
  additionalProperties?: unknown;
  anyOf?: Schema[];
  const?: unknown;
};

type Parameter = { name: string; in: string; required: boolean; description: string; schema: Schema };
type Operation = {
  tags: string[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, { description: string; content: Record<string, { schema: { $ref: string } }> }>;
};
const documentText = JSON.stringify(buildOpenApiDocument('1.2.3'));
const document = JSON.parse(documentText) as {
  openapi: string;
  info: { version: string; license: { identifier: string } };
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, Record<string, string>> };
  security: Record<string, string[]>[];
};
const schemas = document.components.schemas;
/**
 * The value a field takes, without what the API also reads as "not set": an optional field is
 * `anyOf: [value, ('' ,) null]`, and an enum taken in any case is `anyOf: [enum, pattern]`.
 */
const value = (schema: Schema | undefined): Schema | undefined => {
  if (schema?.anyOf === undefined) return schema;
  const branch = schema.anyOf.find((s) => s.type !== 'null' && s.const !== '');
  return value(branch === undefined ? undefined : { ...branch, description: branch.description ?? schema.description });
};
const prop = (schema: Schema | undefined, name: string): Schema | undefined => value(value(schema)?.properties?.[name]);
const names = (schema: Schema | undefined) => Object.keys(value(schema)?.properties ?? {}).sort();

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 with the five routes and their methods', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.2.3');
    expect(Object.fromEntries(Object.entries(document.paths).map(([p, ops]) => [p, Object.keys(ops)]))).toEqual({
      '/schedule': ['post'],
      '/external/review-sessions/{externalId}': ['get'],
      '/collections': ['post'],
      '/user': ['post'],
      '/schedule/{externalId}/invigilators': ['delete'],
    });
  });

  it('resolves every $ref to a component schema', () => {
    const refs = JSON.stringify(document).match(/"#\/components\/schemas\/[A-Za-z]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(5);
    for (const ref of refs) expect(schemas).toHaveProperty(ref.slice(22, -1));
  });

  it('documents exactly the fields of the domain rule tables', () => {
    expect(names(schemas.UserRequest)).toEqual([...USER_FIELDS].sort());
    expect(names(prop(schemas.UserRequest, 'Hierarchies')?.items)).toEqual([...HIERARCHY_TABLE.names].sort());
    expect(names(schemas.ScheduleRequest)).toEqual([...SCHEDULE_REQUEST_TABLE.names].sort());
    expect(names(schemas.ScheduleRequest?.properties?.Schedule)).toEqual(
      SCHEDULE_TABLE.rules.map((rule) => rule.name).sort(),
    );
    expect(names(schemas.ScheduleRequest?.properties?.Candidates?.items)).toEqual([...CANDIDATE_TABLE.names].sort());
    expect(names(schemas.CollectionRequest)).toEqual([...COLLECTION_TABLE.names].sort());
  });

  it('marks the spec required fields', () => {
    expect(schemas.UserRequest?.required?.sort()).toEqual(['ExternalId', 'FirstName', 'LastName']);
    expect(schemas.CollectionRequest?.required).toEqual(['Title']);
    expect(schemas.ScheduleRequest?.required?.sort()).toEqual(['Candidates', 'Schedule']);
  });
});

/*
 * The spec's request tables (docs/api-reference.md, "Fields"), transcribed:
 * field -> the constraints the document must carry. string(N) is maxLength N; "Alphanumeric and
 * dashes" is a pattern. Where docs/interpretations.md, "Field rules" decides otherwise it is noted on the row.
 * Patterns are written as ECMA regular expressions and compared in their served, engine-portable
 * form (src/domain/portable-pattern.ts).
 */
const ALNUM_DASH = portablePattern('^[A-Za-z0-9-]+$');
type Expect = Partial<Schema>;
const str = (maxLength: number, extra: Expect = {}): Expect => ({ type: 'string', maxLength, ...extra });
const bool: Expect = { type: 'boolean' };
const percentage: Expect = { type: 'integer', minimum: 0, maximum: 999 };
const dateTime: Expect = { type: 'string', format: 'date-time' };
const each = (names: string[], e: Expect) => Object.fromEntries(names.map((n) => [n, e]));

const specSchedule: Record<string, Expect> = {
  AssessmentExtId: str(64, { pattern: ALNUM_DASH }),
  Title: str(100),
  ScheduleExtId: str(64, { pattern: ALNUM_DASH }),
  StartDateTime: dateTime,
  EndDateTime: dateTime,
  GroupExtId: str(64, { pattern: ALNUM_DASH }),
  GroupName: str(500),
  ScheduleGroupExtId: str(64),
  ScheduleGroupName: str(500),
  LockExamOnConnectionLoss: bool,
  Owner: str(500),
  // string(4): four digits are expected, anything else is sent with a warning (docs/domain-rules.md).
  PIN: str(4),
  UseProctoringService: bool,
  // "Alphanumeric", where the ids beside it say "alphanumeric and dashes".
  ProctoringServiceTemplateExternalId: str(64, { pattern: portablePattern('^[A-Za-z0-9]+$') }),
  UseKeyCode: bool,
  enableAutomaticDataCleanup: bool,
  dataCleanupNoticePeriod: { type: 'string' },
};
const specScheduleRequest: Record<string, Expect> = {
  Workflow: { type: 'string', enum: ['DEFAULT', 'EXTERNAL_ATTEMPTS'] },
  Upsert: bool,
  Schedule: { type: 'object' },
  Candidates: { type: 'array' },
};
const specCandidate: Record<string, Expect> = {
  CandidateExtId: str(500, { pattern: ALNUM_DASH }),
  ...each(['FirstName', 'LastName', 'UserName', 'Password', 'AttemptExtId'], str(500)),
  Email: str(500),
  // string(500) "true or false": the wire carries the string.
  SpecialNeeds: { type: 'string', enum: ['true', 'false'] },
  ReasonableAdjustmentPercentage: percentage,
  ...each(
    [
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
    ],
    str(500),
  ),
  ProctorUIds: { type: 'array' },
};
const specCollection: Record<string, Expect> = {
  // "Alphanumeric, a-z and 0-9" (802).
  ExternalId: str(64, { pattern: portablePattern('^[a-z0-9]+$') }),
  // string(100) "shorter than 100 symbols": 99 (docs/interpretations.md, "Field rules").
  Title: str(99, { minLength: 1 }),
  Owner: str(64),
  Taxonomies: { type: 'array' },
  LoRepositoryExternalIds: { type: 'array' },
  ObjectiveRepositories: { type: 'array' },
};
const specUser: Record<string, Expect> = {
  ExternalId: str(64, { pattern: portablePattern('^[-_a-zA-Z0-9@]+$') }),
  LastName: str(500),
  FirstName: str(500),
  Email: str(100),
  UserName: str(50),
  Role: str(500),
  Photo: str(500),
  DateOfBirth: str(10),
  Company: str(100),
  CountryCode: str(20),
  State: str(50),
  City: str(50),
  PostalCode: str(50),
  PostalAddress: str(500),
  ...each(['AddressLine1', 'AddressLine2'], str(500)),
  ...each(['PhoneNumber', 'CellularPhone'], str(50)),
  ...each(['SpecialNeeds', 'EnableReadSpeaker', 'DisableLogin', 'DisablePasswordReset'], bool),
  ReasonableAdjustmentPercentage: percentage,
  SynchronizationKey: str(64),
  Labels: { type: 'array', maxItems: 20 },
  AllowedIpAddresses: { type: 'array', maxItems: 100 },
  Password: str(500, { minLength: 5 }),
  Hierarchies: { type: 'array' },
};
/** User fields of examctl's own, beyond the API text (specUser is the text's, and stays so): `PreferredName: str(50)`. */
const ownUser: Record<string, Expect> = {};
const specHierarchy: Record<string, Expect> = {
  ExternalId: str(64),
  ...each(['IsCoordinator', 'IsAdministrator', 'HasViewReportsPermissions', 'HasReScoringPermissions'], bool),
  Action: { type: 'string', enum: ['UPSERT', 'DELETE'] },
};

describe('OpenAPI request schemas carry the spec field rules', () => {
  const user = schemas.UserRequest;
  const scheduleRequest = schemas.ScheduleRequest;
  const tables: [string, Schema | undefined, Record<string, Expect>][] = [
    ['ScheduleRequest', scheduleRequest, specScheduleRequest],
    ['Schedule', scheduleRequest?.properties?.Schedule, specSchedule],
    ['Candidate', scheduleRequest?.properties?.Candidates?.items, specCandidate],
    ['CollectionRequest', schemas.CollectionRequest, specCollection],
    ['UserRequest', user, { ...specUser, ...ownUser }],
    ['Hierarchy', prop(user, 'Hierarchies')?.items, specHierarchy],
  ];
  const rows = tables.flatMap(([table, schema, spec]) =>
    Object.entries(spec).map(([field, expected]) => [`${table}.${field}`, prop(schema, field), expected] as const),
  );

  it.each(rows)('%s', (_name, actual, expected) => {
    expect(actual).toMatchObject(expected);
  });

  it('has exactly the spec fields, refuses others, and describes every field', () => {
    for (const [table, schema, spec] of tables) {
      expect(names(schema), table).toEqual(Object.keys(spec).sort());
      expect(schema?.additionalProperties, table).toBe(false);
      for (const [field, property] of Object.entries(value(schema)?.properties ?? {})) {
        expect(property.description, `${table}.${field}`).toMatch(/\w/);
      }
    }
  });

  it('names the API codes in the descriptions', () => {
    expect(user?.properties?.ExternalId?.description).toMatch(/code 206.*code 218.*code 219/);
    expect(prop(user, 'Labels')?.description).toMatch(/code 234.*code 235.*code 236/);
    expect(prop(user, 'Hierarchies')?.description).toMatch(/code 242.*code 243/);
    expect(schemas.CollectionRequest?.properties?.Title?.description).toMatch(/code 804.*code 805/);
  });

  it("documents each list's items", () => {
    expect(prop(user, 'Labels')?.items).toMatchObject({ type: 'string', minLength: 1, maxLength: 100 });
    expect(prop(schemas.CollectionRequest, 'Taxonomies')?.items?.required).toEqual(['ExternalId']);
    expect(scheduleRequest?.properties?.Candidates?.items?.required?.sort()).toEqual([
      'CandidateExtId',
      'Email',
      'FirstName',
      'LastName',
    ]);
    expect(scheduleRequest?.properties?.Schedule?.required?.sort()).toEqual([
      'AssessmentExtId',
      'GroupExtId',
      'GroupName',
      'StartDateTime',
    ]);
    expect(schemas.InvigilatorIds).toMatchObject({
      type: 'array',
      minItems: 1,
      items: { type: 'string', minLength: 1 },
    });
  });
});

describe('OpenAPI document shape', () => {
  it('names the API under the base URL it is given (a trailing slash or not), relative without one', () => {
    const servers = (baseUrl?: string) => (buildOpenApiDocument('1.2.3', baseUrl) as { servers: unknown }).servers;
    expect(servers('https://exam.example.test/examctl/')).toEqual([
      { url: 'https://exam.example.test/examctl/api/v1/integrations' },
    ]);
    expect(servers('http://127.0.0.1:8080')).toEqual([{ url: 'http://127.0.0.1:8080/api/v1/integrations' }]);
    expect(servers()).toEqual([{ url: '/api/v1/integrations' }]);
  });

  it('is JSON, OpenAPI 3.1.x, with no $schema inside component schemas', () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(() => JSON.parse(documentText)).not.toThrow();
    expect(documentText).not.toContain('"$schema"');
  });

  it('declares the EAPI token in the Authorization header for every operation', () => {
    expect(document.components.securitySchemes.eapi).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
    });
    expect(document.components.securitySchemes.eapi?.description).toContain('EAPI <token>');
    expect(document.security).toEqual([{ eapi: [] }]);
  });

  it('gives every operation the envelope responses 200, 400 and 403', () => {
    for (const [path, ops] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        expect(Object.keys(op.responses), `${method} ${path}`).toEqual(expect.arrayContaining(['200', '400', '403']));
        expect(op.responses['400']?.content['application/json']?.schema.$ref).toBe(
          '#/components/schemas/FailureEnvelope',
        );
      }
    }
    const invigilators = document.paths['/schedule/{externalId}/invigilators']?.delete;
    expect(invigilators?.responses['200']?.description).toContain('Success false');
    expect(schemas.FailureEnvelope?.properties?.Success).toMatchObject({ type: 'boolean' });
  });

  it('declares the path ids as the server takes them: the schedule id may be empty (code 300), the review session id string(60)', () => {
    const [schedule] = document.paths['/schedule/{externalId}/invigilators']!.delete!.parameters!;
    expect(schedule).toMatchObject({ name: 'externalId', in: 'path', required: true, schema: { type: 'string' } });
    expect(schedule!.schema.minLength).toBeUndefined();
    expect(schedule!.description).toContain('code 300');
    const [session] = document.paths['/external/review-sessions/{externalId}']!.get!.parameters!;
    expect(session).toMatchObject({
      name: 'externalId',
      in: 'path',
      required: true,
      schema: { type: 'string', maxLength: 60 },
    });
    expect(session!.description).toContain('a longer one is 400 with code null');
  });

  it('gives the four write operations a JSON request body', () => {
    const withBody = Object.entries(document.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.requestBody !== undefined)
        .map(([method]) => `${method} ${path}`),
    );
    expect(withBody.sort()).toEqual([
      'delete /schedule/{externalId}/invigilators',
      'post /collections',
      'post /schedule',
      'post /user',
    ]);
  });

  it('tags every operation with one declared tag and names its licence (what Spectral and Redocly ask of a document)', () => {
    const declared = document.tags.map((tag) => tag.name);
    const used = Object.values(document.paths).flatMap((ops) => Object.values(ops).map((op) => op.tags));
    expect(used.every((tags) => tags.length === 1 && declared.includes(tags[0]!))).toBe(true);
    expect(new Set(used.flat())).toEqual(new Set(declared));
    expect(document.tags.every((tag) => tag.description.length > 0)).toBe(true);
    expect(document.info.license.identifier).toBe('MIT');
  });
});
