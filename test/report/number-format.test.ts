import { describe, expect, it } from 'vitest';
import { formatBytes, formatCount, namedFirst } from '../../src/formats/number-format.js';
import { mulberry32 } from '../../src/system/seeded-random.js';

describe('formatCount', () => {
  it("groups digits exactly as toLocaleString('en-US') does", () => {
    const edges = [
      0,
      -0,
      0.4,
      -0.4,
      0.5,
      -0.5,
      1,
      9,
      10,
      99,
      100,
      999,
      999.5,
      1000,
      1001,
      9999,
      10_000,
      99_999,
      100_000,
      999_999,
      1_000_000,
      -1,
      -999,
      -1000,
      -1_234_567.8,
      2 ** 31,
      2 ** 53,
      1e20,
      1e21,
      1e300,
      NaN,
      Infinity,
      -Infinity,
    ];
    const next = mulberry32(7);
    const values = [...edges, ...Array.from({ length: 2000 }, () => (next() - 0.3) * 10 ** Math.floor(next() * 16))];
    for (const value of values)
      expect(formatCount(value), String(value)).toBe(Math.round(value).toLocaleString('en-US'));
  });
});

describe('namedFirst', () => {
  it('the first few, then how many more, the count grouped', () => {
    expect(namedFirst([], 3)).toBe('');
    expect(namedFirst(['a', 'b', 'c'], 3)).toBe('a, b, c');
    expect(namedFirst(['a', 'b', 'c', 'd'], 3)).toBe('a, b, c and 1 more');
    expect(
      namedFirst(
        Array.from({ length: 1503 }, (_, i) => `s${i}`),
        2,
      ),
    ).toBe('s0, s1 and 1,501 more');
  });
});

describe('formatBytes', () => {
  it('binary units, one decimal only below 10', () => {
    expect(formatBytes(300)).toBe('300 bytes');
    expect(formatBytes(512 * 1024)).toBe('512 KiB');
    expect(formatBytes(48 * 1024 * 1024)).toBe('48 MiB');
    expect(formatBytes(1.5 * 1024 * 1024)).toBe('1.5 MiB');
    expect(formatBytes(60 * 1024 * 1024 + 1)).toBe('60 MiB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3 GiB');
  });
});
