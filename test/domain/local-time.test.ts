import { describe, expect, it } from 'vitest';
import {
  likelyDateFormat,
  parseDateFormat,
  readDateText,
  readDateTimeText,
  readRecordDates,
  type DateFormat,
} from '../../src/domain/local-time.js';
import { EMAIL_PATTERN, emailFault } from '../../src/domain/text-rules.js';

function format(text: string): DateFormat {
  const parsed = parseDateFormat(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.format;
}

describe('--date-format', () => {
  it('takes YYYY MM DD HH mm ss with any separators', () => {
    for (const text of [
      'DD.MM.YYYY',
      'DD/MM/YYYY',
      'MM/DD/YYYY',
      'DD.MM.YYYY HH:mm',
      'YYYY/MM/DD HH:mm:ss',
      'DDMMYYYY',
      'DD-MM-YYYY, HH.mm',
    ]) {
      expect(parseDateFormat(text).ok, text).toBe(true);
    }
  });

  it('refuses an unknown token, a missing part, a repeated token, a format reading ISO dates swapped', () => {
    expect(parseDateFormat('DD.MM.YY')).toEqual({ ok: false, message: expect.stringContaining('unknown token "YY"') });
    expect(parseDateFormat('dd.mm.yyyy')).toEqual({
      ok: false,
      message: expect.stringContaining('unknown token "dd"'),
    });
    expect(parseDateFormat('DD.MM.YYYY hh:mm')).toEqual({
      ok: false,
      message: expect.stringContaining('unknown token "hh"'),
    });
    expect(parseDateFormat('MM.YYYY')).toEqual({ ok: false, message: expect.stringContaining('has no DD') });
    expect(parseDateFormat('DD.MM.YYYY.DD')).toEqual({
      ok: false,
      message: expect.stringContaining('DD appears twice'),
    });
    expect(parseDateFormat('DD.MM.YYYY HH')).toEqual({
      ok: false,
      message: expect.stringContaining('needs HH and mm'),
    });
    expect(parseDateFormat('YYYY-DD-MM')).toEqual({ ok: false, message: expect.stringContaining('swapped') });
    // A time before (or inside) the date would leave a date of birth's part empty (or without its year).
    for (const text of ['HH:mm DD.MM.YYYY', 'DD.MM HH:mm YYYY'])
      expect(parseDateFormat(text), text).toEqual({ ok: false, message: expect.stringContaining('time must follow') });
  });

  it('reads dates of birth as YYYY-MM-DD; ISO stays readable; an impossible date is refused with its value', () => {
    const options = { format: format('DD.MM.YYYY') };
    expect(readDateText('DateOfBirth', '15.07.2000', options)).toEqual({ ok: true, value: '2000-07-15' });
    expect(readDateText('DateOfBirth', '5.7.2000', options)).toEqual({ ok: true, value: '2000-07-05' });
    expect(readDateText('DateOfBirth', '2000-07-15', options)).toEqual({ ok: true, value: '2000-07-15' });
    expect(readDateText('DateOfBirth', '29.02.2004', options)).toEqual({ ok: true, value: '2004-02-29' });
    expect(readDateText('DateOfBirth', '31.04.2000', options)).toEqual({
      ok: false,
      message: expect.stringContaining('"31.04.2000" is not a real date'),
    });
    expect(readDateText('DateOfBirth', '15.13.2000', options)).toEqual({
      ok: false,
      message: expect.stringContaining('"15.13.2000" is not a real date'),
    });
    expect(readDateText('DateOfBirth', '29.02.2001', options).ok).toBe(false);
    expect(readDateText('DateOfBirth', '07/15/2000', options)).toEqual({
      ok: false,
      message: expect.stringContaining('is neither DD.MM.YYYY (--date-format) nor ISO'),
    });
    expect(readDateText('DateOfBirth', '07/15/2000', { format: format('MM/DD/YYYY') })).toEqual({
      ok: true,
      value: '2000-07-15',
    });
    // A date-time format serves a date field with its date part.
    expect(readDateText('DateOfBirth', '15.07.2000', { format: format('DD.MM.YYYY HH:mm') })).toEqual({
      ok: true,
      value: '2000-07-15',
    });
  });

  it('never guesses: without it a local date is refused with the format it looks like', () => {
    expect(likelyDateFormat('15.07.2000')).toBe('DD.MM.YYYY');
    expect(likelyDateFormat('15/07/2000')).toBe('DD/MM/YYYY');
    expect(likelyDateFormat('07/15/2000')).toBe('MM/DD/YYYY');
    expect(likelyDateFormat('07/08/2000')).toBe('DD/MM/YYYY or MM/DD/YYYY');
    expect(likelyDateFormat('25.01.2027 14:00')).toBe('DD.MM.YYYY HH:mm');
    const reading = readDateText('DateOfBirth', '15.07.2000', {});
    expect(reading).toEqual({
      ok: false,
      message:
        'DateOfBirth "15.07.2000" is not ISO YYYY-MM-DD; it looks like DD.MM.YYYY: give --date-format DD.MM.YYYY (examctl never guesses a date\'s order)',
    });
    const dateTime = readDateTimeText('StartDateTime', '25.01.2027 14:00', { timeZone: 'Europe/Berlin' });
    expect(dateTime).toEqual({ ok: false, message: expect.stringContaining('give --date-format "DD.MM.YYYY HH:mm"') });
  });
});

describe('--timezone', () => {
  const berlin = { timeZone: 'Europe/Berlin', format: format('DD.MM.YYYY HH:mm') };
  it('places a local time with the offset in force then, daylight saving included', () => {
    expect(readDateTimeText('StartDateTime', '25.01.2027 14:00', berlin)).toEqual({
      ok: true,
      value: '2027-01-25T13:00:00.000Z',
      zone: 'Europe/Berlin',
    });
    expect(readDateTimeText('StartDateTime', '15.07.2027 14:00', berlin)).toEqual({
      ok: true,
      value: '2027-07-15T12:00:00.000Z',
      zone: 'Europe/Berlin',
    });
    expect(readDateTimeText('StartDateTime', '2027-01-25 14:00', { timeZone: 'Europe/Berlin' })).toEqual({
      ok: true,
      value: '2027-01-25T13:00:00.000Z',
      zone: 'Europe/Berlin',
    });
    expect(readDateTimeText('StartDateTime', '2027-01-25T14:00:00', { timeZone: 'America/New_York' })).toEqual({
      ok: true,
      value: '2027-01-25T19:00:00.000Z',
      zone: 'America/New_York',
    });
    // A date-only format takes a time after it.
    expect(
      readDateTimeText('StartDateTime', '25.01.2027 14:00', {
        timeZone: 'Europe/Berlin',
        format: format('DD.MM.YYYY'),
      }),
    ).toEqual({ ok: true, value: '2027-01-25T13:00:00.000Z', zone: 'Europe/Berlin' });
  });

  it('refuses the spring-forward gap and the autumn overlap unless the text carries an offset', () => {
    expect(readDateTimeText('StartDateTime', '28.03.2027 02:30', berlin)).toEqual({
      ok: false,
      message: expect.stringContaining('"28.03.2027 02:30" does not exist in Europe/Berlin'),
    });
    expect(readDateTimeText('StartDateTime', '31.10.2027 02:30', berlin)).toEqual({
      ok: false,
      message: expect.stringContaining('"31.10.2027 02:30" happens twice in Europe/Berlin'),
    });
    expect(readDateTimeText('StartDateTime', '31.10.2027 02:30 +01:00', berlin)).toEqual({
      ok: true,
      value: '2027-10-31T01:30:00.000Z',
    });
    expect(readDateTimeText('StartDateTime', '31.10.2027 02:30+02:00', berlin)).toEqual({
      ok: true,
      value: '2027-10-31T00:30:00.000Z',
    });
    expect(readDateTimeText('StartDateTime', '2027-11-07T01:30:00-04:00', { timeZone: 'America/New_York' })).toEqual({
      ok: true,
      value: '2027-11-07T05:30:00.000Z',
    });
  });

  it("without it, a time without an offset is refused (today's rule), naming --timezone", () => {
    expect(readDateTimeText('StartDateTime', '25.01.2027 14:00', { format: format('DD.MM.YYYY HH:mm') })).toEqual({
      ok: false,
      message: expect.stringContaining('has no time zone'),
    });
    expect(readDateTimeText('StartDateTime', '25.01.2027 14:00', { format: format('DD.MM.YYYY HH:mm') })).toEqual({
      ok: false,
      message: expect.stringContaining('--timezone'),
    });
  });

  it('an impossible time is refused with its value', () => {
    expect(readDateTimeText('StartDateTime', '25.01.2027 25:00', berlin)).toEqual({
      ok: false,
      message: expect.stringContaining('"25.01.2027 25:00" is not a real date and time'),
    });
  });

  it('a record: readable texts replaced, an unreadable one left out and named; whole requests read inside', () => {
    const problems: { field: string; code: null; message: string }[] = [];
    const fields = readRecordDates(
      {
        Schedule: { StartDateTime: '25.01.2027 14:00', EndDateTime: '31.10.2027 02:30' },
        Candidates: [{ CandidateExtId: 'c1' }],
      },
      berlin,
      problems,
    );
    expect(fields).toEqual({
      Schedule: { StartDateTime: '2027-01-25T13:00:00.000Z' },
      Candidates: [{ CandidateExtId: 'c1' }],
    });
    expect(problems.map((p) => p.field)).toEqual(['Schedule.EndDateTime']);
  });
});

describe('an impossible ISO date with --date-format', () => {
  it('says it is not a real date, as without the flag (not "neither format")', () => {
    const parsed = parseDateFormat('DD.MM.YYYY');
    if (!parsed.ok) throw new Error(parsed.message);
    const withFlag = readDateText('DateOfBirth', '2000-02-30', { format: parsed.format });
    const without = readDateText('DateOfBirth', '2000-02-30', {});
    expect(withFlag).toEqual({ ok: false, message: 'DateOfBirth "2000-02-30" is not a real date (month 2, day 30)' });
    expect(withFlag).toEqual(without);
    expect(readDateText('DateOfBirth', '2000-02-29', { format: parsed.format })).toEqual({
      ok: true,
      value: '2000-02-29',
    });
  });
});

describe('e-mail: WHATWG valid e-mail address with a dotted domain', () => {
  it('takes what browsers take', () => {
    for (const address of [
      "o'brien@x.ie",
      'first.last+tag@sub.example.co.uk',
      'a_b-c@uni-example.de',
      "!#$%&'*+/=?^_`{|}~-@example.com",
      'x@xn--mller-kva.de',
    ]) {
      expect(EMAIL_PATTERN.test(address), address).toBe(true);
    }
  });

  it('refuses the rest, showing the first offending character', () => {
    expect(emailFault('a@stud.uni-example,de')).toBe('"," at position 19 is not allowed in the domain');
    expectFault('ann lee@example.com', 'a space', 'position 4', 'before the @');
    expect(emailFault('a@b@example.com')).toBe('"@" at position 4 is not allowed in the domain');
    expect(emailFault('jörg@example.com')).toBe('"ö" at position 2 is not allowed before the @');
    expect(emailFault('a@müller.de')).toBe(
      '"ü" at position 4 is not allowed in the domain (write an international domain in its xn-- form)',
    );
    expect(emailFault('a@localhost')).toBe('the domain "localhost" has no dot (expected name@domain.tld)');
    expect(emailFault('a@example..com')).toContain('empty label');
    expect(emailFault('a@.example.com')).toContain('empty label');
    expect(emailFault('a@example.com.')).toContain('empty label');
    expect(emailFault('a@-example.com')).toBe('the domain label "-example" starts with -');
    expect(emailFault('a@example-.com')).toBe('the domain label "example-" ends with -');
    expect(emailFault(`a@${'x'.repeat(64)}.com`)).toContain('longer than 63');
    expect(emailFault('@example.com')).toBe('nothing before the @');
    expect(emailFault('example.com')).toContain('no @');
    expect(emailFault("o'brien@x.ie")).toBeUndefined();
    // Invisible and format characters by code point, like U+00A0: never a raw "​" that shows as "".
    expectFault('ann\u200b@example.com', 'U+200B', 'position 4', 'before the @');
    expectFault('a@exam\u00adple.com', 'U+00AD', 'position 7', 'in the domain');
    expectFault('\ufeffann@example.com', 'U+FEFF', 'position 1', 'before the @');
    expectFault('ann\u00a0lee@example.com', 'U+00A0', 'position 4', 'before the @');
    expectFault('ann\u3000@example.com', 'U+3000', 'position 4', 'before the @');
    expectFault('ann\u0301@example.com', 'U+0301', 'position 4', 'before the @');
  });
});

/** An address's fault names the character, its position and the part it is in, in printable ASCII only. */
function expectFault(address: string, ...facts: string[]): void {
  const fault = emailFault(address);
  expect(fault).toMatch(/^[\x20-\x7e]+$/);
  for (const fact of facts) expect(fault).toContain(fact);
}

describe('an ambiguous day and month', () => {
  it('names both orders and asks for the one the export uses', () => {
    expect(readDateText('DateOfBirth', '07/08/2000', {})).toEqual({
      ok: false,
      message: expect.stringContaining(
        'it looks like DD/MM/YYYY or MM/DD/YYYY: give --date-format with the one the export uses',
      ),
    });
  });
});
