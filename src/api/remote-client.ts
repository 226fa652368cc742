import { EXAMCTL_VERSION } from '../version.js';
import ipaddr from 'ipaddr.js';
import { Pool, errors as undiciErrors } from 'undici';
import type { Envelope } from '../domain/envelope.js';
import type {
  CollectionRequest,
  CollectionResponseContent,
  InvigilatorsResponseContent,
  ReviewSession,
  ScheduleRequest,
  UserRequest,
  UserResponseContent,
} from '../domain/types.js';
import { InterruptedError, TargetError, UsageError } from '../errors.js';
import { answersAlreadyExists } from './already-exists.js';
import { errorsOf } from './envelope-errors.js';
import { describeStatus, isEndpointMismatch, mayHaveReachedService, statusPolicy } from './http-status.js';
import type { ApiResult, CallOptions, IntegrationApi } from './integration-api.js';

export const API_PREFIX = '/api/v1/integrations';

export interface RemoteClientOptions {
  /** The service's {base_url}; requests go to `{baseUrl}/api/v1/integrations/...`. */
  baseUrl: string;
  /** The EAPI token. Sent only in the Authorization header; never in messages or debug lines. */
  token: string;
  /** Requests in flight at once (and pooled keep-alive connections). Default 8. */
  concurrency?: number;
  /** Request starts per minute, retries included. Default: unlimited. */
  rate?: number;
  /** TCP/TLS connect timeout (ms). Default 10 000. */
  connectTimeoutMs?: number;
  /** Wait for the response headers, then between body chunks (ms). Default 60 000. */
  requestTimeoutMs?: number;
  /** Attempts per call, the first included. Default 5. */
  maxAttempts?: number;
  /** No retry is started once this much time has passed since the call began (ms). Default 120 000. */
  maxRetryTimeMs?: number;
  /** First backoff ceiling (ms), doubled per attempt, full jitter. Default 500. */
  backoffBaseMs?: number;
  /** Backoff ceiling (ms). Default 30 000. */
  backoffMaxMs?: number;
  /** Longest Retry-After honoured (ms); longer waits are cut to this. Default 60 000. */
  retryAfterCapMs?: number;
  /** Permit plain http:// to a host other than loopback. */
  allowInsecureHttp?: boolean;
  /** Receives one line per attempt (method, path, status, ms, attempt); the token never appears. */
  debug?: (line: string) => void;
  /**
   * Aborted on SIGINT: waits (a free slot, the rate limit, a backoff, Retry-After) end at once
   * and no further attempt starts. A call's own `signal` takes precedence.
   */
  signal?: AbortSignal;
  /** Test seams. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  now?: () => number;
}

type Method = 'GET' | 'POST' | 'DELETE';

interface Attempt {
  kind: 'response';
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

interface Failure {
  kind: 'network';
  error: Error;
  /** False when the request certainly never reached the server (connect failed). */
  mayHaveBeenReceived: boolean;
}

export const USER_AGENT = `examctl/${EXAMCTL_VERSION}`;

/** Parses and checks a base URL: http(s) only, no credentials, plain http only to loopback unless allowed. */
export function parseBaseUrl(baseUrl: string, allowInsecureHttp = false): { origin: string; pathPrefix: string; host: string } {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    throw new UsageError(`--base-url: not a valid URL: ${JSON.stringify(baseUrl)} (expected e.g. https://exam.example.com)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`--base-url: unsupported scheme ${url.protocol} (use https://)`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError('--base-url: must not contain a user name or password; give the token with EXAMCTL_TOKEN, --token-file or a profile');
  }
  if (url.search !== '' || url.hash !== '') {
    throw new UsageError('--base-url: must not contain a query string or fragment');
  }
  if (url.protocol === 'http:' && !allowInsecureHttp && !isLoopbackHost(url.hostname)) {
    throw new UsageError(
      `--base-url: refusing plain http:// to ${url.hostname}: the token would cross the network in clear text. ` +
        'Use https://, or pass --allow-insecure-http if this network is trusted.',
    );
  }
  const pathPrefix = url.pathname.replace(/\/+$/, '') + API_PREFIX;
  return { origin: url.origin, pathPrefix, host: url.host };
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (host === 'localhost') return true;
  if (!ipaddr.isValid(host)) return false;
  return ipaddr.process(host).range() === 'loopback';
}

/** Parses Retry-After (delta-seconds or an HTTP date) into ms from `nowMs`; undefined if absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/**
 * One 'abort' listener per signal, however many calls wait on it: a run shares one signal
 * across all its calls, and Node warns about a leak past 10 listeners on one EventTarget.
 */
const abortWaiters = new WeakMap<AbortSignal, Set<() => void>>();

function onAbort(signal: AbortSignal | undefined, callback: () => void): () => void {
  if (!signal) return () => undefined;
  let waiters = abortWaiters.get(signal);
  if (!waiters) {
    const created = new Set<() => void>();
    waiters = created;
    abortWaiters.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        for (const waiter of [...created]) waiter();
        created.clear();
      },
      { once: true },
    );
  }
  const set = waiters;
  set.add(callback);
  return () => set.delete(callback);
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(interrupted());
      return;
    }
    const unsubscribe = onAbort(signal, () => {
      clearTimeout(timer);
      reject(interrupted());
    });
    const timer = setTimeout(() => {
      unsubscribe();
      resolve();
    }, ms);
  });
}

