import { describe, expect, it } from 'vitest';
import { checkSpreadsheetValues, withReaderProblems } from '../../src/domain/spreadsheet-warnings.js';

describe('checkSpreadsheetValues', () => {
  it("a spreadsheet's error value, exactly, fails the record in any field (a failed formula, or a cell examctl could not read); one within text does not", () => {
    const { problems, warnings } = checkSpreadsheetValues({
      FirstName: '#N/A',
      Labels: ['ok', ' #VALUE! '],
      City: 'Err:502',
      Company: 'Fix #N/A later',
      Password: '#REF!',
      Title: '#NA',
    });
    expect(problems).toEqual([
      {
        field: 'FirstName',
        code: 9014,
        message:
          'FirstName holds the spreadsheet error #N/A (a formula that failed, or a cell examctl could not read): type the value',
      },
      {
        field: 'Labels[1]',
        code: 9014,
        message:
          'Labels holds the spreadsheet error #VALUE! (a formula that failed, or a cell examctl could not read): type the value',
      },
      {
        field: 'City',
        code: 9014,
        message:
          'City holds the spreadsheet error Err:502 (a formula that failed, or a cell examctl could not read): type the value',
      },
      // A secret's value is never quoted, not even an error's text.
      {
        field: 'Password',
        code: 9014,
        message:
          "Password holds a spreadsheet's error value (a formula that failed, or a cell examctl could not read): type the value",
      },
    ]);
    expect(warnings).toEqual([]);
  });

  it('warns on exponent-form ids and phone numbers, not on other fields', () => {
    const { fields, warnings } = checkSpreadsheetValues({
      ExternalId: '1.23457E+18',
      PhoneNumber: '1,2E+11',
      CellularPhone: '0612',
      Title: '2E3',
    });
    expect(warnings.map((w) => w.field)).toEqual(['ExternalId', 'PhoneNumber']);
    expect(warnings[0]).toMatchObject({ code: 9003, message: expect.stringContaining('format the column as text') });
    // Each doubt has its code (codes.ts, WARNING_CODES): what a --strict failure keeps.
    expect(warnings.map((w) => w.code)).toEqual([9003, 9003]);
    expect(fields['ExternalId']).toBe('1.23457E+18');
  });

  it('warns on ? between letters or ?? in names, and on U+FFFD anywhere', () => {
    const { warnings } = checkSpreadsheetValues({
      FirstName: 'Jos?',
      LastName: 'Garc?a',
      City: '??',
      Company: 'Who?',
      Title: 'Caf\uFFFD',
    });
    expect(warnings.map((w) => w.field)).toEqual(['LastName', 'City', 'Title']);
    expect(warnings[0]?.message).toMatch(/legacy encoding/);
    expect(warnings[2]?.message).toMatch(/U\+FFFD/);
    expect(warnings.map((w) => w.code)).toEqual([9002, 9002, 9001]);
  });

  it('warns on UTF-8 read as Windows-1252 or Latin-1 in names (9008), never on real names or other fields', () => {
    const mangled = {
      FirstName: 'Zo\u00C3\u00AB',
      LastName: 'O\u00E2\u20AC\u2122Brien',
      City: 'M\u00C3\u00BCnchen',
      Company: 'Ca\u00C3\u00A9 Co',
    };
    const { warnings } = checkSpreadsheetValues({
      ...mangled,
      Title: 'Math\u00C3\u00A9matiques',
      Password: 'Zo\u00C3\u00AB',
    });
    expect(warnings.map((w) => [w.field, w.code])).toEqual([
      ['FirstName', 9008],
      ['LastName', 9008],
      ['City', 9008],
      ['Company', 9008],
    ]);
    expect(warnings[0]?.message).toBe(
      'FirstName "Zo\u00C3\u00AB" looks like UTF-8 read as Windows-1252 (\u00C3\u00A9 for \u00E9): open the file as UTF-8 and save it again, or use .xlsx',
    );
    // Real names in many scripts: letters from \u00C0 up, followed by letters, never by what a continuation byte reads as.
    const real = [
      'Zo\u00EB',
      'S\u00E3o Paulo',
      '\u00D1and\u00FA',
      '\u00C9lodie',
      '\u00C5sa \u00D6berg',
      'Sch\u00DF',
      '\u00D0or\u00F0ur',
      '\u0141\u00F3d\u017A',
      '\u0160koda',
      '\u00C6sa',
      'O\u2019Brien',
      '\u00C2ngela',
      '\u00C3lvaro',
    ];
    // Capitals and marks a trial found warned by a wider rule (any lead byte's letter, \u00C2-\u00DF).
    real.push(
      'K\u0158\u00CD\u017D',
      'P\u00CD\u0160A',
      'JOS\u00C9\u00A0MAR\u00CDA',
      'Wei\u00DF\u2013Schmidt',
      'Strau\u00DF\u00A0GmbH',
      'NESTL\u00C9\u00AE',
      'CAF\u00C9\u2122 Lda',
      'Padaria \u00ABZ\u00C9\u00BB',
      'JO\u00C3O',
      'ROM\u00C2NIA',
    );
    for (const name of real)
      expect(checkSpreadsheetValues({ FirstName: name, City: `${name} ${name.toUpperCase()}` }).warnings).toEqual([]);
  });

  it('removes U+FEFF inside a value and says so, in nested requests and lists too; never shows a password', () => {
    const input = {
      Schedule: { Title: 'Maths\uFEFF 1' },
      Candidates: [{ FirstName: 'Ann' }, { FirstName: 'B\uFEFFob', Password: 'se\uFEFFcret' }],
      Labels: ['a', 'b\uFEFF'],
    };
    const { fields, warnings } = checkSpreadsheetValues(input);
    expect(fields).toEqual({
      Schedule: { Title: 'Maths 1' },
      Candidates: [{ FirstName: 'Ann' }, { FirstName: 'Bob', Password: 'secret' }],
      Labels: ['a', 'b'],
    });
    expect(input.Candidates[1]?.FirstName).toBe('B\uFEFFob');
    expect(warnings.map((w) => w.field)).toEqual([
      'Schedule.Title',
      'Candidates[1].FirstName',
      'Candidates[1].Password',
      'Labels[1]',
    ]);
    expect(warnings[2]?.message).not.toContain('secret');
    expect(new Set(warnings.map((w) => w.code))).toEqual(new Set([9000]));
  });

  it('returns the same object when nothing changes', () => {
    const fields = { FirstName: 'Ann', Labels: ['x'] };
    expect(checkSpreadsheetValues(fields)).toEqual({ fields, warnings: [], problems: [] });
    expect(checkSpreadsheetValues(fields).fields).toBe(fields);
  });
});

