import { createHash, timingSafeEqual } from 'node:crypto';
import { isApiTokenDigest } from '../domain/world.js';

/** Distinct presented tokens whose digest is kept; a flood of made-up tokens empties the memo, never grows it. */
const PRESENTED_MEMO_LIMIT = 64;

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * The bearer token check: the SHA-256 of the presented token against every accepted one, in
 * constant time per token and without an early exit that would reveal which matched. An accepted
 * entry is a plain token or, as the store keeps them, its digest `sha256:<64 hex>`
 * (isApiTokenDigest), so the server never needs the token itself.
 *
 * Digests are computed once: per distinct presented token (a client sends the same one on every
 * request) and per accepted list (re-derived only when the list differs from the last one seen).
 * Hashing on every request was a visible share of a request's CPU time.
 */
export class TokenCheck {
  private acceptedList: readonly string[] = [];
  private acceptedDigests: readonly Buffer[] = [];
  private readonly presentedDigests = new Map<string, Buffer>();

  accepts(presented: string, accepted: readonly string[]): boolean {
    const presentedDigest = this.presentedDigest(presented);
    let ok = false;
    for (const expected of this.digestsOf(accepted)) {
      if (timingSafeEqual(presentedDigest, expected)) ok = true;
    }
    return ok;
  }

  private presentedDigest(presented: string): Buffer {
    let known = this.presentedDigests.get(presented);
    if (known === undefined) {
      if (this.presentedDigests.size >= PRESENTED_MEMO_LIMIT) this.presentedDigests.clear();
      known = digest(presented);
      this.presentedDigests.set(presented, known);
    }
    return known;
  }

  private digestsOf(accepted: readonly string[]): readonly Buffer[] {
    const previous = this.acceptedList;
    const same = accepted === previous || (accepted.length === previous.length && accepted.every((token, i) => token === previous[i]));
    if (!same) {
      this.acceptedList = [...accepted];
      this.acceptedDigests = accepted
        .filter((token) => token !== '')
        .map((token) => (isApiTokenDigest(token) ? Buffer.from(token.slice('sha256:'.length), 'hex') : digest(token)));
    }
    return this.acceptedDigests;
  }
}
