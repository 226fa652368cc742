// What producers other than Excel write, and what exceljs used to read wrongly: each workbook is
// written by hand (zip-writer.ts) with the one quirk it tests.
import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CANDIDATE_COLUMNS, SCHEDULE_COLUMNS, USER_COLUMNS } from '../../src/domain/columns.js';
import type { InputRecord } from '../../src/input/record.js';
import type { XlsxReadOptions } from '../../src/input/xlsx-reader.js';
import { inTempDir, readAll } from './helpers.js';
import { workbookBytes, type WorkbookParts } from './zip-writer.js';

/** Reads a hand-made workbook as a users file (unknown columns ignored). */
async function readWorkbook(
  parts: WorkbookParts,
  options: Partial<XlsxReadOptions> = {},
  zip64 = false,
): Promise<InputRecord[]> {
  return inTempDir(async (dir) => {
    const path = join(dir, 'q.xlsx');
    await writeFile(path, workbookBytes(parts, { zip64 }));
    return readAll(path, { columns: USER_COLUMNS, displayName: 'q.xlsx', ...options });
  });
}

const header = (...names: string[]): string =>
  `<row r="1">${names.map((name, i) => `<c r="${String.fromCharCode(65 + i)}1" t="inlineStr"><is><t>${name}</t></is></c>`).join('')}</row>`;

describe('strings', () => {
  it('an inline string is decoded once: &amp;amp; is the text &amp;', async () => {
    const [record] = await readWorkbook({
      rows: `${header('ExternalId', 'Company')}<row r="2"><c r="A2" t="inlineStr"><is><t>u-1</t></is></c><c r="B2" t="inlineStr"><is><t>Smith &amp;amp; Sons &lt;UK&gt; &#233;&#x20AC;</t></is></c></row>`,
    });
    expect(record?.fields).toEqual({ ExternalId: 'u-1', Company: 'Smith &amp; Sons <UK> é€' });
  });

  it('shared strings: rich runs joined, phonetic runs (<rPh>) left out, _xHHHH_ escapes decoded as Excel does', async () => {
    const records = await readWorkbook({
      sharedStrings: [
        '<si><t>ExternalId</t></si><si><t>City</t></si><si><t>Company</t></si>',
        '<si><r><rPr><b/></rPr><t>東</t></r><r><t>京</t></r><rPh sb="0" eb="2"><t>トウキョウ</t></rPh><phoneticPr fontId="1"/></si>',
        '<si><t>漢字</t><rPh sb="0" eb="2"><t>かんじ</t></rPh></si>',
        '<si><t>A_x0042_C_x005F_x0044_</t></si>',
        '<si><t xml:space="preserve"> Mr &amp;amp; Mrs </t></si>',
        '<si><t>u-1</t></si>',
      ].join(''),
      rows:
        '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="s"><v>2</v></c></row>' +
        '<row r="2"><c r="A2" t="s"><v>7</v></c><c r="B2" t="s"><v>3</v></c><c r="C2" t="s"><v>4</v></c></row>' +
        '<row r="3"><c r="A3" t="s"><v>5</v></c><c r="B3" t="s"><v>6</v></c></row>',
    });
    expect(records.map((r) => r.fields)).toEqual([
      { ExternalId: 'u-1', City: '東京', Company: '漢字' },
      { ExternalId: 'ABC_x0044_', City: 'Mr &amp; Mrs' },
    ]);
  });

  it('a formula string result (t="str"), CDATA text, and a prefixed namespace (x:c) read as any cell', async () => {
    const main = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
    const [record] = await readWorkbook({
      sheetPart:
        `<x:worksheet xmlns:x="${main}"><x:sheetData><x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t>ExternalId</x:t></x:is></x:c><x:c r="B1" t="inlineStr"><x:is><x:t>LastName</x:t></x:is></x:c><x:c r="C1" t="inlineStr"><x:is><x:t>City</x:t></x:is></x:c></x:row>` +
        '<x:row r="2"><x:c r="A2" t="str"><x:f>"u-"&amp;1</x:f><x:v>u-1</x:v></x:c><x:c r="B2" t="inlineStr"><x:is><x:t><![CDATA[O\'Brien & <Co>]]></x:t></x:is></x:c><x:c r="C2" t="str"><x:v>Line_x000D_</x:v></x:c></x:row></x:sheetData></x:worksheet>',
    });
    expect(record?.fields).toEqual({ ExternalId: 'u-1', LastName: "O'Brien & <Co>", City: 'Line' });
  });
});

