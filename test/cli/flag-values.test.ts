import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import {
  dateOrAge,
  duration,
  instantOf,
  parseCountOrPercent,
  parseDateOrAge,
  parseDuration,
  positiveInt,
  positiveNumber,
  wholeNumberIn,
} from '../../src/flags/flag-values.js';
import { formatDuration } from '../../src/formats/number-format.js';

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

  it('duration takes zero (--older-than 0s) and refuses a bare number naming the flag', () => {
    expect(duration('--older-than')('90s')).toBe(90_000);
    expect(duration('--older-than')('1ms')).toBe(1);
    for (const zero of ['0s', '0 min', '0.0001ms']) expect(duration('--older-than')(zero)).toBe(0);
    expect(() => duration('--older-than')('30')).toThrow(/--older-than must be a duration with its unit/);
  });
});

describe('a date or an age (--since)', () => {
  const now = new Date('2026-11-21T10:00:00Z');

  it.each([
    ['2026-11-01', '2026-11-01T00:00:00.000Z'],
    ['2026-11-01T09:30:00Z', '2026-11-01T09:30:00.000Z'],
    ['2026-11-01T09:30:00+01:00', '2026-11-01T08:30:00.000Z'],
    ['2026-11-01 09:30:00.250-02:00', '2026-11-01T11:30:00.250Z'],
    ['7d', '2026-11-14T10:00:00.000Z'],
    ['12h', '2026-11-20T22:00:00.000Z'],
    ['1h 30m', '2026-11-21T08:30:00.000Z'],
  ])('%j is %s (now %s)', (text, instant) => {
    const parsed = dateOrAge('--since')(text);
    expect(new Date(instantOf(parsed, now)).toISOString()).toBe(instant);
  });

  it('an age is resolved against the clock it is given, not read at parse time', () => {
    const parsed = parseDateOrAge('1d');
    expect(parsed).toEqual({ ago: 86_400_000 });
    expect(instantOf(parsed!, new Date('2026-01-02T00:00:00Z'))).toBe(Date.parse('2026-01-01T00:00:00Z'));
  });

  it.each([
    '',
    'yesterday',
    '30',
    '2026-11-01T09:30:00',
    '2026-02-30',
    '2026-13-01',
    '2026-11-1',
    '01/11/2026',
    '2026-11-01T25:00:00Z',
    '-7d',
  ])('refuses %j, naming the flag', (text) => {
    expect(parseDateOrAge(text)).toBeUndefined();
    expect(() => dateOrAge('--since')(text)).toThrow(InvalidArgumentError);
    expect(() => dateOrAge('--since')(text)).toThrow(
      /^--since must be a date \(2026-11-01: that day 00:00 UTC\), an RFC 3339 instant with its zone/,
    );
  });
});

describe('numbers', () => {
  it('positive whole numbers, positive numbers and ranges refuse what they do not take, naming the flag', () => {
    expect(positiveInt('--max-errors')('12')).toBe(12);
    for (const bad of ['0', '1.5', '-3', 'x', ''])
      expect(() => positiveInt('--max-errors')(bad)).toThrow('--max-errors must be a whole number of at least 1');
    expect(positiveNumber('--rate')('0.5')).toBe(0.5);
    for (const bad of ['0', '-1', 'x', ' '])
      expect(() => positiveNumber('--rate')(bad)).toThrow('--rate must be a number above 0');
    expect(wholeNumberIn('--faults-seed', 0, 0xffffffff)('0')).toBe(0);
    for (const bad of ['-1', '1.5', '4294967296'])
      expect(() => wholeNumberIn('--faults-seed', 0, 0xffffffff)(bad)).toThrow(
        '--faults-seed must be a whole number from 0 to 4294967295',
      );
  });

  it('a count or a percentage (--max-disable)', () => {
    expect(parseCountOrPercent('50')).toEqual({ count: 50 });
    expect(parseCountOrPercent(' 2.5 % ')).toEqual({ percent: 2.5 });
    expect(parseCountOrPercent('100%')).toEqual({ percent: 100 });
    for (const bad of ['101%', 'ten', '-5', '5%%', '']) expect(parseCountOrPercent(bad)).toBeUndefined();
  });
});