function interrupted(): InterruptedError {
  return new InterruptedError('interrupted: the call was abandoned');
}

/** Counting semaphore with an abortable FIFO queue. */
class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(private readonly limit: number) {}

  async acquire(signal?: AbortSignal): Promise<void> {
    if (this.active < this.limit) {
      this.active += 1;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(interrupted());
        return;
      }
      const grant = (): void => {
        unsubscribe();
        this.active += 1;
        resolve();
      };
      const unsubscribe = onAbort(signal, () => {
        const index = this.waiting.indexOf(grant);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(interrupted());
      });
      this.waiting.push(grant);
    });
  }

  release(): void {
    this.active -= 1;
    const next = this.waiting.shift();
    if (next) next();
  }
}

/** Spaces request starts evenly: at most `perMinute` starts in any minute, no bursts. */
class RateGate {
  private nextSlot = 0;
  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number,
    private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
  ) {}

  async wait(signal?: AbortSignal): Promise<void> {
    const now = this.now();
    const slot = Math.max(now, this.nextSlot);
    this.nextSlot = slot + this.intervalMs;
    if (slot > now) await this.sleep(slot - now, signal);
  }
}

function isConnectFailure(error: unknown): boolean {
  if (error instanceof undiciErrors.ConnectTimeoutError) return true;
  const code = (error as { code?: unknown }).code;
  return code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH';
}

export function describeNetworkError(error: Error): string {
  if (error instanceof undiciErrors.ConnectTimeoutError) return 'connect timeout';
  if (error instanceof undiciErrors.HeadersTimeoutError) return 'no response within the request timeout';
  if (error instanceof undiciErrors.BodyTimeoutError) return 'response body stalled past the request timeout';
  const code = (error as { code?: unknown }).code;
  const cause = (error as { cause?: { code?: unknown } }).cause;
  const causeCode = cause && typeof cause === 'object' ? cause.code : undefined;
  const shown = typeof causeCode === 'string' ? causeCode : typeof code === 'string' && !code.startsWith('UND_ERR') ? code : undefined;
  return shown ? `${shown} (${error.message})` : error.message;
}

