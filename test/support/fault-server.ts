import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answeredAsPlatform } from './platform-store-route.js';

/** One scripted answer. `destroy` drops the socket without answering (a network error for the client). */
export interface ScriptedReply {
  status?: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string as is. */
  body?: unknown;
  /** Wait this long before answering (ms). */
  delayMs?: number;
  /** Answer only once this settles (a test releases it at a marker; one that never settles holds for ever). */
  hold?: Promise<void>;
  destroy?: boolean;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface FaultServer {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /**
   * Questions for a served store's head (`GET .../examctl/store`, a run's before its first write,
   * docs/remote.md): answered as the platform answers a route it does not know (404, no `x-examctl-store`),
   * neither recorded nor scripted.
   */
  storeAsked: number;
  /** Queue replies; once the queue is empty, `fallback` answers. */
  script(...replies: ScriptedReply[]): void;
  fallback: ScriptedReply | ((request: RecordedRequest) => ScriptedReply);
  close(): Promise<void>;
}

export const okEnvelope = (content: unknown): ScriptedReply => ({
  status: 200,
  body: { Content: content, Success: true, Errors: null },
});

/** A loopback HTTP server answering scripted sequences and recording every request. */
export async function startFaultServer(): Promise<FaultServer> {
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const state: { fallback: FaultServer['fallback']; storeAsked: number } = {
    fallback: okEnvelope(null),
    storeAsked: 0,
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      if (answeredAsPlatform(req, res)) {
        state.storeAsked += 1;
        return;
      }
      requests.push(recorded);
      const reply = queue.shift() ?? (typeof state.fallback === 'function' ? state.fallback(recorded) : state.fallback);
      const answer = (): void => {
        if (reply.destroy) {
          req.socket.destroy();
          return;
        }
        const body =
          reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
        const contentType = typeof reply.body === 'string' ? 'text/html' : 'application/json';
        res.writeHead(reply.status ?? 200, { 'content-type': contentType, ...reply.headers });
        res.end(body);
      };
      if (reply.hold !== undefined) {
        void reply.hold.then(answer, answer);
      } else if (reply.delayMs) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          answer();
        }, reply.delayMs);
        timers.add(timer);
      } else {
        answer();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    get storeAsked() {
      return state.storeAsked;
    },
    script: (...replies) => queue.push(...replies),
    get fallback() {
      return state.fallback;
    },
    set fallback(value) {
      state.fallback = value;
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A scratch directory with its runs dir and token, and a fault server answering every POST /user as applied. */
export interface UserSyncService {
  dir: string;
  env: Record<string, string>;
  service: FaultServer;
  /** `user sync`'s flags for this server (remote, loopback http, no prompt). */
  remote: () => string[];
}

/**
 * The setup of the tests that run `user sync` nights against a counting server: each body the
 * server accepts goes to `onUser` (in arrival order), and every user is answered ok. `stop` with
 * the result in the afterEach.
 */
export async function startUserSyncService(
  prefix: string,
  onUser: (user: Record<string, unknown>) => void,
): Promise<UserSyncService> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const service = await startFaultServer();
  service.fallback = (request) => {
    const user = JSON.parse(request.body) as Record<string, unknown>;
    onUser(user);
    return okEnvelope({ User: { ExternalId: user.ExternalId }, GroupErrors: [] });
  };
  return {
    dir,
    env: { EXAMCTL_RUNS_DIR: join(dir, 'state', 'runs'), EXAMCTL_TOKEN: 'dev-token' },
    service,
    remote: () => ['--target', 'remote', '--base-url', service.url, '--allow-insecure-http', '--yes'],
  };
}

export async function stopUserSyncService(setup: UserSyncService): Promise<void> {
  await setup.service.close();
  await rm(setup.dir, { recursive: true, force: true });
}
