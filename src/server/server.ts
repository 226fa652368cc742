import { isUtf8 } from 'node:buffer';
import http from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { AddressInfo, Socket } from 'node:net';
import { MOST_ASKED_HEADS, type ApiResult, type CallOptions, type IntegrationApi } from '../port/integration-api.js';
import { isHead } from '../domain/store-head.js';
import { messageOf, TargetError, UsageError } from '../system/errors.js';
import { faultPlan, type FaultDecision, type FaultSpec } from './faults.js';
import { tokenAccepted } from './token-check.js';
import { FAILURE_MESSAGES as M } from './failure-messages.js';
import { JsonFault, MAX_JSON_DEPTH, parseJsonYielding, YIELD_CHARS } from '../system/json-scan.js';
import { API_PREFIX } from '../api/url-policy.js';
import { firstInvalidOffset } from '../system/utf8-bytes.js';
import { failureEnvelope } from '../api/envelope-reader.js';

export const DEFAULT_BODY_LIMIT_BYTES = 16 * 1024 * 1024;
/** A request line longer than this is 414: no route of the API needs more. */
export const MAX_URL_BYTES = 8 * 1024;
/** Request line and headers together; more is 431 (the URL alone over it: 414). */
export const MAX_HEADER_BYTES = 16 * 1024;

interface ServerTimeouts {
  /** The request line and headers must arrive within this (ms); else 408. Default 10 000. */
  headersMs?: number;
  /** The whole request, body included, must arrive within this (ms); else 408. Default 60 000. */
  requestMs?: number;
  /** An idle keep-alive connection is closed after this (ms). Default 5 000. */
  keepAliveMs?: number;
}

const DEFAULT_TIMEOUTS: Required<ServerTimeouts> = { headersMs: 10_000, requestMs: 60_000, keepAliveMs: 5_000 };

export interface ServerOptions {
  api: IntegrationApi;
  /** The accepted tokens (Settings.ApiTokens, plain or `sha256:<hex>`), asked per request: changes are honoured. */
  tokens: () => string[] | Promise<string[]>;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Default 16 MiB. */
  bodyLimitBytes?: number;
  /** One line per request: method, path, status (or aborted/reset/lost), ms, injected faults. Never a header value. */
  log?: (line: string) => void;
  /**
   * Served at GET .../openapi.json without a token; a function gets the URL once listening (port 0 before).
   */
  openapi?: object | ((url: string) => object);
  /**
   * How long close() lets requests finish before cutting sockets (ms); a handler still running after
   * twice that is abandoned, so a stop always ends. Default 10 000.
   */
  closeGraceMs?: number;
  timeouts?: ServerTimeouts;
  /** The bounds of reading and discarding a refused request's body after its answer (DEFAULT_LINGER, below). */
  linger?: LingerBounds;
  /** Injected faults (`local serve --faults`): drawn once per authenticated request to a route. */
  faults?: { spec: FaultSpec; seed: number };
}

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

type Handler = (api: IntegrationApi, params: string[], body: unknown, call: CallOptions) => Promise<ApiResult<unknown>>;

interface Route {
  /** The pattern of its path, whose groups are its parameters. */
  path: RegExp;
  /** Its handler by method; a body is read for all but GET. */
  methods: Partial<Record<string, Handler>>;
  /** examctl's own, not the spec's: never faulted (docs/remote.md, "Fault injection"). */
  own?: true;
}

/** The spec's five routes and examctl's own, relative to API_PREFIX. */
const ROUTES: Route[] = [
  {
    path: /^\/schedule$/,
    methods: { POST: (api, _p, body, call) => api.createSchedule(body as never, call) },
  },
  {
    path: /^\/external\/review-sessions\/([^/]+)$/,
    methods: { GET: (api, [id], _b, call) => api.getReviewSession(id!, call) },
  },
  {
    path: /^\/collections$/,
    methods: { POST: (api, _p, body, call) => api.addCollection(body as never, call) },
  },
  {
    path: /^\/user$/,
    methods: { POST: (api, _p, body, call) => api.upsertUser(body as never, call) },
  },
  {
    // An empty id (`/schedule//invigilators`) is this route too: the API answers it with code 300
    // (docs/interpretations.md, "Invigilators"), not as a path it does not know.
    path: /^\/schedule\/([^/]*)\/invigilators$/,
    methods: { DELETE: (api, [id], body, call) => api.removeInvigilators(id!, body as string[], call) },
  },
  {
    path: /^\/examctl\/store$/,
    own: true,
    methods: {
      // `?holds=H1,H2`: which of those heads its history holds (docs/remote.md, "The local server").
      GET: async (api, [query], _b, call) => {
        const asked = /^\?holds=[A-Za-z0-9_,-]+$/.test(query!) ? query!.slice(7).split(',') : [];
        const standing = asked.every(isHead) ? await api.storeHead?.(asked.slice(0, MOST_ASKED_HEADS)) : undefined;
        if (standing !== undefined) call.onHead?.(standing.head);
        const content = standing && { Head: standing.head, Holds: standing.holds, Changed: standing.changed };
        return { status: 200, envelope: { Success: true, Content: content ?? null, Errors: null } };
      },
    },
  },
];

