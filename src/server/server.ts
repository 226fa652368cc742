import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiResult, IntegrationApi } from '../api/integration-api.js';
import type { Envelope } from '../domain/envelope.js';
import { isApiTokenDigest } from '../domain/world.js';
import { TargetError, UsageError } from '../errors.js';

export const API_PREFIX = '/api/v1/integrations';
export const DEFAULT_BODY_LIMIT_BYTES = 16 * 1024 * 1024;

export interface ServerOptions {
  api: IntegrationApi;
  /**
   * The accepted tokens (the world's Settings.ApiTokens), each plain or as `sha256:<hex>`; asked
   * on every request so a changed store is honoured.
   */
  tokens: () => string[] | Promise<string[]>;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Default 16 MiB. */
  bodyLimitBytes?: number;
  /** One line per request: method, path, status, ms. Never a header value. */
  log?: (line: string) => void;
  /** Served at GET /api/v1/integrations/openapi.json without a token. */
  openapi?: object;
  /** How long close() lets in-flight requests finish before cutting their sockets (ms). Default 10 000. */
  closeGraceMs?: number;
}

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

type Handler = (api: IntegrationApi, params: string[], body: unknown, signal: AbortSignal) => Promise<ApiResult<unknown>>;

interface Route {
  pattern: RegExp;
  methods: Partial<Record<string, { handler: Handler; hasBody: boolean }>>;
}

/** The spec's five routes, relative to API_PREFIX. */
const ROUTES: Route[] = [
  {
    pattern: /^\/schedule$/,
    methods: { POST: { hasBody: true, handler: (api, _p, body, signal) => api.createSchedule(body as never, { signal }) } },
  },
  {
    pattern: /^\/external\/review-sessions\/([^/]+)$/,
    methods: { GET: { hasBody: false, handler: (api, [id], _b, signal) => api.getReviewSession(id!, { signal }) } },
  },
  {
    pattern: /^\/collections$/,
    methods: { POST: { hasBody: true, handler: (api, _p, body, signal) => api.addCollection(body as never, { signal }) } },
  },
  {
    pattern: /^\/user$/,
    methods: { POST: { hasBody: true, handler: (api, _p, body, signal) => api.upsertUser(body as never, { signal }) } },
  },
  {
    pattern: /^\/schedule\/([^/]+)\/invigilators$/,
    methods: {
      DELETE: {
        hasBody: true,
        handler: (api, [id], body, signal) => api.removeInvigilators(id!, body as string[], { signal }),
      },
    },
  },
];

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

function failure(message: string): Envelope<null> {
  return { Content: null, Success: false, Errors: [{ Code: null, Message: message }] };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Compares the SHA-256 of the presented token against every accepted one in constant time per
 * token; no early exit reveals which. An accepted entry is a plain token or, as the store keeps
 * them, its digest `sha256:<64 hex>` (isApiTokenDigest), so the server never needs the token itself.
 */
function tokenAccepted(presented: string, accepted: readonly string[]): boolean {
  const presentedDigest = digest(presented);
  let ok = false;
  for (const token of accepted) {
    if (token === '') continue;
    const expected = isApiTokenDigest(token) ? Buffer.from(token.slice('sha256:'.length), 'hex') : digest(token);
    if (timingSafeEqual(presentedDigest, expected)) ok = true;
  }
  return ok;
}

function presentedToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^EAPI[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1];
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpFailure(400, 'malformed percent-encoding in the path');
  }
}

