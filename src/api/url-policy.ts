/** Which base URLs examctl will send a token to; apart from the HTTP client, so checking loads no undici. */
import { quotedValue, redactUrl } from '../domain/problem.js';
import { createRequire } from 'node:module';
import { UsageError } from '../system/errors.js';

export const API_PREFIX = '/api/v1/integrations';

interface BaseUrl {
  origin: string;
  /** The base URL's own path followed by API_PREFIX: what every request path starts with. */
  pathPrefix: string;
  host: string;
}

/** Parses and checks a base URL: http(s) only, no credentials, plain http only to loopback unless allowed. */
export function parseBaseUrl(baseUrl: string, allowInsecureHttp = false, via = '--base-url'): BaseUrl {
  const url = secretFreeUrl(baseUrl, via);
  checkHttpScheme(url, via);
  if (url.protocol === 'http:' && !allowInsecureHttp && !isLoopbackHost(url.hostname)) {
    throw new UsageError(
      `${via}: refusing plain http:// to ${url.hostname}: the token would cross the network in clear text. ` +
        'Use https://, or pass --allow-insecure-http if this network is trusted.',
    );
  }
  const ownPath = url.pathname.replace(/\/+$/, '');
  // The API's path given with the base URL would be sent twice: every answer a 404 that reads
  // like a wrong token or a wrong service, so it is refused before any request.
  if (ownPath.toLowerCase().endsWith(API_PREFIX)) {
    const root = url.origin + ownPath.slice(0, -API_PREFIX.length);
    throw new UsageError(
      `${via}: the path ends with ${API_PREFIX}, the API's own path, which examctl adds to every request; give the service's root: ${root}`,
    );
  }
  const pathPrefix = ownPath + API_PREFIX;
  return { origin: url.origin, pathPrefix, host: url.host };
}

/**
 * The address, refused when it is none or holds a user name, password, query or fragment: where
 * a run takes it (settings.ts), before any line shows it or a journal or sync memory keeps it.
 * `credentials`: where they go instead; `example`: after a text that is no URL.
 */
export function secretFreeUrl(
  address: string,
  via: string,
  credentials = 'give the token with EXAMCTL_TOKEN, --token-file or a profile',
  example = ' (expected e.g. https://exam.example.com)',
): URL {
  if (!URL.canParse(address.trim())) {
    throw new UsageError(`${via}: not a valid URL: ${quotedValue(redactUrl(address))}${example}`);
  }
  const url = new URL(address.trim());
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(`${via}: must not contain a user name or password; ${credentials}`);
  }
  // Even empty (`http://h/?`): no line would show it.
  if (/[?#]/.test(url.href)) {
    throw new UsageError(`${via}: must not contain a query string or fragment`);
  }
  return url;
}

/** http(s) only: `url`'s scheme, else refused. */
export function checkHttpScheme(url: URL, via: string): void {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`${via}: unsupported scheme ${url.protocol} (use https://)`);
  }
}

/** 127.x.y.z in plain dotted decimal, the form a URL's hostname always has. */
const DOTTED_LOOPBACK = /^127\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/;

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (host === 'localhost' || host === '::1') return true;
  // The usual loopback addresses answered without ipaddr.js, which every run would otherwise
  // load and compile at start-up (an https base URL never asks).
  const dotted = DOTTED_LOOPBACK.exec(host);
  if (dotted !== null && dotted.slice(1).every((part) => Number(part) <= 255)) return true;
  const ipaddr = createRequire(import.meta.url)('ipaddr.js') as typeof import('ipaddr.js');
  if (!ipaddr.isValid(host)) return false;
  return ipaddr.process(host).range() === 'loopback';
}

/**
 * A token goes in one header line as visible ASCII: empty, multi-line tokens or any other
 * character (`€`, a control character) are refused before any request, without echoing it
 * (undici would refuse the header and the run would retry it as a network failure).
 */
export function checkToken(token: string): void {
  if (token.trim() === '' || /[\r\n]/.test(token)) {
    throw new UsageError('the token is empty or spans several lines; check EXAMCTL_TOKEN, --token-file or the profile');
  }
  const bad = /[^\x21-\x7e]/.exec(token.trim());
  if (bad !== null) {
    throw new UsageError(
      `the token holds a character outside visible ASCII (at position ${bad.index + 1}, not shown); ` +
        'check EXAMCTL_TOKEN, --token-file or the profile (a copy from a document may have added one)',
    );
  }
}

/**
 * `id` as one segment of a request's path: every id the remote client puts in a path passes here. `.` and `..`
 * are steps in a path to every URL normaliser on the way (a proxy, a gateway, WHATWG URL), and so are their
 * percent-encoded forms (`%2E%2E`, RFC 3986 6.2.2.2): no encoding keeps them an id, and the request, token
 * included, would reach another route. No id of the API is such a step: refused.
 */
export function pathSegment(id: string, what: string): string {
  if (id === '.' || id === '..')
    throw new UsageError(
      `${what} "${id}" cannot be sent in a URL path (a proxy would read it as a step to another path): nothing was sent`,
    );
  return encodeURIComponent(id);
}
