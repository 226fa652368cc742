import { hash, timingSafeEqual } from 'node:crypto';
import { isApiTokenDigest } from '../domain/world.js';

/** One call, no Hash object: a request's token is hashed on every request. */
function digest(value: string): Buffer {
  return hash('sha256', value, 'buffer') as unknown as Buffer;
}

/**
 * The digests of the accepted tokens, kept with a copy of the list they came from and used while
 * the list still holds the same tokens (a list changed in place or replaced is digested afresh).
 * They are the server's own secrets, already in memory; nothing about a presented token is kept.
 */
const expectedDigests = new WeakMap<readonly string[], { tokens: string[]; digests: Buffer[] }>();

function digestsOf(accepted: readonly string[]): Buffer[] {
  const known = expectedDigests.get(accepted);
  if (known !== undefined && known.tokens.length === accepted.length && known.tokens.every((t, i) => t === accepted[i]))
    return known.digests;
  const digests = accepted
    .filter((token) => token !== '')
    .map((token) => (isApiTokenDigest(token) ? Buffer.from(token.slice('sha256:'.length), 'hex') : digest(token)));
  expectedDigests.set(accepted, { tokens: [...accepted], digests });
  return digests;
}

/**
 * The bearer token check (docs/engine-rules.md, "API tokens"): the presented token's SHA-256
 * against every accepted one, in constant time per token and with no early exit that would
 * reveal which matched. One hash a request; nothing about a presented token is remembered.
 */
export function tokenAccepted(presented: string, accepted: readonly string[]): boolean {
  const presentedDigest = digest(presented);
  let ok = false;
  for (const expected of digestsOf(accepted)) if (timingSafeEqual(presentedDigest, expected)) ok = true;
  return ok;
}
