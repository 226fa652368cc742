import { hash, timingSafeEqual } from 'node:crypto';
import { isApiTokenDigest } from '../domain/world.js';

/** One call, no Hash object: a request's token is hashed on every request. */
function digest(value: string): Buffer {
  return hash('sha256', value, 'buffer') as unknown as Buffer;
}

/** Accepted tokens' digests, reused while the list is unchanged: the server's own secrets, never a presented one. */
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
 * against every accepted one, in constant time per token, no early exit revealing which matched.
 */
export function tokenAccepted(presented: string, accepted: readonly string[]): boolean {
  const presentedDigest = digest(presented);
  let ok = false;
  for (const expected of digestsOf(accepted)) if (timingSafeEqual(presentedDigest, expected)) ok = true;
  return ok;
}
