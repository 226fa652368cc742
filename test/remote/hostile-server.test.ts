import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRemoteClient, redirectWords, unreadAnswer } from '../../src/api/remote-client.js';
import { ResponseBudgetError, ResponseTooLargeError } from '../../src/api/http-pool.js';
import { parseRetryAfter } from '../../src/api/retry-loop.js';
import {
  AnswerUnreadableError,
  NeverSentTargetError,
  TargetError,
  TransientTargetError,
  UsageError,
} from '../../src/system/errors.js';
import { openStateHttp } from '../../src/context/state-http.js';
import { json, largeBody, startHostileServer, trickle, type HostileServer } from '../support/hostile-server.js';

/** Issues 22 and 26: the remote client against servers that do what no honest server does. */
const TOKEN = 'hostile-test-token-0123456789';
const user = {
  ExternalId: 'u-1',
  FirstName: 'Ann',
  LastName: 'Lee',
  Email: 'a@example.test',
  Role: 'Candidate',
} as never;
const noWait = { sleep: async () => undefined, random: () => 0 };

let server: HostileServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('whole-attempt deadline', () => {
  it('a body trickled one byte at a time ends at the request timeout, not never; after its 200, never sent again', async () => {
    server = await startHostileServer((_request, res) => trickle(res, '{"Content":null,"Success":true}', 20));
    // A second, not 300 ms: the 200 must be in before the deadline even on a loaded machine (the subject is the body's end).
    const client = createRemoteClient({
      baseUrl: server.url,
      token: TOKEN,
      requestTimeoutMs: 1000,
      maxAttempts: 2,
      ...noWait,
    });
    try {
      // bodyTimeout (between chunks) never fires: a byte comes every 20 ms.
      const failure = await client.upsertUser(user).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(AnswerUnreadableError);
      expect((failure as AnswerUnreadableError).code).toBe('E3003');
      expect((failure as Error).message).toContain(
        'the service answered 200 but its answer was cut short (no whole answer within the request timeout (1 s)): not retried',
      );
      expect(server.requests).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});

describe("whole-attempt deadline without undici's own timers", () => {
  it.each([
    ['never sends a status line', () => undefined],
    [
      'sends a 503 status line and a first chunk, then nothing',
      (res: import('node:http').ServerResponse) => {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.write('{"Content":');
      },
    ],
  ])(
    'a server that %s: the attempt ends at the request timeout, retried, then the call fails',
    async (_what, answer) => {
      server = await startHostileServer((_request, res) => answer(res));
      const client = createRemoteClient({
        baseUrl: server.url,
        token: TOKEN,
        requestTimeoutMs: 300,
        maxAttempts: 2,
        ...noWait,
      });
      try {
        const failure = await client.upsertUser(user).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(failure).toBeInstanceOf(TransientTargetError);
        expect((failure as TransientTargetError).code).toBe('E3001');
        // The client's own deadline ends it: undici's headers and body timers are off on a direct connection.
        expect((failure as Error).message).toContain('failed after 2 attempts');
        expect((failure as Error).message).toContain('300 ms');
        // The second attempt is counted by the client: on a loaded machine its deadline may pass before the
        // server has read that request, so the server's count is not asserted beyond the first.
        expect(server.requests.length).toBeGreaterThanOrEqual(1);
        expect(client.retryCounts?.().byCause).toEqual({ timeout: 1 });
      } finally {
        await client.close();
      }
    },
  );
});

describe('a 200 whose body never wholly comes (QA: it was sent again)', () => {
  it.each([
    [
      'stops after a first chunk',
      'no whole answer within the request timeout (300 ms)',
      (res: import('node:http').ServerResponse) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"Content":');
      },
    ],
    [
      'drops the connection after a first chunk of its Content-Length',
      'the connection ended before the whole answer came',
      (res: import('node:http').ServerResponse) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"Content":{"User":', () => res.socket?.destroy());
      },
    ],
  ])(
    'a server that %s: the call ends "may have been applied", sent once, never retried',
    async (_what, why, answer) => {
      server = await startHostileServer((_request, res) => answer(res));
      const client = createRemoteClient({
        baseUrl: server.url,
        token: TOKEN,
        requestTimeoutMs: 300,
        maxAttempts: 3,
        ...noWait,
      });
      try {
        const failure = await client.upsertUser(user).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(failure).toBeInstanceOf(AnswerUnreadableError);
        expect((failure as AnswerUnreadableError).code).toBe('E3003');
        expect((failure as Error).message).toContain('200');
        expect((failure as Error).message).toContain(why);
        expect((failure as Error).message).toMatch(/: not retried$/);
        expect(server.requests).toHaveLength(1);
      } finally {
        await client.close();
      }
    },
  );
});

describe('a read (GET) whose 200 is cut short', () => {
  it('says nothing was changed, never "may have been applied"', async () => {
    server = await startHostileServer((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"Content":{"ExternalId":', () => res.socket?.destroy());
    });
    const client = createRemoteClient({
      baseUrl: server.url,
      token: TOKEN,
      requestTimeoutMs: 300,
      maxAttempts: 3,
      ...noWait,
    });
    try {
      const failure = await client.getReviewSession('RS-1').then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(AnswerUnreadableError);
      expect((failure as Error).message).toMatch(
        /: GET \/external\/review-sessions\/RS-1: the service answered 200 but its answer was cut short \(the connection ended before the whole answer came[^)]*\): a read, so nothing was changed; run it again$/,
      );
      expect((failure as Error).message).not.toContain('applied');
    } finally {
      await client.close();
    }
  });
});

describe('the answer budget (QA D7)', () => {
  const MiB = 1024 * 1024;
  const padded = (bytes: number) => ({
    Content: { UserId: 'u-1' },
    Success: true,
    Errors: null,
    Pad: 'x'.repeat(bytes),
  });

  it('an answer is held until parsed, then given back: 400 KiB answers one after another all fit a 1 MiB budget', async () => {
    server = await startHostileServer((_request, res) => json(res, 200, padded(400 * 1024)));
    const client = createRemoteClient({
      baseUrl: server.url,
      token: TOKEN,
      responseBudgetBytes: MiB,
      maxAttempts: 1,
      ...noWait,
    });
    try {
      for (let i = 0; i < 5; i += 1) expect((await client.upsertUser(user)).envelope.Success).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('a 200 larger than half the budget could never be read: refused for its size, and never sent again (it was probably applied)', async () => {
    server = await startHostileServer((_request, res) => json(res, 200, padded(600 * 1024)));
    const client = createRemoteClient({
      baseUrl: server.url,
      token: TOKEN,
      responseBudgetBytes: MiB,
      maxAttempts: 3,
      ...noWait,
    });
    try {
      const failure = await client.upsertUser(user).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(AnswerUnreadableError);
      expect((failure as Error).message).toMatch(
        /: POST \/user: the service answered 200 but its answer was too large to read \(over 512 KiB\): not retried$/,
      );
      expect(server.requests).toHaveLength(1);
      expect(client.retryCounts?.().total).toBe(0);
    } finally {
      await client.close();
    }
  });

  it('a 503 over the size limit is no answer about the record: retried as before', async () => {
    server = await startHostileServer((_request, res) => largeBody(res, 503, 2 * MiB));
    const client = createRemoteClient({
      baseUrl: server.url,
      token: TOKEN,
      responseBudgetBytes: MiB,
      maxAttempts: 2,
      ...noWait,
    });
    try {
      const failure = await client.upsertUser(user).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(TransientTargetError);
      expect(failure).not.toBeInstanceOf(AnswerUnreadableError);
      expect((failure as TransientTargetError).code).toBe('E3001');
      expect((failure as Error).message).toContain('512 KiB');
      expect(server.requests).toHaveLength(2);
    } finally {
      await client.close();
    }
  });

  it('a 2xx dropped for the shared budget is never resent; a drop before the status line or of a 5xx may be', () => {
    expect(unreadAnswer(new ResponseBudgetError(96 * MiB, 201))).toBe(
      'the service answered 201 but its answer could not be held (the answers in flight together passed 96 MiB): not retried',
    );
    expect(unreadAnswer(new ResponseTooLargeError(48 * MiB, 200))).toContain('48 MiB');
    expect(unreadAnswer(new ResponseBudgetError(96 * MiB, 0))).toBeUndefined();
    expect(unreadAnswer(new ResponseBudgetError(96 * MiB, 503))).toBeUndefined();
    expect(unreadAnswer(new ResponseTooLargeError(48 * MiB, 429))).toBeUndefined();
    expect(unreadAnswer(new Error('socket hang up'))).toBeUndefined();
  });
});

describe('a body that is no text (C)', () => {
  it('a gzip-encoded 200 is described, not quoted; a 400 of bytes that are not UTF-8 too', async () => {
    const { gzipSync } = await import('node:zlib');
    const zipped = gzipSync(JSON.stringify({ Content: null, Success: true, Errors: null, Pad: 'x'.repeat(500) }));
    server = await startHostileServer((request, res) => {
      if (request.url.endsWith('/user')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(zipped);
      } else {
        res.writeHead(400, { 'content-type': 'text/plain' });
        res.end(Buffer.from([0xff, 0xfe, 0x00, 0x81, 0x41, 0x42]));
      }
    });
    const client = createRemoteClient({ baseUrl: server.url, token: TOKEN, maxAttempts: 1, ...noWait });
    try {
      const failure = await client.upsertUser(user).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(TargetError);
      expect((failure as Error).message).toContain(
        `(application/json: an undecodable body (Content-Encoding: gzip, ${zipped.length} bytes))`,
      );
      expect((failure as Error).message).not.toContain('\uFFFD');
      const answer = await client.addCollection({ ExternalId: 'c-1', ScheduleExternalIds: [] } as never);
      expect(answer.envelope.Errors).toEqual([
        expect.objectContaining({ Message: 'bad request (400): an undecodable body (not UTF-8, 6 bytes)' }),
      ]);
    } finally {
      await client.close();
    }
  });
});

describe('interrupt grace', () => {
  it('after the signal, a request the server never answers is abandoned once the grace is over', async () => {
    const interrupt = new AbortController();
    server = await startHostileServer(() => {
      // Never answered; the interrupt comes once the request is on the wire.
      interrupt.abort();
    });
    const client = createRemoteClient({
      baseUrl: server.url,
      token: TOKEN,
      signal: interrupt.signal,
      interruptGraceMs: 50,
      ...noWait,
    });
    try {
      const failure = await client.upsertUser(user).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect((failure as { exitCode?: number }).exitCode).toBe(130);
    } finally {
      await client.close();
    }
  });

  it('on the last attempt too: the answer lost to the interrupt, not a failure after N attempts (fx35c)', async () => {
    const interrupt = new AbortController();
    server = await startHostileServer(() => interrupt.abort());
    const client = createRemoteClient({
      baseUrl: server.url,
      token: TOKEN,
      signal: interrupt.signal,
      interruptGraceMs: 50,
      ...noWait,
      maxAttempts: 1,
    });
    try {
      const failure = await client.upsertUser(user).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect((failure as { exitCode?: number }).exitCode).toBe(130);
      expect((failure as Error).message).toMatch(
        /^sent, but its answer was lost when the run was interrupted .*: it may have been applied/,
      );
    } finally {
      await client.close();
    }
  });
});

describe('redirects', () => {
  it('a 307 stops at the first answer naming the Location and the base URL to set (same host, https); never followed', async () => {
    server = await startHostileServer((_request, res) => {
      res.writeHead(307, { location: 'https://127.0.0.1/portal/api/v1/integrations/user' });
      res.end();
    });
    const client = createRemoteClient({ baseUrl: server.url, token: TOKEN, ...noWait });
    try {
      const failure = await client.upsertUser(user).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(NeverSentTargetError);
      expect((failure as TargetError).exitCode).toBe(3);
      expect((failure as Error).message).toContain('https://127.0.0.1/portal/api/v1/integrations/user');
      expect((failure as Error).message).toContain('set --base-url to https://127.0.0.1/portal');
      expect(server.requests).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('a Location on another host, or plain http from https, is named, never advised as the base URL (whoever answered may not be the service)', () => {
    const words = (location: string) =>
      redirectWords(301, location, 'https://exam.example.test/api/v1/integrations/user', (text) => text);
    const check = "check with the service's owner before changing --base-url";
    expect(words('https://evil.example/api/v1/integrations/user')).toContain(
      `to https://evil.example/api/v1/integrations/user: examctl follows no redirect (the token would go along); it points to another host: ${check}`,
    );
    expect(words('http://exam.example.test/api/v1/integrations/user')).toContain(
      `it points to another scheme (http:): ${check}`,
    );
    expect(words('//evil.example/api/v1/integrations/user')).not.toContain('set --base-url');
    expect(words('/new/api/v1/integrations/user')).toContain('set --base-url to https://exam.example.test/new');
  });

  it("the state service's redirect: not followed, its Location named, no address advised", async () => {
    server = await startHostileServer((_request, res) => {
      res.writeHead(307, { location: 'https://evil.example/state' });
      res.end();
    });
    const state = openStateHttp(`${server.url}/state/x`, {});
    try {
      const failure = await state.exchange('LOCK', `${server.url}/state/x`).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect((failure as TargetError).exitCode).toBe(3);
      expect((failure as Error).message).toContain(
        "(307 to https://evil.example/state): not followed, so the credentials go nowhere else; check with the service's owner",
      );
      expect(server.requests).toHaveLength(1);
    } finally {
      await state.close();
    }
  });
});

describe('connection failures', () => {
  it('a self-signed certificate, NODE_TLS_REJECT_UNAUTHORIZED=0 or not: exit 3 at once (one connection), the NODE_EXTRA_CA_CERTS advice, nothing was sent', async () => {
    server = await startHostileServer((_request, res) => json(res, 200, { Content: null, Success: true }), {
      selfSigned: true,
    });
    const client = createRemoteClient({ baseUrl: server.url, token: TOKEN, ...noWait });
    // Node's switch turns off the checks of its own https module; examctl's connections check anyway.
    vi.stubEnv('NODE_TLS_REJECT_UNAUTHORIZED', '0');
    try {
      const failure = await client.upsertUser(user).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(NeverSentTargetError);
      expect((failure as Error).message).toContain('NODE_EXTRA_CA_CERTS=<ca.pem>');
      expect((failure as Error).message).toContain('nothing was sent');
      expect(server.connections).toBe(1);
      expect(server.requests).toHaveLength(0);
    } finally {
      await client.close();
      vi.unstubAllEnvs();
    }
  });

  it('a refused connection is retried, then "nothing was sent", in plain words', async () => {
    const client = createRemoteClient({ baseUrl: 'http://127.0.0.1:9', token: TOKEN, maxAttempts: 2, ...noWait });
    try {
      const failure = await client.upsertUser(user).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(NeverSentTargetError);
      expect((failure as Error).message).toMatch(
        /failed after 2 attempts.*connection was refused.*is the service running.*\(ECONNREFUSED\); nothing was sent/,
      );
    } finally {
      await client.close();
    }
  });
});

describe('tokens', () => {
  it.each(['tok€en-123456', 'tok\u0001en-123456', 'tok en-123456'])(
    'a token with a character outside visible ASCII is a usage error, not echoed (%j)',
    (token) => {
      let failure: unknown;
      try {
        createRemoteClient({ baseUrl: 'https://exam.example.test', token });
      } catch (error) {
        failure = error;
      }
      expect(failure).toBeInstanceOf(UsageError);
      expect((failure as Error).message).toContain('outside visible ASCII');
      expect((failure as Error).message).not.toContain('en-123456');
    },
  );
});

describe('Retry-After', () => {
  it('negative or past values fall back to the normal backoff; 0 and future ones are honoured', () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('Mon, 23 Nov 2026 09:00:00 GMT', now)).toBeUndefined();
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 10:00:05 GMT', now)).toBe(5000);
  });
});

describe('encoded tokens quoted back', () => {
  it('base64("Bearer " + token), base64url(token) in a JSON message and a percent-encoded token reach no result or error', async () => {
    const forms = [
      Buffer.from(`Bearer ${TOKEN}`).toString('base64'),
      Buffer.from(TOKEN).toString('base64url'),
      encodeURIComponent(`${TOKEN}/x`),
    ];
    let status = 400;
    server = await startHostileServer((_request, res) =>
      json(res, status, {
        Content: { Echo: forms },
        Success: false,
        Errors: forms.map((form) => ({ Code: 209, Message: `bad ${form}` })),
      }),
    );
    const client = createRemoteClient({ baseUrl: server.url, token: TOKEN, maxAttempts: 1, ...noWait });
    try {
      const seen = [JSON.stringify(await client.upsertUser(user))];
      status = 500;
      seen.push(
        await client.upsertUser(user).then(
          () => '',
          (error: unknown) => (error as Error).message,
        ),
      );
      for (const shown of seen) {
        expect(shown).toContain('[redacted]');
        for (const form of forms) expect(shown).not.toContain(form.slice(12, 20));
      }
    } finally {
      await client.close();
    }
  });
});

describe('the redaction gate (property)', () => {
  const visible = fc.string({
    unit: fc.constantFrom(...Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i))),
    minLength: 12,
    maxLength: 40,
  });
  const shapes = ['envelope', 'map', 'html500', 'text400', 'nested'] as const;

  it('no token, password or 8+ character head of them reaches the result or the error, whatever the answer', async () => {
    const answer: { status: number; body: string; type: string } = { status: 400, body: '', type: 'application/json' };
    server = await startHostileServer((_request, res) => {
      res.writeHead(answer.status, { 'content-type': answer.type });
      res.end(answer.body);
    });
    const url = server.url;
    await fc.assert(
      fc.asyncProperty(
        visible,
        visible,
        fc.constantFrom(...shapes),
        fc.string({ maxLength: 300 }),
        fc.string({ maxLength: 50 }),
        fc.nat(40),
        async (token, password, shape, before, after, cut) => {
          // A token or password cut short by the server (but 8+ characters) must not pass either.
          const leak = (secret: string) => `${before}${secret.slice(0, Math.max(8, secret.length - cut))}${after}`;
          const words = `${leak(token)} / ${leak(password)}`;
          switch (shape) {
            case 'envelope':
              Object.assign(answer, {
                status: 400,
                type: 'application/json',
                body: JSON.stringify({ Content: null, Success: false, Errors: [{ Code: 209, Message: words }] }),
              });
              break;
            case 'map':
              Object.assign(answer, {
                status: 400,
                type: 'application/json',
                body: JSON.stringify({ Success: false, Errors: { [leak(token)]: [leak(password)] } }),
              });
              break;
            case 'html500':
              Object.assign(answer, {
                status: 500,
                type: 'text/html',
                body: `<html><body>${'x'.repeat(before.length % 200)}<p>${words}</p></body></html>`,
              });
              break;
            case 'text400':
              Object.assign(answer, { status: 400, type: 'text/plain', body: words });
              break;
            case 'nested':
              Object.assign(answer, {
                status: 400,
                type: 'application/json',
                body: JSON.stringify({
                  Success: false,
                  Content: { GroupErrors: [{ Error: words }] },
                  Errors: [[{ message: words }]],
                }),
              });
              break;
          }
          const client = createRemoteClient({ baseUrl: url, token, maxAttempts: 1, ...noWait });
          let seen: string;
          try {
            seen = JSON.stringify(await client.upsertUser({ ...(user as object), Password: password } as never));
          } catch (error) {
            seen = (error as Error).message;
          } finally {
            await client.close();
          }
          // What a sink would write: JSON escapes undone, so an escaped secret is found too.
          const plain = `${seen} ${JSON.parse(JSON.stringify(seen)) as string}`;
          for (const secret of [token, password]) {
            expect(plain).not.toContain(secret.slice(0, 8));
          }
        },
      ),
      { numRuns: 120 },
    );
  });
});
