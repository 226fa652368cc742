/**
 * `doctor`'s probe: one GET, one attempt, short timeouts, outside the client's retry loop and
 * flow control, so a health check answers quickly instead of retrying like a run.
 */
import { headerValue, readEnvelope } from './envelope-reader.js';
import { openDispatcher, requestText } from './http-pool.js';
import { proxyFor, proxySecrets, shownProxy, type ProxyEnv } from './proxy-env.js';
import { createRedactor } from './redaction.js';
import { redirectWords } from './redirect-advice.js';
import type { Envelope } from '../domain/envelope.js';
import { describeNetworkError, USER_AGENT } from './remote-client.js';
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

export interface ProbeOptions {
  baseUrl: string;
  /** Sent when given (an absent token still tells "reachable" apart); never in a reason. */
  token?: string;
  allowInsecureHttp?: boolean;
  /** Connect, headers and body timeout (ms). Default 10 000. */
  timeoutMs?: number;
  signal?: AbortSignal;
  now?: () => number;
  /** Where HTTPS_PROXY/HTTP_PROXY/NO_PROXY are read. Default process.env. */
  env?: ProxyEnv;
}

/**
 * One GET of `path` (below the API prefix), one attempt, short timeouts, no retry, no rate
 * limit: `doctor` answers quickly instead of retrying like a run. Throws UsageError for a base
 * URL the client would refuse.
 */
export async function probeRemote(options: ProbeOptions, path: string): Promise<ProbeAnswer> {
  const { origin, pathPrefix } = parseBaseUrl(options.baseUrl, options.allowInsecureHttp ?? false);
  const timeout = options.timeoutMs ?? 10_000;
  const now = options.now ?? Date.now;
  const { token } = options;
  const fullPath = `${pathPrefix}${path}`;
  if (token !== undefined) checkToken(token);
  const proxy = proxyFor(origin, options.env ?? process.env);
  // "via proxy http://host:port": the proxy's address without its credentials.
  const via = proxy === undefined ? {} : { proxy: shownProxy(proxy) };
  const pool = openDispatcher(origin, { connections: 1, connectTimeout: timeout, headersTimeout: timeout, bodyTimeout: timeout, proxy });
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': USER_AGENT };
  if (token !== undefined) headers.authorization = `EAPI ${token}`;
  // The same gate as a run's: a service that echoes the token must not get it printed.
  const gate = createRedactor([token, ...proxySecrets(proxy)]);
  try {
    const sentAt = now();
    let response;
    try {
      response = await requestText(
        pool,
        { origin, method: 'GET', path: fullPath, headers },
        { deadlineMs: timeout, maxBytes: 16 * 1024 * 1024, ...(options.signal ? { abandon: options.signal } : {}) },
      );
    } catch (error) {
      return { kind: 'unreachable', path: fullPath, reason: gate.text(error instanceof Error ? describeNetworkError(error) : String(error)), ...via };
    }
    const receivedAt = now();
    const envelope = readEnvelope<unknown>(response.text, response.statusCode);
    const status = response.statusCode;
    const redirect = status >= 300 && status < 400 ? { redirect: redirectWords(status, headerValue(response.headers, 'location'), `${origin}${fullPath}`, gate.text) } : {};
    return {
      kind: 'answered',
      path: fullPath,
      status: response.statusCode,
      envelope: envelope === undefined ? undefined : gate.deep(envelope),
      date: headerValue(response.headers, 'date'),
      sentAt,
      receivedAt,
      ...via,
      ...redirect,
    };
  } finally {
    await pool.close();
  }
}
