import http from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiResult, IntegrationApi } from '../../src/port/integration-api.js';
import { buildOpenApiDocument } from '../../src/server/openapi.js';
import { createRemoteClient } from '../../src/api/remote-client.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { StoreLockedError } from '../../src/system/errors.js';

const TOKEN = 'srv-token-abc';

interface Call {
  method: string;
  args: unknown[];
}

function fakeApi(calls: Call[]): IntegrationApi {
  const ok = <T>(content: T): Promise<ApiResult<T>> =>
    Promise.resolve({ status: 200, envelope: { Content: content, Success: true, Errors: null }, action: 'created' });
  return {
    createSchedule: (request) => {
      calls.push({ method: 'createSchedule', args: [request] });
      return ok('S-1');
    },
    getReviewSession: (id) => {
      calls.push({ method: 'getReviewSession', args: [id] });
      if (id === 'missing') {
        return Promise.resolve({
          status: 400,
          envelope: {
            Content: null,
            Success: false,
            Errors: [{ Code: 1101, Message: 'Review session has not been found.' }],
          },
        });
      }
      if (id === 'locked') return Promise.reject(new StoreLockedError('store locked'));
      return ok({ ExternalId: id, Results: [] });
    },
    addCollection: (request) => {
      calls.push({ method: 'addCollection', args: [request] });
      return ok({ ExternalId: 'c1', Errors: [] });
    },
    upsertUser: (request) => {
      calls.push({ method: 'upsertUser', args: [request] });
      return ok({ User: request, GroupErrors: [] });
    },
    removeInvigilators: (id, ids) => {
      calls.push({ method: 'removeInvigilators', args: [id, ids] });
      return ok({ SuccessfullyRemoved: ids, Errors: [] });
    },
    close: () => Promise.resolve(),
  };
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: () => Record<string, unknown>;
}

