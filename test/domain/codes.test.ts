import { describe, expect, it } from 'vitest';
import { ErrorCode, OWN_CODES, SPEC_CODES } from '../../src/domain/codes.js';

// The convention of codes.ts: the spec's codes in SPEC_CODES, examctl's own in OWN_CODES,
// 9000..9999 (tsc checks the range; this checks what a type cannot: no name or number twice).
describe('error codes', () => {
  const spec = Object.entries(SPEC_CODES);
  const own = Object.entries(OWN_CODES) as [string, number][];

  it('examctl codes are 9000..9999 and the spec codes are below', () => {
    for (const [name, code] of own)
      expect({ name, code, inRange: code >= 9000 && code <= 9999 }).toEqual({ name, code, inRange: true });
    for (const [name, code] of spec) expect({ name, code, below: code < 9000 }).toEqual({ name, code, below: true });
  });

  it('no name is in both blocks (the later would silently replace the other)', () => {
    expect(own.map(([name]) => name).filter((name) => Object.hasOwn(SPEC_CODES, name))).toEqual([]);
  });

  it('no two names share a number', () => {
    const byNumber = new Map<number, string[]>();
    for (const [name, code] of Object.entries(ErrorCode) as [string, number][])
      byNumber.set(code, [...(byNumber.get(code) ?? []), name]);
    expect([...byNumber.values()].filter((names) => names.length > 1)).toEqual([]);
  });

  it('ErrorCode is exactly both blocks', () => {
    expect(Object.keys(ErrorCode).length).toBe(spec.length + own.length);
  });
});
