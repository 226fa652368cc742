import { describe, it, expect } from 'vitest';
import {
  canonicalIpEntry,
  codePointLength,
  EMAIL_PATTERN,
  GUID_PATTERN,
  HTTP_URL_PATTERN,
  normaliseDateOfBirth,
} from '../../src/domain/text-rules.js';
import { parseDateTime } from '../../src/domain/date-time.js';

describe('AllowedIpAddresses entries', () => {
  const valid = [
    '10.0.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '::1',
    '2001:db8::1',
    '::ffff:192.168.0.1',
    '10.0.0.0/8',
    '2001:db8::/32',
    '10.0.0.1-10.0.0.1',
    '10.0.0.1 - 10.0.0.20',
    'fe80::1-fe80::ff',
  ];
  const invalid = [
    '',
    '10.0.0',
    '10.0.0.256',
    '010.0.0.1',
    '10.0.0.1/33',
    '::1/129',
    '10.0.0.0/',
    '10.0.0.9-10.0.0.1',
    '10.0.0.1-::1',
    'fe80::1%eth0',
    'localhost',
    '10.0.0.1-',
    '1.2.3.4/8/8',
  ];
  for (const s of valid) it(`valid: ${s}`, () => expect(canonicalIpEntry(s)).not.toBeNull());
  for (const s of invalid) it(`invalid: "${s}"`, () => expect(canonicalIpEntry(s)).toBeNull());
  it('canonical forms make equal addresses equal', () => {
    expect(canonicalIpEntry('::1')).toBe(canonicalIpEntry('0:0:0::1'));
    expect(canonicalIpEntry('2001:DB8::/32')).toBe(canonicalIpEntry('2001:db8::/32'));
  });
});

describe('formats', () => {
  it('GUID with or without braces, any case', () => {
    expect(GUID_PATTERN.test('3f2504e0-4f89-11d3-9a0c-0305e82c3301')).toBe(true);
    expect(GUID_PATTERN.test('{3F2504E0-4F89-11D3-9A0C-0305E82C3301}')).toBe(true);
    expect(GUID_PATTERN.test('3f2504e04f8911d39a0c0305e82c3301')).toBe(false);
    expect(GUID_PATTERN.test('3f2504e0-4f89-11d3-9a0c-0305e82c3301}')).toBe(false);
    expect(GUID_PATTERN.test('gf2504e0-4f89-11d3-9a0c-0305e82c3301')).toBe(false);
  });
  it('Photo URL', () => {
    expect(HTTP_URL_PATTERN.test('https://ex.com/a.png')).toBe(true);
    expect(HTTP_URL_PATTERN.test('http://127.0.0.1:8080/a')).toBe(true);
    expect(HTTP_URL_PATTERN.test('/a.png')).toBe(false);
    expect(HTTP_URL_PATTERN.test('javascript:alert(1)')).toBe(false);
    expect(HTTP_URL_PATTERN.test('https://ex.com/a b.png')).toBe(false);
  });
  it('e-mail', () => {
    expect(EMAIL_PATTERN.test('a.b+c@mail.example.co.uk')).toBe(true);
    expect(EMAIL_PATTERN.test('a@b.')).toBe(false);
    expect(EMAIL_PATTERN.test('@b.co')).toBe(false);
    expect(EMAIL_PATTERN.test('a@.b.co')).toBe(false);
  });
  it('DateOfBirth', () => {
    expect(normaliseDateOfBirth('2000-02-29')).toBe('2000-02-29');
    expect(normaliseDateOfBirth('20000229')).toBe('2000-02-29');
    expect(normaliseDateOfBirth('1900-02-29')).toBeNull();
    expect(normaliseDateOfBirth('2000-2-9')).toBeNull();
    expect(normaliseDateOfBirth('2000-00-10')).toBeNull();
  });
  it('code points', () => {
    expect(codePointLength('a😀b')).toBe(3);
    expect(codePointLength('\ud800')).toBe(1);
  });
});

describe('parseDateTime', () => {
  it('normalises zones, fractions and lowercase separators', () => {
    expect(parseDateTime('2026-03-01T09:00:00Z')).toMatchObject({ ok: true, iso: '2026-03-01T09:00:00.000Z' });
    expect(parseDateTime('2026-03-01t09:00:00.123456z')).toMatchObject({ ok: true, iso: '2026-03-01T09:00:00.123Z' });
    expect(parseDateTime('2026-03-01 09:00:00+05:30')).toMatchObject({ ok: true, iso: '2026-03-01T03:30:00.000Z' });
    expect(parseDateTime('2026-01-01T00:30:00+01:00')).toMatchObject({ ok: true, iso: '2025-12-31T23:30:00.000Z' });
    expect(parseDateTime('0050-06-01T00:00:00Z')).toMatchObject({ ok: true, iso: '0050-06-01T00:00:00.000Z' });
  });
  it('tells the reasons apart', () => {
    expect(parseDateTime('2026-03-01T09:00:00')).toEqual({ ok: false, reason: 'no-zone' });
    expect(parseDateTime('2026-03-01T09:00Z')).toEqual({ ok: false, reason: 'format' });
    expect(parseDateTime('2026-04-31T09:00:00Z')).toEqual({ ok: false, reason: 'calendar' });
    expect(parseDateTime('2026-03-01T09:00:60Z')).toEqual({ ok: false, reason: 'calendar' });
    expect(parseDateTime('0000-01-01T00:00:00+01:00')).toEqual({ ok: false, reason: 'calendar' });
  });
});