function findRoute(relative: string): { route: Route; params: string[] } | undefined {
  for (const route of ROUTES) {
    const match = route.path.exec(relative);
    if (match) return { route, params: match.slice(1).map(decodeSegment) };
  }
  return undefined;
}

/** The Allow header of a route: HEAD goes wherever GET does. */
function allowOf(route: Route): string {
  const methods = Object.keys(route.methods);
  return (methods.includes('GET') ? [...methods, 'HEAD'] : methods).join(', ');
}

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The client went away before its request was complete: nothing to answer, logged as aborted. */
class ClientGone extends Error {}

/** A whole response written on a raw socket (for errors the HTTP parser reports before any request object exists). */
function rawFailure(status: number, message: string): string {
  const body = JSON.stringify(failureEnvelope(message));
  return (
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
    `connection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpFailure(400, 'malformed percent-encoding in the path');
  }
}

/** A body being read: failed by the sweep once `at` (performance.now()) has passed. */
interface BodyDeadline {
  at: number;
  expire(): void;
}

/** The deadlines of bodies being read, one sweep (a tenth of the request timeout, at most 1 s, late): timers cost. */
class BodyDeadlines {
  private readonly reading = new Set<BodyDeadline>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(requestMs: number) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(1000, Math.max(5, Math.floor(requestMs / 10))));
    this.sweeper.unref();
  }

  add(deadline: BodyDeadline): void {
    this.reading.add(deadline);
  }

  delete(deadline: BodyDeadline): void {
    this.reading.delete(deadline);
  }

  stop(): void {
    clearInterval(this.sweeper);
  }

  private sweep(): void {
    const now = performance.now();
    for (const deadline of this.reading) if (deadline.at <= now) deadline.expire();
  }
}

/** The body, at most `limit` bytes, by `deadlineAt` (performance.now()); listeners: an iterator's promises cost. */
function readBody(
  req: http.IncomingMessage,
  limit: number,
  deadlineAt: number,
  deadlines: BodyDeadlines,
): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    return Promise.reject(new HttpFailure(413, M.bodyTooLarge(limit)));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const deadline: BodyDeadline = { at: deadlineAt, expire: () => finish(new HttpFailure(408, M.bodyTooSlow())) };
    const finish = (error?: Error): void => {
      deadlines.delete(deadline);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onClose);
      if (error) {
        // Leave the rest unread: the answer closes the connection.
        req.pause();
        reject(error);
      } else {
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
      }
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) finish(new HttpFailure(413, M.bodyTooLarge(limit)));
      else chunks.push(chunk);
    };
    const onEnd = (): void => finish();
    const onClose = (): void => {
      if (!req.complete) finish(new ClientGone('the client closed the connection before its body was complete'));
    };
    deadlines.add(deadline);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    req.on('error', onClose);
  });
}

/**
 * A body parsed in pieces (parseJsonYielding): other clients are answered meanwhile; a client gone
 * ends it. A body of one piece never yields: it asks for no signal (one AbortController a request).
 */
async function parseJsonBody(raw: Buffer, call: RequestCall): Promise<unknown> {
  if (raw.length === 0) return null;
  // isUtf8 then toString: cheaper per request than a fatal TextDecoder, with the same verdict.
  if (!isUtf8(raw)) {
    throw new HttpFailure(
      400,
      `the request body is not valid UTF-8 (first invalid byte at offset ${firstInvalidOffset(raw)})`,
    );
  }
  const text = raw.toString('utf8');
  const signal = text.length > YIELD_CHARS ? call.signal : undefined;
  try {
    return await parseJsonYielding(text, { depth: MAX_JSON_DEPTH }, signal);
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new HttpFailure(
      400,
      `the request body is not valid JSON${error instanceof JsonFault && error.kind === 'depth' ? ': nested too deep' : ''}`,
    );
  }
}

/** The response will never reach the client: its connection closed before the response was complete. */
function hasGoneAway(res: http.ServerResponse): boolean {
  return res.destroyed && !res.writableFinished;
}

/**
 * One request's CallOptions: its AbortSignal made only when a handler asks (the local engine never
 * does). A class, its getter on the prototype: a literal with a getter cost ~40 us a request.
 */
class RequestCall implements CallOptions {
  private controller: AbortController | undefined;
  /** The store head the answer stood on (CallOptions.onHead): its header `x-examctl-store-head`. */
  head: string | undefined;

  constructor(private readonly res: http.ServerResponse) {}

  onHead(head: string): void {
    this.head = head;
  }

  /** The head after the commit holding the call's changes (CallOptions.onCommitted): `x-examctl-commit-head`. */
  committed: string | undefined;

  onCommitted(head: string): void {
    this.committed = head;
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      const aborter = new AbortController();
      this.controller = aborter;
      const { res } = this;
      if (hasGoneAway(res)) aborter.abort();
      else
        res.once('close', () => {
          if (hasGoneAway(res)) aborter.abort();
        });
    }
    return this.controller.signal;
  }
}

/** Serves an IntegrationApi (the local engine) as the spec's HTTP API. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const bodyLimit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const closeGraceMs = options.closeGraceMs ?? 10_000;
  const linger = options.linger ?? DEFAULT_LINGER;
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const bodyDeadlines = new BodyDeadlines(timeouts.requestMs);
  // Set once listening: the document may name the server's own URL.
  let openapiText: string | undefined;
  const faults = options.faults ? faultPlan(options.faults.spec, options.faults.seed) : undefined;
  let closing = false;
  // Requests whose handler still runs (close() waits for none): a count, not a promise each.
  let inFlight = 0;
  let onIdle: (() => void) | undefined;

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, expectsContinue: boolean): Promise<void> {
    const started = performance.now();
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    // The log names the path only up to a bound: a hostile URL must not flood the log.
    const logPath = path.length > 200 ? `${path.slice(0, 200)}...` : path;
    let outcome = '500';
    let fault: FaultDecision | undefined;
    const length = req.headers['content-length'];
    // No body announced, none is left unread by an answer sent before reading it.
    let bodyRead = req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
    const call = new RequestCall(res);

    const send = (code: number, body: string, headers: Record<string, string> = {}): void => {
      outcome = String(code);
      if (res.headersSent || res.destroyed) return;
      const allHeaders: Record<string, string | number> = {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
      };
      for (const name in headers) allHeaders[name] = headers[name]!;
      if (options.api.storeHead) allHeaders['x-examctl-store'] = '/examctl/store';
      if (call.head !== undefined) allHeaders['x-examctl-store-head'] = call.head;
      if (call.committed !== undefined) allHeaders['x-examctl-commit-head'] = call.committed;
      // An unread body cannot be skipped on a kept-alive connection: closed, the rest read and dropped.
      if (closing || !bodyRead) allHeaders.connection = 'close';
      if (!bodyRead) lingerAfterAnswer(req, linger);
      res.writeHead(code, allHeaders);
      res.end(body);
    };

    try {
      // At most 3 bytes per UTF-16 unit: most URLs need no count.
      if (url.length * 3 > MAX_URL_BYTES && Buffer.byteLength(url) > MAX_URL_BYTES)
        throw new HttpFailure(414, M.urlTooLong(MAX_URL_BYTES));
      const readMethod = method === 'HEAD' ? 'GET' : method;
      if (readMethod === 'GET' && path === `${API_PREFIX}/openapi.json` && openapiText !== undefined) {
        send(200, openapiText);
        return;
      }
      const token = /^EAPI[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '')?.[1];
      if (token === undefined || !tokenAccepted(token, await options.tokens())) {
        throw new HttpFailure(403, M.notAllowed());
      }
      const found = path.startsWith(`${API_PREFIX}/`) ? findRoute(path.slice(API_PREFIX.length)) : undefined;
      if (!found) throw new HttpFailure(404, M.noSuchRoute(logPath));
      const { route, params } = found;
      const handler = route.methods[readMethod];
      if (!handler) throw new HttpFailure(405, M.methodNotAllowed(method, logPath), { allow: allowOf(route) });

      if (faults && route.own !== true) {
        fault = faults.next();
        // A client gone during the injected latency ends the wait (abort), and the request goes on to find it gone.
        if (fault.latencyMs > 0)
          await delay(fault.latencyMs, undefined, { signal: call.signal }).catch(() => undefined);
        if (fault.kind === 'reset') {
          outcome = 'reset';
          req.socket.destroy();
          return;
        }
        const { kind } = fault;
        if (kind === '429' || kind === '500' || kind === '503')
          throw new HttpFailure(Number(kind), M.injected(kind), kind === '500' ? {} : { 'retry-after': '1' });
      }

      let body: unknown = null;
      if (readMethod !== 'GET' && !bodyRead) {
        // A body must be declared JSON, else 400 (docs/interpretations.md, "Headers").
        const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
        if (contentType !== 'application/json') throw new HttpFailure(400, M.notJson());
        // Only now, with the caller and the route known, is the body worth asking for.
        if (expectsContinue) res.writeContinue();
        const raw = await readBody(req, bodyLimit, started + timeouts.requestMs, bodyDeadlines);
        bodyRead = true;
        body = await parseJsonBody(raw, call);
      } else if (!bodyRead) {
        req.resume();
        bodyRead = true;
      }

      const result = await handler(options.api, [...params, url.slice(path.length)], body, call);
      if (fault?.kind === 'lost') {
        // The work is done and durable; the client never hears of it.
        outcome = 'lost';
        req.socket.destroy();
        return;
      }
      // What the engine did (docs/remote.md, "The local server"): a run reports it and a resume compares it.
      const did = result.action === undefined ? undefined : { 'x-examctl-action': result.action };
      send(result.status, JSON.stringify(result.envelope), did);
    } catch (error) {
      if (error instanceof ClientGone) {
        outcome = 'aborted';
      } else if (error instanceof HttpFailure) {
        send(error.status, JSON.stringify(failureEnvelope(error.message)), error.headers);
      } else if (error instanceof TargetError) {
        // Store locked or unreadable: retryable (503). Where it is and who holds it is for the log, not a caller.
        options.log?.(`error: ${method} ${logPath}: ${error.message}`);
        send(503, JSON.stringify(failureEnvelope(M.storeBusy())), { 'retry-after': '1' });
      } else if (hasGoneAway(res)) {
        outcome = 'aborted';
      } else {
        options.log?.(`error: ${method} ${logPath}: ${messageOf(error)}`);
        send(500, JSON.stringify(failureEnvelope(M.internal())));
      }
    } finally {
      const injected =
        fault === undefined
          ? ''
          : `${fault.kind === undefined ? '' : ` fault=${fault.kind}`}${fault.latencyMs > 0 ? ` latency=${fault.latencyMs}ms` : ''}`;
      options.log?.(`${method} ${logPath} ${outcome} ${Math.round(performance.now() - started)}ms${injected}`);
    }
  }

  const server = http.createServer({
    maxHeaderSize: MAX_HEADER_BYTES,
    headersTimeout: timeouts.headersMs,
    // The body deadline is ours (readBody answers 408 with an envelope); node's is the backstop.
    requestTimeout: timeouts.requestMs + 5_000,
    connectionsCheckingInterval: Math.min(1_000, timeouts.headersMs),
  });
  server.keepAliveTimeout = timeouts.keepAliveMs;
  const handled = (): void => {
    inFlight -= 1;
    if (inFlight === 0) onIdle?.();
  };
  const dispatch = (expectsContinue: boolean) => (req: http.IncomingMessage, res: http.ServerResponse) => {
    // Behind an answer that ends the connection: never answered, so never run.
    if (endedByAnswer.has(req.socket)) return;
    inFlight += 1;
    void handle(req, res, expectsContinue).then(handled, handled);
  };
  server.on('request', dispatch(false));
  // Without this listener node answers 100 Continue itself, inviting the body before the token is checked.
  server.on('checkContinue', dispatch(true));
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket) => {
    // Answered already; its body's end cut short by the client is its lingering close's to handle.
    if (endedByAnswer.has(socket)) return;
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    // Headers over the bound with the request line alone over it: the URL is what is too long.
    const firstLineEnd = error.rawPacket?.indexOf('\r\n') ?? -1;
    const lineTooLong = error.code === 'HPE_HEADER_OVERFLOW' && (firstLineEnd < 0 || firstLineEnd > MAX_URL_BYTES);
    const [status, message] =
      lineTooLong || error.code === 'HPE_URI_TOO_LONG'
        ? [414, M.urlTooLong(MAX_URL_BYTES)]
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? [431, M.headersTooLarge(MAX_HEADER_BYTES)]
          : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? [408, M.headersTooSlow()]
            : [400, 'malformed HTTP request'];
    options.log?.(`- - ${status} ${message}`);
    socket.end(rawFailure(status, message));
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      const why =
        error.code === 'EADDRINUSE'
          ? 'the port is in use'
          : error.code === 'EACCES'
            ? 'permission denied'
            : error.message;
      bodyDeadlines.stop();
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
  const url = `http://${urlHost}:${port}`;
  if (options.openapi !== undefined)
    openapiText = JSON.stringify(typeof options.openapi === 'function' ? options.openapi(url) : options.openapi);

  return {
    url,
    port,
    async close() {
      if (closing) return;
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const grace = setTimeout(() => server.closeAllConnections(), closeGraceMs);
      let giveUp: NodeJS.Timeout | undefined;
      // A handler that never settles (a store stuck behind another process) is left after a second grace.
      const abandoned = new Promise<'abandoned'>((resolve) => {
        giveUp = setTimeout(() => resolve('abandoned'), 2 * closeGraceMs);
      });
      try {
        const idle = inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => (onIdle = resolve));
        const settled = await Promise.race([idle, abandoned]);
        if (settled === 'abandoned')
          options.log?.(`stopping: ${inFlight} request(s) still running after ${2 * closeGraceMs} ms were abandoned`);
        // Keep-alive sockets that went idle after their last response.
        server.closeIdleConnections();
        await closed;
      } finally {
        clearTimeout(grace);
        clearTimeout(giveUp);
        bodyDeadlines.stop();
      }
    },
  };
}

