import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { Limiter } from '../../src/api/flow-control.js';
import { createRemoteClient } from '../../src/api/remote-client.js';
import { TargetError, TokenRefusedError, TransientTargetError } from '../../src/system/errors.js';
import { json, startHostileServer, type HostileServer } from '../support/hostile-server.js';

/**
 * The header `x-examctl-store-head` as the remote client reads it (docs/remote.md, "The local server"), and the
 * window toward `local serve` (docs/remote.md, "Limits, timeouts, retries"): the client's side.
 */
const TOKEN = 'served-head-token-0123456789';
const ok = { Success: true, Content: { User: { ExternalId: 'u-1' } }, Errors: null };
// The client sends what it is given: the server here reads nothing of it.
const user = { ExternalId: 'u-1' } as never;

let server: HostileServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The heads an answer's header `name` told the call (onHead, or onCommitted for the commit head). */
async function headsSaid(value: string, name = 'x-examctl-store-head'): Promise<string[]> {
  server = await startHostileServer((_request, res) => json(res, 200, ok, { [name]: value }));
  const client = createRemoteClient({ baseUrl: server.url, token: TOKEN });
  const heads: string[] = [];
  const tell = (head: string) => void heads.push(head);
  try {
    const answer = await client.upsertUser(
      user,
      name === 'x-examctl-store-head' ? { onHead: tell } : { onCommitted: tell },
    );
    expect(answer.status).toBe(200);
  } finally {
    await client.close();
  }
  return heads;
}

describe.each(['x-examctl-store-head', 'x-examctl-commit-head'])('a served head: %s', (name) => {
  it('a head (22 base64url characters) is told to the call', async () => {
    expect(await headsSaid('AAAAAAAAAAAAAAAAAAAAAA', name)).toEqual(['AAAAAAAAAAAAAAAAAAAAAA']);
  });

  it.each([
    ['too long', 'A'.repeat(8000)],
    ['too short', 'AAAA'],
    ['not base64url', 'AAAAAAAAAAAAAAAAAAAA/+'],
    ['two heads', 'AAAAAAAAAAAAAAAAAAAAAA, BBBBBBBBBBBBBBBBBBBBBB'],
  ])('%s: not a head, never told', async (_, value) => {
    expect(await headsSaid(value, name)).toEqual([]);
  });
});

/**
 * `GET /examctl/store`, the run's question before its first write (docs/remote.md, "The local server"): the answer
 * is a served store's only with `local serve`'s header `x-examctl-store`, which it puts on every answer.
 */
describe('a served store told from any other server, exactly', () => {
  const HEAD = 'AAAAAAAAAAAAAAAAAAAAAA';
  const said = { 'x-examctl-store': '/examctl/store' };
  const standing = { Success: true, Content: { Head: HEAD, Holds: [], Changed: [] }, Errors: null };

  async function asked(answer: (res: http.ServerResponse) => void) {
    server = await startHostileServer((_request, res) => answer(res), { storeRoute: true });
    const client = createRemoteClient({ baseUrl: server.url, token: TOKEN, maxAttempts: 1 });
    try {
      const head = await client.storeHead!([]).then(
        (found) => ({ found }),
        (error: unknown) => ({ error }),
      );
      // The question refused nothing: a write goes on as on any server.
      server.handler = (_request, res) => json(res, 200, ok);
      const write = await client.upsertUser(user).then(
        (answer) => answer.status,
        (error: unknown) => error,
      );
      return { ...head, write };
    } finally {
      await client.close();
    }
  }

  it.each([
    ['a 404 (the platform, a route it does not know)', 404, 'Not Found'],
    ['a 403 (a gateway in front of the platform)', 403, { Success: false, Content: null, Errors: null }],
    ['a 200 with what a served store would answer', 200, standing],
    ['a 200 with junk', 200, '<html>'],
  ])('without the header, %s: no served store, and no refusal of the token', async (_, status, body) => {
    expect(await asked((res) => json(res, status, body))).toEqual({ found: undefined, write: 200 });
  });

  it("with the header, local serve's head", async () => {
    expect(await asked((res) => json(res, 200, standing, said))).toEqual({
      found: { head: HEAD, holds: [], changed: [] },
      write: 200,
    });
  });

  it.each([
    ['a body that is no envelope', '{"Head":'],
    ['a head that is not one', { ...standing, Content: { Head: 'A'.repeat(23), Holds: [] } }],
    ['a head held that was not asked', { ...standing, Content: { Head: HEAD, Holds: [HEAD] } }],
    ['no content', { Success: true, Content: null, Errors: null }],
  ])("with the header and %s: refused (exit 3), never taken for the platform's silence", async (_, body) => {
    const { error } = (await asked((res) => json(res, 200, body, said))) as { error?: TargetError };
    expect(error).toBeInstanceOf(TargetError);
    // The host asked, and not the platform's "no such route".
    expect(error).toMatchObject({ code: 'E3000', message: expect.stringContaining('local serve') });
  });

  it("with the header, a 403: local serve's refusal of the token", async () => {
    const { error } = (await asked((res) => json(res, 403, 'no', said))) as { error?: TargetError };
    expect(error).toBeInstanceOf(TokenRefusedError);
  });

  it('no answer at all: the error of any request, never "not served"', async () => {
    const { error } = (await asked((res) => res.destroy())) as { error?: TargetError };
    expect(error).toBeInstanceOf(TransientTargetError);
  });
});

