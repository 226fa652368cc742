import http from 'node:http';
import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { lineWith } from '../support/facts.js';
import type { ApiResult, IntegrationApi } from '../../src/port/integration-api.js';
import { buildOpenApiDocument } from '../../src/server/openapi.js';
import { StoreLockedError } from '../../src/system/errors.js';
import { MAX_HEADER_BYTES, MAX_URL_BYTES, startServer, type RunningServer } from '../../src/server/server.js';

const TOKEN = 'hardening-token';

function api(calls: string[]): IntegrationApi {
  const ok = <T>(content: T): Promise<ApiResult<T>> =>
    Promise.resolve({ status: 200, envelope: { Content: content, Success: true, Errors: null } });
  return {
    createSchedule: () => ok('S-1'),
    getReviewSession: (id, call) => {
      calls.push(`get ${id}`);
      if (id === 'until-aborted') {
        // Works until the server says the client went away.
        return new Promise((resolve) => {
          call!.signal!.addEventListener('abort', () => {
            calls.push('signal aborted');
            resolve({
              status: 200,
              envelope: { Content: { ExternalId: id, Results: [] }, Success: true, Errors: null },
            });
          });
        });
      }
      if (id === 'peek') return ok({ ExternalId: id, Results: [], SignalAborted: call?.signal?.aborted } as never);
      if (id === 'locked') {
        return Promise.reject(
          new StoreLockedError('store /srv/secret-store is locked by pid 4242 on host build-7 (examctl user sync)'),
        );
      }
      return ok({ ExternalId: id, Results: [] });
    },
    addCollection: () => ok({ ExternalId: 'c1', Errors: [] }),
    upsertUser: (request) => {
      calls.push('upsertUser');
      return ok({ User: request as never, GroupErrors: [] });
    },
    removeInvigilators: (_id, ids) => ok({ SuccessfullyRemoved: ids, Errors: [] }),
    close: () => Promise.resolve(),
  };
}

let server: RunningServer;
let calls: string[];
let log: string[];

beforeEach(async () => {
  calls = [];
  log = [];
  server = await startServer({
    api: api(calls),
    tokens: () => [TOKEN],
    log: (line) => log.push(line),
    bodyLimitBytes: 64 * 1024,
    openapi: buildOpenApiDocument(),
    timeouts: { headersMs: 300, requestMs: 600, keepAliveMs: 1000 },
  });
});

afterEach(async () => {
  await server.close();
});

/** Writes raw bytes and collects everything the server sends until it closes. */
function raw(write: (socket: net.Socket) => void): Promise<{ text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect(server.port, '127.0.0.1', () => write(socket));
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('close', () => resolve({ text, ms: performance.now() - started }));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error),
    );
  });
}

