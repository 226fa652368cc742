import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TokenCheck } from '../../src/server/token-check.js';

const digestOf = (token: string) => `sha256:${createHash('sha256').update(token, 'utf8').digest('hex')}`;

describe('token check', () => {
  it('accepts a token given plain or as its digest, and nothing else', () => {
    const check = new TokenCheck();
    expect(check.accepts('dev-token', ['dev-token'])).toBe(true);
    expect(check.accepts('dev-token', [digestOf('dev-token')])).toBe(true);
    expect(check.accepts('dev-token', [digestOf('other'), 'other'])).toBe(false);
    expect(check.accepts('dev-token', [])).toBe(false);
    expect(check.accepts('', [''])).toBe(false);
    expect(check.accepts(digestOf('dev-token'), [digestOf('dev-token')])).toBe(false);
  });

  it('follows a changed accepted list at once, whether a new array or the same contents', () => {
    const check = new TokenCheck();
    const first = [digestOf('a')];
    expect(check.accepts('a', first)).toBe(true);
    expect(check.accepts('a', [digestOf('a')])).toBe(true);
    expect(check.accepts('a', [digestOf('b')])).toBe(false);
    expect(check.accepts('b', [digestOf('b')])).toBe(true);
    expect(check.accepts('a', first)).toBe(true);
  });

  it('keeps answering right through a flood of made-up tokens', () => {
    const check = new TokenCheck();
    const accepted = [digestOf('real')];
    for (let i = 0; i < 1000; i += 1) expect(check.accepts(`made-up-${i}`, accepted)).toBe(false);
    expect(check.accepts('real', accepted)).toBe(true);
    expect(check.accepts('made-up-3', accepted)).toBe(false);
  });
});
