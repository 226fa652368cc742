import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf } from '../../src/api/envelope-errors.js';
import type { IntegrationApi } from '../../src/port/integration-api.js';
import { buildOpenApiDocument } from '../../src/server/openapi.js';
import { createRemoteClient } from '../../src/api/remote-client.js';
import { BUNDLED_WORLD_PATH, createLocalEngine, loadWorldFile, worldToChanges } from '../../src/engine/index.js';
import { createStore, openStore } from '../../src/engine/store/index.js';
import type { Store } from '../../src/engine/store/contract.js';
import { TargetError } from '../../src/system/errors.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { storeTokens } from '../../src/server/serve-local.js';
import { candidate, scheduleRequest } from '../engine/helpers.js';

// The bundled world's token (fixtures/world.json, Settings.ApiTokens).
const WORLD_TOKEN = 'dev-token';

let dir: string;
let store: Store;
let server: RunningServer;
let client: IntegrationApi;
const logLines: string[] = [];

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'examctl-server-engine-'));
  const world = await loadWorldFile(BUNDLED_WORLD_PATH);
  await createStore(dir, worldToChanges(world));
  store = await openStore(dir);
  const engine = createLocalEngine({ store, now: () => new Date('2026-06-01T00:00:00Z') });
  server = await startServer({
    api: engine,
    tokens: storeTokens(store),
    openapi: buildOpenApiDocument(),
    log: (l) => logLines.push(l),
  });
  client = createRemoteClient({ baseUrl: server.url, token: WORLD_TOKEN });
});

