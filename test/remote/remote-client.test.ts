import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRemoteClient, type RemoteClientOptions } from '../../src/api/remote-client.js';
import { parseRetryAfter } from '../../src/api/retry-loop.js';
import { isLoopbackHost } from '../../src/api/url-policy.js';
import type { ApiResult, IntegrationApi } from '../../src/port/integration-api.js';
import { InterruptedError, TargetError, UsageError } from '../../src/system/errors.js';
import { errorsOf } from '../../src/api/envelope-errors.js';
import { abortableSleep, type Sleep } from '../../src/api/flow-control.js';
import { okEnvelope, startFaultServer, type FaultServer } from '../support/fault-server.js';

const TOKEN = 'sekret-token-123';
const user = { ExternalId: 'u-1', FirstName: 'Ann', LastName: 'Lee' };

let server: FaultServer;
let client: IntegrationApi | undefined;
let delays: number[];
let debugLines: string[];

function makeClient(extra: Partial<RemoteClientOptions> = {}): IntegrationApi {
  client = createRemoteClient({
    baseUrl: server.url,
    token: TOKEN,
    sleep: async (ms) => {
      delays.push(ms);
    },
    random: () => 0.5,
    debug: (line) => debugLines.push(line),
    ...extra,
  });
  return client;
}

beforeEach(async () => {
  server = await startFaultServer();
  delays = [];
  debugLines = [];
});

afterEach(async () => {
  await client?.close();
  client = undefined;
  await server.close();
});

describe('requests', () => {
  it('sends the documented path and headers, and the token only in Authorization', async () => {
    server.script(okEnvelope({ User: user, GroupErrors: [] }));
    const result = await makeClient().upsertUser(user);
    expect(result.status).toBe(200);
    expect(result.envelope.Success).toBe(true);
    const request = server.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/api/v1/integrations/user');
    expect(request.headers.authorization).toBe(`EAPI ${TOKEN}`);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers.accept).toBe('application/json');
    expect(request.headers['user-agent']).toMatch(/^examctl\/\d+\.\d+\.\d+/);
    expect(JSON.parse(request.body)).toEqual(user);
    expect(debugLines.join('\n')).toContain('POST /api/v1/integrations/user 200');
    expect(debugLines.join('\n')).not.toContain(TOKEN);
  });

  it('tolerates a trailing slash and a path prefix on the base URL, and encodes path ids', async () => {
    client = createRemoteClient({ baseUrl: `${server.url}/tenant-a/`, token: TOKEN });
    await client.getReviewSession('RS 1/x');
    await client.removeInvigilators('S-1', ['inv-1']);
    expect(server.requests[0]!.url).toBe('/tenant-a/api/v1/integrations/external/review-sessions/RS%201%2Fx');
    expect(server.requests[0]!.method).toBe('GET');
    expect(server.requests[1]!.url).toBe('/tenant-a/api/v1/integrations/schedule/S-1/invigilators');
    expect(server.requests[1]!.method).toBe('DELETE');
    expect(JSON.parse(server.requests[1]!.body)).toEqual(['inv-1']);
  });
});

