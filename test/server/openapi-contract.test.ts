import { promises as fs } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/server/openapi.js';
import { BUNDLED_WORLD_PATH, createLocalEngine, loadWorldFile, worldToChanges } from '../../src/engine/index.js';
import { createStore, openStore } from '../../src/engine/store/index.js';
import type { Store } from '../../src/engine/store/contract.js';
import { parseFaultSpec } from '../../src/server/index.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { storeTokens } from '../../src/server/serve-local.js';
import { arbitraryOf, type JsonSchema } from '../support/json-schema-arbitrary.js';

/*
 * The served OpenAPI document against the server, both ways:
 * - bodies generated from the document's request schemas (which z.toJSONSchema made from the
 *   domain's zod request schemas) are accepted, unless refused for a rule the document says it
 *   cannot express (across fields, the calendar, the platform state): those are listed below by
 *   code or message and named in each operation's description;
 * - every answer (status and body) is one the document declares for that operation, checked by Ajv
 *   with formats against the document served at /openapi.json.
 * Seeded, so a failure is reproducible; ~60 bodies per operation keep it to seconds.
 */

const TOKEN = 'dev-token';
const SEED = 20261122;

/** Numbered refusals the document cannot express (state, across fields, calendar, IP syntax). */
const BEYOND_SCHEMA_CODES = new Set([
  131,
  133,
  1134, // hierarchies: state (in GroupErrors with 200)
  214,
  232,
  233,
  240,
  241,
  242, // user: state
  236,
  239,
  243,
  250, // across fields / items
  238, // AllowedIpAddresses syntax, stated in words
  246, // DateOfBirth calendar day
  806,
  807,
  808,
  810,
  900,
  1000,
  1001,
  1002,
  1003, // collections: state
  301,
  302,
  305,
  319, // invigilators: state
  1101, // review sessions: state
]);

/** Unnumbered ones (schedule endpoint), by message. */
const BEYOND_SCHEMA_MESSAGES = [
  /^Duplicate ScheduleExtId/,
  /^Schedule \S+ is activated/,
  /^Hierarchy not found/,
  /^Hierarchy must be active/,
  /^Scheduler not set/,
  /^Selected scheduler/,
  /^Workflow of an existing schedule/,
  /^Assessment not found/,
  /^Proctoring template not found/,
  /^The schedule lasts/,
  /^EndDateTime must be after StartDateTime/,
  /^AttemptExtId is required/,
  /^AttemptExtId must not be set/,
  /appears more than once in this request/,
  /is not a real date and time/,
];

interface Answer {
  status: number;
  body: unknown;
  headers?: http.IncomingHttpHeaders;
}