function request(
  server: RunningServer,
  method: string,
  path: string,
  options: { token?: string | null; body?: string; contentType?: string | null; headers?: Record<string, string> } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== null) headers.authorization = `EAPI ${options.token ?? TOKEN}`;
    if (options.contentType !== null) headers['content-type'] = options.contentType ?? 'application/json';
    // node:http sends a DELETE body unframed unless the length is given
    if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
    const req = http.request(`${server.url}${path}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body,
          json: () => JSON.parse(body) as Record<string, unknown>,
        });
      });
    });
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

let server: RunningServer;
let calls: Call[];
let logLines: string[];

beforeEach(async () => {
  calls = [];
  logLines = [];
  server = await startServer({
    api: fakeApi(calls),
    tokens: () => [TOKEN, 'other-token'],
    log: (line) => logLines.push(line),
    bodyLimitBytes: 1024,
    openapi: buildOpenApiDocument(),
  });
});

afterEach(async () => {
  await server.close();
});

describe('routes', () => {
  it('binds 127.0.0.1 by default on a free port', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.port).toBeGreaterThan(0);
  });

  it('passes each route to the API and returns its status and envelope as is', async () => {
    const schedule = await request(server, 'POST', '/api/v1/integrations/schedule', {
      body: '{"Schedule":{},"Candidates":[]}',
    });
    expect(schedule.status).toBe(200);
    expect(schedule.json()).toEqual({ Content: 'S-1', Success: true, Errors: null });

    const missing = await request(server, 'GET', '/api/v1/integrations/external/review-sessions/missing', {
      contentType: null,
    });
    expect(missing.status).toBe(400);
    expect((missing.json().Errors as Array<{ Code: number }>)[0]!.Code).toBe(1101);

    await request(server, 'POST', '/api/v1/integrations/collections', { body: '{"Title":"T"}' });
    await request(server, 'POST', '/api/v1/integrations/user', { body: '{"ExternalId":"u"}' });
    const removed = await request(server, 'DELETE', '/api/v1/integrations/schedule/S%201/invigilators', {
      body: '["a","b"]',
    });
    expect(removed.json().Content).toEqual({ SuccessfullyRemoved: ['a', 'b'], Errors: [] });
    expect(calls.map((c) => c.method)).toEqual([
      'createSchedule',
      'getReviewSession',
      'addCollection',
      'upsertUser',
      'removeInvigilators',
    ]);
    expect(calls[4]!.args[0]).toBe('S 1');
  });

  it('answers 404 with an envelope for an unknown route', async () => {
    const reply = await request(server, 'GET', '/api/v1/integrations/nope');
    expect(reply.status).toBe(404);
    expect(reply.json().Success).toBe(false);
  });

  it('answers 405 with an Allow header for a wrong method', async () => {
    const reply = await request(server, 'GET', '/api/v1/integrations/user');
    expect(reply.status).toBe(405);
    expect(reply.headers.allow).toBe('POST');
    expect(reply.json().Success).toBe(false);
  });

  it('answers a store that cannot be used with 503 and Retry-After', async () => {
    const reply = await request(server, 'GET', '/api/v1/integrations/external/review-sessions/locked');
    expect(reply.status).toBe(503);
    expect(reply.headers['retry-after']).toBe('1');
  });
});

describe('auth', () => {
  it('answers 403 without a token, with a wrong token, and with another scheme', async () => {
    for (const headers of [
      { token: null },
      { token: 'wrong' },
      { token: null, headers: { authorization: `Bearer ${TOKEN}` } },
    ]) {
      const reply = await request(server, 'POST', '/api/v1/integrations/user', { body: '{}', ...headers });
      expect(reply.status).toBe(403);
      expect(reply.json()).toMatchObject({ Content: null, Success: false });
    }
    expect(calls).toHaveLength(0);
  });

  it('reads the scheme in any case, spaces or tabs before the token, whitespace after it (docs/interpretations.md, "Headers")', async () => {
    for (const authorization of [`eapi ${TOKEN}`, `EAPI   ${TOKEN}`, `Eapi\t${TOKEN}`, `EAPI ${TOKEN}  `]) {
      const reply = await request(server, 'POST', '/api/v1/integrations/user', {
        body: '{}',
        token: null,
        headers: { authorization },
      });
      expect(reply.status, JSON.stringify(authorization)).toBe(200);
    }
    for (const authorization of ['EAPI', `EAPI ${TOKEN} extra`, `EAPI${TOKEN}`]) {
      const reply = await request(server, 'POST', '/api/v1/integrations/user', {
        body: '{}',
        token: null,
        headers: { authorization },
      });
      expect(reply.status, JSON.stringify(authorization)).toBe(403);
    }
    expect(calls).toHaveLength(4);
  });

  it('accepts any configured token', async () => {
    const reply = await request(server, 'POST', '/api/v1/integrations/user', { body: '{}', token: 'other-token' });
    expect(reply.status).toBe(200);
  });

  it('never writes a token to the log, one line per request', async () => {
    await request(server, 'POST', '/api/v1/integrations/user', { body: '{}' });
    await request(server, 'POST', '/api/v1/integrations/user', { body: '{}', token: 'wrong-secret' });
    expect(logLines).toHaveLength(2);
    expect(logLines[0]).toMatch(/^POST \/api\/v1\/integrations\/user 200 \d+ms$/);
    expect(logLines[1]).toMatch(/^POST \/api\/v1\/integrations\/user 403 \d+ms$/);
    expect(logLines.join('\n')).not.toContain(TOKEN);
    expect(logLines.join('\n')).not.toContain('wrong-secret');
  });
});

describe('bodies', () => {
  it('answers 400 for malformed JSON', async () => {
    const reply = await request(server, 'POST', '/api/v1/integrations/user', { body: '{"ExternalId":' });
    expect(reply.status).toBe(400);
    expect(reply.json().Success).toBe(false);
    expect(calls).toHaveLength(0);
  });

  it('answers 400 for a body that starts with a byte order mark (docs/interpretations.md, "Headers")', async () => {
    const reply = await request(server, 'POST', '/api/v1/integrations/user', { body: '\uFEFF{}' });
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual({
      Content: null,
      Success: false,
      Errors: [{ Code: null, Message: 'the request body is not valid JSON' }],
    });
    expect(calls).toHaveLength(0);
  });

  it('answers 413 for a body over the limit', async () => {
    const reply = await request(server, 'POST', '/api/v1/integrations/user', {
      body: JSON.stringify({ x: 'y'.repeat(4096) }),
    });
    expect(reply.status).toBe(413);
    expect(reply.json().Success).toBe(false);
    expect(calls).toHaveLength(0);
  });

  it('answers 400 with the envelope for a body not declared JSON (none, or text/plain), before the API sees it', async () => {
    for (const contentType of ['text/plain', null]) {
      const reply = await request(server, 'POST', '/api/v1/integrations/user', { body: '{}', contentType });
      expect(reply.status, String(contentType)).toBe(400);
      expect(reply.json()).toEqual({
        Content: null,
        Success: false,
        Errors: [{ Code: null, Message: 'a request body must be declared Content-Type: application/json' }],
      });
    }
    const charset = await request(server, 'POST', '/api/v1/integrations/user', {
      body: '{}',
      contentType: 'Application/JSON; charset=utf-8',
    });
    expect(charset.status).toBe(200);
    expect(calls.map((c) => c.method)).toEqual(['upsertUser']);
  });

  it('needs no Content-Type for a request without a body: the API gets a null body', async () => {
    const removed = await request(server, 'DELETE', '/api/v1/integrations/schedule/S-1/invigilators', {
      contentType: null,
    });
    expect(removed.status).toBe(200);
    expect(calls).toEqual([{ method: 'removeInvigilators', args: ['S-1', null] }]);
  });
});

describe('openapi', () => {
  it('serves an OpenAPI 3.1 document with the five paths', async () => {
    const reply = await request(server, 'GET', '/api/v1/integrations/openapi.json', { token: null });
    expect(reply.status).toBe(200);
    const document = reply.json();
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths as object).sort()).toEqual([
      '/collections',
      '/external/review-sessions/{externalId}',
      '/schedule',
      '/schedule/{externalId}/invigilators',
      '/user',
    ]);
  });
});

describe('with the remote client', () => {
  it('round-trips through createRemoteClient and closes with keep-alive sockets open', async () => {
    const client = createRemoteClient({ baseUrl: server.url, token: TOKEN });
    const result = await client.removeInvigilators('S-1', ['inv-1']);
    expect(result.envelope.Content).toEqual({ SuccessfullyRemoved: ['inv-1'], Errors: [] });
    // the client's keep-alive socket is still open: close must not hang on it
    await server.close();
    await client.close();
  });
});

describe('close', () => {
  it('finishes an in-flight request before closing, and refuses new connections after', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const slowApi = fakeApi([]);
    slowApi.upsertUser = async (request) => {
      entered();
      await gate;
      return { status: 200, envelope: { Content: { User: request, GroupErrors: [] }, Success: true, Errors: null } };
    };
    const slow = await startServer({ api: slowApi, tokens: () => [TOKEN] });
    const pending = request(slow, 'POST', '/api/v1/integrations/user', { body: '{"ExternalId":"late"}' });
    await inside;
    const closing = slow.close();
    release();
    const reply = await pending;
    expect(reply.status).toBe(200);
    expect(reply.json().Success).toBe(true);
    await closing;
    await expect(request(slow, 'POST', '/api/v1/integrations/user', { body: '{}' })).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('malformed HTTP', () => {
  it('answers a request the HTTP parser rejects with a 400 envelope', async () => {
    const net = await import('node:net');
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(server.port, '127.0.0.1', () => socket.write('GARBAGE\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(reply).toMatch(/^HTTP\/1\.1 400/);
    expect(reply).toContain('"Success":false');
  });
});