describe('retries', () => {
  for (const status of [429, 502, 503, 504]) {
    it(`retries ${status} with backoff, then succeeds`, async () => {
      server.script({ status, body: 'busy' }, { status, body: 'busy' }, okEnvelope('S-1'));
      const result = await makeClient({ backoffBaseMs: 100 }).createSchedule({} as never);
      expect(result.envelope.Content).toBe('S-1');
      expect(server.requests).toHaveLength(3);
      // full jitter with random() = 0.5: half of 100, then half of 200
      expect(delays).toEqual([50, 100]);
    });
  }

  it('retries a dropped connection', async () => {
    server.script({ destroy: true }, okEnvelope({ User: user, GroupErrors: [] }));
    const result = await makeClient().upsertUser(user);
    expect(result.envelope.Success).toBe(true);
    expect(server.requests).toHaveLength(2);
  });

  it('honours Retry-After in seconds and as an HTTP date, capped', async () => {
    const fixedNow = Date.parse('2026-01-01T00:00:00Z');
    server.script(
      { status: 503, headers: { 'retry-after': '3' } },
      { status: 429, headers: { 'retry-after': new Date(fixedNow + 7000).toUTCString() } },
      { status: 429, headers: { 'retry-after': '3600' } },
      okEnvelope(null),
    );
    await makeClient({ now: () => fixedNow, retryAfterCapMs: 20_000, maxRetryTimeMs: 1_000_000 }).upsertUser(user);
    expect(delays).toEqual([3000, 7000, 20_000]);
  });

  it('gives up after maxAttempts with a TargetError naming host, failure and attempts', async () => {
    server.fallback = { status: 503 };
    const error = await makeClient({ maxAttempts: 3 })
      .upsertUser(user)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetError);
    expect((error as Error).message).toMatch(/127\.0\.0\.1:\d+/);
    expect((error as Error).message).toContain('3 attempts');
    expect((error as Error).message).toContain('503');
    expect(server.requests).toHaveLength(3);
  });

  it('gives up when the next wait would pass the total retry time', async () => {
    server.fallback = { status: 503, headers: { 'retry-after': '30' } };
    const error = await makeClient({ maxRetryTimeMs: 10_000 })
      .upsertUser(user)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetError);
    expect((error as TargetError).code).toBe('E3001');
    expect((error as Error).message).toContain('30 s');
    expect(server.requests).toHaveLength(1);
  });

  it('reports a refused connection as a TargetError after retries', async () => {
    const port = server.port;
    await server.close();
    server = await startFaultServer(); // for afterEach; the client below points at the dead port
    client = createRemoteClient({
      baseUrl: `http://127.0.0.1:${port}`,
      token: TOKEN,
      maxAttempts: 2,
      sleep: async () => {},
    });
    const error = await client.upsertUser(user).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetError);
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect((error as Error).message).toContain('2 attempts');
  });

  it('times out a request that gets no answer and retries it', async () => {
    server.script({ delayMs: 5_000, ...okEnvelope(null) }, okEnvelope('S-2'));
    const result = await makeClient({ requestTimeoutMs: 150 }).createSchedule({} as never);
    expect(result.envelope.Content).toBe('S-2');
    expect(debugLines.some((line) => line.includes('request timeout'))).toBe(true);
  });

  for (const status of [400, 404, 405, 413]) {
    it(`never retries ${status}`, async () => {
      server.fallback = { status, body: { Content: null, Success: false, Errors: [{ Code: null, Message: 'no' }] } };
      const result = await makeClient().upsertUser(user);
      expect(result.status).toBe(status);
      expect(result.envelope.Success).toBe(false);
      expect(server.requests).toHaveLength(1);
    });
  }

  it('treats a 404 without an envelope as a wrong base URL (TargetError, no retry)', async () => {
    server.fallback = { status: 404, body: '<html>Not Found</html>' };
    const error = await makeClient()
      .upsertUser(user)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetError);
    expect((error as Error).message).toContain('check the base URL');
    expect(server.requests).toHaveLength(1);
  });

  it('returns a 413 without an envelope as a failed result for that record', async () => {
    server.fallback = { status: 413, body: 'Request Entity Too Large' };
    const result = await makeClient().createSchedule({} as never);
    expect(result.envelope.Success).toBe(false);
    expect(errorsOf(result.envelope)[0]!.message).toContain('request too large (413)');
  });
});

describe('403', () => {
  it('throws a TargetError at once and refuses every later call without sending', async () => {
    server.fallback = { status: 403, body: { Content: null, Success: false, Errors: null } };
    const api = makeClient();
    const first = await api.upsertUser(user).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(TargetError);
    expect((first as TargetError).code).toBe('E3010');
    expect((first as Error).message).toContain('403');
    expect((first as Error).message).not.toContain(TOKEN);
    const second = await api.getReviewSession('RS-1').catch((e: unknown) => e);
    expect(second).toBeInstanceOf(TargetError);
    expect(server.requests).toHaveLength(1);
  });
});

