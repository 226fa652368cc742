/**
 * The remote target: the integration API over HTTP(S) with undici, keep-alive, limits and
 * retries. The rooms it draws on: url-policy (which URLs), flow-control (how many, how fast),
 * retry-loop (how often), envelope-reader (what came back), already-exists (a lost attempt's entity).
 */
import { EXAMCTL_VERSION } from '../version.js';
import type {
  CollectionRequest,
  CollectionResponseContent,
  InvigilatorsResponseContent,
  ReviewSession,
  ScheduleRequest,
  UserRequest,
  UserResponseContent,
} from '../domain/types.js';
import { TargetError, TokenRefusedError, TransientTargetError } from '../errors.js';
import { saysAlreadyExists } from './already-exists.js';
import { errorsOf } from './envelope-errors.js';
import { bodySnippet, contentTypeOf, failureEnvelope, readEnvelope } from './envelope-reader.js';
import { Limiter, RateGate, abortableSleep, interrupted, type Sleep } from './flow-control.js';
import { Pool, requestText, undiciErrors } from './http-pool.js';
import { describeStatus, isEndpointMismatch, statusPolicy } from './http-status.js';
import type { ApiResult, CallOptions, IntegrationApi } from './integration-api.js';
import { withRetries, type HttpAnswer, type NetworkFailure } from './retry-loop.js';
import { checkToken, parseBaseUrl } from './url-policy.js';

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
  /** A response body larger than this fails the attempt (bytes). Default 64 MiB. */
  maxResponseBytes?: number;
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
  sleep?: Sleep;
  random?: () => number;
  now?: () => number;
}

type Method = 'GET' | 'POST' | 'DELETE';

export const USER_AGENT = `examctl/${EXAMCTL_VERSION}`;

/** Far above any answer of the API (a review session of thousands of results is a few MiB). */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

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

