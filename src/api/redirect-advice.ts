/**
 * A redirect in words: where the service points and what to set instead. examctl follows no
 * redirect (the token would go along, and a POST turned GET applies nothing), so a run and
 * `doctor` both stop at the first 3xx with these words. Pure: no undici.
 */
import { describeStatus } from './http-status.js';
import { API_PREFIX } from './url-policy.js';

/** `answered HTTP 301 to https://new/...: examctl follows no redirect ...; set --base-url to https://new`. */
export function redirectWords(status: number, location: string | undefined, requestUrl: string, redact: (text: string) => string, via = '--base-url'): string {
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
  let advice = `check ${via}`;
  if (target !== undefined) {
    // The base URL is what the API paths hang under: the Location's path up to /api/v1/integrations.
    const at = target.pathname.indexOf(API_PREFIX);
    const base = `${target.origin}${at >= 0 ? target.pathname.slice(0, at) : ''}`.replace(/\/+$/, '');
    advice = `set ${via} to ${redact(base)}`;
  }
  return `answered ${said} to ${shown}: examctl follows no redirect (the token would go along); ${advice}`;
}
