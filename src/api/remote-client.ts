/** The remote target (docs/remote.md). */
import { EXAMCTL_VERSION } from '../version.js';
import type {
  CollectionRequest,
  CollectionResponseContent,
  InvigilatorsResponseContent,
  ReviewSession,
  ScheduleRequest,
  UserRequest,
} from '../domain/types.js';
import type { UserResponseContent } from '../domain/user.js';
import {
  AnswerUnreadableError,
  messageOf,
  NeverSentTargetError,
  TargetError,
  TokenRefusedError,
  TransientTargetError,
} from '../system/errors.js';
import { describeSystemError, systemErrorCode } from '../system/system-error-words.js';
import { saysAlreadyExists } from './already-exists.js';
import { errorsOf } from './envelope-errors.js';
import {
  bodySnippet,
  contentTypeOf,
  failureEnvelope,
  headerValue,
  readEnvelope,
  saidSuccess,
  undecodableBody,
  type ResponseHeaders,
} from './envelope-reader.js';
import { Limiter, RateGate, abortableSleep, interrupted, type Sleep } from './flow-control.js';
import {
  AttemptDeadlineError,
  ByteBudget,
  InFlight,
  ProxyTunnelError,
  ResponseBudgetError,
  ResponseCutError,
  ResponseTooLargeError,
  openDispatcher,
  requestText,
  undiciErrors,
  type HeldText,
} from './http-pool.js';
import { proxyFor, proxySecrets, shownProxy } from './proxy-env.js';
import type { Env } from '../system/env-values.js';
import { createRedactor, withRecordSecrets, type Redactor } from './redaction.js';
import { describeStatus, isEndpointMismatch, statusPolicy } from './http-status.js';
import {
  servedStoreHead,
  type ApiResult,
  type CallOptions,
  type IntegrationApi,
  type PlannedAction,
  type RetryCounts,
} from '../port/integration-api.js';
import { isHead } from '../domain/store-head.js';
import { withRetries, type NetworkFailure, type RetriedCall, type RetryLimits } from './retry-loop.js';
import { checkToken, parseBaseUrl, pathSegment, API_PREFIX } from './url-policy.js';
import { REMOTE_CONCURRENCY } from '../defaults.js';
import { formatBytes, formatMilliseconds } from '../formats/number-format.js';