describe('cell types', () => {
  it('booleans, errors, a formula with no cached value, numbers (an empty <v> is no value)', async () => {
    const records = await readWorkbook({
      rows:
        header('ExternalId', 'SpecialNeeds', 'City', 'ReasonableAdjustmentPercentage', 'Company') +
        '<row r="2"><c r="A2"><v>42</v></c><c r="B2" t="b"><v>1</v></c><c r="C2" t="e"><v>#N/A</v></c><c r="D2"><f>SUM(1,2)</f></c><c r="E2"><v></v></c></row>' +
        '<row r="3"><c r="A3"><v>1.5E+2</v></c><c r="B3" t="b"><f>FALSE()</f><v>0</v></c><c r="C3" t="e"><f>1/0</f><v>#DIV/0!</v></c><c r="D3"><f>1+1</f><v>2</v></c><c r="E3" t="str"><f>B3&amp;""</f><v></v></c></row>',
    });
    expect(records[0]?.fields).toEqual({ ExternalId: '42', SpecialNeeds: 'true' });
    expect(records[0]?.problems?.map((p) => p.message)).toEqual([
      'cell C2: the cell holds the error #N/A; fix it in the spreadsheet or type the value',
      expect.stringMatching(/^cell D2: the cell is a formula with no saved result/),
    ]);
    expect(records[1]?.fields).toEqual({
      ExternalId: '150',
      SpecialNeeds: 'false',
      ReasonableAdjustmentPercentage: '2',
    });
    expect(records[1]?.problems?.map((p) => p.message)).toEqual([
      'cell C3: the cell is a formula whose result is the error #DIV/0!; fix it in the spreadsheet or type the value',
    ]);
  });

  it('t="d" cells are ISO dates: DateOfBirth a date, StartDateTime zone-less refused or converted, with an offset taken as written', async () => {
    const sittings = [...CANDIDATE_COLUMNS, ...SCHEDULE_COLUMNS];
    const parts: WorkbookParts = {
      rows:
        header('UserExtId', 'StartDateTime', 'EndDateTime') +
        '<row r="2"><c r="A2" t="inlineStr"><is><t>u-1</t></is></c><c r="B2" t="d"><v>2026-07-15T09:00:00</v></c><c r="C2" t="d"><v>2026-07-15T12:00:00Z</v></c></row>' +
        '<row r="3"><c r="A3" t="inlineStr"><is><t>u-2</t></is></c><c r="B3" t="d"><v>2026-02-30T09:00:00</v></c></row>',
    };
    const plain = await readWorkbook(parts, { columns: sittings, ignoreUnknownColumns: true });
    expect(plain[0]?.problems?.[0]?.message).toMatch(
      /^cell B2: StartDateTime is a date-time cell \(2026-07-15T09:00:00\), which has no time zone/,
    );
    expect(plain[0]?.fields['EndDateTime']).toBe('2026-07-15T12:00:00Z');
    expect(plain[1]?.problems?.[0]?.message).toMatch(
      /^cell B3: the date cell holds "2026-02-30T09:00:00", which is no calendar date/,
    );
    const zoned = await readWorkbook(parts, {
      columns: sittings,
      ignoreUnknownColumns: true,
      timeZone: 'Europe/Paris',
    });
    expect(zoned[0]?.fields['StartDateTime']).toBe('2026-07-15T09:00:00+02:00');
    const [user] = await readWorkbook({
      rows: `${header('ExternalId', 'DateOfBirth')}<row r="2"><c r="A2" t="inlineStr"><is><t>u-1</t></is></c><c r="B2" t="d"><v>1990-02-28</v></c></row>`,
    });
    expect(user?.fields['DateOfBirth']).toBe('1990-02-28');
  });
});

