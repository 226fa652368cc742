/**
 * The one place where an HTTP status of the integration API is given a meaning for the remote
 * client (docs/remote.md, "What each answer means"). Everything else asks `statusPolicy`.
 */
type StatusPolicy = 'result' | 'refused' | 'retry' | 'target';

const RETRYABLE = new Set([429, 502, 503, 504]);

export function statusPolicy(status: number): StatusPolicy {
  if (status === 401 || status === 403) return 'refused';
  if (RETRYABLE.has(status)) return 'retry';
  // 404/405 mean the base URL or API version is wrong when the body is not an envelope; the
  // client decides with the body in hand (see `isEnvelopeLike`), so they start as results.
  if (status >= 200 && status < 500) return 'result';
  return 'target';
}

/** Statuses that, without a JSON envelope, say the endpoint is wrong (not the record): a TargetError. */
export function isEndpointMismatch(status: number): boolean {
  return status === 404 || status === 405 || status === 406 || status === 415;
}

/**
 * A retryable status from a gateway that may already have forwarded the request: a retried
 * POST can then meet the entity its lost attempt created.
 */
export function mayHaveReachedService(status: number): boolean {
  return status === 502 || status === 504;
}

/** A status in words with its code: `service unavailable (503)`; one without a phrase `HTTP 302`. */
export function describeStatus(status: number): string {
  const phrase = STATUS_PHRASES[status];
  return phrase === undefined ? `HTTP ${status}` : `${phrase} (${status})`;
}

const STATUS_PHRASES: Readonly<Partial<Record<number, string>>> = {
  400: 'bad request',
  401: 'unauthorized',
  403: 'the service refused the token',
  404: 'not found',
  405: 'method not allowed',
  413: 'request too large',
  415: 'unsupported media type',
  429: 'too many requests',
  500: 'internal server error',
  502: 'bad gateway',
  503: 'service unavailable',
  504: 'gateway timeout',
};
