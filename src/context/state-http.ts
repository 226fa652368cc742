/**
 * A state service's exchanges, one bounded request at a time (docs/sync.md, "A state service"); every text it sends
 * passes the redaction gate before any sink sees it.
 */
import { redactUrl } from '../domain/problem.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { proxyFor, proxySecrets } from '../api/proxy-env.js';
import { checkHttpScheme, isLoopbackHost, secretFreeUrl } from '../api/url-policy.js';
import { createRedactor } from '../api/redaction.js';
import { TargetError, UsageError } from '../system/errors.js';
import { nonEmpty, requestTimeoutFromEnv, type Env } from '../system/env-values.js';
import { formatBytes, formatMilliseconds } from '../formats/number-format.js';

/** The largest answer read from a state service (a memory of 200,000 users is ~60 MB). */
export const MAX_STATE_BYTES = 256 * 1024 * 1024;
/** One exchange, headers and whole body, within the request timeout, as the platform's (EXAMCTL_REQUEST_TIMEOUT_MS). */
const DEFAULT_EXCHANGE_MS = 60_000;
const CONNECT_TIMEOUT_MS = 10_000;
const ATTEMPTS = 3;

/** `--sync-dir`, else a non-blank EXAMCTL_SYNC_DIR; undefined: the default beside the runs directory (docs/sync.md). */
export function givenSyncDir(flag: unknown, env: Env): string | undefined {
  return syncDirSetting(flag, env)?.value;
}

/** givenSyncDir's value with what gave it, as a run's settings line names each setting's source. */
export function syncDirSetting(
  flag: unknown,
  env: Env,
): { value: string; from: '--sync-dir' | 'EXAMCTL_SYNC_DIR' } | undefined {
  const fromFlag = typeof flag === 'string' && flag.trim() !== '';
  const given = fromFlag ? flag : env.EXAMCTL_SYNC_DIR;
  if (given === undefined || given.trim() === '') return undefined;
  const from = fromFlag ? '--sync-dir' : 'EXAMCTL_SYNC_DIR';
  // Any other `scheme://` (ftp://, a typo such as htps://) would be taken as a relative folder
  // named `ftp:`: refused. One letter before `:` is a Windows drive, not a scheme.
  const scheme = /^\s*([a-z][a-z0-9+.-]+):\/\//i.exec(given)?.[1];
  if (scheme !== undefined && !isStateAddress(given)) {
    throw new UsageError(
      `${from} ${redactUrl(given)}: ${scheme}:// is not an address examctl reads a sync memory from: give a directory, or a state service's http:// or https:// address`,
    );
  }
  return { value: given, from };
}

/** Whether --sync-dir / EXAMCTL_SYNC_DIR names a state service rather than a directory. */
export function isStateAddress(value: string): boolean {
  return /^https?:\/\//i.test(value.trim());
}

/** An answer of the state service, its text already through the redaction gate. */
export interface StateAnswer {
  status: number;
  text: string;
  location: string | undefined;
}

/** The state service at one address: its exchanges, and the words to name it by. */
export interface StateHttp {
  /** The address as given (no credentials can be in it: refused). */
  readonly address: string;
  exchange(method: string, url: string, body?: { text: string; type: string; md5?: string }): Promise<StateAnswer>;
  close(): Promise<void>;
}

/**
 * An address of the state service: http(s), plain http only to this machine, no user name, password, query or
 * fragment (credentials come from the environment; a query could carry a secret into the run journal).
 */
export function checkStateAddress(address: string, what: string): URL {
  const url = secretFreeUrl(address, what, 'give them with EXAMCTL_SYNC_USERNAME and EXAMCTL_SYNC_PASSWORD', '');
  checkHttpScheme(url, what);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(
      `${what}: refusing plain http:// to ${url.hostname}: the sync memory (names, links) and the credentials would cross the network in clear text; use https://`,
    );
  }
  return url;
}

