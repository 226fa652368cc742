import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { tokenAccepted } from '../../src/server/token-check.js';

const digestOf = (token: string) => `sha256:${createHash('sha256').update(token, 'utf8').digest('hex')}`;

describe('token check', () => {
  it('accepts a token given plain or as its digest, and nothing else', () => {
    expect(tokenAccepted('dev-token', ['dev-token'])).toBe(true);
    expect(tokenAccepted('dev-token', [digestOf('dev-token')])).toBe(true);
    expect(tokenAccepted('dev-token', [digestOf('other'), 'other'])).toBe(false);
    expect(tokenAccepted('dev-token', [])).toBe(false);
    expect(tokenAccepted('', [''])).toBe(false);
    expect(tokenAccepted(digestOf('dev-token'), [digestOf('dev-token')])).toBe(false);
  });

  it('follows a changed accepted list at once, whether a new array or the same contents', () => {
    const first = [digestOf('a')];
    expect(tokenAccepted('a', first)).toBe(true);
    expect(tokenAccepted('a', [digestOf('a')])).toBe(true);
    expect(tokenAccepted('a', [digestOf('b')])).toBe(false);
    expect(tokenAccepted('b', [digestOf('b')])).toBe(true);
    expect(tokenAccepted('a', first)).toBe(true);
  });

  it('follows a list changed in place', () => {
    const accepted = [digestOf('a'), 'plain'];
    expect(tokenAccepted('a', accepted)).toBe(true);
    expect(tokenAccepted('plain', accepted)).toBe(true);
    accepted[0] = digestOf('b');
    accepted[1] = 'other';
    expect(tokenAccepted('a', accepted)).toBe(false);
    expect(tokenAccepted('plain', accepted)).toBe(false);
    expect(tokenAccepted('b', accepted)).toBe(true);
    accepted.push('c');
    expect(tokenAccepted('c', accepted)).toBe(true);
    accepted.length = 1;
    expect(tokenAccepted('c', accepted)).toBe(false);
  });

  it('keeps answering right through a flood of made-up tokens', () => {
    const accepted = [digestOf('real')];
    for (let i = 0; i < 1000; i += 1) expect(tokenAccepted(`made-up-${i}`, accepted)).toBe(false);
    expect(tokenAccepted('real', accepted)).toBe(true);
    expect(tokenAccepted('made-up-3', accepted)).toBe(false);
  });
});
