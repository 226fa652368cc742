/**
 * Which proxy a request to a URL goes through, read from the environment as curl reads it (docs/remote.md,
 * "Proxies, redirects, connection failures"): never for a loopback base URL (a proxy's loopback is not ours).
 */

import { nonEmpty, type Env } from '../system/env-values.js';
import { isLoopbackHost } from './url-policy.js';

function envValue(env: Env, name: string): string | undefined {
  return nonEmpty(env[name.toLowerCase()] ?? env[name.toUpperCase()]);
}

/** The proxy URL for `target` (credentials included, for the connection only), or undefined for direct. */
export function proxyFor(target: string, env: Env): string | undefined {
  const url = new URL(target);
  const proxy = envValue(env, url.protocol === 'https:' ? 'https_proxy' : 'http_proxy');
  if (proxy === undefined) return undefined;
  if (isLoopbackHost(url.hostname) || bypassed(url, envValue(env, 'no_proxy'))) return undefined;
  // curl takes a proxy without a scheme as http://.
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`;
}

function bypassed(url: URL, noProxy: string | undefined): boolean {
  if (noProxy === undefined) return false;
  const host = url.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  const port = url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80';
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    const match = /^\[?([^\]]*?)\]?(?::(\d+))?$/.exec(entry);
    const name = (match?.[1] ?? entry).replace(/^\*?\./, '');
    const entryPort = match?.[2];
    if (entryPort !== undefined && entryPort !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}

/** A proxy URL fit to print: scheme, host and port, never a user name or password. */
export function shownProxy(proxy: string): string {
  try {
    const url = new URL(proxy);
    return `${url.protocol}//${url.host}`;
  } catch {
    return '(an unreadable proxy URL)';
  }
}

/**
 * The proxy's credentials, for the redaction gate: its password (as written and decoded) and the
 * `user:password` pair. Not the whole URL: the gate removes every 8-character piece of a secret,
 * and the proxy's host and port must stay readable in the messages that name it.
 */
export function proxySecrets(proxy: string | undefined): string[] {
  if (proxy === undefined) return [];
  try {
    const url = new URL(proxy);
    if (url.password === '') return [];
    return [url.password, decodeURIComponent(url.password), `${url.username}:${url.password}`];
  } catch {
    return [proxy];
  }
}
