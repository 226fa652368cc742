import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { requestDigest } from '../../src/sync/memory-lines.js';
import { rawDigest } from '../../src/sync/raw-digest.js';

/**
 * A remote target's sync memory digests a request's secrets (a PIN, a Password) sealed by the
 * token (docs/sync.md, "The sync memory"): the memory, its export or a CI cache of it
 * gives no secret back to whoever has the input file but not the token (trial31 F10: a 4-digit
 * PIN came back from an unkeyed digest in 0.1 s).
 */
const seal = (token: string) => (secret: string) => createHmac('sha256', token).update(secret).digest('base64url');
const schedule = (pin: string) => ({ Schedule: { ScheduleExtId: 'S-1', Title: 'Maths', PIN: pin }, Candidates: [{ CandidateExtId: 'c-1' }] });

describe('secrets in the sync memory digests', () => {
  it("a PIN: every one of the 10,000 tried without the token misses the memory's digest; the same token, the same digest", () => {
    const remembered = requestDigest(schedule('9802'), seal('the-token'));
    const found = Array.from({ length: 10_000 }, (_, n) => String(n).padStart(4, '0')).find((pin) => requestDigest(schedule(pin)) === remembered || requestDigest(schedule(pin), seal('')) === remembered);
    expect(found).toBeUndefined();
    expect(requestDigest(schedule('9802'), seal('the-token'))).toBe(remembered);
    expect(requestDigest(schedule('9803'), seal('the-token'))).not.toBe(remembered);
    // Another token (a rotation): the request counts as changed once.
    expect(requestDigest(schedule('9802'), seal('another-token'))).not.toBe(remembered);
  });

  it('a request without a secret digests as it always did, sealed or not: an upgrade re-sends only requests with one', () => {
    const plain = { ExternalId: 'u-1', FirstName: 'A', LastName: 'B', Password: '' };
    expect(requestDigest(plain, seal('the-token'))).toBe(requestDigest(plain));
    expect(requestDigest(schedule(''), seal('the-token'))).toBe(requestDigest(schedule('')));
  });

  it("a row's raw digest seals its Password the same way", () => {
    const row = (password: string) => ({ ExternalId: 'u-1', FirstName: 'A', Password: password });
    const remembered = rawDigest('fp\n', row('Welcome-4821'), seal('the-token'));
    const tried = Array.from({ length: 10_000 }, (_, n) => `Welcome-${String(n).padStart(4, '0')}`);
    expect(tried.find((password) => rawDigest('fp\n', row(password)) === remembered)).toBeUndefined();
    expect(rawDigest('fp\n', row('Welcome-4821'), seal('the-token'))).toBe(remembered);
    expect(rawDigest('fp\n', row(''), seal('the-token'))).toBe(rawDigest('fp\n', row('')));
  });
});