describe('abort', () => {
  it('stops a backoff wait at once when the signal aborts', async () => {
    server.fallback = { status: 503, headers: { 'retry-after': '600' } };
    const controller = new AbortController();
    // The real wait, with a marker: aborted once the client is in it (the 600 s Retry-After), never after a guessed time.
    let waiting: (ms: number) => void = () => undefined;
    const inBackoff = new Promise<number>((resolve) => (waiting = resolve));
    const sleep: Sleep = (ms, signal) => {
      waiting(ms);
      return abortableSleep(ms, signal);
    };
    client = createRemoteClient({
      baseUrl: server.url,
      token: TOKEN,
      retryAfterCapMs: 600_000,
      maxRetryTimeMs: 3_600_000,
      sleep,
    });
    const pending = client.upsertUser(user, { signal: controller.signal });
    expect(await inBackoff).toBe(600_000);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(InterruptedError);
    expect(server.requests).toHaveLength(1);
  });

  it('lets a request already on the wire finish and returns its answer', async () => {
    server.script({ delayMs: 100, ...okEnvelope('S-9') });
    const controller = new AbortController();
    const pending = makeClient().createSchedule({} as never, { signal: controller.signal });
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const result = await pending;
    expect(result.envelope.Content).toBe('S-9');
  });

  it('rejects at once with an already aborted signal, sending nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(makeClient().upsertUser(user, { signal: controller.signal })).rejects.toBeInstanceOf(InterruptedError);
    expect(server.requests).toHaveLength(0);
  });
});

describe('lost attempts', () => {
  it('notes an 810 after a retried POST /collections as possibly created by the lost first attempt', async () => {
    server.script(
      { destroy: true },
      {
        status: 400,
        body: { Content: null, Success: false, Errors: [{ Code: 810, Message: 'ExternalId already used' }] },
      },
    );
    const result = await makeClient().addCollection({ ExternalId: 'c1', Title: 'T' });
    expect(result.envelope.Success).toBe(false);
    expect(result.note).toContain('possibly created by the lost first attempt');
  });

  it('notes a Duplicate ScheduleExtId after a 504 on POST /schedule, but not after a 503', async () => {
    const duplicate = {
      status: 400,
      body: { Content: null, Success: false, Errors: [{ Code: null, Message: 'Duplicate ScheduleExtId' }] },
    };
    server.script({ status: 504 }, duplicate, { status: 503 }, duplicate);
    const api = makeClient();
    expect((await api.createSchedule({} as never)).note).toContain('possibly created by the lost first attempt');
    expect((await api.createSchedule({} as never)).note).toBeUndefined();
  });

  it('adds no note to an 810 on the first attempt', async () => {
    server.script({
      status: 400,
      body: { Content: null, Success: false, Errors: [{ Code: 810, Message: 'ExternalId already used' }] },
    });
    const result = await makeClient().addCollection({ ExternalId: 'c1', Title: 'T' });
    expect(result.note).toBeUndefined();
  });
});

describe('insecure http', () => {
  it('refuses plain http to a non-loopback host, naming the reason', () => {
    expect(() => createRemoteClient({ baseUrl: 'http://exam.example.com', token: TOKEN })).toThrow(UsageError);
    expect(() => createRemoteClient({ baseUrl: 'http://exam.example.com', token: TOKEN })).toThrow(/in clear/);
  });

  it('allows it with allowInsecureHttp, and allows loopback without', async () => {
    const insecure = createRemoteClient({ baseUrl: 'http://exam.example.com', token: TOKEN, allowInsecureHttp: true });
    await insecure.close();
    expect(isLoopbackHost('localhost')).toBe(true);
    expect(isLoopbackHost('127.5.0.1')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('10.0.0.1')).toBe(false);
    expect(isLoopbackHost('localhost.evil.com')).toBe(false);
  });

  it('refuses credentials in the URL and non-http schemes', () => {
    expect(() => createRemoteClient({ baseUrl: 'https://u:p@exam.example.com', token: TOKEN })).toThrow(UsageError);
    expect(() => createRemoteClient({ baseUrl: 'ftp://exam.example.com', token: TOKEN })).toThrow(UsageError);
    expect(() => createRemoteClient({ baseUrl: 'not a url', token: TOKEN })).toThrow(UsageError);
  });
});