describe('styles: which number cells are dates', () => {
  const styles =
    '<numFmts count="4"><numFmt numFmtId="164" formatCode="yyyy\\-mm\\-dd"/><numFmt numFmtId="165" formatCode="&quot;day &quot;0"/><numFmt numFmtId="166" formatCode="[Red]0.00;\\d0"/><numFmt numFmtId="167" formatCode="00000"/></numFmts>' +
    '<cellStyleXfs count="1"><xf numFmtId="14"/></cellStyleXfs>' +
    '<cellXfs count="7"><xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="166"/><xf numFmtId="167"/><xf numFmtId="47"/></cellXfs>' +
    '<dxfs count="1"><dxf><numFmt numFmtId="164" formatCode="0"/></dxf></dxfs>';
  const row = (r: number, style: number, value: string): string =>
    `<row r="${r}"><c r="A${r}" t="inlineStr"><is><t>u-${r}</t></is></c><c r="B${r}" s="${style}"><v>${value}</v></c></row>`;

  it('built-in date formats (14-22, 45-47) and custom ones with date tokens are dates; quoted, escaped and bracketed letters are not', async () => {
    const records = await readWorkbook({
      styles,
      rows:
        header('ExternalId', 'DateOfBirth') +
        row(2, 1, '45000') +
        row(3, 2, '45000') +
        row(4, 0, '45000') +
        row(5, 3, '7') +
        row(6, 4, '7') +
        row(7, 5, '2134') +
        row(8, 6, '0.5'),
    });
    expect(records.map((r) => r.fields['DateOfBirth'] ?? r.problems?.[0]?.message)).toEqual([
      '2023-03-15',
      '2023-03-15',
      '45000',
      // Quoted text is shown as written, not read as a date token.
      'day 7',
      '7',
      '02134',
      // Format 47 (mm:ss.0) shows a time alone: no date to take.
      'cell B8: DateOfBirth is a time cell (12:00) without a date; give the date',
    ]);
  });

  it('the 1904 date system (workbookPr date1904)', async () => {
    const [record] = await readWorkbook({
      styles,
      workbookPr: '<workbookPr date1904="1"/>',
      rows: header('ExternalId', 'DateOfBirth') + row(2, 1, '43538'),
    });
    expect(record?.fields['DateOfBirth']).toBe('2023-03-15');
  });
});