/**
 * What of a refused request's body is read and discarded after its answer (docs/remote.md, "Lingering
 * close"): bytes above any body refused for its size (16 MiB by default), time for a slow sender.
 */
export interface LingerBounds {
  /** Bytes discarded after the answer; more, and the connection is cut. */
  maxBytes: number;
  /** Milliseconds after the answer; later, the connection is cut. */
  maxMs: number;
}

const DEFAULT_LINGER: LingerBounds = { maxBytes: 64 * 1024 * 1024, maxMs: 5_000 };

/** Connections whose answer ends them: a request parsed after that answer is never run. */
const endedByAnswer = new WeakSet<Socket>();

/**
 * The lingering close (docs/remote.md, "Lingering close") of a connection answered before its body
 * was read: Node would destroy the socket, and the kernel reset the body still arriving. Call it before answering.
 */
function lingerAfterAnswer(req: http.IncomingMessage, bounds: LingerBounds): void {
  const socket = req.socket;
  endedByAnswer.add(socket);
  // The rest of the body is read, counted and dropped (one begun was paused when refused).
  let discarded = 0;
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > bounds.maxBytes) socket.destroy();
  });
  req.resume();
  // Node calls this once the answer is written, for an answer that says `connection: close`.
  socket.destroySoon = () => linger(socket, req, bounds.maxMs);
}

function linger(socket: Socket, req: http.IncomingMessage, maxMs: number): void {
  const timer = setTimeout(() => socket.destroy(), maxMs);
  // Nothing more will come, or need be read: closed once the answer has left.
  const done = (): void => {
    clearTimeout(timer);
    if (socket.writableFinished) socket.destroy();
    else socket.once('finish', () => socket.destroy());
  };
  socket.once('close', () => clearTimeout(timer));
  socket.end();
  // The whole body arrived (its end), or the client sent all it will (its end of stream).
  if (req.complete || socket.readableEnded) {
    done();
    return;
  }
  req.once('end', done);
  socket.once('end', done);
}
