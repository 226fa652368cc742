import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool, type Dispatcher } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { probeRemote } from '../../src/api/remote-probe.js';
import {
  AttemptDeadlineError,
  ByteBudget,
  InFlight,
  ResponseBudgetError,
  Stoppable,
  heldBytesOfText,
  requestText,
  spacePaddingStart,
} from '../../src/api/http-pool.js';

/** Answers shaped by the path: what requestText must read exactly as request + body.text() does. */
let server: Server;
let origin: string;
/** Requests to /never that reached the server (never answered), and a wait for the next one. */
let neverArrived = 0;
let onNever: (() => void) | undefined;
const nextNever = (): Promise<void> => new Promise((resolve) => (onNever = resolve));
/** The rest of a split answer, held until the client has its first part (a marker, never a wait). */
const held: Array<() => void> = [];
const releaseHeld = () => held.splice(0).forEach((release) => release());
/** The pool, releasing the held rest once requestText's reader has had its first chunk: two chunks, always. */
const releasingOnData = (pool: Pool) =>
  ({
    dispatch: (options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) => {
      const data = handler.onResponseData!.bind(handler);
      handler.onResponseData = (controller, chunk) => (data(controller, chunk), releaseHeld());
      return pool.dispatch(options, handler);
    },
  }) as unknown as Dispatcher;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      switch (req.url) {
        case '/never':
        case '/api/v1/integrations/never':
          neverArrived += 1;
          onNever?.();
          break;
        case '/bom':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"Success":true,"Name":"Chloé"}')]));
          break;
        case '/chunks': {
          res.writeHead(503, [
            ['Retry-After', '2'],
            ['X-Twice', 'a'],
            ['x-twice', 'b'],
            ['Content-Type', 'text/html'],
          ]);
          const text = Buffer.from('<p>ünïcode split over chunks</p>'.repeat(500));
          // Cut inside a multi-byte character on purpose.
          res.write(text.subarray(0, 7));
          held.push(() => res.end(text.subarray(7)));
          break;
        }
        case '/padded': {
          // An envelope, then 8 MiB of spaces (QA D7): padding that must cost no memory.
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"Success":true,"Name":"a   b"}');
          const spaces = Buffer.alloc(64 * 1024, 0x20);
          for (let i = 0; i < 128; i++) res.write(spaces);
          res.end();
          break;
        }
        case '/inner-spaces':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write(`{"Name":"${' '.repeat(100_000)}`);
          res.write(' '.repeat(200_000));
          res.end('x"}  ');
          break;
        case '/bom-split': {
          // A BOM cut over two chunks, then text: dropped as body.text() drops it.
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write(Buffer.from([0xef]));
          held.push(() => res.end(Buffer.concat([Buffer.from([0xbb, 0xbf]), Buffer.from('{"Success":true}')])));
          break;
        }
        case '/content-600k':
          // 600 KiB of content (no padding): held as chunks, then as text, both within the budget.
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write(`{"Success":true,"Pad":"${'x'.repeat(300 * 1024)}`);
          res.end(`${'y'.repeat(300 * 1024)}"}`);
          break;
        case '/content-400k':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(`{"Success":true,"Pad":"${'x'.repeat(400 * 1024)}"}`);
          break;
        case '/two-byte':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(`{"Success":true,"Name":"${'a'.repeat(1000)}€"}`);
          break;
        case '/leading-spaces':
          // 8 MiB of spaces before the envelope: padding at the start costs no memory either.
          res.writeHead(200, { 'content-type': 'application/json' });
          for (let i = 0; i < 128; i++) res.write(Buffer.alloc(64 * 1024, 0x20));
          res.end('{"Success":true}');
          break;
        case '/big-503':
          res.writeHead(503, { 'content-type': 'text/html' });
          res.end('<p>busy</p>'.padEnd(3 * 1024 * 1024, 'x'));
          break;
        case '/empty':
          res.writeHead(204);
          res.end();
          break;
        default:
          res.writeHead(404, { 'content-type': 'text/plain' });
          res.end('nope');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('requestText', () => {
  it.each(['/bom', '/bom-split', '/chunks', '/empty', '/missing'])(
    'reads %s as request() then body.text() does',
    async (path) => {
      const pool = new Pool(origin, { connections: 2 });
      try {
        const expected = await pool.request({
          method: 'POST',
          path,
          body: '{}',
          headers: { 'content-type': 'application/json' },
        });
        releaseHeld();
        const expectedText = await expected.body.text();
        const got = await requestText(releasingOnData(pool), {
          method: 'POST',
          path,
          body: '{}',
          headers: { 'content-type': 'application/json' },
        });
        expect(got.status).toBe(expected.statusCode);
        expect(got.text).toBe(expectedText);
        const { date: _date, ...expectedHeaders } = expected.headers;
        const { date: _gotDate, ...gotHeaders } = got.headers;
        expect({ ...gotHeaders }).toEqual(expectedHeaders);
      } finally {
        await pool.close();
      }
    },
  );

  it('rejects with the network error when the connection is refused', async () => {
    const pool = new Pool('http://127.0.0.1:9', { connections: 1 });
    try {
      await expect(requestText(pool, { method: 'GET', path: '/' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      await pool.close();
    }
  });

  it("a probe's request on the wire ends when its signal aborts, with its reason; an aborted signal sends nothing", async () => {
    const controller = new AbortController();
    const arrived = nextNever();
    const pending = probeRemote({ baseUrl: origin, signal: controller.signal, env: {} }, '/never');
    await arrived;
    controller.abort(new Error('probe abandoned'));
    await expect(pending).resolves.toMatchObject({ kind: 'unreachable', reason: 'probe abandoned' });
    const before = neverArrived;
    await expect(probeRemote({ baseUrl: origin, signal: controller.signal, env: {} }, '/never')).resolves.toMatchObject(
      { kind: 'unreachable', reason: 'probe abandoned' },
    );
    expect(neverArrived).toBe(before);
  });

  it('InFlight.abandon ends every request on the wire with its reason, and every later one before it is sent', async () => {
    const pool = new Pool(origin, { connections: 2 });
    try {
      const inFlight = new InFlight(60_000);
      const arrived = nextNever();
      const pending = requestText(pool, { method: 'GET', path: '/never' }, { inFlight, budget: new ByteBudget(1024) });
      await arrived;
      inFlight.abandon(new Error('grace over'));
      await expect(pending).rejects.toThrow('grace over');
      const before = neverArrived;
      await expect(requestText(pool, { method: 'GET', path: '/never' }, { inFlight })).rejects.toThrow('grace over');
      expect(neverArrived).toBe(before);
    } finally {
      await pool.destroy();
    }
  });
});

describe('InFlight: the requests on the wire, linked through themselves', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  class Request extends Stoppable {
    reasons: Error[] = [];
    constructor(readonly name: string) {
      super();
    }
    stop(reason: Error): void {
      this.reasons.push(reason);
    }
  }

  it('drops each request when its deadline passes, in any order of answers, never one already answered, and none twice', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
    const inFlight = new InFlight(100);
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => new Request(name)) as [Request, Request, Request, Request];
    for (const request of [a, b, c]) expect(inFlight.add(request)).toBe(true);
    // Answered in the middle, and answered twice (settle may run again): unlinked once, nothing else moves.
    inFlight.delete(b);
    inFlight.delete(b);
    expect(inFlight.size).toBe(2);
    vi.advanceTimersByTime(50);
    inFlight.add(d);
    expect([a, c, d].every((request) => request.reasons.length === 0)).toBe(true);
    vi.advanceTimersByTime(60);
    // a and c were due at 100; d, added at 50, is not due before 150.
    expect(a.reasons).toEqual([expect.any(AttemptDeadlineError)]);
    expect(c.reasons).toEqual([expect.any(AttemptDeadlineError)]);
    expect(d.reasons).toEqual([]);
    expect(b.reasons).toEqual([]);
    expect(inFlight.size).toBe(1);
    inFlight.delete(a);
    vi.advanceTimersByTime(50);
    expect(d.reasons).toHaveLength(1);
    expect(a.reasons).toHaveLength(1);
    expect(inFlight.size).toBe(0);
  });

  it('its sweeper outlives a moment with nothing on the wire (one sweep), stops at the second, and a request added after either is dropped when due', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
    const inFlight = new InFlight(100);
    const [a, b, c] = ['a', 'b', 'c'].map((name) => new Request(name)) as [Request, Request, Request];
    inFlight.add(a);
    inFlight.delete(a);
    vi.advanceTimersByTime(10);
    expect(vi.getTimerCount()).toBe(1);
    inFlight.add(b);
    vi.advanceTimersByTime(100);
    expect(b.reasons).toEqual([expect.any(AttemptDeadlineError)]);
    vi.advanceTimersByTime(10);
    expect(vi.getTimerCount()).toBe(0);
    inFlight.add(c);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(110);
    expect(c.reasons).toEqual([expect.any(AttemptDeadlineError)]);
    expect([a.reasons, inFlight.size]).toEqual([[], 0]);
  });

  it('abandon stops every request still on the wire once, and each later one as it is added', () => {
    const inFlight = new InFlight(60_000);
    const [a, b, c] = ['a', 'b', 'c'].map((name) => new Request(name)) as [Request, Request, Request];
    inFlight.add(a);
    inFlight.add(b);
    inFlight.delete(a);
    const reason = new Error('grace over');
    inFlight.abandon(reason);
    expect(a.reasons).toEqual([]);
    expect(b.reasons).toEqual([reason]);
    expect(inFlight.size).toBe(0);
    expect(inFlight.add(c)).toBe(false);
    expect(c.reasons).toEqual([reason]);
    // A request still holds no link to the others once dropped: nothing keeps answered requests alive.
    expect([a, b, c].every((request) => request.inFlightPrev === undefined && request.inFlightNext === undefined)).toBe(
      true,
    );
  });
});