function bodySnippet(text: string): string {
  const flat = text.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}...` : flat;
}

function headerValue(headers: Attempt['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Reads a response body as an envelope, tolerating what real servers send: camelCase member
 * names, a missing Success (derived from the status and Errors), and unknown members (kept).
 * Undefined when the body is not a JSON object.
 */
export function readEnvelope<T>(text: string, status: number): Envelope<T> | undefined {
  if (text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const body = parsed as Record<string, unknown>;
  if (!('Content' in body) && !('Success' in body) && !('Errors' in body) && !('content' in body) && !('success' in body) && !('errors' in body)) {
    return undefined;
  }
  const envelope = { ...body } as Record<string, unknown>;
  if (!('Content' in envelope)) envelope.Content = 'content' in body ? body.content : null;
  if (!('Errors' in envelope)) envelope.Errors = 'errors' in body ? body.errors : null;
  if (typeof envelope.Success !== 'boolean') {
    envelope.Success =
      typeof body.success === 'boolean' ? body.success : status >= 200 && status < 300 && errorsOf(envelope).length === 0;
  }
  return envelope as unknown as Envelope<T>;
}

function failureEnvelope<T>(message: string): Envelope<T> {
  return { Content: null, Success: false, Errors: [{ Code: null, Message: message }] };
}

/** The remote target: the integration API over HTTP(S), with keep-alive, limits and retries. */
export function createRemoteClient(options: RemoteClientOptions): IntegrationApi {
  const { origin, pathPrefix, host } = parseBaseUrl(options.baseUrl, options.allowInsecureHttp ?? false);
  if (options.token.trim() === '' || /[\r\n]/.test(options.token)) {
    throw new UsageError('the token is empty or spans several lines; check EXAMCTL_TOKEN, --token-file or the profile');
  }
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 8));
  const maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? 5));
  const maxRetryTimeMs = options.maxRetryTimeMs ?? 120_000;
  const backoffBaseMs = options.backoffBaseMs ?? 500;
  const backoffMaxMs = options.backoffMaxMs ?? 30_000;
  const retryAfterCapMs = options.retryAfterCapMs ?? 60_000;
  const requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const debug = options.debug;

  const pool = new Pool(origin, {
    connections: concurrency,
    connectTimeout: options.connectTimeoutMs ?? 10_000,
    headersTimeout: requestTimeoutMs,
    bodyTimeout: requestTimeoutMs,
    pipelining: 1,
  });
  const limiter = new Limiter(concurrency);
  const rateGate = options.rate !== undefined && options.rate > 0 ? new RateGate(60_000 / options.rate, now, sleep) : undefined;
  const headers = {
    authorization: `EAPI ${options.token}`,
    'content-type': 'application/json',
    accept: 'application/json',
    'user-agent': USER_AGENT,
  };
  let refusedMessage: string | undefined;
  let closed = false;
  const redact = (text: string): string => text.split(options.token).join('[redacted]');

  // The caller's signal is deliberately not handed to undici: on SIGINT a request already on
  // the wire is let finish (its outcome is known and reported); only waits are cut short.
  async function attemptOnce(method: Method, path: string, body: string | undefined): Promise<Attempt | Failure> {
    try {
      const response = await pool.request({
        method,
        path,
        headers,
        body: body ?? null,
        // Retries are ours (with backoff and the lost-attempt note), never undici's.
        idempotent: false,
      });
      const text = await response.body.text();
      return { kind: 'response', status: response.statusCode, headers: response.headers, text };
    } catch (error) {
      const err = error instanceof Error ? error : new Error(String(error));
      return { kind: 'network', error: err, mayHaveBeenReceived: !isConnectFailure(err) };
    }
  }

  function backoffDelay(attempt: number): number {
    const ceiling = Math.min(backoffMaxMs, backoffBaseMs * 2 ** (attempt - 1));
    return Math.floor(random() * ceiling);
  }

  async function call<T>(method: Method, route: string, payload: unknown, callOptions?: CallOptions): Promise<ApiResult<T>> {
    const signal = callOptions?.signal ?? options.signal;
    if (refusedMessage !== undefined) throw new TargetError(refusedMessage);
    if (closed) throw new TargetError('the remote client was closed');
    if (signal?.aborted) throw interrupted();
    const path = pathPrefix + route;
    const body = payload === undefined ? undefined : JSON.stringify(payload);
    const started = now();
    // Set once an attempt may have reached the server without us seeing its answer.
    let lostAttempt: string | undefined;

    await limiter.acquire(signal);
    try {
      for (let attempt = 1; ; attempt += 1) {
        if (refusedMessage !== undefined) throw new TargetError(refusedMessage);
        if (rateGate) await rateGate.wait(signal);
        const attemptStarted = now();
        if (signal?.aborted) throw interrupted();
        const outcome = await attemptOnce(method, path, body);
        const ms = now() - attemptStarted;

        let retryReason: string;
        let retryAfterMs: number | undefined;
        if (outcome.kind === 'network') {
          // Belt and braces: no library message should carry a header value, but none may carry the token.
          retryReason = redact(describeNetworkError(outcome.error));
          debug?.(`${method} ${path} ${retryReason} ${ms}ms attempt ${attempt}`);
          if (outcome.mayHaveBeenReceived) lostAttempt = retryReason;
        } else {
          debug?.(`${method} ${path} ${outcome.status} ${ms}ms attempt ${attempt}`);
          const policy = statusPolicy(outcome.status);
          if (policy === 'refused') {
            refusedMessage = `the service refused the token (${outcome.status}): check the token/profile (${host})`;
            throw new TargetError(refusedMessage);
          }
          if (policy === 'result') return toResult<T>(outcome, method, route, lostAttempt);
          if (policy === 'target') {
            throw new TargetError(`${host}: ${method} ${route} failed: ${describeStatus(outcome.status)} (${outcome.status})${serverSays(outcome)}`);
          }
          retryReason = `${describeStatus(outcome.status)} (${outcome.status})`;
          retryAfterMs = parseRetryAfter(outcome.headers['retry-after'], now());
          if (mayHaveReachedService(outcome.status)) lostAttempt = retryReason;
        }

        const elapsed = now() - started;
        const delay = retryAfterMs !== undefined ? Math.min(retryAfterMs, retryAfterCapMs) : backoffDelay(attempt);
        if (attempt >= maxAttempts || elapsed + delay > maxRetryTimeMs) {
          const asked = retryAfterMs !== undefined && elapsed + delay > maxRetryTimeMs ? ` (the service asked to wait ${Math.ceil(retryAfterMs / 1000)}s)` : '';
          throw new TargetError(
            `${host}: ${method} ${route} failed after ${attempt} attempt${attempt === 1 ? '' : 's'} ` +
              `in ${Math.round(elapsed / 1000)}s: ${retryReason}${asked}`,
          );
        }
        if (signal?.aborted) throw interrupted();
        debug?.(`${method} ${path} retrying in ${delay}ms (${retryReason})`);
        await sleep(delay, signal);
      }
    } finally {
      limiter.release();
    }
  }

  function serverSays(outcome: Attempt): string {
    const envelope = readEnvelope(outcome.text, outcome.status);
    if (envelope) {
      const messages = errorsOf(envelope).map((problem) => problem.message);
      if (messages.length > 0) return redact(`: ${messages.join('; ')}`);
    }
    const snippet = bodySnippet(outcome.text);
    return snippet === '' ? '' : redact(`: ${contentTypeOf(outcome)} body: ${snippet}`);
  }

  function contentTypeOf(outcome: Attempt): string {
    return (headerValue(outcome.headers, 'content-type') ?? 'untyped').split(';')[0] ?? 'untyped';
  }

  function toResult<T>(outcome: Attempt, method: Method, route: string, lostAttempt: string | undefined): ApiResult<T> {
    const envelope = readEnvelope<T>(outcome.text, outcome.status);
    if (!envelope) {
      if (isEndpointMismatch(outcome.status)) {
        throw new TargetError(
          `${host}: ${method} ${pathPrefix}${route} answered ${describeStatus(outcome.status)} (${outcome.status}) without an API envelope: ` +
            'check the base URL (it should be the address the /api/v1/integrations paths hang under)',
        );
      }
      if (outcome.status >= 200 && outcome.status < 300) {
        throw new TargetError(
          `${host}: ${method} ${route} answered ${outcome.status} with a body that is not the API's JSON envelope ` +
            `(${contentTypeOf(outcome)}${outcome.text.trim() === '' ? ', empty' : `: ${redact(bodySnippet(outcome.text))}`}): is the base URL the integration API?`,
        );
      }
      const snippet = bodySnippet(outcome.text);
      return {
        status: outcome.status,
        envelope: failureEnvelope<T>(redact(`${describeStatus(outcome.status)} (${outcome.status})${snippet === '' ? '' : `: ${snippet}`}`)),
      };
    }
    const result: ApiResult<T> = { status: outcome.status, envelope };
    if (lostAttempt !== undefined && !envelope.Success && saysAlreadyExists(route, envelope)) {
      result.note = `possibly created by the lost first attempt (an earlier attempt ended with: ${lostAttempt})`;
    }
    return result;
  }

  return {
    createSchedule: (request: ScheduleRequest, callOptions?: CallOptions) => call<string>('POST', '/schedule', request, callOptions),
    getReviewSession: (externalId: string, callOptions?: CallOptions) =>
      call<ReviewSession>('GET', `/external/review-sessions/${encodeURIComponent(externalId)}`, undefined, callOptions),
    addCollection: (request: CollectionRequest, callOptions?: CallOptions) =>
      call<CollectionResponseContent>('POST', '/collections', request, callOptions),
    upsertUser: (request: UserRequest, callOptions?: CallOptions) => call<UserResponseContent>('POST', '/user', request, callOptions),
    removeInvigilators: (scheduleExtId: string, userExtIds: string[], callOptions?: CallOptions) =>
      call<InvigilatorsResponseContent>('DELETE', `/schedule/${encodeURIComponent(scheduleExtId)}/invigilators`, userExtIds, callOptions),
    async close() {
      if (closed) return;
      closed = true;
      await pool.close();
    },
  };
}

/** After a lost attempt, "already exists" most likely means the lost attempt succeeded. */
function saysAlreadyExists(route: string, envelope: Envelope<unknown>): boolean {
  const call = route === '/collections' ? 'collection' : route === '/schedule' ? 'schedule' : undefined;
  return call !== undefined && answersAlreadyExists(call, errorsOf(envelope));
}