export interface RemoteClientOptions {
  /** The service's {base_url}; requests go to `{baseUrl}/api/v1/integrations/...`. */
  baseUrl: string;
  /** The EAPI token. Sent only in the Authorization header; never in messages or debug lines. */
  token: string;
  /** Told of an answer with `local serve`'s header `x-examctl-store`: `storeHead` answers. */
  onStoreSaid?: () => void;
  /** Requests in flight at once (and pooled keep-alive connections). Default 8. */
  concurrency?: number;
  /** In flight once an answer says the server is `local serve` (`x-examctl-store`); none: `concurrency`. */
  servedConcurrency?: number;
  /** Request starts per minute, retries included. Default: unlimited. */
  rate?: number;
  /** The whole attempt, headers and body, however slowly they come (ms). Default 60 000. */
  requestTimeoutMs?: number;
  /** A response body larger than this fails the attempt (bytes). Default 64 MiB. */
  maxResponseBytes?: number;
  /** Bytes of answers held at once by all requests together (an answer counts twice while decoded). Default 96 MiB. */
  responseBudgetBytes?: number;
  /** After `signal` aborts, how long requests on the wire may answer (ms), then abandoned. Default 10 000. */
  interruptGraceMs?: number;
  /** Where HTTPS_PROXY/HTTP_PROXY/NO_PROXY are read (`proxy-env.ts`). Default process.env. */
  env?: Env;
  /** Attempts per call, the first included. Default 5. */
  maxAttempts?: number;
  /** No retry is started once this much time has passed since the call began (ms). Default 120 000. */
  maxRetryTimeMs?: number;
  /** First backoff ceiling (ms), doubled per attempt up to 30 s, full jitter. Default 500. */
  backoffBaseMs?: number;
  /** Longest Retry-After honoured (ms); longer waits are cut to this. Default 60 000. */
  retryAfterCapMs?: number;
  /** Permit plain http:// to a host other than loopback. */
  allowInsecureHttp?: boolean;
  /** Where the base URL came from: `EXAMCTL_BASE_URL`. */
  via?: string;
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

/** The answer of `GET /examctl/store` that did not come from `local serve` (StoreCall): compared by identity. */
const NOT_SERVED: ApiResult<never> = { status: 0, envelope: { Success: false, Content: null, Errors: null } };

/** Far above any answer of the API (a review session of thousands of results is a few MiB). */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** All answers held at once, whatever --concurrency (peak RSS: bench/README.md, "remote"). */
export const DEFAULT_RESPONSE_BUDGET_BYTES = 96 * 1024 * 1024;
export const DEFAULT_INTERRUPT_GRACE_MS = 10_000;

/** Failures before any byte of the request could reach the service. */
const NEVER_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Why a 2xx answer was not kept, in words; undefined when the attempt failed otherwise (retried). */
export function unreadAnswer(error: unknown, method: Method = 'POST'): string | undefined {
  if (
    !(
      error instanceof ResponseTooLargeError ||
      error instanceof ResponseBudgetError ||
      error instanceof ResponseCutError
    )
  )
    return undefined;
  if (error.status < 200 || error.status >= 300) return undefined;
  const why =
    error instanceof ResponseTooLargeError
      ? `was too large to read (${error.declaredBytes === undefined ? `over ${formatBytes(error.maxBytes)}` : formatBytes(error.declaredBytes)})`
      : error instanceof ResponseBudgetError
        ? `could not be held (the answers in flight together passed ${formatBytes(error.limit)})`
        : `was cut short (${describeCut(error.reason)})`;
  return `the service answered ${error.status} but its answer ${why}: ${method === 'GET' ? 'a read, so nothing was changed; run it again' : 'not retried'}`;
}

/** What ended a 2xx answer early, in words: the request timeout, or the connection's end (its code). */
function describeCut(reason: Error): string {
  if (reason instanceof AttemptDeadlineError) return reason.message;
  const code = systemErrorCode(reason);
  return `the connection ended before the whole answer came${code === undefined ? '' : `: ${code}`}`;
}

/** A JSON value read member by member (`?.`): a member of a string, a number or null is undefined. */
type Members = { readonly [key: string]: Members } | null | undefined;

/** A 2xx naming another id than sent (docs/remote.md, "What each answer means"). */
function otherIdNamed(route: string, request: Members, content: Members): string | undefined {
  const sent: unknown = route === '/schedule' ? request?.Schedule?.ScheduleExtId : request?.ExternalId;
  const named: unknown = route === '/schedule' ? content : (route === '/user' ? content?.User : content)?.ExternalId;
  if (typeof sent !== 'string' || typeof named !== 'string' || !sent || !named) return undefined;
  // Ignoring case: a service may fold an id's case.
  return sent.toLowerCase() === named.toLowerCase()
    ? undefined
    : `the service answered for ${named.slice(0, 100)}, not ${sent}`;
}

/** What `local serve`'s engine did, from its header `x-examctl-action` (only on a served store's answer). */
function servedAction(headers: ResponseHeaders): PlannedAction | undefined {
  if (headerValue(headers, 'x-examctl-store') === undefined) return undefined;
  const said = headerValue(headers, 'x-examctl-action');
  return said === 'created' || said === 'updated' || said === 'unchanged' ? said : undefined;
}

/** A network failure in plain words with its fix, the code kept in parentheses (system-error-words.ts). */
export function describeNetworkError(error: Error): string {
  if (error instanceof AttemptDeadlineError || error instanceof ProxyTunnelError) return error.message;
  if (error instanceof undiciErrors.HeadersTimeoutError) return 'no response within the request timeout';
  if (error instanceof undiciErrors.BodyTimeoutError) return 'response body stalled past the request timeout';
  return describeSystemError(error);
}

/** How a call is retried: attempts, time, backoff, Retry-After's cap, and the test seams. */
export type RetryOptions = Pick<
  RemoteClientOptions,
  'maxAttempts' | 'maxRetryTimeMs' | 'backoffBaseMs' | 'retryAfterCapMs' | 'sleep' | 'random' | 'now'
>;

/** The limits every request is retried within (docs/remote.md, "Limits, timeouts, retries"), each one overridable. */
export function retryLimits(options: RetryOptions): RetryLimits {
  return {
    maxAttempts: Math.max(1, Math.floor(options.maxAttempts ?? 5)),
    maxRetryTimeMs: options.maxRetryTimeMs ?? 120_000,
    backoffBaseMs: options.backoffBaseMs ?? 500,
    backoffMaxMs: 30_000,
    retryAfterCapMs: options.retryAfterCapMs ?? 60_000,
    sleep: options.sleep ?? abortableSleep,
    random: options.random ?? Math.random,
    now: options.now ?? Date.now,
  };
}

/** A failed attempt for the retry loop: may it have reached the service, could another attempt help. */
export function networkFailure(error: unknown): NetworkFailure {
  const err = error instanceof Error ? error : new Error(String(error));
  if (err instanceof ProxyTunnelError)
    return { kind: 'network', error: err, mayHaveBeenReceived: false, permanent: err.permanent };
  const code = systemErrorCode(err);
  // A TLS certificate refusal: the same at every attempt, so never retried.
  const certificate = code !== undefined && /CERT|SELF_SIGNED|^ERR_TLS_|^UNABLE_TO_/.test(code);
  return {
    kind: 'network',
    error: err,
    mayHaveBeenReceived: !certificate && !NEVER_SENT_CODES.has(code ?? ''),
    permanent: certificate || code === 'ENOTFOUND',
  };
}

export function createRemoteClient(options: RemoteClientOptions): IntegrationApi {
  const { origin, pathPrefix, host } = parseBaseUrl(options.baseUrl, options.allowInsecureHttp ?? false, options.via);
  checkToken(options.token);
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? REMOTE_CONCURRENCY));
  const requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const limits = retryLimits(options);
  const { sleep, now } = limits;

  const proxy = proxyFor(origin, options.env ?? process.env);
  // Direct, the whole-attempt deadline (`inFlight`) bounds it: undici's timers would be a second clock
  // (0.7 us a call). Through a proxy they stay: they bound the CONNECT answer, which no attempt owns.
  const undiciTimeoutMs = proxy === undefined ? 0 : requestTimeoutMs;
  const pool = openDispatcher(origin, {
    connections: Math.max(concurrency, options.servedConcurrency ?? 0),
    connectTimeout: 10_000,
    headersTimeout: undiciTimeoutMs,
    bodyTimeout: undiciTimeoutMs,
    proxy,
  });
  const budget = new ByteBudget(options.responseBudgetBytes ?? DEFAULT_RESPONSE_BUDGET_BYTES);
  // An answer is held twice while decoded (its bytes and its text): one larger than half the
  // budget could never be read, and is refused for its size, not for the other answers.
  const maxAnswerBytes = Math.min(maxResponseBytes, Math.floor(budget.limit / 2));
  // On an interrupt, requests on the wire get a grace, then are abandoned (see Call.attempt).
  const inFlight = new InFlight(requestTimeoutMs);
  const graceMs = options.interruptGraceMs ?? DEFAULT_INTERRUPT_GRACE_MS;
  const graceEnded = new Error(`no whole answer within the ${formatMilliseconds(graceMs)} grace after the interrupt`);
  let graceTimer: NodeJS.Timeout | undefined;
  let graceOver: (() => void) | undefined;
  const abandoned = new Promise<void>((resolve) => (graceOver = resolve));
  const startGrace = (): void => {
    graceTimer ??= setTimeout(() => {
      inFlight.abandon(graceEnded);
      graceOver?.();
    }, graceMs);
    graceTimer.unref?.();
  };
  if (options.signal?.aborted) startGrace();
  else options.signal?.addEventListener('abort', startGrace, { once: true });
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
  let storeSaid = false;
  const retries: RetryCounts = { total: 0, byCause: {} };
  const redactor = createRedactor([options.token, ...proxySecrets(proxy)]);

  // The caller's signal is not handed to undici: on SIGINT a request on the wire may finish within
  // the grace (its outcome reported); only waits are cut short at once.
  const attemptLimits = { maxBytes: maxAnswerBytes, budget, inFlight };
  /** One call's attempts, hooks on the prototype (no closures); labels made only when shown. */
  class Call<T> implements RetriedCall<ApiResult<T>> {
    readonly debug = options.debug;
    constructor(
      readonly method: Method,
      readonly route: string,
      readonly path: string,
      readonly payload: unknown,
      readonly body: string | undefined,
      readonly signal: AbortSignal | undefined,
      /** The gate for this call: the client's secrets and the record's own (Password, PIN). */
      readonly gate: Redactor,
      /** Told each answer's store head (CallOptions.onHead): the one that settles the call last. */
      readonly told: CallOptions | undefined,
    ) {}

    debugLabel(): string {
      return `${this.method} ${this.path}`;
    }

    errorLabel(): string {
      // Through a proxy, a refused connection may be the proxy's: say which way it went.
      return `${host}${proxy === undefined ? '' : ` (via proxy ${shownProxy(proxy)})`}: ${this.method} ${this.route}`;
    }

    beforeAttempt(): Promise<void> | undefined {
      if (refused !== undefined) throw new TokenRefusedError(refused.message, refused.status);
      return rateGate?.wait(this.signal);
    }

    async attempt(): Promise<HeldText | NetworkFailure> {
      const { method, path } = this;
      try {
        const response = await requestText(
          pool,
          {
            origin,
            method,
            path,
            headers,
            body: this.body ?? null,
            // Retries are ours (with backoff and the lost-attempt note), never undici's.
            idempotent: false,
          },
          attemptLimits,
        );
        if (headerValue(response.headers, 'x-examctl-store') !== undefined) {
          if (!storeSaid && options.servedConcurrency !== undefined) limiter.widen(options.servedConcurrency);
          storeSaid = true;
          options.onStoreSaid?.();
        }
        // A value compared with heads recorded before, and kept: never more than a head's 22 characters.
        const head = headerValue(response.headers, 'x-examctl-store-head');
        if (isHead(head)) this.told?.onHead?.(head);
        const committed = headerValue(response.headers, 'x-examctl-commit-head');
        if (isHead(committed)) this.told?.onCommitted?.(committed);
        // A retried status's text is never read (its status and Retry-After are): not held through the backoff.
        if (statusPolicy(response.status) === 'retry') response.release();
        return response;
      } catch (error) {
        // A 2xx still coming when the grace ended is lost to the interrupt, as an unanswered request is.
        const cut = error instanceof ResponseCutError && error.reason === graceEnded ? graceEnded : error;
        const unread = unreadAnswer(cut, method);
        // A 2xx is an answer about the record: it was probably applied, so it is never sent again.
        if (unread !== undefined) throw new AnswerUnreadableError(`${host}: ${method} ${this.route}: ${unread}`);
        return networkFailure(cut);
      }
    }

    describeFailure(error: Error): string {
      // Belt and braces: no library message should carry a header value, but none may carry the token.
      return this.gate.text(describeNetworkError(error));
    }

    /** An answer that is not retried: the record's result, or the end of the target. */
    settle(answer: HeldText, lostAttempt: string | undefined): ApiResult<T> {
      const { method, route, gate } = this;
      try {
        if (answer.status >= 300 && answer.status < 400) {
          // Any 3xx: never followed, the run stops (redirectWords, below).
          const words = redirectWords(
            answer.status,
            headerValue(answer.headers, 'location'),
            `${origin}${pathPrefix}${route}`,
            gate.text,
            options.via,
          );
          throw new NeverSentTargetError(`${host}: ${method} ${route} ${words}`);
        }
        const policy = statusPolicy(answer.status);
        if (policy === 'refused') {
          refused = {
            message: `the service refused the token (${answer.status}): check the token/profile (${host})`,
            status: answer.status,
          };
          throw new TokenRefusedError(refused.message, refused.status);
        }
        // A 5xx: the service may have applied the request before it failed.
        if (policy === 'target')
          throw new TransientTargetError(
            `${host}: ${method} ${route} failed: ${describeStatus(answer.status)}${serverSays(answer, gate)}`,
          );
        return this.result(answer, lostAttempt);
      } finally {
        // Parsed (or refused): the text is no longer held.
        answer.release();
      }
    }

    /** An answer about the record: its envelope through the gate, or why it has none. */
    result(answer: HeldText, lostAttempt: string | undefined): ApiResult<T> {
      const { method, route, payload, gate } = this;
      const read = readEnvelope<T>(answer.text, answer.status);
      // The gate before any sink: every string of the answer (messages, member names, content).
      const envelope = read === undefined || !gate.mayHold(answer.text) ? read : gate.deep(read);
      if (!envelope) {
        if (isEndpointMismatch(answer.status)) {
          throw new TargetError(
            `${host}: ${method} ${pathPrefix}${route} answered ${describeStatus(answer.status)} without an API envelope: ` +
              'check the base URL (it should be the address the /api/v1/integrations paths hang under)',
          );
        }
        if (answer.status >= 200 && answer.status < 300) {
          // The server's words (its Content-Type too) through the gate; examctl's own (the host it must check) whole.
          throw new TargetError(
            `${host}: ${method} ${route} answered ${answer.status} with a body that is not the API's JSON envelope ` +
              `(${gate.text(contentTypeOf(answer.headers))}${!/\S/.test(answer.text) ? ', empty' : `: ${snippetOf(answer, gate)}`}): is the base URL the integration API?`,
          );
        }
        const snippet = snippetOf(answer, gate);
        return {
          status: answer.status,
          envelope: failureEnvelope<T>(
            gate.text(`${describeStatus(answer.status)}${snippet === '' ? '' : `: ${snippet}`}`),
          ),
        };
      }
      const result: ApiResult<T> = { status: answer.status, envelope };
      // `local serve` says what its engine did (docs/remote.md, "The local server"); the platform does not.
      const did = servedAction(answer.headers);
      if (did !== undefined) result.action = did;
      const other = envelope.Success ? otherIdNamed(route, payload as Members, envelope.Content as Members) : undefined;
      if (other !== undefined)
        Object.assign(envelope, { Success: false, Errors: [{ Code: null, Message: gate.text(other) }] });
      if (saidSuccess.has(read!) || (answer.status < 300 && !envelope.Success)) result.contradictory = true;
      if (lostAttempt !== undefined && saysAlreadyExists(route, payload, envelope)) {
        result.createdByLostAttempt = true;
        result.note = `already exists: possibly created by the lost first attempt, so not created again (an earlier attempt ended with: ${lostAttempt})`;
      }
      return result;
    }

    onRetry(cause: string): void {
      retries.total += 1;
      retries.byCause[cause] = (retries.byCause[cause] ?? 0) + 1;
    }
  }

  /**
   * `GET /examctl/store` (docs/remote.md, "The local server"): an answer without `x-examctl-store` is no served
   * store's, whatever its status or body (a gateway's 403), and refuses nothing.
   */
  class StoreCall extends Call<unknown> {
    override settle(answer: HeldText, lostAttempt: string | undefined): ApiResult<unknown> {
      if (headerValue(answer.headers, 'x-examctl-store') !== undefined) return super.settle(answer, lostAttempt);
      answer.release();
      return NOT_SERVED;
    }
  }

  async function call<T>(
    method: Method,
    route: string,
    payload: unknown,
    callOptions?: CallOptions,
    Made: new (...args: ConstructorParameters<typeof Call<T>>) => Call<T> = Call,
  ): Promise<ApiResult<T>> {
    const signal = callOptions?.signal ?? options.signal;
    if (refused !== undefined) throw new TokenRefusedError(refused.message, refused.status);
    if (closed) throw new TargetError('the remote client was closed');
    if (signal?.aborted) throw interrupted();
    const path = pathPrefix + route;
    const body = payload === undefined ? undefined : JSON.stringify(payload);
    const gate = withRecordSecrets(redactor, payload, body);

    // A free slot is taken at once, without a promise; only a call that must queue waits.
    if (!limiter.tryAcquire()) await limiter.acquire(signal);
    try {
      return await withRetries<ApiResult<T>>(
        new Made(method, route, path, payload, body, signal, gate, callOptions),
        limits,
      );
    } finally {
      limiter.release();
    }
  }

  /** The start of a body that is not an envelope, for a message; a binary one is described, not quoted. */
  function snippetOf(answer: HeldText, gate: Redactor): string {
    return undecodableBody(answer.headers, answer.text, answer.bytes, gate.text) ?? bodySnippet(answer.text, gate.text);
  }

  function serverSays(answer: HeldText, gate: Redactor): string {
    const envelope = readEnvelope(answer.text, answer.status);
    if (envelope) {
      const messages = errorsOf(gate.deep(envelope)).map((problem) => problem.message);
      if (messages.length > 0) return gate.text(`: ${messages.join('; ')}`);
    }
    const snippet = snippetOf(answer, gate);
    return snippet === '' ? '' : gate.text(`: ${contentTypeOf(answer.headers)} body: ${snippet}`);
  }

  return {
    createSchedule: (request: ScheduleRequest, callOptions?: CallOptions) =>
      call<string>('POST', '/schedule', request, callOptions),
    getReviewSession: (externalId: string, callOptions?: CallOptions) =>
      call<ReviewSession>(
        'GET',
        `/external/review-sessions/${pathSegment(externalId, 'the review session id')}`,
        undefined,
        callOptions,
      ),
    addCollection: (request: CollectionRequest, callOptions?: CallOptions) =>
      call<CollectionResponseContent>('POST', '/collections', request, callOptions),
    upsertUser: (request: UserRequest, callOptions?: CallOptions) =>
      call<UserResponseContent>('POST', '/user', request, callOptions),
    removeInvigilators: (scheduleExtId: string, userExtIds: string[], callOptions?: CallOptions) =>
      call<InvigilatorsResponseContent>(
        'DELETE',
        `/schedule/${pathSegment(scheduleExtId, 'the schedule id')}/invigilators`,
        userExtIds,
        callOptions,
      ),
    retryCounts: () => ({ total: retries.total, byCause: { ...retries.byCause } }),
    // None: not a served store (StoreCall). No answer at all (the network, a 503 retried to the end) is
    // the call's error, as for any request, and so is local serve's refusal of the token; anything
    // else local serve answers (a failure, junk) ends the run: it cannot say where its store stands.
    storeHead: (asked = []) =>
      call(
        'GET',
        `/examctl/store${asked.length === 0 ? '' : `?holds=${asked.join(',')}`}`,
        undefined,
        undefined,
        StoreCall,
      )
        .then((answer) =>
          answer === NOT_SERVED
            ? undefined
            : (servedStoreHead(answer.envelope.Content, asked) ??
              Promise.reject(new Error(`answered ${answer.status} without a store head`))),
        )
        .catch((error: unknown) =>
          Promise.reject(
            error instanceof TokenRefusedError || !storeSaid
              ? error
              : new TargetError(
                  `${host}: local serve cannot say where its store stands (${messageOf(error)}): restored or cut back under it, or locked (its log says which)`,
                ),
          ),
        ),
    async close() {
      if (closed) return;
      closed = true;
      options.signal?.removeEventListener('abort', startGrace);
      // Interrupted: what is still on the wire has its grace, then is dropped; close waits no longer.
      if (options.signal?.aborted) {
        startGrace();
        await Promise.race([pool.close(), abandoned]);
        if (graceTimer !== undefined) clearTimeout(graceTimer);
        await pool.destroy().catch(() => undefined);
        return;
      }
      if (graceTimer !== undefined) clearTimeout(graceTimer);
      await pool.close();
    },
  };
}

