/**
 * One call attempted until the service answers about the record (or refuses the target), within backoff,
 * Retry-After and the limits; remembering whether an earlier attempt may have reached it unanswered.
 */
import { AnswerLostError, InterruptedError, NeverSentTargetError, TransientTargetError } from '../system/errors.js';
import { interrupted, type Sleep } from './flow-control.js';
import { describeStatus, mayHaveReachedService, statusPolicy } from './http-status.js';
import type { HeldText } from './http-pool.js';
import { headerValue } from './envelope-reader.js';
import { formatMilliseconds } from '../formats/number-format.js';

export interface NetworkFailure {
  kind: 'network';
  error: Error;
  /** False when the request certainly never reached the server (DNS, connect or TLS failed). */
  mayHaveBeenReceived: boolean;
  /** The same failure would meet every attempt (a refused certificate, an unknown host): not retried. */
  permanent?: boolean;
}

export interface RetryLimits {
  maxAttempts: number;
  maxRetryTimeMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  retryAfterCapMs: number;
  sleep: Sleep;
  random: () => number;
  now: () => number;
}

export interface RetriedCall<T> {
  /** `METHOD path`, for the debug lines (made only when there is one to write). */
  debugLabel(): string;
  /** `host: METHOD route`, for the message when the call gives up (made only then). */
  errorLabel(): string;
  readonly signal: AbortSignal | undefined;
  readonly debug?: ((line: string) => void) | undefined;
  /** Before every attempt: throws if the client may no longer call; a promise only when it must wait. */
  beforeAttempt?(): Promise<void> | undefined;
  attempt(): Promise<HeldText | NetworkFailure>;
  /** A network failure in words (with nothing secret in it). */
  describeFailure(error: Error): string;
  /**
   * Turns an answer that is not to be retried into the call's result, or throws.
   * `lostAttempt`: why an earlier attempt may have reached the service without its answer reaching us.
   */
  settle(answer: HeldText, lostAttempt: string | undefined): T;
  /** Told before each retry's wait, with its cause: the status (`503`), `network` or `timeout`. */
  onRetry?: (cause: string) => void;
}

/**
 * Parses Retry-After (delta-seconds or an HTTP date) into ms from `nowMs`; undefined if absent,
 * unreadable, negative or a date in the past: the normal backoff applies then (a malformed
 * answer must not remove the backoff). `0` is a server's own "retry now", honoured.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // "-5" is no delta-seconds (and Date.parse would read it as a year long past).
  if (/^[-+]/.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date) || date < nowMs) return undefined;
  return date - nowMs;
}

/** Full jitter: a random wait below a ceiling that doubles per attempt, up to `backoffMaxMs`. */
function backoffDelay(limits: RetryLimits, attempt: number): number {
  const ceiling = Math.min(limits.backoffMaxMs, limits.backoffBaseMs * 2 ** (attempt - 1));
  return Math.floor(limits.random() * ceiling);
}

/** One async function for the whole call (no helper's promise between), the rate gate awaited only if it waits. */
export async function withRetries<T>(call: RetriedCall<T>, limits: RetryLimits): Promise<T> {
  const { now } = limits;
  const started = now();
  // Why an earlier attempt may have reached the service unanswered (also for an interrupt).
  let lostAttempt: string | undefined;
  // Every attempt so far certainly never reached the service: nothing was sent.
  let nothingSent = true;
  try {
    for (let attempt = 1; ; attempt += 1) {
      const waiting = call.beforeAttempt?.();
      if (waiting !== undefined) await waiting;
      const attemptStarted = now();
      if (call.signal?.aborted) throw interrupted();
      const outcome = await call.attempt();
      const ms = now() - attemptStarted;

      let retryReason: string;
      let retryAfterMs: number | undefined;
      let cause: string;
      if (outcome.kind === 'network') {
        retryReason = call.describeFailure(outcome.error);
        call.debug?.(`${call.debugLabel()} ${retryReason} ${ms}ms attempt ${attempt}`);
        if (outcome.mayHaveBeenReceived) {
          lostAttempt = retryReason;
          nothingSent = false;
        }
        cause = /timeout|within the request timeout|stalled/i.test(retryReason) ? 'timeout' : 'network';
        if (outcome.permanent === true) {
          throw new NeverSentTargetError(`${call.errorLabel()}: ${retryReason}; nothing was sent`);
        }
      } else {
        nothingSent = false;
        if (call.debug !== undefined) call.debug(`${call.debugLabel()} ${outcome.status} ${ms}ms attempt ${attempt}`);
        if (statusPolicy(outcome.status) !== 'retry') return call.settle(outcome, lostAttempt);
        cause = String(outcome.status);
        retryReason = describeStatus(outcome.status);
        retryAfterMs = parseRetryAfter(headerValue(outcome.headers, 'retry-after'), now());
        if (mayHaveReachedService(outcome.status)) lostAttempt = retryReason;
      }

      // An attempt the interrupt ended is the interrupt's, also the last one (not "failed after N attempts").
      if (call.signal?.aborted) throw interrupted();
      const elapsed = now() - started;
      const delay =
        retryAfterMs !== undefined ? Math.min(retryAfterMs, limits.retryAfterCapMs) : backoffDelay(limits, attempt);
      if (attempt >= limits.maxAttempts || elapsed + delay > limits.maxRetryTimeMs) {
        const asked =
          retryAfterMs !== undefined && elapsed + delay > limits.maxRetryTimeMs
            ? ` (the service asked to wait ${formatMilliseconds(retryAfterMs)})`
            : '';
        const failed = `${call.errorLabel()} failed after ${attempt} attempt${attempt === 1 ? '' : 's'} in ${formatMilliseconds(elapsed)}: ${retryReason}`;
        if (nothingSent) throw new NeverSentTargetError(`${failed}; nothing was sent`);
        throw new TransientTargetError(`${failed}${asked}`);
      }
      call.debug?.(`${call.debugLabel()} retrying in ${delay}ms (${retryReason})`);
      call.onRetry?.(cause);
      await limits.sleep(delay, call.signal);
    }
  } catch (error) {
    // Interrupted once an attempt may have reached the service unanswered: not "nothing was sent".
    if (error instanceof InterruptedError && !(error instanceof AnswerLostError) && lostAttempt !== undefined) {
      throw new AnswerLostError(
        `sent, but its answer was lost when the run was interrupted (${lostAttempt}): it may have been applied`,
        { cause: error },
      );
    }
    throw error;
  }
}