describe('withReaderProblems', () => {
  it('fails the record with the reader problems first, without repeating "required" for the unread field', () => {
    const validation = withReaderProblems(
      [{ field: 'FirstName', code: null, message: 'cell B2: the cell holds the error #N/A' }],
      {
        ok: false,
        problems: [
          { field: 'FirstName', code: 206, message: 'FirstName is required and must not be empty' },
          { field: 'Email', code: 209, message: 'Email is not a valid address' },
        ],
      },
    );
    expect(validation).toEqual({
      ok: false,
      problems: [
        { field: 'FirstName', code: null, message: 'cell B2: the cell holds the error #N/A' },
        { field: 'Email', code: 209, message: 'Email is not a valid address' },
      ],
    });
    expect(withReaderProblems(undefined, { ok: true, value: 1 })).toEqual({ ok: true, value: 1 });
    expect(withReaderProblems([{ field: 'X', code: null, message: 'm' }], { ok: true, value: 1 }).ok).toBe(false);
  });

  it("a SpecialNeeds the reader could not read does not make the adjustment a 250, for a user or a sitting's candidate; another 250 stays", () => {
    const unread = { field: 'SpecialNeeds', code: null, message: 'SpecialNeeds "TRUE" has no entry in the map file' };
    const rap = {
      field: 'ReasonableAdjustmentPercentage',
      code: 250 as const,
      message: 'ReasonableAdjustmentPercentage may be set only when SpecialNeeds is true',
    };
    expect(withReaderProblems([unread], { ok: false, problems: [rap] })).toEqual({ ok: false, problems: [unread] });
    const candidate = { ...rap, field: 'Candidates[1].ReasonableAdjustmentPercentage', line: 3 };
    expect(withReaderProblems([{ ...unread, line: 3 }], { ok: false, problems: [candidate] })).toEqual({
      ok: false,
      problems: [{ ...unread, line: 3 }],
    });
    // Another row's unread SpecialNeeds leaves this row's 250 alone.
    expect(withReaderProblems([{ ...unread, line: 4 }], { ok: false, problems: [candidate] })).toEqual({
      ok: false,
      problems: [{ ...unread, line: 4 }, candidate],
    });
  });
});