/**
 * A server that holds every request after the first until `window` are held (or all that are left),
 * then answers them together, each with `local serve`'s header: it answers only if that many are in
 * flight at once. A client that kept a narrower window would wait for ever: the test's own timeout
 * ends it as a failure (no timer here decides a pass).
 */
async function heldInWindows(
  window: number,
  calls: number,
  servedConcurrency?: number,
): Promise<{ groups: number[]; connections: number }> {
  const said = { 'x-examctl-store': '/examctl/store' };
  const held: http.ServerResponse[] = [];
  const groups: number[] = [];
  let answered = 0;
  server = await startHostileServer((_request, res) => {
    held.push(res);
    if (answered > 0 && held.length < Math.min(window, calls - answered)) return;
    groups.push(held.length);
    answered += held.length;
    for (const one of held.splice(0)) json(one, 200, ok, said);
  });
  const client = createRemoteClient({ baseUrl: server.url, token: TOKEN, concurrency: 2, servedConcurrency });
  try {
    // The first alone: its answer says the server is `local serve`.
    expect((await client.upsertUser(user)).status).toBe(200);
    const rest = await Promise.all(Array.from({ length: calls - 1 }, () => client.upsertUser(user)));
    expect(rest.map((answer) => answer.status)).toEqual(Array(calls - 1).fill(200));
  } finally {
    await client.close();
  }
  return { groups, connections: server.connections };
}

describe('the window toward local serve', () => {
  it('widens to servedConcurrency from the answer that says the server is local serve', async () => {
    expect(await heldInWindows(6, 1 + 6 * 3 + 2, 6)).toEqual({ groups: [1, 6, 6, 6, 2], connections: 6 });
  });

  it('without servedConcurrency (a number was given) it stays at concurrency', async () => {
    // Its pool holds no more connections than that either.
    expect(await heldInWindows(2, 1 + 2 * 3, undefined)).toEqual({ groups: [1, 2, 2, 2], connections: 2 });
  });

  it('a widened limiter lets those waiting go at once, and never narrows', async () => {
    const limiter = new Limiter(1);
    expect(limiter.tryAcquire()).toBe(true);
    const waiting = [limiter.acquire(), limiter.acquire(), limiter.acquire()];
    limiter.widen(3);
    await Promise.all(waiting.slice(0, 2));
    expect(limiter.tryAcquire()).toBe(false);
    limiter.widen(2);
    limiter.release();
    await waiting[2];
    expect(limiter.tryAcquire()).toBe(false);
  });
});

/**
 * `x-examctl-action`, what `local serve`'s engine did (docs/remote.md, "The local server"): taken from a served
 * store only.
 */
describe('a served action', () => {
  async function actionSaid(headers: Record<string, string>): Promise<string | undefined> {
    server = await startHostileServer((_request, res) => json(res, 200, ok, headers));
    const client = createRemoteClient({ baseUrl: server.url, token: TOKEN });
    try {
      return (await client.upsertUser(user)).action;
    } finally {
      await client.close();
    }
  }
  const served = { 'x-examctl-store': '/examctl/store' };

  it.each(['created', 'updated', 'unchanged'])('%s, said by local serve, is the answer’s action', async (action) => {
    expect(await actionSaid({ ...served, 'x-examctl-action': action })).toBe(action);
  });

  it.each([
    ['without local serve’s x-examctl-store', { 'x-examctl-action': 'unchanged' }],
    ['not an action', { ...served, 'x-examctl-action': 'removed' }],
    ['huge', { ...served, 'x-examctl-action': 'u'.repeat(8000) }],
  ])('%s: no action', async (_, headers) => {
    expect(await actionSaid(headers)).toBeUndefined();
  });
});
