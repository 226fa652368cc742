import { createHash, timingSafeEqual } from 'node:crypto';
import { isApiTokenDigest } from '../domain/world.js';

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * The bearer token check: the SHA-256 of the presented token against every accepted one, in
 * constant time per token and without an early exit that would reveal which matched. An accepted
 * entry is a plain token or, as the store keeps them, its digest `sha256:<64 hex>`
 * (isApiTokenDigest), so the server never needs the token itself. Nothing is remembered between
 * requests: one hash a request (about 2 us) is far below a request's cost.
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