afterAll(async () => {
  await client?.close();
  await server?.close();
  await store?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('server over the real engine', () => {
  it('creates a user through HTTP and the remote client', async () => {
    const result = await client.upsertUser({
      ExternalId: 'http-u-1',
      FirstName: 'Ann',
      LastName: 'Lee',
      Email: 'ann@example.test',
      Role: 'Candidate',
      Hierarchies: [{ ExternalId: 'H-NORTH' }, { ExternalId: 'H-NOPE' }],
    });
    expect(result.status).toBe(200);
    expect(result.envelope.Success).toBe(true);
    expect(result.envelope.Content?.User.ExternalId).toBe('http-u-1');
    expect(result.envelope.Content?.GroupErrors.map((g) => g.Code)).toEqual([131]);
  });

  it('returns the engine 400 envelope for an invalid user, every problem listed', async () => {
    const result = await client.upsertUser({
      ExternalId: 'bad id!',
      FirstName: '',
      LastName: 'X',
      Email: 'nope',
    } as never);
    expect(result.status).toBe(400);
    expect(result.envelope.Success).toBe(false);
    const codes = errorsOf(result.envelope).map((p) => p.code);
    expect(codes).toEqual(expect.arrayContaining([219, 210, 209]));
  });

  it('answers 1101 for an unknown review session and the session for a known one', async () => {
    const missing = await client.getReviewSession('RS-NOPE');
    expect(missing.status).toBe(400);
    expect(errorsOf(missing.envelope)[0]!.code).toBe(1101);
    const known = await client.getReviewSession('RS-MATH1-OCT');
    expect(known.envelope.Content?.ExternalId).toBe('RS-MATH1-OCT');
  });

  it('reports 810 for an existing collection id', async () => {
    const result = await client.addCollection({ ExternalId: 'mathcore2026', Title: 'Again' });
    expect(result.envelope.Success).toBe(false);
    expect(errorsOf(result.envelope).map((p) => p.code)).toContain(810);
  });

  it('removes invigilators with per-user 319 errors', async () => {
    const result = await client.removeInvigilators('S-FUTURE', ['inv-1', 'nobody']);
    expect(result.status).toBe(200);
    expect(result.envelope.Content?.SuccessfullyRemoved).toEqual(['inv-1']);
    expect(result.envelope.Content?.Errors.map((e) => e.Code)).toEqual([319]);
  });

  it('refuses a token that is not in the world settings', async () => {
    const stranger = createRemoteClient({ baseUrl: server.url, token: 'not-the-token' });
    await expect(stranger.upsertUser({ ExternalId: 'x', FirstName: 'a', LastName: 'b' })).rejects.toBeInstanceOf(
      TargetError,
    );
    await stranger.close();
    expect(logLines.join('\n')).not.toContain('not-the-token');
    expect(logLines.join('\n')).not.toContain(WORLD_TOKEN);
  });
});

/** One request as any HTTP client sends it: the path as written (no encoding), the headers given. */
async function raw(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = { 'content-type': 'application/json' },
) {
  const response = await fetch(`${server.url}/api/v1/integrations${path}`, {
    method,
    headers: { authorization: `EAPI ${WORLD_TOKEN}`, ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    body: (await response.json()) as {
      Content: unknown;
      Success: boolean;
      Errors: { Code: number | null; Message: string; Field?: string }[] | null;
    },
  };
}

describe('the served store answers as the API text says (docs/interpretations.md)', () => {
  it('an empty or blank schedule id in the invigilators path is 200, Success false, code 300, not an unknown route', async () => {
    for (const id of ['', '%20']) {
      const answer = await raw('DELETE', `/schedule/${id}/invigilators`, ['inv-2']);
      expect(answer.status, id).toBe(200);
      expect(answer.body.Success).toBe(false);
      expect(answer.body.Errors?.map((e) => e.Code)).toEqual([300]);
    }
  });

  it('a DELETE without a body needs no Content-Type: code 100 with 200; a body not declared JSON is 400', async () => {
    const none = await raw('DELETE', '/schedule/S-FUTURE/invigilators', undefined, {});
    expect(none.status).toBe(200);
    expect(none.body.Errors?.map((e) => e.Code)).toEqual([100]);
    // fetch declares a string body text/plain when no type is given.
    const plain = await raw('DELETE', '/schedule/S-FUTURE/invigilators', ['inv-2'], {});
    expect(plain.status).toBe(400);
    expect(plain.body).toMatchObject({ Content: null, Success: false, Errors: [{ Code: null }] });
  });

  it('takes a full IPv6 address (39 characters, past the string(34) the text declares) and a range of two', async () => {
    const full = '2001:0db8:85a3:0000:0000:8a2e:0370:7334';
    const range = '2001:0db8:0000:0000:0000:0000:0000:0001-2001:0db8:0000:0000:0000:0000:0000:00ff';
    const answer = await raw('POST', '/user', {
      ExternalId: 'http-ipv6',
      FirstName: 'Ip',
      LastName: 'Six',
      Role: 'Candidate',
      AllowedIpAddresses: [full, range],
    });
    expect(answer.status).toBe(200);
    expect((answer.body.Content as { User: { AllowedIpAddresses: string[] } }).User.AllowedIpAddresses).toEqual([
      full,
      range,
    ]);
  });

  it('refuses a candidate whose ProctorUIds holds an empty entry: 400, code null, naming the entry', async () => {
    const answer = await raw(
      'POST',
      '/schedule',
      scheduleRequest({
        Schedule: { ScheduleExtId: 'S-PROCTOR' },
        Candidates: [candidate('c-proctor', { ProctorUIds: [''] })],
      }),
    );
    expect(answer.status).toBe(400);
    expect(answer.body.Errors?.map((e) => [e.Field, e.Code])).toEqual([['Candidates[0].ProctorUIds[0]', null]]);
  });

  it('refuses a review session id over string(60) with 400, code null, naming the limit; 60 characters is looked up (1101)', async () => {
    const tooLong = await raw('GET', `/external/review-sessions/${'R'.repeat(61)}`, undefined, {});
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.Errors).toEqual([
      {
        Code: null,
        Field: 'externalId',
        Message: expect.stringContaining('is 61 characters; at most 60 (string(60))'),
      },
    ]);
    const atLimit = await raw('GET', `/external/review-sessions/${'R'.repeat(60)}`, undefined, {});
    expect(atLimit.body.Errors?.map((e) => e.Code)).toEqual([1101]);
    // Code points, not UTF-16 units: 60 astral characters are 60.
    const astral = await raw('GET', `/external/review-sessions/${encodeURIComponent('😀'.repeat(60))}`, undefined, {});
    expect(astral.body.Errors?.map((e) => e.Code)).toEqual([1101]);
  });
});
