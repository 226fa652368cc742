import { createHash, timingSafeEqual } from 'node:crypto';
import { isApiTokenDigest } from '../domain/world.js';

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * The bearer token check (docs/engine-rules.md, "API tokens"): the presented token's SHA-256
 * against every accepted one, in constant time per token and with no early exit that would
 * reveal which matched. One hash a request (about 2 us): nothing is remembered between requests.
 */
export function tokenAccepted(presented: string, accepted: readonly string[]): boolean {
  const presentedDigest = digest(presented);
  let ok = false;
  for (const token of accepted) {
    if (token === '') continue;
    const expected = isApiTokenDigest(token) ? Buffer.from(token.slice('sha256:'.length), 'hex') : digest(token);
    if (timingSafeEqual(presentedDigest, expected)) ok = true;
  }
  return ok;
}
