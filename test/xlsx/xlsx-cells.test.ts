import { describe, expect, it } from 'vitest';
import { isDateFormat, plainNumber, readCell } from '../../src/input/xlsx-cells.js';
import { wallClockInZone } from '../../src/domain/local-time.js';
import { wholeNumberAsShown } from '../../src/formats/digit-format.js';
import { sheetRowBatches, type ParsedRow } from '../../src/input/sheet-rows.js';

const wall = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) => ({ y, mo, d, h, mi, s });

describe('plainNumber', () => {
  it.each([
    [0, '0'],
    [-0, '0'],
    [456, '456'],
    [-12, '-12'],
    [9007199254740991, '9007199254740991'],
    [12.5, '12.5'],
    [0.1, '0.1'],
    [1e-7, '0.0000001'],
    [-1.5e-9, '-0.0000000015'],
    [1.25e-7, '0.000000125'],
    [123456789012345680000, '123456789012345683968'],
  ])('%s -> %s', (value, text) => {
    expect(plainNumber(value)).toBe(text);
    expect(plainNumber(value)).not.toMatch(/e/i);
  });
});

describe('wholeNumberAsShown: a whole number as a format of digit placeholders and literals shows it', () => {
  it.each([
    // Placeholders filled from the right; digits beyond them go before the leftmost one.
    [501, '00000', '00501'],
    [123456, '000', '123456'],
    [441234567890, '0 000 000 000', '441 234 567 890'],
    [42, '0000000', '0000042'],
    // # shows no leading zero; ? a space; a 0 placeholder between them forces its digit.
    [42, '####', '42'],
    [5, '#0#', '05'],
    [7, '??0', '  7'],
    [5551234, '###-####', '555-1234'],
    // Quoted text, escaped characters and Excel's plain literals, as written.
    [123, '"C"00000', 'C00123'],
    [7, '\\#000', '#007'],
    [1234, '(000) 0000', '(000) 1234'],
    [12, '"AB"-00', 'AB-12'],
    // A colour changes no text.
    [42, '[Red]0000', '0042'],
    // Sections: positive;negative;zero. One section adds a minus; the second shows negatives without one of its own.
    [-42, '0000', '-0042'],
    [-42, '"C"000', '-C042'],
    [-42, '0000;(0000)', '(0042)'],
    [0, '0000;-0000;"none "0', 'none 0'],
    [0, '0000;-0000', '0000'],
  ])('%s under %s shows %s', (value, format, shown) => {
    expect(wholeNumberAsShown(value, format)).toBe(shown);
  });

  it.each([
    ['General', 5],
    ['#,##0', 5],
    ['0.00', 5],
    ['0%', 5],
    ['0.00E+00', 5],
    ['@', 5],
    ['0_)', 5],
    ['[<=99]00;000', 5],
    ['[$-409]0000', 5],
    ['0000 AB', 5],
    ['"unclosed 00', 5],
    // No digit shown: # on zero, an empty or digitless section.
    ['#', 0],
    ['###-####', 0],
    ['0000;;', 0],
    ['0000;"neg"', -3],
  ])('%s on %s: not read (the number keeps its own digits)', (format, value) => {
    expect(wholeNumberAsShown(value, format)).toBeUndefined();
  });

  it('only whole numbers within 2^53', () => {
    expect(wholeNumberAsShown(21.5, '00000')).toBeUndefined();
    expect(wholeNumberAsShown(2 ** 53, '0')).toBeUndefined();
    expect(wholeNumberAsShown(5, undefined)).toBeUndefined();
  });
});

describe('wallClockInZone', () => {
  it('uses the offset in force at that wall time, daylight saving included', () => {
    expect(wallClockInZone(wall(2026, 1, 15, 9), 'America/New_York')).toEqual({
      ok: true,
      text: '2026-01-15T09:00:00-05:00',
    });
    expect(wallClockInZone(wall(2026, 7, 15, 9), 'America/New_York')).toEqual({
      ok: true,
      text: '2026-07-15T09:00:00-04:00',
    });
    expect(wallClockInZone(wall(2026, 7, 15, 9), 'Asia/Kolkata')).toEqual({
      ok: true,
      text: '2026-07-15T09:00:00+05:30',
    });
    expect(wallClockInZone(wall(2026, 7, 15, 9), 'UTC')).toEqual({ ok: true, text: '2026-07-15T09:00:00+00:00' });
  });

  it('refuses the skipped and the repeated hour rather than guess', () => {
    expect(wallClockInZone(wall(2026, 3, 8, 2, 30), 'America/New_York')).toEqual({ ok: false, reason: 'gap' });
    expect(wallClockInZone(wall(2026, 11, 1, 1, 30), 'America/New_York')).toEqual({ ok: false, reason: 'ambiguous' });
    // Lord Howe Island moves its clocks by 30 minutes.
    expect(wallClockInZone(wall(2026, 4, 5, 1, 45), 'Australia/Lord_Howe')).toEqual({ ok: false, reason: 'ambiguous' });
    expect(wallClockInZone(wall(2026, 4, 5, 2, 15), 'Australia/Lord_Howe')).toEqual({
      ok: true,
      text: '2026-04-05T02:15:00+10:30',
    });
  });
});