describe('tolerance', () => {
  it('returns Success:false at 200 as a failed result, not an exception', async () => {
    server.script({
      status: 200,
      body: { Content: null, Success: false, Errors: [{ Code: 301, Message: 'Schedule not found' }] },
    });
    const result = await makeClient().removeInvigilators('S-X', ['a']);
    expect(result.status).toBe(200);
    expect(result.envelope.Success).toBe(false);
    expect(errorsOf(result.envelope)).toEqual([{ field: '', code: 301, message: 'Schedule not found' }]);
  });

  it('fails a 2xx naming another id than the one sent: it may have been applied (trial31 F07)', async () => {
    const api = makeClient();
    const answered = async (content: unknown, send: () => Promise<ApiResult<unknown>>): Promise<string> => {
      server.script(okEnvelope(content));
      const result = await send();
      return result.envelope.Success ? 'ok' : `${result.contradictory} ${errorsOf(result.envelope)[0]?.message}`;
    };
    expect(await answered({ User: { ExternalId: 'someone-else' } }, () => api.upsertUser(user))).toBe(
      'true the service answered for someone-else, not u-1',
    );
    // Ids compare ignoring case: a service folding an id's case answers for the same record.
    expect(await answered({ User: { ExternalId: 'U-1' } }, () => api.upsertUser(user))).toBe('ok');
    expect(await answered({ ExternalId: 'c1' }, () => api.addCollection({ ExternalId: 'C1', Title: 'T' }))).toBe('ok');
    expect(await answered({ ExternalId: 'c2' }, () => api.addCollection({ ExternalId: 'c1', Title: 'T' }))).toBe(
      'true the service answered for c2, not c1',
    );
    expect(await answered('S-2', () => api.createSchedule({ Schedule: { ScheduleExtId: 'S-1' } } as never))).toBe(
      'true the service answered for S-2, not S-1',
    );
    // An answer (or a request) naming no id stays as it is.
    expect(await answered({ User: {} }, () => api.upsertUser(user))).toBe('ok');
    expect(await answered('S-2', () => api.createSchedule({ Schedule: {} } as never))).toBe('ok');
  });

  it('keeps unknown fields and camelCase envelopes', async () => {
    server.script({ status: 200, body: { content: 'S-1', success: true, errors: null, traceId: 'abc' } });
    const result = await makeClient().createSchedule({} as never);
    expect(result.envelope.Success).toBe(true);
    expect(result.envelope.Content).toBe('S-1');
    expect((result.envelope as unknown as Record<string, unknown>).traceId).toBe('abc');
  });

  it('turns a non-JSON 500 page into a TargetError with a readable message', async () => {
    server.fallback = { status: 500, body: '<html><body><h1>Internal Server Error</h1></body></html>' };
    const error = await makeClient()
      .upsertUser(user)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetError);
    expect((error as Error).message).toContain('internal server error (500)');
    expect((error as Error).message).toContain('Internal Server Error');
    expect((error as Error).message).not.toContain('<h1>');
    expect(server.requests).toHaveLength(1);
  });

  it('refuses a 200 that is not an envelope (not the integration API)', async () => {
    server.fallback = { status: 200, body: '<html>login</html>' };
    await expect(makeClient().upsertUser(user)).rejects.toThrow(/not the API's JSON envelope/);
    // Its Content-Type holding the token (any case) passes the gate with the rest (trial31 F13).
    server.fallback = {
      status: 200,
      body: '<html>login</html>',
      headers: { 'content-type': `text/x-${TOKEN.toUpperCase()}` },
    };
    const error = (await makeClient()
      .upsertUser(user)
      .then(
        () => undefined,
        (caught: unknown) => caught,
      )) as Error;
    expect(error.message).toContain('[redacted]');
    expect(error.message.toLowerCase()).not.toContain(TOKEN.toLowerCase());
    // examctl's own words stay whole, even where they share a run with a record's secret (trial33 F07).
    server.fallback = { status: 200, body: '<html>login</html>' };
    const own = (await makeClient()
      .upsertUser({ ...user, Password: 'MyIntegration#1' })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      )) as Error;
    expect(own.message).toContain('is the base URL the integration API?');
  });
});