/** The remote target: the integration API over HTTP(S), with keep-alive, limits and retries. */
export function createRemoteClient(options: RemoteClientOptions): IntegrationApi {
  const { origin, pathPrefix, host } = parseBaseUrl(options.baseUrl, options.allowInsecureHttp ?? false);
  checkToken(options.token);
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 8));
  const requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const sleep = options.sleep ?? abortableSleep;
  const now = options.now ?? Date.now;
  const limits = {
    maxAttempts: Math.max(1, Math.floor(options.maxAttempts ?? 5)),
    maxRetryTimeMs: options.maxRetryTimeMs ?? 120_000,
    backoffBaseMs: options.backoffBaseMs ?? 500,
    backoffMaxMs: options.backoffMaxMs ?? 30_000,
    retryAfterCapMs: options.retryAfterCapMs ?? 60_000,
    sleep,
    random: options.random ?? Math.random,
    now,
  };

  const pool = new Pool(origin, {
    connections: concurrency,
    connectTimeout: options.connectTimeoutMs ?? 10_000,
    headersTimeout: requestTimeoutMs,
    bodyTimeout: requestTimeoutMs,
    pipelining: 1,
  });
  const limiter = new Limiter(concurrency);
  const rateGate = options.rate !== undefined && options.rate > 0 ? new RateGate(options.rate, now, sleep) : undefined;
  const headers = {
    authorization: `EAPI ${options.token}`,
    'content-type': 'application/json',
    accept: 'application/json',
    'user-agent': USER_AGENT,
  };
  let refused: { message: string; status: number } | undefined;
  let closed = false;
  const redact = (text: string): string => text.split(options.token).join('[redacted]');

  // The caller's signal is deliberately not handed to undici: on SIGINT a request already on
  // the wire is let finish (its outcome is known and reported); only waits are cut short.
  async function attemptOnce(method: Method, path: string, body: string | undefined): Promise<HttpAnswer | NetworkFailure> {
    try {
      const response = await requestText(pool, {
        method,
        path,
        headers,
        body: body ?? null,
        // Retries are ours (with backoff and the lost-attempt note), never undici's.
        idempotent: false,
      }, maxResponseBytes);
      return { kind: 'response', status: response.statusCode, headers: response.headers, text: response.text };
    } catch (error) {
      const err = error instanceof Error ? error : new Error(String(error));
      return { kind: 'network', error: err, mayHaveBeenReceived: !isConnectFailure(err) };
    }
  }

  async function call<T>(method: Method, route: string, payload: unknown, callOptions?: CallOptions): Promise<ApiResult<T>> {
    const signal = callOptions?.signal ?? options.signal;
    if (refused !== undefined) throw new TokenRefusedError(refused.message, refused.status);
    if (closed) throw new TargetError('the remote client was closed');
    if (signal?.aborted) throw interrupted();
    const path = pathPrefix + route;
    const body = payload === undefined ? undefined : JSON.stringify(payload);

    await limiter.acquire(signal);
    try {
      return await withRetries<ApiResult<T>>(
        {
          debugLabel: `${method} ${path}`,
          errorLabel: `${host}: ${method} ${route}`,
          signal,
          debug: options.debug,
          async beforeAttempt() {
            if (refused !== undefined) throw new TokenRefusedError(refused.message, refused.status);
            if (rateGate) await rateGate.wait(signal);
          },
          attempt: () => attemptOnce(method, path, body),
          // Belt and braces: no library message should carry a header value, but none may carry the token.
          describeFailure: (error) => redact(describeNetworkError(error)),
          settle: (answer, lostAttempt) => settle<T>(answer, method, route, payload, lostAttempt),
        },
        limits,
      );
    } finally {
      limiter.release();
    }
  }

  /** An answer that is not retried: the record's result, or the end of the target. */
  function settle<T>(answer: HttpAnswer, method: Method, route: string, payload: unknown, lostAttempt: string | undefined): ApiResult<T> {
    const policy = statusPolicy(answer.status);
    if (policy === 'refused') {
      refused = { message: `the service refused the token (${answer.status}): check the token/profile (${host})`, status: answer.status };
      throw new TokenRefusedError(refused.message, refused.status);
    }
    if (policy === 'target') {
      // A 5xx: the service may have applied the request before it failed.
      throw new TransientTargetError(`${host}: ${method} ${route} failed: ${describeStatus(answer.status)} (${answer.status})${serverSays(answer)}`);
    }
    return toResult<T>(answer, method, route, payload, lostAttempt);
  }

  function serverSays(answer: HttpAnswer): string {
    const envelope = readEnvelope(answer.text, answer.status);
    if (envelope) {
      const messages = errorsOf(envelope).map((problem) => problem.message);
      if (messages.length > 0) return redact(`: ${messages.join('; ')}`);
    }
    const snippet = bodySnippet(answer.text);
    return snippet === '' ? '' : redact(`: ${contentTypeOf(answer.headers)} body: ${snippet}`);
  }

  function toResult<T>(answer: HttpAnswer, method: Method, route: string, payload: unknown, lostAttempt: string | undefined): ApiResult<T> {
    const envelope = readEnvelope<T>(answer.text, answer.status);
    if (!envelope) {
      if (isEndpointMismatch(answer.status)) {
        throw new TargetError(
          `${host}: ${method} ${pathPrefix}${route} answered ${describeStatus(answer.status)} (${answer.status}) without an API envelope: ` +
            'check the base URL (it should be the address the /api/v1/integrations paths hang under)',
        );
      }
      if (answer.status >= 200 && answer.status < 300) {
        throw new TargetError(
          `${host}: ${method} ${route} answered ${answer.status} with a body that is not the API's JSON envelope ` +
            `(${contentTypeOf(answer.headers)}${answer.text.trim() === '' ? ', empty' : `: ${redact(bodySnippet(answer.text))}`}): is the base URL the integration API?`,
        );
      }
      const snippet = bodySnippet(answer.text);
      return {
        status: answer.status,
        envelope: failureEnvelope<T>(redact(`${describeStatus(answer.status)} (${answer.status})${snippet === '' ? '' : `: ${snippet}`}`)),
      };
    }
    const result: ApiResult<T> = { status: answer.status, envelope };
    if (lostAttempt !== undefined && saysAlreadyExists(method, route, payload, envelope)) {
      result.createdByLostAttempt = true;
      result.note = `already exists: possibly created by the lost first attempt, so not created again (an earlier attempt ended with: ${lostAttempt})`;
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