describe('readCell', () => {
  const user = (field: string | undefined) => ({ field });

  it('texts, booleans, rich text (its runs joined by the sheet reader, phonetic runs left out)', async () => {
    expect(readCell('00456', undefined, user('ExternalId'))).toEqual({ text: '00456' });
    expect(readCell(true, undefined, user('SpecialNeeds'))).toEqual({ text: 'true' });
    const xml =
      '<worksheet><sheetData><row r="1"><c r="A1" t="inlineStr"><is><r><t>a</t></r><r><t></t></r><rPh><t>x</t></rPh><r><t>b</t></r></is></c><c r="B1" t="str"><f>HYPERLINK("mailto:x@example.test","x@example.test")</f><v>x@example.test</v></c></row></sheetData></worksheet>';
    const rows: ParsedRow[] = [];
    for await (const batch of sheetRowBatches(
      (async function* () {
        yield Buffer.from(xml);
      })(),
      [],
      [],
    ))
      rows.push(...batch);
    expect(readCell(rows[0]!.cells[0]!.value, undefined, user('City'))).toEqual({ text: 'ab' });
    expect(readCell(rows[0]!.cells[1]!.value, undefined, user('Email'))).toEqual({ text: 'x@example.test' });
  });

  it('formulas give their saved result, false and 0 included; none saved or an error result is a problem', () => {
    expect(readCell({ formula: 'A1=B1', result: false }, undefined, user('SpecialNeeds'))).toEqual({ text: 'false' });
    expect(readCell({ formula: 'A1-A1', result: 0 }, undefined, user('ReasonableAdjustmentPercentage'))).toEqual({
      text: '0',
    });
    // A shared formula's later cells hold no formula text of their own (`<f t="shared" si="0"/>`).
    expect(readCell({ formula: '', result: 'x' }, undefined, user('City'))).toEqual({ text: 'x' });
    expect(readCell({ formula: 'NOW()' }, undefined, user('City'))).toMatchObject({
      problem: expect.stringMatching(/no saved result/),
    });
    expect(readCell({ formula: '1/0', result: { error: '#DIV/0!' } }, undefined, user('City'))).toMatchObject({
      problem: expect.stringMatching(/#DIV\/0!/),
    });
    expect(readCell({ error: '#REF!' }, undefined, user('City'))).toMatchObject({
      problem: expect.stringMatching(/#REF!/),
    });
  });

  it('numbers: zero-padded formats keep their zeros; a date format means a date (1900 and 1904 systems)', () => {
    expect(readCell(2134, '00000', user('PostalCode'))).toEqual({ text: '02134' });
    expect(readCell(2134, '0.00', user('PostalCode'))).toEqual({ text: '2134' });
    expect(readCell(45000, 'yyyy-mm-dd', user('DateOfBirth'))).toEqual({ text: '2023-03-15' });
    expect(readCell(43538, 'dd/mm/yyyy', { field: 'DateOfBirth', date1904: true })).toEqual({ text: '2023-03-15' });
    expect(readCell(2 ** 53 + 2, undefined, user('PhoneNumber'))).toMatchObject({
      problem: expect.stringMatching(/format the column as text/),
      shown: '#NUM!',
    });
  });

  it('a time cell (below 1 under a time format) reads as the time it shows; a date or date-time field refuses a time alone', () => {
    expect(readCell(14.5 / 24, 'hh:mm', user('City'))).toEqual({ text: '14:30' });
    expect(readCell((9 * 3600 + 5 * 60 + 7) / 86_400, 'h:mm:ss', user('City'))).toEqual({ text: '09:05:07' });
    expect(readCell(0, 'hh:mm', user('City'))).toEqual({ text: '00:00' });
    // AM/PM (and A/P) are no date tokens: a 12-hour time alone is a time cell too, given in 24 hours.
    expect(readCell(14.5 / 24, 'h:mm AM/PM', user('City'))).toEqual({ text: '14:30' });
    expect(readCell(14.5 / 24, 'h:mm A/P', user('DateOfBirth'))).toEqual({
      problem: 'DateOfBirth is a time cell (14:30) without a date; give the date',
      shown: '14:30',
    });
    expect(readCell(14.5 / 24, 'hh:mm', user('DateOfBirth'))).toEqual({
      problem: 'DateOfBirth is a time cell (14:30) without a date; give the date',
      shown: '14:30',
    });
    expect(readCell(14.5 / 24, 'hh:mm', { field: 'StartDateTime', timeZone: 'Europe/London' })).toEqual({
      problem: 'StartDateTime is a time cell (14:30) without a date; give the date and time',
      shown: '14:30',
    });
  });

  it('numbers in a percent format read as the spreadsheet shows them: 0.25 is 25%, which a percentage field takes as 25', () => {
    expect(readCell(0.25, '0%', user('ReasonableAdjustmentPercentage'))).toEqual({ text: '25%' });
    expect(readCell(1, '0%', user('ReasonableAdjustmentPercentage'))).toEqual({ text: '100%' });
    expect(readCell(0.07, '0%', user('ReasonableAdjustmentPercentage'))).toEqual({ text: '7%' });
    expect(readCell(0.125, '0.0%', user('City'))).toEqual({ text: '12.5%' });
    // A % in quoted text or escaped is no percent format: shown as the literal it is, the number not multiplied.
    expect(readCell(25, '0"%"', user('City'))).toEqual({ text: '25%' });
    expect(readCell(25, '0\\%', user('City'))).toEqual({ text: '25%' });
  });

  it('a whole number under a format of digit placeholders and literals reads as the text shown; other formats and fractions keep the number', () => {
    // The exams officer's cells: each sent as its bare number before.
    expect(readCell(4521, '"C"000000', user('CandidateExtId'))).toEqual({ text: 'C004521' });
    expect(readCell(4522, '000000;-000000;0', user('CandidateExtId'))).toEqual({ text: '004522' });
    expect(readCell(12345678, '00000-0000', user('PostalCode'))).toEqual({ text: '01234-5678' });
    expect(readCell(412345678, '0000 000 000', user('CellularPhone'))).toEqual({ text: '0412 345 678' });
    expect(readCell(2134, '00000;-00000', user('PostalCode'))).toEqual({ text: '02134' });
    expect(readCell(123456789, '000-00-0000', user('RegistrationNumber'))).toEqual({ text: '123-45-6789' });
    // Kept: General, thousands separators, decimals, text, a condition, a fraction, a date.
    expect(readCell(123, 'General', user('PIN'))).toEqual({ text: '123' });
    expect(readCell(1234567, '#,##0', user('PhoneNumber'))).toEqual({ text: '1234567' });
    expect(readCell(2134, '00000.00', user('PostalCode'))).toEqual({ text: '2134' });
    expect(readCell(2134, '@', user('PostalCode'))).toEqual({ text: '2134' });
    expect(readCell(5551234567, '[<=9999999]###-####;(###) ###-####', user('PhoneNumber'))).toEqual({
      text: '5551234567',
    });
    expect(readCell(21.5, '00000', user('PostalCode'))).toEqual({ text: '21.5' });
    expect(readCell(45000, '"D"yyyy', user('City'))).toEqual({ text: '2023-03-15', warning: expect.anything() });
    // 16 digits shown with a literal still warn that the last ones may have changed.
    expect(readCell(1234567890123456, '"N"0', user('PhoneNumber'))).toMatchObject({
      text: 'N1234567890123456',
      warning: { code: 9006 },
    });
  });

  it('date-time cells: zone-less refused in the instant fields, converted with a zone', () => {
    // 2026-03-01 09:00 as its serial number.
    const nineAm = 46082.375;
    expect(readCell(nineAm, 'yyyy-mm-dd hh:mm', user('StartDateTime'))).toMatchObject({
      problem: expect.stringMatching(
        /^StartDateTime is a date-time cell \(2026-03-01T09:00:00\), which has no time zone/,
      ),
    });
    expect(readCell(nineAm, 'yyyy-mm-dd hh:mm', { field: 'EndDateTime', timeZone: 'Europe/London' })).toEqual({
      text: '2026-03-01T09:00:00+00:00',
      // The wall time the sheet shows, for messages that quote the file (written-times.ts).
      wall: { text: '2026-03-01T09:00:00', zone: 'Europe/London' },
    });
    // Serial-number noise (09:09:59.9996) reads as the second it shows.
    expect(
      readCell(46082 + (9 * 60 + 10) / 1440 - 0.4 / 86_400_000, 'yyyy-mm-dd hh:mm', {
        field: 'StartDateTime',
        timeZone: 'UTC',
      }),
    ).toMatchObject({ text: '2026-03-01T09:10:00+00:00' });
  });

  it('isDateFormat ignores quoted text and colours', () => {
    expect(isDateFormat('yyyy-mm-dd')).toBe(true);
    expect(isDateFormat('[h]:mm:ss')).toBe(true);
    expect(isDateFormat('"day "0')).toBe(false);
    expect(isDateFormat('[Red]0.00')).toBe(false);
    expect(isDateFormat('General')).toBe(false);
    expect(isDateFormat('@')).toBe(false);
  });
});