const statusOf = (text: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
const bodyOf = (text: string): { Success: boolean; Errors: { Message: string }[] } =>
  JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as never;

function request(
  method: string,
  path: string,
  body?: Buffer | string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const all: Record<string, string> = { authorization: `EAPI ${TOKEN}`, ...headers };
    if (body !== undefined) {
      all['content-type'] ??= 'application/json';
      all['content-length'] = String(Buffer.byteLength(body));
    }
    const req = http.request(`${server.url}${path}`, { method, headers: all, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('answered at once, the body left unread', () => {
  it('403 to an unauthenticated 300 MiB upload, without waiting for the body, and closes', async () => {
    const reply = await raw((socket) => {
      socket.write(
        'POST /api/v1/integrations/user HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
          `Content-Length: ${300 * 1024 * 1024}\r\n\r\n{"ExternalId":`,
      );
      // The rest never comes: an answer that waited for it would not come either (the 600 ms deadline would give 408).
    });
    expect(statusOf(reply.text)).toBe(403);
    expect(reply.text.toLowerCase()).toContain('connection: close');
    expect(calls).toEqual([]);
  });

  it('413 from the declared length and 400 from the content type, before any body byte', async () => {
    const tooLarge = await raw((socket) =>
      socket.write(
        `POST /api/v1/integrations/user HTTP/1.1\r\nHost: x\r\nAuthorization: EAPI ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 999999999\r\n\r\n`,
      ),
    );
    expect(statusOf(tooLarge.text)).toBe(413);
    const notJson = await raw((socket) =>
      socket.write(
        `POST /api/v1/integrations/user HTTP/1.1\r\nHost: x\r\nAuthorization: EAPI ${TOKEN}\r\nContent-Type: text/plain\r\nContent-Length: 5000\r\n\r\n`,
      ),
    );
    expect(statusOf(notJson.text)).toBe(400);
    expect(notJson.text).toContain('a request body must be declared Content-Type: application/json');
    expect(notJson.text.toLowerCase()).toContain('connection: close');
    expect(calls).toEqual([]);
  });

  it('sends 100 Continue only once the token and route are accepted', async () => {
    const refused = await raw((socket) =>
      socket.write(
        'POST /api/v1/integrations/user HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n',
      ),
    );
    expect(refused.text).not.toContain('100 Continue');
    expect(statusOf(refused.text)).toBe(403);
    const accepted = await raw((socket) => {
      socket.write(
        `POST /api/v1/integrations/user HTTP/1.1\r\nHost: x\r\nAuthorization: EAPI ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
      );
      socket.once('data', () => socket.write('{}'));
    });
    expect(accepted.text).toMatch(/^HTTP\/1\.1 100 Continue/);
    expect(accepted.text).toContain('HTTP/1.1 200');
  });
});

describe('slow, long and broken requests', () => {
  it('408 for headers that do not arrive in time', async () => {
    const reply = await raw((socket) => socket.write('GET /api/v1/integrations/openapi.json HTTP/1.1\r\nHost: x\r\n'));
    expect(statusOf(reply.text)).toBe(408);
    expect(bodyOf(reply.text).Success).toBe(false);
  });

  it('408 for a body that does not arrive in time', async () => {
    const reply = await raw((socket) =>
      socket.write(
        `POST /api/v1/integrations/user HTTP/1.1\r\nHost: x\r\nAuthorization: EAPI ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":`,
      ),
    );
    expect(statusOf(reply.text)).toBe(408);
    expect(calls).toEqual([]);
  });

  it('414 for a URL over the bound and 431 for headers over the bound', async () => {
    const longUrl = await request('GET', `/api/v1/integrations/external/review-sessions/${'a'.repeat(MAX_URL_BYTES)}`);
    expect(longUrl.status).toBe(414);
    const hugeUrl = await raw((socket) =>
      socket.write(`GET /${'a'.repeat(MAX_HEADER_BYTES + 10)} HTTP/1.1\r\nHost: x\r\n\r\n`),
    );
    expect(statusOf(hugeUrl.text)).toBe(414);
    const bigHeaders = await raw((socket) =>
      socket.write(
        `GET /api/v1/integrations/openapi.json HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(MAX_HEADER_BYTES)}\r\n\r\n`,
      ),
    );
    expect(statusOf(bigHeaders.text)).toBe(431);
  });

  it('logs a client that goes away mid-body as aborted, not 500', async () => {
    await raw((socket) => {
      socket.write(
        `POST /api/v1/integrations/user HTTP/1.1\r\nHost: x\r\nAuthorization: EAPI ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":`,
      );
      setTimeout(() => socket.destroy(), 50);
    });
    // The server's log line is the marker: waited for (bounded), never a fixed sleep.
    await until(() => log.some((line) => /^POST \/api\/v1\/integrations\/user aborted \d+ms$/.test(line)));
    expect(log.some((line) => / 500 /.test(line))).toBe(false);
  });

  it('400 naming invalid UTF-8 and its offset, never a silent U+FFFD', async () => {
    const body = Buffer.concat([Buffer.from('{"ExternalId":"ab'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const reply = await request('POST', '/api/v1/integrations/user', body);
    expect(reply.status).toBe(400);
    expect(reply.text).toContain('not valid UTF-8');
    expect(reply.text).toContain('offset 17');
    expect(calls).toEqual([]);
  });
});

describe('answers', () => {
  it("a handler's AbortSignal fires when its client goes away mid-work, and not otherwise", async () => {
    const peek = await request('GET', '/api/v1/integrations/external/review-sessions/peek');
    expect(peek.status).toBe(200);
    expect(JSON.parse(peek.text).Content.SignalAborted).toBe(false);
    await raw((socket) => {
      socket.write(
        `GET /api/v1/integrations/external/review-sessions/until-aborted HTTP/1.1\r\nHost: x\r\nAuthorization: EAPI ${TOKEN}\r\n\r\n`,
      );
      setTimeout(() => socket.destroy(), 50);
    });
    await vi.waitFor(() => expect(calls).toContain('signal aborted'));
  });

  it('503 for a locked store tells the caller nothing of paths, hosts or pids; the log may', async () => {
    const reply = await request('GET', '/api/v1/integrations/external/review-sessions/locked');
    expect(reply.status).toBe(503);
    expect(reply.headers['retry-after']).toBe('1');
    for (const secret of ['/srv/secret-store', '4242', 'build-7']) expect(reply.text).not.toContain(secret);
    expect(log.join('\n')).toContain('/srv/secret-store');
  });

  it('HEAD answers as GET without a body, and 405 lists HEAD where GET is allowed', async () => {
    const head = await request('HEAD', '/api/v1/integrations/external/review-sessions/RS-1');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
    const unauthenticated = await request('HEAD', '/api/v1/integrations/external/review-sessions/RS-1', undefined, {
      authorization: '',
    });
    expect(unauthenticated.status).toBe(403);
    const openapi = await request('HEAD', '/api/v1/integrations/openapi.json');
    expect(openapi.status).toBe(200);
    const wrong = await request('POST', '/api/v1/integrations/external/review-sessions/RS-1', '{}');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('GET, HEAD');
    const headOnPost = await request('HEAD', '/api/v1/integrations/user');
    expect(headOnPost.status).toBe(405);
    expect(headOnPost.headers.allow).toBe('POST');
  });

  it('closes an idle keep-alive connection after the documented timeout', async () => {
    const reply = await raw((socket) =>
      socket.write('GET /api/v1/integrations/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n'),
    );
    expect(statusOf(reply.text)).toBe(200);
    // keepAliveMs 1000 in this test: the socket closed by itself (raw resolves on close), not before the timeout.
    expect(reply.ms).toBeGreaterThanOrEqual(900);
  });
});

describe('stopping', () => {
  it('a handler that never settles is abandoned after twice the grace period, so close() always ends', async () => {
    const stuckLog: string[] = [];
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const stuck = await startServer({
      api: {
        ...api([]),
        upsertUser: () => {
          entered();
          return new Promise<never>(() => undefined);
        },
      },
      tokens: () => [TOKEN],
      log: (line) => stuckLog.push(line),
      closeGraceMs: 50,
    });
    const answer = new Promise<string>((resolve) => {
      const req = http.request(`${stuck.url}/api/v1/integrations/user`, {
        method: 'POST',
        headers: { authorization: `EAPI ${TOKEN}`, 'content-type': 'application/json' },
        agent: false,
      });
      req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      req.on('response', (res) => resolve(String(res.statusCode)));
      req.end('{"ExternalId":"u-1"}');
    });
    // The request is in the handler before the stop begins: the handler's call is the marker.
    await inHandler;
    await stuck.close();
    expect(await answer).toBe('ECONNRESET');
    expect(lineWith(stuckLog.join('\n'), 'stopping: ', '1 request(s)', '100 ms', 'abandoned')).toBeTruthy();
  });
});

/** Waits for `condition`, checked every 10 ms, at most 10 s: a marker the code under test sets, not a guess of how long it takes. */
async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 10_000) throw new Error('the condition never held within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