describe('padding and the shared budget (QA D7)', () => {
  it("spacePaddingStart: where a chunk's trailing spaces begin", () => {
    expect(spacePaddingStart(Buffer.from('{"a":1}   '))).toBe(7);
    expect(spacePaddingStart(Buffer.alloc(200_000, 0x20))).toBe(0);
    expect(spacePaddingStart(Buffer.concat([Buffer.from('x'), Buffer.alloc(150_000, 0x20)]))).toBe(1);
    expect(spacePaddingStart(Buffer.from(' \n'))).toBe(2);
    expect(spacePaddingStart(Buffer.alloc(0))).toBe(0);
  });

  it('an envelope followed by 8 MiB of spaces is read within a 1 MiB budget, and nothing is held after', async () => {
    const pool = new Pool(origin, { connections: 1 });
    const budget = new ByteBudget(1024 * 1024);
    try {
      const got = await requestText(pool, { method: 'GET', path: '/padded' }, { budget, maxBytes: 64 * 1024 * 1024 });
      expect(got.status).toBe(200);
      expect(got.text).toBe('{"Success":true,"Name":"a   b"}');
      expect(budget.held).toBe(got.text.length);
      got.release();
      expect(budget.held).toBe(0);
    } finally {
      await pool.close();
    }
  });

  it('spaces followed by more content are kept exactly (within the budget); a short trailing run too', async () => {
    const pool = new Pool(origin, { connections: 1 });
    const budget = new ByteBudget(1024 * 1024);
    try {
      const got = await requestText(pool, { method: 'GET', path: '/inner-spaces' }, { budget });
      expect(got.text).toBe(`{"Name":"${' '.repeat(300_000)}x"}  `);
      got.release();
      expect(budget.held).toBe(0);
    } finally {
      await pool.close();
    }
  });

  it('of a 3 MiB 503 page only the first MiB is kept (its words are at the start), and none is held after', async () => {
    const pool = new Pool(origin, { connections: 1 });
    const budget = new ByteBudget(2 * 1024 * 1024);
    try {
      const got = await requestText(pool, { method: 'GET', path: '/big-503' }, { budget, maxBytes: 64 * 1024 * 1024 });
      expect(got.status).toBe(503);
      expect(got.text.startsWith('<p>busy</p>xxx')).toBe(true);
      expect(got.text.length).toBe(1024 * 1024);
      got.release();
      expect(budget.held).toBe(0);
    } finally {
      await pool.close();
    }
  });
});