describe('layout', () => {
  it('rows and cells without r follow the previous ones; sparse rows keep their numbers; columns beyond Z', async () => {
    const inline = (text: string, r = ''): string =>
      `<c${r === '' ? '' : ` r="${r}"`} t="inlineStr"><is><t>${text}</t></is></c>`;
    const before = Array.from({ length: 26 }, (_, i) => inline(`Extra${i}`)).join('');
    const records = await readWorkbook(
      {
        rows:
          `<row>${inline('ExternalId')}${before}${inline('City', 'AB1')}</row>` +
          `<row>${inline('u-1')}<c r="AB2" t="inlineStr"><is><t>Paris</t></is></c></row>` +
          `<row r="7">${inline('u-2', 'A7')}${inline('Lyon', 'AB7')}</row>` +
          `<row>${inline('u-3')}</row>`,
      },
      { ignoreUnknownColumns: true },
    );
    expect(records.map((r) => [r.source.line, r.fields])).toEqual([
      [2, { ExternalId: 'u-1', City: 'Paris' }],
      [7, { ExternalId: 'u-2', City: 'Lyon' }],
      [8, { ExternalId: 'u-3' }],
    ]);
  });

  it('a value right of the header in a column beyond Z is named by its letters', async () => {
    const parts = { rows: `${header('ExternalId')}<row r="2"><c r="A2"><v>1</v></c><c r="AC2"><v>2</v></c></row>` };
    await expect(readWorkbook(parts)).rejects.toThrow(
      /^q\.xlsx\[Sheet1\]:2: a value in cell AC2, whose column has no name/,
    );
  });

  it('finds the workbook through _rels/.rels, wherever it is stored, and an entity in a sheet name', async () => {
    const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
    const records = await readWorkbook({
      rows: `${header('ExternalId')}<row r="2"><c r="A2"><v>7</v></c></row>`,
      entries: [
        {
          name: '_rels/.rels',
          data: `<Relationships xmlns="x"><Relationship Id="r1" Type="${REL}/officeDocument" Target="/book/main.xml"/></Relationships>`,
        },
        { name: 'xl/workbook.xml', data: '<nothing/>' },
        {
          name: 'book/main.xml',
          data: `<workbook xmlns:r="${REL}"><sheets><sheet name="R&amp;D" sheetId="1" r:id="a"/></sheets></workbook>`,
        },
        {
          name: 'book/_rels/main.xml.rels',
          data: `<Relationships><Relationship Id="a" Type="${REL}/worksheet" Target="../xl/worksheets/sheet1.xml"/></Relationships>`,
        },
      ],
    });
    expect(records.map((r) => [r.source.file, r.fields])).toEqual([['q.xlsx[R&D]', { ExternalId: '7' }]]);
  });

  it('reads a zip64 archive', async () => {
    const records = await readWorkbook(
      { rows: `${header('ExternalId')}<row r="2"><c r="A2"><v>7</v></c></row>` },
      {},
      true,
    );
    expect(records.map((r) => r.fields)).toEqual([{ ExternalId: '7' }]);
  });

  it("a cell in Excel's attribute order (read whole by the fast path) and the same cell written otherwise read alike", async () => {
    const styles = '<cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14"/></cellXfs>';
    const cells: [string, string, string | undefined, string][] = [
      ['A', 'inlineStr', undefined, '<is><t>u-1</t></is>'],
      ['B', 'n', '1', '<v>45000</v>'],
      ['C', 's', undefined, '<v>0</v>'],
      ['D', 'b', undefined, '<v>1</v>'],
      ['E', 'str', undefined, '<v>a_x0041_ &amp;amp; b</v>'],
      ['F', 'e', undefined, '<v>#N/A</v>'],
      ['G', 'n', undefined, '<v>1.5E+2</v>'],
      ['H', 'n', undefined, '<v>2</v>'],
    ];
    const excelOrder = (r: number) =>
      cells
        .map(
          ([col, t, style, body]) =>
            `<c r="${col}${r}"${style === undefined ? '' : ` s="${style}"`} t="${t}">${body}</c>`,
        )
        .join('');
    const otherOrder = (r: number) =>
      cells
        .map(
          ([col, t, style, body]) =>
            `<c  t="${t}"${style === undefined ? '' : ` s='${style}'`} r="${col}${r}" >${body}</c >`,
        )
        .join('');
    const parts = (row: (r: number) => string): WorkbookParts => ({
      styles,
      sharedStrings: '<si><t>Paris</t></si>',
      rows:
        header(
          'ExternalId',
          'DateOfBirth',
          'City',
          'SpecialNeeds',
          'Company',
          'LastName',
          'ReasonableAdjustmentPercentage',
          'PostalCode',
        ) + `<row r="2">${row(2)}</row>`,
    });
    const fast = await readWorkbook(parts(excelOrder));
    const general = await readWorkbook(parts(otherOrder));
    expect(fast[0]?.fields).toEqual({
      ExternalId: 'u-1',
      DateOfBirth: '2023-03-15',
      City: 'Paris',
      SpecialNeeds: 'true',
      Company: 'aA &amp; b',
      ReasonableAdjustmentPercentage: '150',
      PostalCode: '2',
    });
    expect(fast[0]?.problems?.map((p) => p.message)).toEqual([
      'cell F2: the cell holds the error #N/A; fix it in the spreadsheet or type the value',
    ]);
    expect(general.map((r) => [r.fields, r.problems])).toEqual(fast.map((r) => [r.fields, r.problems]));
  });
});
