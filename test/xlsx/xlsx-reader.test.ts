import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { CANDIDATE_COLUMNS, SCHEDULE_COLUMNS, USER_COLUMNS } from '../../src/domain/columns.js';
import { coerceAndValidateUser } from '../../src/domain/coercion.js';
import { validateScheduleRequest } from '../../src/domain/schedule.js';
import { withReaderProblems } from '../../src/domain/spreadsheet-warnings.js';
import { reportStatusOf } from '../../src/input/csv-reader.js';
import { readRecords } from '../../src/input/format.js';
import { readIdList } from '../../src/input/id-list.js';
import type { InputRecord } from '../../src/input/record.js';
import { readXlsxRecords } from '../../src/input/xlsx-reader.js';
import { recordShaping } from '../../src/input/field-map.js';
import { expectInputFileError } from '../input/helpers.js';
import { inTempDir, readAll, writeWorkbook, xlsxFixture } from './helpers.js';

const SITTING_COLUMNS = [...CANDIDATE_COLUMNS, ...SCHEDULE_COLUMNS];

describe('xlsx written by openpyxl', () => {
  const users = () => readAll(xlsxFixture('users-openpyxl.xlsx'), { columns: USER_COLUMNS, displayName: 'users.xlsx' });

  it('reads the first tab, names the sheet in the source, skips the blank row, keeps sheet row numbers', async () => {
    const records = await users();
    expect(records.map((record) => record.source)).toEqual([
      { file: 'users.xlsx[Users]', line: 2, index: 0 },
      { file: 'users.xlsx[Users]', line: 3, index: 1 },
      { file: 'users.xlsx[Users]', line: 5, index: 2 },
      { file: 'users.xlsx[Users]', line: 6, index: 3 },
    ]);
  });

  it('keeps text as typed, pads a 00000-formatted number, reads booleans and a DateOfBirth date cell', async () => {
    const [first] = await users();
    expect(first?.fields).toEqual({
      ExternalId: '00456',
      FirstName: 'Ann',
      LastName: 'Lee',
      Email: 'ann@example.test',
      PostalCode: '02134',
      PhoneNumber: '0612345678',
      SpecialNeeds: 'true',
      ReasonableAdjustmentPercentage: '25',
      DateOfBirth: '1990-02-28',
      Company: 'Acme',
      Labels: ['blue', 'green'],
    });
    expect(first?.problems).toBeUndefined();
    expect(coerceAndValidateUser(first?.fields ?? {}).ok).toBe(true);
  });

  it('an integer number cell is its digits; a fraction where an integer is required gets the field code; beyond 2^53 is a problem', async () => {
    const second = (await users())[1];
    expect(second?.fields['ExternalId']).toBe('789');
    expect(second?.fields['ReasonableAdjustmentPercentage']).toBe('12.5');
    expect(second?.fields['PhoneNumber']).toBeUndefined();
    expect(second?.problems).toEqual([
      {
        field: 'PhoneNumber',
        code: 9014,
        message: expect.stringMatching(/^cell F3: PhoneNumber is a number cell too large.*format the column as text/),
      },
    ]);
    const validation = withReaderProblems(second?.problems, coerceAndValidateUser(second?.fields ?? {}));
    expect(validation.ok).toBe(false);
    if (!validation.ok) {
      expect(validation.problems.map((p) => [p.field, p.code])).toEqual([
        ['PhoneNumber', 9014],
        ['ReasonableAdjustmentPercentage', 249],
      ]);
    }
  });

  it('a hyperlink is its text; a formula openpyxl never calculated and an error value are problems of their fields', async () => {
    const third = (await users())[2];
    expect(third?.fields).toEqual({ ExternalId: 'u-5', FirstName: 'Chloé', Email: 'chloe@example.test' });
    expect(third?.problems?.map((p) => p.field)).toEqual(['LastName', 'Company']);
    expect(third?.problems?.[0]).toMatchObject({ code: 9014, message: expect.stringMatching(/^cell C5: .*formula/) });
    expect(third?.problems?.[1]).toMatchObject({ code: 9014, message: expect.stringMatching(/^cell J5: .*#N\/A/) });
    // The report shows what the admin sees in the cell.
    expect(third?.raw?.cells[9]).toBe('#N/A');
  });

  it('a boolean false cell, and a DateOfBirth with a time of day refused', async () => {
    const fourth = (await users())[3];
    expect(fourth?.fields['SpecialNeeds']).toBe('false');
    expect(fourth?.problems).toEqual([
      {
        field: 'DateOfBirth',
        code: 9014,
        message: 'cell I6: DateOfBirth is a date cell with a time of day (1985-07-01T13:30:00); give the date only',
      },
    ]);
  });

  it('an unreadable cell fails its record only, in the first pass too; an id list refuses its unreadable id cell at its row', async () => {
    const records = readRecords(xlsxFixture('users-openpyxl.xlsx'), {
      columns: USER_COLUMNS,
      displayName: 'users.xlsx',
    });
    const all: InputRecord[] = [];
    for await (const record of records) all.push(record);
    expect(await records.countRecords?.(false)).toBe(all.length);
    const third = all.find((record) => record.source.line === 3);
    expect(third?.problems?.[0]).toMatchObject({
      code: 9014,
      message: expect.stringMatching(/^cell F3: PhoneNumber /),
    });
    expect(third?.fields['PhoneNumber']).toBeUndefined();
    await inTempDir(async (dir) => {
      const ids = join(dir, 'ids.xlsx');
      await writeWorkbook(ids, [{ name: 'Ids', rows: [['UserExtId'], ['inv-1'], [{ formula: 'UPPER("inv-2")' }]] }]);
      await expectInputFileError(readIdList(ids, { displayName: 'ids.xlsx' }), {
        file: 'ids.xlsx[Ids]',
        line: 3,
        reason: /^cell A3: the cell is a formula with no saved result/,
      });
    });
  });

  it('--sheet by name reads another tab', async () => {
    await expectInputFileError(
      readAll(xlsxFixture('users-openpyxl.xlsx'), { columns: USER_COLUMNS, displayName: 'users.xlsx', sheet: 'notes' }),
      {
        file: 'users.xlsx[Notes]',
        line: 1,
        reason: /the header has one cell, "This sheet is not read/,
      },
    );
  });

  it('date-time cells in StartDateTime/EndDateTime are refused without --timezone, naming the field and the fix', async () => {
    const records = await readAll(xlsxFixture('sittings-openpyxl.xlsx'), {
      columns: SITTING_COLUMNS,
      displayName: 'sittings.xlsx',
    });
    expect(records[0]?.problems?.map((p) => p.field)).toEqual(['StartDateTime', 'EndDateTime']);
    expect(records[0]?.problems?.[0]?.message).toContain(
      'has no time zone: format the column as text and write the zone',
    );
    expect(records[0]?.problems?.[0]?.message).toContain('--timezone');
    // A zoned text cell is text, as typed.
    expect(records[1]?.fields['EndDateTime']).toBe('2026-07-15T12:00:00+02:00');
  });

  it('--timezone converts them with daylight saving, and refuses the hour skipped and the hour repeated', async () => {
    const records = await readAll(xlsxFixture('sittings-openpyxl.xlsx'), {
      columns: SITTING_COLUMNS,
      displayName: 'sittings.xlsx',
      timeZone: 'Europe/Paris',
    });
    expect(records[0]?.fields['StartDateTime']).toBe('2026-01-15T09:00:00+01:00');
    expect(records[0]?.fields['EndDateTime']).toBe('2026-01-15T12:00:00+01:00');
    expect(records[1]?.fields['StartDateTime']).toBe('2026-07-15T09:00:00+02:00');
    expect(records[2]?.problems?.[0]?.message).toMatch(/2026-03-29T02:30:00 does not exist in Europe\/Paris/);
    expect(records[3]?.problems?.[0]?.message).toMatch(/2026-10-25T02:30:00 happens twice in Europe\/Paris/);
    const request = validateScheduleRequest({
      Schedule: {
        AssessmentExtId: 'A-1',
        GroupExtId: 'G-1',
        GroupName: 'G',
        StartDateTime: records[1]?.fields['StartDateTime'],
      },
      Candidates: [],
    });
    expect(request.ok && request.value.Schedule.StartDateTime).toBe('2026-07-15T07:00:00.000Z');
  });

  it("an unknown --timezone is refused by the input flags' check, before a reader is given it", () => {
    expect(() =>
      recordShaping(
        { map: [], set: [], timezone: { text: 'Europe/Pariss', origin: '--timezone' } },
        SITTING_COLUMNS,
        'schedule push',
      ),
    ).toThrow(/^--timezone: unknown time zone "Europe\/Pariss"/);
  });

  it('the first visible tab in tab order, whatever part it is stored in; --sheet by position or name in any case', async () => {
    const path = xlsxFixture('tabs-reordered.xlsx');
    const ids = async (sheet?: string) =>
      (await readAll(path, { columns: USER_COLUMNS, ...(sheet === undefined ? {} : { sheet }) })).map(
        (r) => r.fields['ExternalId'],
      );
    // Two visible tabs of the same columns ("Archive" first in tab order): which one is meant is the admin's to say; the hidden tab does not count.
    await expectInputFileError(ids(), {
      line: undefined,
      reason:
        /^the sheets "Archive", "Current" have the same columns, and examctl reads one sheet per run: the rows of "Current" would be left out\. Run once per sheet with --sheet \(--sheet "Archive", then --sheet "Current"\), or put all the rows on one sheet$/,
    });
    expect(await ids('Archive')).toEqual(['old-1']);
    expect(await ids('1')).toEqual(['hid-1']);
    expect(await ids('3')).toEqual(['cur-1']);
    expect(await ids('CURRENT')).toEqual(['cur-1']);
    await expectInputFileError(ids('Missing'), {
      line: undefined,
      reason: /--sheet Missing: no sheet of that name \(sheets: "Hidden", "Archive", "Current"\)/,
    });
    await expectInputFileError(ids('7'), { line: undefined, reason: /--sheet 7: the workbook has 3 sheets/ });
  });

  it('reads dates of a workbook counting from 1904', async () => {
    const [record] = await readAll(xlsxFixture('date1904-openpyxl.xlsx'), { columns: USER_COLUMNS });
    expect(record?.fields['DateOfBirth']).toBe('2001-09-30');
  });

  it('content that is not a workbook is refused by name', async () => {
    const read = (name: string) => readAll(xlsxFixture(name), { columns: USER_COLUMNS, displayName: name });
    await expectInputFileError(read('csv-named-xlsx.xlsx'), {
      file: 'csv-named-xlsx.xlsx',
      line: undefined,
      reason: /^not an \.xlsx workbook \(the content is not a zip archive\)/,
    });
    await expectInputFileError(read('zip-not-workbook.xlsx'), {
      line: undefined,
      reason: /^not an \.xlsx workbook: it has no worksheet/,
    });
    await expectInputFileError(read('legacy-xls.xlsx'), { line: undefined, reason: /Excel 97-2003 \(\.xls\)/ });
    await expectInputFileError(read('no-such.xlsx'), { line: undefined, reason: /^cannot read: no such file/ });
  });
});

describe('xlsx saved by LibreOffice', () => {
  it('reads what openpyxl wrote, after LibreOffice saved it: booleans saved as TRUE() formulas, the formula now calculated', async () => {
    const records = await readAll(xlsxFixture('users-libreoffice.xlsx'), {
      columns: USER_COLUMNS,
      displayName: 'users.xlsx',
    });
    const openpyxl = await readAll(xlsxFixture('users-openpyxl.xlsx'), {
      columns: USER_COLUMNS,
      displayName: 'users.xlsx',
    });
    expect(records.map((r) => r.source.line)).toEqual([2, 3, 5, 6]);
    expect(records[0]?.fields).toEqual(openpyxl[0]?.fields);
    expect(records[3]?.fields['SpecialNeeds']).toBe('false');
    expect(records[1]?.problems?.map((p) => p.field)).toEqual(['PhoneNumber']);
    expect(records[2]?.fields['LastName']).toBe('MARTIN');
    expect(records[2]?.problems?.map((p) => p.field)).toEqual(['Company']);
  });
});

describe('xlsx written by exceljs', () => {
  it('matches headers as CSV does, reads rich text, formula results (0 included), long and tiny numbers', async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, 'users.xlsx');
      await writeWorkbook(path, [
        {
          name: 'People',
          rows: [
            [' external id ', 'FIRST_NAME', 'last-name', 'Company', 'PostalCode', 'City', 'Labels', 'PhoneNumber'],
            [
              'u-1',
              { richText: [{ text: 'An' }, { text: 'n', font: { bold: true } }] },
              { formula: 'UPPER("lee")', result: 'LEE' },
              { formula: '1-1', result: 0 },
              0.0000001,
              { text: 'Paris', hyperlink: 'https://example.test/paris' },
              '  a | b ||',
              1234567890123456,
            ],
          ],
        },
      ]);
      const [record] = await readAll(path, { columns: USER_COLUMNS, displayName: 'users.xlsx' });
      expect(record?.source.file).toBe('users.xlsx[People]');
      expect(record?.fields).toEqual({
        ExternalId: 'u-1',
        FirstName: 'Ann',
        LastName: 'LEE',
        Company: '0',
        PostalCode: '0.0000001',
        City: 'Paris',
        Labels: ['a', 'b'],
        PhoneNumber: '1234567890123456',
      });
      expect(record?.warnings).toEqual([
        {
          field: 'PhoneNumber',
          code: 9006,
          message: expect.stringMatching(/^cell H2: PhoneNumber is a number cell with 16 or more digits/),
        },
      ]);
    });
  });

  it('header problems are those of CSV: unknown columns (or skipped with the flag), duplicates, unnamed columns', async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, 'h.xlsx');
      await writeWorkbook(path, [
        {
          name: 'S',
          rows: [
            ['ExternalId', 'Nickname', 'FirstName', 'first name'],
            ['u-1', 'x', 'Ann', 'Ann'],
          ],
        },
      ]);
      await expectInputFileError(readAll(path, { columns: USER_COLUMNS, displayName: 'h.xlsx' }), {
        file: 'h.xlsx[S]',
        line: 1,
        reason:
          /duplicate column: "FirstName" and "first name" both mean FirstName.*unknown column: "Nickname"; use --map "Column=Field" to read a column as an API field, or --ignore-unknown-columns/s,
      });
      await writeWorkbook(path, [{ name: 'S', rows: [undefined, ['ExternalId', null, 'LastName']] }]);
      await expectInputFileError(readAll(path, { columns: USER_COLUMNS }), {
        line: 2,
        reason: /header column 2 has no name/,
      });
      await writeWorkbook(path, [
        {
          name: 'S',
          rows: [
            ['ExternalId', 'Nickname'],
            ['u-1', 'x'],
          ],
        },
      ]);
      const records = await readAll(path, { columns: USER_COLUMNS, ignoreUnknownColumns: true });
      expect(records.map((r) => r.fields)).toEqual([{ ExternalId: 'u-1' }]);
    });
  });

  it('refuses a value right of the header, a repeated header row, an empty sheet', async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, 'r.xlsx');
      await writeWorkbook(path, [
        {
          name: 'S',
          rows: [
            ['ExternalId', 'FirstName'],
            ['u-1', 'Ann', null, 'stray'],
          ],
        },
      ]);
      await expectInputFileError(readAll(path, { columns: USER_COLUMNS, displayName: 'r.xlsx' }), {
        file: 'r.xlsx[S]',
        line: 2,
        reason: /^a value in cell D2, whose column has no name in the header \(row 1\)$/,
      });
      await writeWorkbook(path, [
        {
          name: 'S',
          rows: [
            ['ExternalId', 'FirstName'],
            ['u-1', 'Ann'],
            ['externalid', 'First Name'],
          ],
        },
      ]);
      await expectInputFileError(readAll(path, { columns: USER_COLUMNS }), {
        line: 3,
        reason: /header row is repeated/,
      });
      await writeWorkbook(path, [{ name: 'S', rows: [] }]);
      await expectInputFileError(readAll(path, { columns: USER_COLUMNS }), {
        line: 1,
        reason: /no header row \(the sheet is empty\)/,
      });
    });
  });

  it('Password cells: a number cell is its digits; any problem message leaves the value out', async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, 'p.xlsx');
      await writeWorkbook(path, [
        {
          name: 'S',
          rows: [
            ['ExternalId', 'Password'],
            ['u-1', 123456],
            ['u-2', 98765432109876543210],
            ['u-3', { value: new Date(Date.UTC(2020, 0, 2, 3, 4, 5)), numFmt: 'yyyy-mm-dd hh:mm:ss' }],
          ],
        },
      ]);
      const records = await readAll(path, { columns: USER_COLUMNS });
      expect(records[0]?.fields['Password']).toBe('123456');
      const text = JSON.stringify(records.slice(1).map((r) => [r.problems, r.warnings]));
      expect(text).not.toMatch(/9876|2020/);
      expect(records[1]?.problems?.[0]?.message).toBe(
        'cell B3: Password must be typed as text (the cell holds a number, a date, a formula or an error)',
      );
    });
  });

  it('PIN cells are secrets as Password cells are: a problem or a doubt leaves the value out', async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, 'pin.xlsx');
      await writeWorkbook(path, [
        {
          name: 'S',
          rows: [
            ['ScheduleExtId', 'PIN'],
            ['s-1', 98765432109876543210],
            ['s-2', 4321987654321098],
          ],
        },
      ]);
      const records = await readAll(path, { columns: SCHEDULE_COLUMNS });
      expect(JSON.stringify(records.map((r) => [r.problems, r.warnings]))).not.toMatch(/9876|4321/);
      expect(records[0]?.problems?.[0]?.message).toBe(
        'cell B2: PIN must be typed as text (the cell holds a number, a date, a formula or an error)',
      );
      expect(records[1]?.fields['PIN']).toBe('4321987654321098');
      expect(records[1]?.warnings).toBeUndefined();
    });
  });

  it('a date cell in a text field is read as its ISO date with a warning', async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, 'd.xlsx');
      await writeWorkbook(path, [
        {
          name: 'S',
          rows: [
            ['ExternalId', 'PostalCode'],
            ['u-1', { value: new Date(Date.UTC(2026, 0, 2)), numFmt: 'd-mmm' }],
          ],
        },
      ]);
      const [record] = await readAll(path, { columns: USER_COLUMNS });
      expect(record?.fields['PostalCode']).toBe('2026-01-02');
      expect(record?.warnings?.[0]?.code).toBe(9005);
      expect(record?.warnings?.[0]?.message).toMatch(
        /PostalCode was a date cell, read as 2026-01-02; if it is not meant as a date, format the column as text/,
      );
    });
  });

  it('a whole number under a custom format of digits and literals is read as the sheet shows it (C004521, 01234-5678), not as its bare number', async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, 'f.xlsx');
      const cell = (value: number, numFmt: string) => ({ value, numFmt });
      await writeWorkbook(path, [
        {
          name: 'Users',
          rows: [
            ['ExternalId', 'PostalCode', 'CellularPhone'],
            [cell(4521, '"C"000000'), cell(12345678, '00000-0000'), cell(412345678, '0000 000 000')],
            [cell(4522, '000000;-000000;0'), cell(2134, '00000;-00000'), cell(412345678, '#,##0')],
          ],
        },
      ]);
      const records = await readAll(path, { columns: USER_COLUMNS });
      expect(records.map((record) => record.fields)).toEqual([
        { ExternalId: 'C004521', PostalCode: '01234-5678', CellularPhone: '0412 345 678' },
        // A thousands separator is not read: the number's digits, as before.
        { ExternalId: '004522', PostalCode: '02134', CellularPhone: '412345678' },
      ]);
      // The report gives the row back as shown too.
      expect(records[0]?.raw?.cells).toEqual(['C004521', '01234-5678', '0412 345 678']);
    });
  });

  it('a run report fed back: status columns ignored as fields, status available for --only-failed', async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, 'report.xlsx');
      await writeWorkbook(path, [
        {
          name: 'Report',
          rows: [
            ['ExternalId', 'FirstName', 'status', 'error_codes', 'error_messages'],
            ['u-1', 'Ann', 'ok', '', ''],
            ['u-2', 'Bob', 'failed', '219', 'ExternalId: bad'],
          ],
        },
      ]);
      const records = await readAll(path, { columns: USER_COLUMNS });
      expect(records.map((r) => r.fields)).toEqual([
        { ExternalId: 'u-1', FirstName: 'Ann' },
        { ExternalId: 'u-2', FirstName: 'Bob' },
      ]);
      expect(records.map(reportStatusOf)).toEqual(['ok', 'failed']);
      // The structure pass is readRecords': an xlsx reader builds the records and counts them there.
      expect(readXlsxRecords(path, { columns: USER_COLUMNS }).countRecords).toBeUndefined();
      const reader = readRecords(path, { columns: USER_COLUMNS });
      expect(await reader.countRecords?.(true)).toBe(1);
      expect(await reader.countRecords?.(false)).toBe(2);
    });
  });

  it('readRecords picks the xlsx reader by extension, any case', async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, 'USERS.XLSX');
      await writeWorkbook(path, [{ name: 'S', rows: [['ExternalId'], ['u-1']] }]);
      const records = [];
      for await (const record of readRecords(path, { columns: USER_COLUMNS, displayName: 'USERS.XLSX' }))
        records.push(record);
      expect(records.map((r) => [r.source.file, r.fields])).toEqual([['USERS.XLSX[S]', { ExternalId: 'u-1' }]]);
      await writeFile(join(dir, 'x.xlsx'), 'ExternalId\nu-1\n');
      await expectInputFileError(readAll(join(dir, 'x.xlsx'), { columns: USER_COLUMNS }), {
        line: undefined,
        reason: /not an \.xlsx workbook/,
      });
    });
  });
});

describe('text split across the chunks of a zip entry', () => {
  it('a character whose bytes two inflated chunks share is read whole, never as U+FFFD', async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, 'wide.xlsx');
      // 2- and 3-byte characters filling ~1 MB of XML (distinct strings, so the shared strings
      // part is that large too): many chunk boundaries fall inside one.
      const name = (i: number): string => `${'€ß漢'.repeat(40)}${i}`;
      const rows = [['ExternalId', 'FirstName'], ...Array.from({ length: 3000 }, (_, i) => [`u-${i}`, name(i)])];
      await writeWorkbook(path, [{ name: 'Users', rows }]);
      const records = await readAll(path, { columns: USER_COLUMNS, ignoreUnknownColumns: true });
      expect(records).toHaveLength(3000);
      expect(
        records
          .filter((record) => record.fields.FirstName !== name(record.source.line - 2))
          .map((record) => record.source.line),
      ).toEqual([]);
    });
  });
});