describe('the budget holds what is really held: the chunks while decoded, then the text until released (QA D7)', () => {
  const MiB = 1024 * 1024;
  const read = async (path: string, budget: ByteBudget) => {
    const pool = new Pool(origin, { connections: 1 });
    try {
      return await requestText(pool, { method: 'GET', path }, { budget, maxBytes: 64 * MiB });
    } finally {
      await pool.close();
    }
  };

  it('a 600 KiB answer does not fit a 1 MiB budget (1.2 MiB held while decoded) and is dropped with the budget message', async () => {
    const budget = new ByteBudget(MiB);
    const failure = await read('/content-600k', budget).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ResponseBudgetError);
    expect((failure as Error).message).toContain(' 1 MiB');
    expect(budget.held).toBe(0);
  });

  it('the same answer fits 1.5 MiB: after decoding only its text is charged, until release()', async () => {
    const budget = new ByteBudget(1.5 * MiB);
    const got = await read('/content-600k', budget);
    expect(got.text === `{"Success":true,"Pad":"${'x'.repeat(300 * 1024)}${'y'.repeat(300 * 1024)}"}`).toBe(true);
    expect(budget.held).toBe(got.text.length);
    // A second answer while the first text is held: 0.6 + 1.2 MiB would pass 1.5 MiB.
    await expect(read('/content-600k', budget)).rejects.toBeInstanceOf(ResponseBudgetError);
    got.release();
    got.release();
    expect(budget.held).toBe(0);
    (await read('/content-600k', budget)).release();
    expect(budget.held).toBe(0);
  });

  it('a text with a character beyond Latin-1 is held at two bytes a character', async () => {
    const budget = new ByteBudget(MiB);
    const got = await read('/two-byte', budget);
    expect(got.text).toBe(`{"Success":true,"Name":"${'a'.repeat(1000)}€"}`);
    expect(budget.held).toBe(2 * got.text.length);
    expect(heldBytesOfText('Chloé')).toBe(5);
    expect(heldBytesOfText('€uro')).toBe(8);
    got.release();
    expect(budget.held).toBe(0);
  });

  it('8 MiB of spaces before the envelope are not kept: read within a 1 MiB budget', async () => {
    const budget = new ByteBudget(MiB);
    const got = await read('/leading-spaces', budget);
    expect(got.text).toBe('{"Success":true}');
    got.release();
    expect(budget.held).toBe(0);
  });
});