export function openStateHttp(address: string, env: Env): StateHttp {
  checkStateAddress(address, 'the sync memory address');
  const username = nonEmpty(env.EXAMCTL_SYNC_USERNAME);
  const password = env.EXAMCTL_SYNC_PASSWORD ?? '';
  if (username === undefined && password !== '')
    throw new UsageError(
      'EXAMCTL_SYNC_PASSWORD is set without EXAMCTL_SYNC_USERNAME: give both for basic authentication',
    );
  if (username?.includes(':') === true)
    throw new UsageError('EXAMCTL_SYNC_USERNAME must not contain ":" (basic authentication)');
  const basic = username === undefined ? undefined : Buffer.from(`${username}:${password}`, 'utf8').toString('base64');
  const deadlineMs = requestTimeoutFromEnv(env) ?? DEFAULT_EXCHANGE_MS;
  const dispatchers = new Map<string, { dispatcher: Dispatcher; proxy: string | undefined }>();
  const secrets = password === '' ? [] : [password, basic];
  const proxySecretsSeen = new Set<string>();
  let shown = createRedactor(secrets);

  const dispatcherFor = (url: URL, { openDispatcher }: HttpClient): Dispatcher => {
    let known = dispatchers.get(url.origin);
    if (known === undefined) {
      const proxy = proxyFor(url.href, env);
      // Direct, the exchange's deadline is the one clock; through a proxy undici's also bound the answer to CONNECT.
      const undiciMs = proxy === undefined ? 0 : deadlineMs;
      const dispatcher = openDispatcher(url.origin, {
        connections: 1,
        connectTimeout: Math.min(CONNECT_TIMEOUT_MS, deadlineMs),
        headersTimeout: undiciMs,
        bodyTimeout: undiciMs,
        proxy,
      });
      known = { dispatcher, proxy };
      dispatchers.set(url.origin, known);
      // A proxy's password is kept out of every message too.
      const added = proxySecrets(proxy).filter((secret) => !proxySecretsSeen.has(secret));
      if (added.length > 0) {
        for (const secret of added) proxySecretsSeen.add(secret);
        shown = createRedactor([...secrets, ...proxySecretsSeen]);
      }
    }
    return known.dispatcher;
  };

  const once = async (
    method: string,
    url: URL,
    body: { text: string; type: string; md5?: string } | undefined,
  ): Promise<StateAnswer> => {
    const http = await httpClient();
    const headers: Record<string, string> = { 'user-agent': http.USER_AGENT, accept: 'application/json' };
    if (basic !== undefined) headers.authorization = `Basic ${basic}`;
    if (body !== undefined) {
      headers['content-type'] = body.type;
      if (body.md5 !== undefined) headers['content-md5'] = body.md5;
    }
    const answer = await http.requestText(
      dispatcherFor(url, http),
      {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: method as Dispatcher.HttpMethod,
        headers,
        ...(body === undefined ? {} : { body: body.text }),
      },
      { maxBytes: MAX_STATE_BYTES, inFlight: new http.InFlight(deadlineMs) },
    );
    const text = answer.text;
    answer.release();
    const location = answer.headers.location;
    return {
      status: answer.status,
      text: shown.text(text),
      location: typeof location === 'string' ? shown.text(location) : undefined,
    };
  };

  return {
    address,
    async exchange(method, where, body) {
      const url = new URL(where);
      for (let attempt = 1; ; attempt++) {
        let answer: StateAnswer;
        try {
          answer = await once(method, url, body);
        } catch (error) {
          const http = await httpClient();
          if (error instanceof http.ResponseTooLargeError) {
            throw new TargetError(
              `the state service at ${where} answered ${method} with more than ${formatBytes(MAX_STATE_BYTES)}: not read`,
            );
          }
          // An answer dripping past the timeout is never tried again: a retry would hold the run and its lock as long.
          if (pastDeadline(error, http)) {
            throw new TargetError(
              `the state service at ${where} did not answer ${method} whole within the request timeout (${formatMilliseconds(deadlineMs)}, EXAMCTL_REQUEST_TIMEOUT_MS): not tried again`,
            );
          }
          if (attempt < ATTEMPTS) {
            await sleep(250 * attempt);
            continue;
          }
          const words = error instanceof Error ? http.describeNetworkError(error) : String(error);
          throw new TargetError(
            `the state service at ${where} could not be reached (${method}, ${ATTEMPTS} attempts): ${shown.text(words)}`,
          );
        }
        if ((answer.status >= 500 || answer.status === 429) && attempt < ATTEMPTS) {
          await sleep(250 * attempt);
          continue;
        }
        if (answer.status >= 300 && answer.status < 400) {
          throw new TargetError(
            `the state service at ${where} answered ${method} with a redirect (${answer.status}${answer.location === undefined ? '' : ` to ${answer.location}`}): not followed, ` +
              "so the credentials go nowhere else; check with the service's owner before giving another address",
          );
        }
        return answer;
      }
    },
    async close() {
      for (const { dispatcher } of dispatchers.values()) await dispatcher.close().catch(() => undefined);
      dispatchers.clear();
    },
  };
}

/** The request timeout ran out (examctl's deadline, or undici's through a proxy), before or after the status line. */
function pastDeadline(error: unknown, { AttemptDeadlineError, ResponseCutError, undiciErrors }: HttpClient): boolean {
  const reason = error instanceof ResponseCutError ? error.reason : error;
  return (
    reason instanceof AttemptDeadlineError ||
    reason instanceof undiciErrors.HeadersTimeoutError ||
    reason instanceof undiciErrors.BodyTimeoutError
  );
}

/** undici (~0.5 MB of script), loaded on the first exchange: a run without a state service never compiles it. */
const httpClient = async () => ({
  ...(await import('../api/http-pool.js')),
  ...(await import('../api/remote-client.js')),
});
type HttpClient = Awaited<ReturnType<typeof httpClient>>;