describe('limits', () => {
  it('keeps at most `concurrency` requests in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const http = await import('node:http');
    const slow = http.createServer((req, res) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      req.resume();
      req.on('end', () =>
        setTimeout(() => {
          inFlight -= 1;
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"Content":null,"Success":true,"Errors":null}');
        }, 10),
      );
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const port = (slow.address() as { port: number }).port;
    client = createRemoteClient({ baseUrl: `http://127.0.0.1:${port}`, token: TOKEN, concurrency: 3 });
    await Promise.all(Array.from({ length: 12 }, () => client!.upsertUser(user)));
    expect(peak).toBe(3);
    await client.close();
    client = undefined;
    slow.closeAllConnections();
    await new Promise((resolve) => slow.close(resolve));
  });

  it('drops an answer whose body grows past maxResponseBytes instead of buffering it', async () => {
    const http = await import('node:http');
    let requests = 0;
    const endless = http.createServer((req, res) => {
      requests += 1;
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      // Far more than the bound, written as fast as the client reads.
      let left = 64;
      const pump = (): void => {
        while (left > 0 && !res.destroyed) {
          left -= 1;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end('{}');
      };
      pump();
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    const port = (endless.address() as { port: number }).port;
    client = createRemoteClient({
      baseUrl: `http://127.0.0.1:${port}`,
      token: TOKEN,
      maxResponseBytes: 256 * 1024,
      maxAttempts: 2,
      sleep: async () => undefined,
    });
    const failed = client.upsertUser(user);
    await expect(failed).rejects.toThrow(TargetError);
    // A 200: probably applied, so not sent again.
    await expect(failed).rejects.toThrow(
      /the service answered 200 but its answer was too large to read \(over 256 KiB\): not retried/,
    );
    expect(requests).toBe(1);
    await client.close();
    client = undefined;
    endless.closeAllConnections();
    await new Promise((resolve) => endless.close(resolve));
  });

  it('spaces request starts by the rate', async () => {
    let clock = 0;
    const waits: number[] = [];
    client = createRemoteClient({
      baseUrl: server.url,
      token: TOKEN,
      rate: 600,
      now: () => clock,
      sleep: async (ms) => {
        waits.push(ms);
        clock += ms;
      },
    });
    for (let i = 0; i < 3; i += 1) await client.upsertUser(user);
    expect(waits).toEqual([100, 100]);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and dates and ignores garbage', () => {
    expect(parseRetryAfter('2', 0)).toBe(2000);
    expect(parseRetryAfter('Thu, 01 Jan 1970 00:00:05 GMT', 0)).toBe(5000);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    expect(parseRetryAfter(undefined, 0)).toBeUndefined();
  });
});

describe('shared signal', () => {
  it('adds a single abort listener however many calls wait, and aborts them all', async () => {
    server.fallback = { status: 503, headers: { 'retry-after': '600' } };
    const controller = new AbortController();
    let listeners = 0;
    const original = controller.signal.addEventListener.bind(controller.signal);
    controller.signal.addEventListener = ((...args: Parameters<AbortSignal['addEventListener']>) => {
      listeners += 1;
      original(...args);
    }) as AbortSignal['addEventListener'];
    client = createRemoteClient({
      baseUrl: server.url,
      token: TOKEN,
      concurrency: 2,
      retryAfterCapMs: 600_000,
      maxRetryTimeMs: 3_600_000,
    });
    const calls = Array.from({ length: 20 }, () =>
      client!.upsertUser(user, { signal: controller.signal }).catch((e: unknown) => e),
    );
    while (server.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const outcomes = await Promise.all(calls);
    expect(outcomes.every((o) => o instanceof InterruptedError)).toBe(true);
    expect(listeners).toBe(1);
    expect(server.requests).toHaveLength(2);
  });
});

describe('secrets', () => {
  it('redacts the token if a failing server echoes it back in an error page', async () => {
    server.fallback = { status: 500, body: `<pre>bad header Authorization: EAPI ${TOKEN}</pre>` };
    const error = await makeClient()
      .upsertUser(user)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetError);
    expect((error as Error).message).toContain('[redacted]');
    expect((error as Error).message).not.toContain(TOKEN);
  });
});
