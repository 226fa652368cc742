import http from 'node:http';
import { afterEach, beforeEach } from 'vitest';
import type { AddressInfo } from 'node:net';

/**
 * A state service on loopback speaking Terraform's HTTP backend protocol, as GitLab's managed
 * state does, for the tests of `--sync-dir https://...` (docs/sync.md, "A state service"): each
 * path is one state. GET (200, or 404 / 204 when none), POST (stores the body; refused 423 or 409
 * while locked unless `?ID=` names the lock), DELETE; LOCK / UNLOCK with Terraform's lock info at
 * the path itself, or (`gitlab`) POST / DELETE at `<path>/lock`, answering 409 with the holder's info.
 * Basic auth when `credentials` is given. Every request is recorded; a scripted status can be
 * answered to the next requests of a method (a failing store).
 */

export interface LockInfo {
  ID: string;
  Operation?: string;
  Info?: string;
  Who?: string;
  Version?: string;
  Created?: string;
  Path?: string;
}

export interface StateRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
  contentMd5: string | undefined;
  body: string;
}

export interface StateServer {
  url: string;
  /** The address of the state named `name`. */
  address(name: string): string;
  requests: StateRequest[];
  states: Map<string, string>;
  locks: Map<string, LockInfo>;
  /** The next `count` requests with `method` are answered `status` with `body` (default: an error message), nothing done. */
  /** The next `count` requests of `method` (after `after` of them pass) answer `status`. */
  fail(method: string, status: number, count?: number, body?: string, after?: number): void;
  /** The next `count` requests of `method` (after `after` of them pass) are done (a lock taken, a state stored), then answered 200 with part of a body that never ends: a dripping service. */
  drip(method: string, count?: number, after?: number): void;
  /** The lock held on the state at `path` is released by its holder once it has refused `refusals` lock requests (a gate, not a time). */
  releaseAfter(path: string, refusals: number): void;
  /** Runs `hook` on each request as it arrives, before it is answered (a fault the test causes at that moment). */
  onRequest(hook: ((request: StateRequest) => void) | undefined): void;
  close(): Promise<void>;
}

export interface StateServerOptions {
  /** GitLab's form: the lock at `<path>/lock`, POST to lock, DELETE to unlock, 409 for a held lock, 204 for no state. */
  gitlab?: boolean;
  credentials?: { username: string; password: string };
}

