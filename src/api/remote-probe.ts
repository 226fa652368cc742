/**
 * `doctor`'s probe: one GET, one attempt, short timeouts, outside the retry loop, so a health check answers
 * quickly. `login`'s check of a token asks with `retries`, retried like every request.
 */
import { headerValue, readEnvelope } from './envelope-reader.js';
import { InFlight, openDispatcher, requestText, type HeldText } from './http-pool.js';
import { proxyFor, proxySecrets, shownProxy } from './proxy-env.js';
import { createRedactor } from './redaction.js';
import type { Envelope } from '../domain/envelope.js';
import {
  describeNetworkError,
  networkFailure,
  retryLimits,
  USER_AGENT,
  type RemoteClientOptions,
  type RetryOptions,
  redirectWords,
} from './remote-client.js';
import { withRetries, type NetworkFailure } from './retry-loop.js';
import { InterruptedError, messageOf } from '../system/errors.js';
import { checkToken, parseBaseUrl } from './url-policy.js';

/** What one probe request got: an answer (any status), or why none came. */
export type ProbeAnswer =
  | {
      kind: 'answered';
      path: string;
      status: number;
      envelope: Envelope<unknown> | undefined;
      date: string | undefined;
      sentAt: number;
      receivedAt: number;
      proxy?: string;
      /** A 3xx in words: where it points and the base URL to set (never followed). */
      redirect?: string;
    }
  | { kind: 'unreachable'; path: string; reason: string; proxy?: string };

type ProbeOptions = Pick<RemoteClientOptions, 'baseUrl' | 'allowInsecureHttp' | 'via' | 'signal' | 'now' | 'env'> & {
  /** Sent when given (an absent token still tells "reachable" apart); never in a reason. */
  token?: string;
  /** Retry 429, 502-504 and network failures as a run's requests are (`{}`: the same limits); absent: one attempt. */
  retries?: RetryOptions;
};

/** One GET of `path` (below the API prefix). Throws UsageError for a base URL the client would refuse. */
export async function probeRemote(options: ProbeOptions, path: string): Promise<ProbeAnswer> {
  const { origin, pathPrefix } = parseBaseUrl(options.baseUrl, options.allowInsecureHttp ?? false, options.via);
  const timeout = 10_000; // connect, headers and body
  const now = options.now ?? Date.now;
  const { token } = options;
  const fullPath = `${pathPrefix}${path}`;
  if (token !== undefined) checkToken(token);
  const proxy = proxyFor(origin, options.env ?? process.env);
  // "via proxy http://host:port": the proxy's address without its credentials.
  const via = proxy === undefined ? {} : { proxy: shownProxy(proxy) };
  const pool = openDispatcher(origin, {
    connections: 1,
    connectTimeout: timeout,
    headersTimeout: timeout,
    bodyTimeout: timeout,
    proxy,
  });
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': USER_AGENT };
  if (token !== undefined) headers.authorization = `EAPI ${token}`;
  // The same gate as a run's: a service that echoes the token must not get it printed.
  const gate = createRedactor([token, ...proxySecrets(proxy)]);
  const describe = (error: Error): string => gate.text(describeNetworkError(error));
  // The probe's one request on the wire, dropped with the signal's reason when it aborts.
  const inFlight = new InFlight(timeout);
  const abandon = (): void =>
    inFlight.abandon(options.signal?.reason instanceof Error ? options.signal.reason : new Error('request abandoned'));
  if (options.signal?.aborted === true) abandon();
  options.signal?.addEventListener('abort', abandon, { once: true });
  let sentAt = now();
  const attempt = async (): Promise<HeldText | NetworkFailure> => {
    sentAt = now();
    try {
      // The answer as read (an HeldText itself), not copied.
      return await requestText(
        pool,
        { origin, method: 'GET', path: fullPath, headers },
        { inFlight, maxBytes: 16 * 1024 * 1024 },
      );
    } catch (error) {
      return networkFailure(error);
    }
  };
  try {
    let response: HeldText;
    if (options.retries === undefined) {
      const once = await attempt();
      if (once.kind === 'network') return { kind: 'unreachable', path: fullPath, reason: describe(once.error), ...via };
      response = once;
    } else {
      try {
        response = await withRetries(
          {
            debugLabel: () => `GET ${fullPath}`,
            errorLabel: () => `${origin}: GET ${path}`,
            signal: options.signal,
            attempt,
            describeFailure: describe,
            settle: (answer) => answer,
          },
          retryLimits({ now, ...options.retries }),
        );
      } catch (error) {
        if (error instanceof InterruptedError) throw error;
        return { kind: 'unreachable', path: fullPath, reason: gate.text(messageOf(error)), ...via };
      }
    }
    const receivedAt = now();
    const envelope = readEnvelope<unknown>(response.text, response.status);
    const status = response.status;
    const redirect =
      status >= 300 && status < 400
        ? {
            redirect: redirectWords(
              status,
              headerValue(response.headers, 'location'),
              `${origin}${fullPath}`,
              gate.text,
              options.via,
            ),
          }
        : {};
    return {
      kind: 'answered',
      path: fullPath,
      status,
      envelope: envelope === undefined ? undefined : gate.deep(envelope),
      date: headerValue(response.headers, 'date'),
      sentAt,
      receivedAt,
      ...via,
      ...redirect,
    };
  } finally {
    options.signal?.removeEventListener('abort', abandon);
    await pool.close();
  }
}
