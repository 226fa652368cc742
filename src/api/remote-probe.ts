/**
 * `doctor`'s probe: one GET, one attempt, short timeouts, outside the client's retry loop and
 * flow control, so a health check answers quickly instead of retrying like a run.
 */
import { headerValue, readEnvelope } from './envelope-reader.js';
import { Pool, request } from './http-pool.js';
import type { Envelope } from '../domain/envelope.js';
import { describeNetworkError, USER_AGENT } from './remote-client.js';
import { parseBaseUrl } from './url-policy.js';

/** What one probe request got: an answer (any status), or why none came. */
export type ProbeAnswer =
  | { kind: 'answered'; path: string; status: number; envelope: Envelope<unknown> | undefined; date: string | undefined; sentAt: number; receivedAt: number }
  | { kind: 'unreachable'; path: string; reason: string };

export interface ProbeOptions {
  baseUrl: string;
  /** Sent when given (an absent token still tells "reachable" apart); never in a reason. */
  token?: string;
  allowInsecureHttp?: boolean;
  /** Connect, headers and body timeout (ms). Default 10 000. */
  timeoutMs?: number;
  signal?: AbortSignal;
  now?: () => number;
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
  const pool = new Pool(origin, { connections: 1, connectTimeout: timeout, headersTimeout: timeout, bodyTimeout: timeout });
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': USER_AGENT };
  if (token !== undefined) headers.authorization = `EAPI ${token}`;
  const redact = (text: string): string => (token === undefined ? text : text.split(token).join('[redacted]'));
  try {
    const sentAt = now();
    let response;
    try {
      response = await request(pool, { method: 'GET', path: fullPath, headers, signal: options.signal });
    } catch (error) {
      return { kind: 'unreachable', path: fullPath, reason: redact(error instanceof Error ? describeNetworkError(error) : String(error)) };
    }
    // A service that echoes the token in an error message must not get it printed.
    const text = redact(await response.body.text());
    const receivedAt = now();
    return {
      kind: 'answered',
      path: fullPath,
      status: response.statusCode,
      envelope: readEnvelope<unknown>(text, response.statusCode),
      date: headerValue(response.headers, 'date'),
      sentAt,
      receivedAt,
    };
  } finally {
    await pool.close();
  }
}