export async function startStateServer(options: StateServerOptions = {}): Promise<StateServer> {
  const states = new Map<string, string>();
  const locks = new Map<string, LockInfo>();
  const requests: StateRequest[] = [];
  const failures: { method: string; status: number; count: number; body: string | undefined; after: number }[] = [];
  const releases = new Map<string, number>();
  const drips: { method: string; count: number; after: number }[] = [];
  const conflict = options.gitlab ? 409 : 423;
  let requestHook: ((request: StateRequest) => void) | undefined;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const body = Buffer.concat(chunks).toString('utf8');
      const method = req.method ?? 'GET';
      const authorization = req.headers.authorization;
      requests.push({
        method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        authorization,
        contentMd5: header(req.headers['content-md5']),
        body,
      });
      requestHook?.(requests.at(-1)!);
      let answer = (status: number, text = '', type = 'application/json'): void => {
        res.writeHead(status, text === '' ? {} : { 'content-type': type });
        res.end(text);
      };
      if (options.credentials !== undefined) {
        const expected = `Basic ${Buffer.from(`${options.credentials.username}:${options.credentials.password}`).toString('base64')}`;
        if (authorization !== expected) return answer(401, JSON.stringify({ message: '401 Unauthorized' }));
      }
      // A method, or a method and part of a path (`POST -delta-`): only the requests of that method to such a path.
      const matches = (spec: string): boolean =>
        spec.split(' ')[0] === method && url.pathname.includes(spec.split(' ')[1] ?? '');
      const dripping = drips.find((entry) => matches(entry.method) && entry.count > 0);
      if (dripping !== undefined && dripping.after > 0) dripping.after -= 1;
      else if (dripping !== undefined) {
        dripping.count -= 1;
        const done = answer;
        answer = (status, text = '') => {
          if (status === 423 || status === 409) return done(status, text);
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '4096' });
          res.write('{"drip":');
        };
      }
      const failure = failures.find((entry) => matches(entry.method) && entry.count > 0);
      if (failure !== undefined && failure.after > 0) failure.after -= 1;
      else if (failure !== undefined) {
        failure.count -= 1;
        return answer(failure.status, failure.body ?? JSON.stringify({ message: `scripted ${failure.status}` }));
      }
      const lockPath = options.gitlab === true && url.pathname.endsWith('/lock');
      const state = lockPath ? url.pathname.slice(0, -'/lock'.length) : url.pathname;
      const held = locks.get(state);
      const lockMethod = options.gitlab ? 'POST' : 'LOCK';
      const unlockMethod = options.gitlab ? 'DELETE' : 'UNLOCK';
      if ((lockPath || !options.gitlab) && method === lockMethod) {
        const info = parseInfo(body);
        if (info === undefined) return answer(422, JSON.stringify({ message: 'lock info required' }));
        if (held !== undefined) {
          const left = releases.get(state);
          if (left !== undefined) {
            if (left <= 1) {
              releases.delete(state);
              locks.delete(state);
            } else releases.set(state, left - 1);
          }
          return answer(conflict, JSON.stringify(held));
        }
        locks.set(state, info);
        return answer(200, JSON.stringify(info));
      }
      if ((lockPath || !options.gitlab) && method === unlockMethod) {
        const id = parseInfo(body)?.ID ?? url.searchParams.get('ID') ?? undefined;
        if (held === undefined) return answer(200);
        if (id !== held.ID) return answer(conflict, JSON.stringify(held));
        locks.delete(state);
        return answer(200);
      }
      if (lockPath) return answer(405);
      if (method === 'GET') {
        const stored = states.get(state);
        if (stored === undefined) return answer(options.gitlab ? 204 : 404);
        return answer(200, stored);
      }
      if (method === 'POST' || method === 'DELETE') {
        if (held !== undefined && url.searchParams.get('ID') !== held.ID) return answer(conflict, JSON.stringify(held));
        if (method === 'POST') states.set(state, body);
        else states.delete(state);
        return answer(200);
      }
      return answer(405);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    address: (name) => `${url}/state/${name}`,
    requests,
    states,
    locks,
    fail(method, status, count = 1, body, after = 0) {
      failures.push({ method, status, count, body, after });
    },
    drip(method, count = 1, after = 0) {
      drips.push({ method, count, after });
    },
    onRequest(hook) {
      requestHook = hook;
    },
    releaseAfter(path, refusals) {
      releases.set(path, refusals);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function parseInfo(body: string): LockInfo | undefined {
  try {
    const parsed = JSON.parse(body) as unknown;
    if (typeof parsed === 'object' && parsed !== null && typeof (parsed as LockInfo).ID === 'string')
      return parsed as LockInfo;
  } catch {
    // Not lock info.
  }
  return undefined;
}

/**
 * A state server for each test of the file: started before each, closed after. What it returns
 * stands for the current one (a file's helpers take it once, at the top), so tests read
 * `server.fail(...)` as if they held the server itself.
 */
export function stateServerPerTest(options: StateServerOptions = {}): StateServer {
  let current: StateServer | undefined;
  beforeEach(async () => {
    current = await startStateServer(options);
  });
  afterEach(async () => {
    await current?.close();
  });
  return new Proxy({} as StateServer, {
    get: (_, key) => {
      const value: unknown = Reflect.get(current!, key);
      return typeof value === 'function' ? value.bind(current) : value;
    },
  });
}