/**
 * `answered HTTP 301 to https://new/...: examctl follows no redirect ...; set --base-url to https://new`. None is
 * followed (the token would go along; a POST turned GET applies nothing). Whoever answered may be a proxy or
 * portal: another host or scheme is never advised.
 */
export function redirectWords(
  status: number,
  location: string | undefined,
  requestUrl: string,
  redact: (text: string) => string,
  via = '--base-url',
): string {
  const said = describeStatus(status);
  if (location === undefined || location.trim() === '') {
    return `answered a redirect ${said} without a Location; examctl follows no redirect: check ${via}`;
  }
  let target: URL | undefined;
  try {
    target = new URL(location.trim(), requestUrl);
  } catch {
    target = undefined;
  }
  const shown = redact(target?.href ?? location).slice(0, 300);
  const from = new URL(requestUrl);
  let advice = `check ${via}`;
  if (
    target !== undefined &&
    (target.hostname !== from.hostname || (target.protocol !== 'https:' && target.protocol !== from.protocol))
  ) {
    const elsewhere = target.hostname === from.hostname ? `another scheme (${target.protocol})` : 'another host';
    advice = `it points to ${elsewhere}: check with the service's owner before changing ${via}`;
  } else if (target !== undefined) {
    // The base URL is what the API paths hang under: the Location's path up to /api/v1/integrations.
    const at = target.pathname.indexOf(API_PREFIX);
    const base = `${target.origin}${at >= 0 ? target.pathname.slice(0, at) : ''}`.replace(/\/+$/, '');
    advice = `set ${via} to ${redact(base)}`;
  }
  return `answered ${said} to ${shown}: examctl follows no redirect (the token would go along); ${advice}`;
}
