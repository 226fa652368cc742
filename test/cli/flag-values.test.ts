import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { duration, parseCountOrPercent, parseDuration, positiveInt, positiveNumber, wholeNumberIn } from '../../src/cli/flag-values.js';
import { formatDuration } from '../../src/report/number-format.js';

describe('durations', () => {
  it.each([
    ['30 days', 30 * 86_400_000],
    ['30d', 30 * 86_400_000],
    ['2h', 7_200_000],
    ['90s', 90_000],
    ['500ms', 500],
    ['1h 30m', 5_400_000],
    ['1h30m', 5_400_000],
    ['1w, 2d', 9 * 86_400_000],
    ['1.5 hours', 5_400_000],
    ['0s', 0],
    [' 2 Min ', 120_000],
  ])('%j is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
    expect(duration('--older-than')(text)).toBe(ms);
  });

  it.each(['', '30', 'soon', '5 fortnights', '-1d', '1d extra', 'd5'])('refuses %j, naming the flag', (text) => {
    expect(parseDuration(text)).toBeUndefined();
    expect(() => duration('--older-than')(text)).toThrow(InvalidArgumentError);
    expect(() => duration('--older-than')(text)).toThrow(/--older-than must be a duration with its unit/);
  });

  it('reads back what examctl writes', () => {
    for (const seconds of [16, 245, 7380]) expect(parseDuration(formatDuration(seconds))).toBe(seconds * 1000);
  });
});

describe('numbers', () => {
  it('positive whole numbers, positive numbers and ranges refuse what they do not take, naming the flag', () => {
    expect(positiveInt('--max-errors')('12')).toBe(12);
    for (const bad of ['0', '1.5', '-3', 'x', '']) expect(() => positiveInt('--max-errors')(bad)).toThrow('--max-errors must be a whole number of at least 1');
    expect(positiveNumber('--rate')('0.5')).toBe(0.5);
    for (const bad of ['0', '-1', 'x', ' ']) expect(() => positiveNumber('--rate')(bad)).toThrow('--rate must be a number above 0');
    expect(wholeNumberIn('--faults-seed', 0, 0xffffffff)('0')).toBe(0);
    for (const bad of ['-1', '1.5', '4294967296']) expect(() => wholeNumberIn('--faults-seed', 0, 0xffffffff)(bad)).toThrow('--faults-seed must be a whole number from 0 to 4294967295');
  });

  it('a count or a percentage (--max-disable)', () => {
    expect(parseCountOrPercent('50')).toEqual({ count: 50 });
    expect(parseCountOrPercent(' 2.5 % ')).toEqual({ percent: 2.5 });
    expect(parseCountOrPercent('100%')).toEqual({ percent: 100 });
    for (const bad of ['101%', 'ten', '-5', '5%%', '']) expect(parseCountOrPercent(bad)).toBeUndefined();
  });
});