function send(server: RunningServer, method: string, urlPath: string, body: unknown): Promise<Answer> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `EAPI ${TOKEN}` };
    if (text !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(text));
    }
    // A connection per request: a kept-alive one may be closed by the server's idle timeout while
    // Ajv compiles, and a request written on it then meets a reset.
    const req = http.request(`${server.url}${urlPath}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          body: text === '' ? undefined : (JSON.parse(text) as unknown),
          headers: res.headers,
        });
      });
    });
    req.on('error', reject);
    req.end(text);
  });
}

let dir: string;
let store: Store;
let server: RunningServer;
let engine: ReturnType<typeof createLocalEngine>;
type DeclaredHeader = { required?: boolean; schema: JsonSchema };
type MediaType = { schema: { $ref: string }; example?: unknown };
let document: {
  servers: { url: string }[];
  paths: Record<
    string,
    Record<
      string,
      {
        requestBody?: { content: Record<string, MediaType> };
        responses: Record<string, { content?: Record<string, MediaType>; headers?: Record<string, DeclaredHeader> }>;
      }
    >
  >;
  components: { schemas: Record<string, JsonSchema> };
};
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'examctl-contract-'));
  await createStore(dir, worldToChanges(await loadWorldFile(BUNDLED_WORLD_PATH)));
  store = await openStore(dir);
  engine = createLocalEngine({ store, now: () => new Date('2026-06-01T00:00:00Z') });
  server = await startServer({
    api: engine,
    tokens: storeTokens(store),
    openapi: (url) => buildOpenApiDocument('0.0.0', url),
  });
  // The document as served, not as built: what a third-party tool would read.
  document = await new Promise((resolve, reject) => {
    http
      .get(`${server.url}/api/v1/integrations/openapi.json`, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve(JSON.parse(text) as typeof document));
      })
      .on('error', reject);
  });
  ajv.addSchema({ $id: 'https://examctl.test/openapi.json', components: document.components });
});

afterAll(async () => {
  await server?.close();
  await store?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

const refOf = (name: string) => `https://examctl.test/openapi.json#/components/schemas/${name}`;
const resolve = (ref: string): JsonSchema => document.components.schemas[ref.slice('#/components/schemas/'.length)]!;

function validate(ref: string, value: unknown): string | null {
  const check = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
  return check(value) ? null : ajv.errorsText(check.errors);
}

/** The answer is declared for the operation, its body validates, and a refusal is one the document admits. */
function expectDeclaredAnswer(route: string, method: string, body: unknown, answer: Answer): void {
  const declared = document.paths[route]![method]!.responses[String(answer.status)];
  expect(
    declared,
    `status ${answer.status} of ${method} ${route} is declared (${JSON.stringify(answer.body)})`,
  ).toBeDefined();
  const ref = declared!.content!['application/json']!.schema.$ref.slice('#/components/schemas/'.length);
  expect(validate(refOf(ref), answer.body), `${method} ${route} ${answer.status} answer matches ${ref}`).toBeNull();
  const envelope = answer.body as {
    Success: boolean;
    Errors: { Code: number | null; Message: string; Field?: string }[] | null;
  };
  if (envelope.Success) return;
  for (const error of envelope.Errors ?? []) {
    const admitted =
      error.Code !== null
        ? BEYOND_SCHEMA_CODES.has(error.Code)
        : BEYOND_SCHEMA_MESSAGES.some((re) => re.test(error.Message));
    expect(
      admitted,
      `a body the document accepts was refused for ${JSON.stringify(error)}; body ${JSON.stringify(body)}`,
    ).toBe(true);
  }
}

/** Half the bodies keep the generated values; the other half point at things the demo world has, so acceptance is exercised too. */
const WORLD = {
  roles: ['Candidate', 'Author', 'candidate'],
  hierarchies: ['H-NORTH', 'H-SOUTH', 'H-NORTH-LAB'],
  assessments: ['A-MATH-1', 'A-PHYS-2'],
  templates: ['PTSTD', 'PTSTRICT'],
  taxonomies: ['TX-BLOOM', 'TX-SUBJECT'],
  repositories: ['LO-CORE'],
};

function pick<T>(list: readonly T[], i: number): T {
  return list[Math.abs(i) % list.length]!;
}

function grounded(name: string, body: Record<string, unknown>, i: number): Record<string, unknown> {
  const out = structuredClone(body);
  if (name === 'UserRequest') {
    out.Role = pick(WORLD.roles, i);
    out.ExternalId = `u-${i}-${String(out.ExternalId ?? '').slice(0, 20)}`;
    delete out.UserName;
    delete out.SynchronizationKey;
    if (Array.isArray(out.Hierarchies)) {
      out.Hierarchies = [...new Set(out.Hierarchies.map((_h, k) => pick(WORLD.hierarchies, i + k)))].map((id) => ({
        ExternalId: id,
      }));
    }
  } else if (name === 'ScheduleRequest') {
    const schedule = out.Schedule as Record<string, unknown>;
    schedule.AssessmentExtId = pick(WORLD.assessments, i);
    schedule.GroupExtId = pick(WORLD.hierarchies, i);
    schedule.StartDateTime = '2027-03-01T09:00:00Z';
    delete schedule.EndDateTime;
    delete schedule.Owner;
    delete schedule.ScheduleGroupExtId;
    delete schedule.ScheduleExtId;
    if (schedule.ProctoringServiceTemplateExternalId !== undefined)
      schedule.ProctoringServiceTemplateExternalId = pick(WORLD.templates, i);
    out.Workflow = 'DEFAULT';
    out.Candidates = (out.Candidates as Record<string, unknown>[]).map((candidate, k) => {
      const { AttemptExtId: _attempt, ReasonableAdjustmentPercentage: _percentage, ...rest } = candidate;
      return { ...rest, CandidateExtId: `c-${i}-${k}` };
    });
  } else if (name === 'CollectionRequest') {
    delete out.Owner;
    delete out.ExternalId;
    out.Taxonomies = [{ ExternalId: pick(WORLD.taxonomies, i) }];
    delete out.LoRepositoryExternalIds;
    out.ObjectiveRepositories = [{ ExternalId: pick(WORLD.repositories, i) }];
  }
  return out;
}

const OPERATIONS: { name: string; route: string; method: string; url: (i: number) => string; runs: number }[] = [
  { name: 'UserRequest', route: '/user', method: 'post', url: () => '/api/v1/integrations/user', runs: 40 },
  { name: 'ScheduleRequest', route: '/schedule', method: 'post', url: () => '/api/v1/integrations/schedule', runs: 30 },
  {
    name: 'CollectionRequest',
    route: '/collections',
    method: 'post',
    url: () => '/api/v1/integrations/collections',
    runs: 50,
  },
  {
    name: 'InvigilatorIds',
    route: '/schedule/{externalId}/invigilators',
    method: 'delete',
    url: (i) => `/api/v1/integrations/schedule/${i % 2 === 0 ? 'S-FUTURE' : 'S-NOPE'}/invigilators`,
    runs: 30,
  },
];

describe('the served OpenAPI document and the server agree', () => {
  for (const operation of OPERATIONS) {
    it(`${operation.method.toUpperCase()} ${operation.route}: generated bodies are accepted or refused only beyond the schema`, async () => {
      const schema = resolve(`#/components/schemas/${operation.name}`);
      const bodies = fc.tuple(arbitraryOf(schema, { resolve }), fc.integer({ min: 0, max: 1_000_000 }), fc.boolean());
      let accepted = 0;
      await fc.assert(
        fc.asyncProperty(bodies, async ([generated, i, ground]) => {
          const body =
            ground && typeof generated === 'object' && generated !== null && !Array.isArray(generated)
              ? grounded(operation.name, generated as Record<string, unknown>, i)
              : generated;
          expect(validate(refOf(operation.name), body), `generated ${JSON.stringify(body)}`).toBeNull();
          const answer = await send(server, operation.method.toUpperCase(), operation.url(i), body);
          expectDeclaredAnswer(operation.route, operation.method, body, answer);
          if ((answer.body as { Success: boolean }).Success) accepted += 1;
        }),
        { seed: SEED, numRuns: operation.runs, endOnFailure: true },
      );
      // Not every body is refused for the state: the property says something about acceptance too.
      if (operation.name !== 'InvigilatorIds') expect(accepted).toBeGreaterThan(0);
    });
  }

  it('answers an invigilator body that is neither empty nor an array with 400, an empty one with 200 code 100', async () => {
    const url = '/api/v1/integrations/schedule/S-FUTURE/invigilators';
    for (const body of [{ UserExtIds: ['inv-1'] }, 'inv-1', 5, true]) {
      const answer = await send(server, 'DELETE', url, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body).toMatchObject({ Content: null, Success: false });
      expectDeclaredAnswer('/schedule/{externalId}/invigilators', 'delete', body, {
        ...answer,
        body: { ...(answer.body as object), Errors: [] },
      });
    }
    for (const body of [null, []]) {
      const answer = await send(server, 'DELETE', url, body);
      expect(answer.status).toBe(200);
      expect((answer.body as { Errors: { Code: number }[] }).Errors[0]!.Code).toBe(100);
    }
  });

  it('answers the review-session GET, found and not, as declared', async () => {
    for (const id of ['RS-MATH1-OCT', 'RS-LANG-PRACTICE', 'RS-NOPE']) {
      const answer = await send(server, 'GET', `/api/v1/integrations/external/review-sessions/${id}`, undefined);
      expectDeclaredAnswer('/external/review-sessions/{externalId}', 'get', undefined, answer);
    }
  });

  it('declares the refusals of bodies the document itself refuses, and the server refuses them', async () => {
    const refused: [string, unknown][] = [
      ['UserRequest', { ExternalId: 'u-blank', FirstName: '   ', LastName: 'L', Role: 'Candidate' }],
      [
        'UserRequest',
        { ExternalId: 'u-ftp', FirstName: 'F', LastName: 'L', Role: 'Candidate', Photo: 'ftp://example.org/p.png' },
      ],
      ['UserRequest', { ExternalId: 'u-nul', FirstName: 'A\u0000B', LastName: 'L', Role: 'Candidate' }],
      ['UserRequest', { ExternalId: 'u-esc', FirstName: 'F', LastName: '\u001b[31mred', Role: 'Candidate' }],
      ['UserRequest', { ExternalId: 'u-rlo', FirstName: 'gpj.\u202eexe', LastName: 'L', Role: 'Candidate' }],
      ['CollectionRequest', { Title: 'T', Taxonomies: [{ ExternalId: '' }] }],
      ['CollectionRequest', { Title: 'T', ObjectiveRepositories: [{ ExternalId: '  ' }] }],
    ];
    for (const [name, body] of refused) {
      expect(validate(refOf(name), body), JSON.stringify(body)).not.toBeNull();
      const url = name === 'UserRequest' ? '/api/v1/integrations/user' : '/api/v1/integrations/collections';
      const answer = await send(server, 'POST', url, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect((answer.body as { Success: boolean }).Success).toBe(false);
    }
  });

  it('takes a label padded with spaces past maxLength, as the Labels description says (the limit counts the trimmed label)', async () => {
    const labels = (document.components.schemas.UserRequest?.properties?.Labels ?? {}) as { description?: string };
    expect(labels.description).toMatch(/counts it as sent, spaces included; the API counts it trimmed/);
    const padded = `   ${'x'.repeat(100)}   `;
    const body = { ExternalId: 'u-padded', FirstName: 'F', LastName: 'L', Role: 'Candidate', Labels: [padded] };
    expect(validate(refOf('UserRequest'), body)).not.toBeNull();
    const answer = await send(server, 'POST', '/api/v1/integrations/user', body);
    expect(answer.body).toMatchObject({ Success: true });
    const refused = await send(server, 'POST', '/api/v1/integrations/user', {
      ...body,
      ExternalId: 'u-padded-long',
      Labels: [` ${'x'.repeat(101)} `],
    });
    expect(refused.status).toBe(400);
  });

  it('takes what the document says it takes: null for optional fields, Workflow in any case, a boolean candidate SpecialNeeds', async () => {
    const accepted: [string, string, unknown][] = [
      [
        'UserRequest',
        '/api/v1/integrations/user',
        {
          ExternalId: 'u-nulls',
          FirstName: 'F',
          LastName: 'L',
          Role: 'Candidate',
          Email: null,
          Photo: null,
          Labels: null,
          SpecialNeeds: null,
        },
      ],
      [
        'ScheduleRequest',
        '/api/v1/integrations/schedule',
        {
          Workflow: ' default ',
          Upsert: null,
          Schedule: {
            AssessmentExtId: 'A-MATH-1',
            StartDateTime: '2027-04-01T09:00:00Z',
            GroupExtId: 'H-NORTH',
            GroupName: 'North',
            Title: null,
          },
          Candidates: [
            {
              CandidateExtId: 'c-bool',
              FirstName: 'A',
              LastName: 'B',
              Email: 'a@b.example',
              SpecialNeeds: true,
              ReasonableAdjustmentPercentage: 10,
            },
          ],
        },
      ],
    ];
    for (const [name, url, body] of accepted) {
      expect(validate(refOf(name), body), JSON.stringify(body)).toBeNull();
      const answer = await send(server, 'POST', url, body);
      expect(answer.body, JSON.stringify(body)).toMatchObject({ Success: true });
    }
  });
  it('sends every header the document declares for a status, with a value its schema takes', async () => {
    const faulty = await Promise.all(
      ['429:100%', '503:100%'].map((spec) =>
        startServer({ api: engine, tokens: storeTokens(store), faults: { spec: parseFaultSpec(spec), seed: 1 } }),
      ),
    );
    try {
      const user = { ExternalId: 'u-headers', FirstName: 'F', LastName: 'L', Role: 'Candidate' };
      const answers: [string, Answer][] = [
        [
          '/external/review-sessions/{externalId}',
          await send(server, 'POST', '/api/v1/integrations/external/review-sessions/RS-MATH1-OCT', {}),
        ],
        ['/user', await send(server, 'HEAD', '/api/v1/integrations/user', undefined)],
        ...(await Promise.all(
          faulty.map(
            async (s): Promise<[string, Answer]> => ['/user', await send(s, 'POST', '/api/v1/integrations/user', user)],
          ),
        )),
      ];
      const exercised = new Set<string>();
      for (const [route, answer] of answers) {
        // The status is declared alike on every operation of the route (a 405 names a method the route lacks).
        const declared = Object.values(document.paths[route]!)
          .map((operation) => operation.responses[String(answer.status)])
          .find(Boolean);
        expect(declared, `status ${answer.status} on ${route} is declared`).toBeDefined();
        for (const [name, header] of Object.entries(declared!.headers ?? {})) {
          exercised.add(`${answer.status} ${name}`);
          const sent = answer.headers?.[name.toLowerCase()];
          if (header.required) expect(sent, `${answer.status} on ${route} carries ${name}`).toBeDefined();
          if (typeof sent !== 'string') continue;
          // A header is text on the wire; an integer schema reads it as OpenAPI's simple style does.
          const value = header.schema.type === 'integer' && /^\d+$/.test(sent) ? Number(sent) : sent;
          expect(ajv.validate(header.schema, value), `${name}: ${sent} against ${JSON.stringify(header.schema)}`).toBe(
            true,
          );
        }
      }
      // Every status that declares a header anywhere in the document was exercised above.
      const declaredAnywhere = new Set(
        Object.values(document.paths).flatMap((operations) =>
          Object.values(operations).flatMap((operation) =>
            Object.entries(operation.responses).flatMap(([status, response]) =>
              Object.keys(response.headers ?? {}).map((name) => `${status} ${name}`),
            ),
          ),
        ),
      );
      expect([...declaredAnywhere].sort()).toEqual([...exercised].sort());
      expect(exercised).toEqual(new Set(['405 Allow', '429 Retry-After', '503 Retry-After']));
    } finally {
      await Promise.all(faulty.map((s) => s.close()));
    }
  });
});

describe('the served OpenAPI document routes and mocks as served', () => {
  it('names the serving host in an absolute servers URL (tools ignore a relative one)', () => {
    expect(document.servers).toEqual([{ url: `${server.url}/api/v1/integrations` }]);
  });

  it('says Success is true in every success envelope and false in the failure envelope', () => {
    const { schemas } = document.components;
    for (const name of ['ScheduleEnvelope', 'ReviewSessionEnvelope', 'CollectionEnvelope', 'UserEnvelope']) {
      expect((schemas[name]!.properties as Record<string, JsonSchema>).Success, name).toEqual({
        type: 'boolean',
        const: true,
      });
    }
    expect((schemas.FailureEnvelope!.properties as Record<string, JsonSchema>).Success).toEqual({
      type: 'boolean',
      const: false,
    });
    expect(validate(refOf('FailureEnvelope'), { Content: null, Success: true, Errors: [] })).not.toBeNull();
    expect(
      validate(refOf('UserEnvelope'), { Content: null, Success: false, Errors: [{ Code: 209, Message: 'x' }] }),
    ).not.toBeNull();
    // Whole-request errors of DELETE invigilators come with 200: its envelope is either kind.
    expect(
      validate(refOf('InvigilatorsEnvelope'), {
        Content: null,
        Success: false,
        Errors: [{ Code: 301, Message: 'Schedule not found: S-1' }],
      }),
    ).toBeNull();
    expect(
      validate(refOf('InvigilatorsEnvelope'), {
        Content: { SuccessfullyRemoved: ['a'], Errors: [] },
        Success: true,
        Errors: null,
      }),
    ).toBeNull();
  });

  it('says Errors is null in every success envelope, as the API text does ("Success true; Errors null")', () => {
    const successes: [string, unknown][] = [
      ['ScheduleEnvelope', 'S-1'],
      ['CollectionEnvelope', { ExternalId: 'c1', Errors: [] }],
      ['InvigilatorsEnvelope', { SuccessfullyRemoved: ['a'], Errors: [] }],
      ['UserEnvelope', { User: { ExternalId: 'u-1', FirstName: 'A', LastName: 'B' }, GroupErrors: [] }],
      ['ReviewSessionEnvelope', { ExternalId: 'RS-1', Results: [] }],
    ];
    for (const [name, content] of successes) {
      expect(validate(refOf(name), { Content: content, Success: true, Errors: null }), name).toBeNull();
      expect(validate(refOf(name), { Content: content, Success: true, Errors: [] }), name).not.toBeNull();
      expect(
        validate(refOf(name), { Content: content, Success: true, Errors: [{ Code: null, Message: 'x' }] }),
        name,
      ).not.toBeNull();
    }
  });

  it('has an example for every request body and every answer, each valid against its schema, failures with Success false', () => {
    let examples = 0;
    for (const [route, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const media = [
          ...(operation.requestBody ? [['request', operation.requestBody.content['application/json']!] as const] : []),
          ...Object.entries(operation.responses).map(
            ([status, response]) => [status, response.content!['application/json']!] as const,
          ),
        ];
        for (const [what, { schema, example }] of media) {
          const where = `${method} ${route} ${what}`;
          expect(example, `${where} has an example`).toBeDefined();
          expect(validate(refOf(schema.$ref.slice('#/components/schemas/'.length)), example), where).toBeNull();
          if (what !== 'request' && what !== '200')
            expect((example as { Success: boolean }).Success, where).toBe(false);
          examples += 1;
        }
      }
    }
    expect(examples).toBeGreaterThan(50);
  });

  it('example requests are accepted by the server as it stands (the demo world), with the answer the example shows', async () => {
    const user = document.paths['/user']!.post!;
    const answer = await send(
      server,
      'POST',
      '/api/v1/integrations/user',
      user.requestBody!.content['application/json']!.example,
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(user.responses['200']!.content!['application/json']!.example);
    const refused = user.responses['400']!.content!['application/json']!.example as { Errors: { Code: number }[] };
    expect(refused.Errors.map((error) => error.Code)).toEqual([209]);
  });
});