async function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    throw new HttpFailure(413, `request body larger than ${limit} bytes`, { connection: 'close' });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) throw new HttpFailure(413, `request body larger than ${limit} bytes`, { connection: 'close' });
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/** Serves an IntegrationApi (normally the local engine) as the spec's HTTP API. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const bodyLimit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const closeGraceMs = options.closeGraceMs ?? 10_000;
  const openapiText = options.openapi ? JSON.stringify(options.openapi) : undefined;
  let closing = false;
  const inFlight = new Set<Promise<void>>();

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const started = performance.now();
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    let status = 500;
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });

    const send = (code: number, body: string, headers: Record<string, string> = {}): void => {
      status = code;
      if (res.headersSent) return;
      const allHeaders: Record<string, string | number> = {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        ...headers,
      };
      if (closing) allHeaders.connection = 'close';
      res.writeHead(code, allHeaders);
      res.end(body);
    };

    try {
      if (method === 'GET' && path === `${API_PREFIX}/openapi.json` && openapiText !== undefined) {
        send(200, openapiText);
        return;
      }
      const token = presentedToken(req.headers.authorization);
      if (token === undefined || !tokenAccepted(token, await options.tokens())) {
        throw new HttpFailure(403, 'not allowed to use the external API');
      }
      if (!path.startsWith(`${API_PREFIX}/`)) throw new HttpFailure(404, `no such route: ${path}`);
      const relative = path.slice(API_PREFIX.length);
      let params: string[] | undefined;
      const route = ROUTES.find((candidate) => {
        const match = candidate.pattern.exec(relative);
        if (match) params = match.slice(1).map(decodeSegment);
        return match !== null;
      });
      if (!route || !params) throw new HttpFailure(404, `no such route: ${path}`);
      const endpoint = route.methods[method];
      if (!endpoint) {
        throw new HttpFailure(405, `method ${method} not allowed on ${path}`, { allow: Object.keys(route.methods).join(', ') });
      }

      let body: unknown;
      if (endpoint.hasBody) {
        const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
        if (contentType !== 'application/json') {
          req.resume();
          throw new HttpFailure(415, 'Content-Type must be application/json');
        }
        const raw = await readBody(req, bodyLimit);
        try {
          body = raw.length === 0 ? null : JSON.parse(raw.toString('utf8'));
        } catch {
          throw new HttpFailure(400, 'the request body is not valid JSON');
        }
      } else {
        req.resume();
      }

      const result = await endpoint.handler(options.api, params, body, controller.signal);
      send(result.status, JSON.stringify(result.envelope));
    } catch (error) {
      if (error instanceof HttpFailure) {
        send(error.status, JSON.stringify(failure(error.message)), error.headers);
      } else if (error instanceof TargetError) {
        // Store locked or unreadable: the client may retry (503 is in its retry set).
        send(503, JSON.stringify(failure(`service unavailable: ${error.message}`)), { 'retry-after': '1' });
      } else {
        options.log?.(`error: ${method} ${path}: ${error instanceof Error ? error.message : String(error)}`);
        send(500, JSON.stringify(failure('internal server error')));
      }
    } finally {
      options.log?.(`${method} ${path} ${status} ${Math.round(performance.now() - started)}ms`);
    }
  }

  const server = http.createServer((req, res) => {
    const work = handle(req, res).finally(() => inFlight.delete(work));
    inFlight.add(work);
  });
  // A client gets an envelope, not a bare socket close, when its headers are malformed.
  server.on('clientError', (_error, socket) => {
    if (socket.writable) {
      const body = JSON.stringify(failure('malformed HTTP request'));
      socket.end(
        `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json; charset=utf-8\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    }
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      const why = error.code === 'EADDRINUSE' ? 'the port is in use' : error.code === 'EACCES' ? 'permission denied' : error.message;
      reject(new UsageError(`cannot listen on ${host}:${options.port ?? 0}: ${why}`, { cause: error }));
    };
    server.once('error', onError);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}`,
    port,
    async close() {
      if (closing) return;
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const grace = setTimeout(() => server.closeAllConnections(), closeGraceMs);
      try {
        await Promise.allSettled([...inFlight]);
        // Keep-alive sockets that went idle after their last response.
        server.closeIdleConnections();
        await closed;
      } finally {
        clearTimeout(grace);
      }
    },
  };
}
