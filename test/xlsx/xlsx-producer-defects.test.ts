// The defects found by reading 1,455 real producers' workbooks (issue 23, 1-3): each workbook is
// written by hand (zip-writer.ts) with the one thing real producers write that examctl misread.
import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { USER_COLUMNS } from '../../src/domain/columns.js';
import type { InputRecord } from '../../src/input/record.js';
import type { XlsxReadOptions } from '../../src/input/xlsx-reader.js';
import { readCell, serialDate } from '../../src/input/xlsx-cells.js';
import { inTempDir, readAll } from './helpers.js';
import { workbookBytes, zipBytes, type WorkbookParts, type ZipInput } from './zip-writer.js';

async function readWorkbook(
  parts: WorkbookParts | Buffer,
  options: Partial<XlsxReadOptions> = {},
): Promise<InputRecord[]> {
  return inTempDir(async (dir) => {
    const path = join(dir, 'q.xlsx');
    await writeFile(path, Buffer.isBuffer(parts) ? parts : workbookBytes(parts));
    return readAll(path, { columns: USER_COLUMNS, displayName: 'q.xlsx', ...options });
  });
}

const inline = (ref: string, text: string): string => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
const header = `<row r="1">${inline('A1', 'ExternalId')}${inline('B1', 'DateOfBirth')}</row>`;
const dateRow = (r: number, serial: string): string =>
  `<row r="${r}">${inline(`A${r}`, `u-${r}`)}<c r="B${r}" s="1"><v>${serial}</v></c></row>`;
const styles = '<cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/></cellXfs>';
const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';

describe('the date system is the main workbookPr only', () => {
  // What Excel 2013+ writes in every save: the x15 extension's workbookPr after the real one.
  const excel2013 =
    '<workbookPr date1904="1" defaultThemeVersion="166925"/>' +
    '<mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><mc:Choice Requires="x15"><x15ac:absPath xmlns:x15ac="http://schemas.microsoft.com/office/spreadsheetml/2010/11/ac" url="C:\\"/></mc:Choice><mc:Fallback><workbookPr date1904="0"/></mc:Fallback></mc:AlternateContent>';
  const extLst =
    '<extLst><ext uri="{140A7094-0E35-4892-8432-C4D2E57EDEB5}" xmlns:x15="http://schemas.microsoft.com/office/spreadsheetml/2010/11/main"><x15:workbookPr chartTrackingRefBase="1"/></ext></extLst>';

  it('an Excel 2013+ 1904 workbook (x15:workbookPr in extLst, a workbookPr in mc:Fallback) reads its dates in 1904', async () => {
    const entries: ZipInput[] = [
      {
        name: 'xl/workbook.xml',
        data: `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${MAIN}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">${excel2013}<sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets>${extLst}</workbook>`,
      },
    ];
    const [record] = await readWorkbook({ styles, rows: header + dateRow(2, '43538'), entries });
    expect(record?.fields['DateOfBirth']).toBe('2023-03-15');
  });
});

describe('the 1900 system counts a phantom 29 February 1900', () => {
  it('serials 1-59 are one day later than counting from 1899-12-30; 61 and above as counted; 1904 has no phantom day', () => {
    const text = (serial: number, date1904 = false): string => (serialDate(serial, date1904) as Date).toISOString();
    expect(text(1)).toBe('1900-01-01T00:00:00.000Z');
    expect(text(59)).toBe('1900-02-28T00:00:00.000Z');
    expect(text(61)).toBe('1900-03-01T00:00:00.000Z');
    expect(text(1.5)).toBe('1900-01-01T12:00:00.000Z');
    expect(text(0.25)).toBe('1899-12-30T06:00:00.000Z');
    expect(text(60, true)).toBe('1904-03-01T00:00:00.000Z');
    expect(serialDate(60, false)).toBeUndefined();
    expect(serialDate(60.5, false)).toBeUndefined();
  });

  it('a date cell of serial 31 is 1900-01-31; serial 60 fails that record only, naming the phantom day', async () => {
    const records = await readWorkbook({
      styles,
      rows: header + dateRow(2, '31') + dateRow(3, '60') + dateRow(4, '61'),
    });
    expect(records.map((r) => r.fields['DateOfBirth'] ?? r.problems?.[0]?.message)).toEqual([
      '1900-01-31',
      expect.stringMatching(/cell B3: DateOfBirth is the date cell 1900-02-29 \(serial 60\), a day that did not exist/),
      '1900-03-01',
    ]);
  });

  it('an elapsed time under 60 days ([h]:mm) in an ignored column shows its corrected date-time', () => {
    expect(readCell(2.5, '[h]:mm', { field: undefined })).toEqual({ text: '1900-01-02T12:00:00' });
  });
});

describe('files other readers read', () => {
  it('an empty shared-string cell (<v/> and <v></v>) is an empty cell, not a damaged file', async () => {
    const [record] = await readWorkbook({
      sharedStrings: '<si><t>ExternalId</t></si><si><t>City</t></si><si><t>u-1</t></si>',
      rows: '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row><row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2" t="s"><v/></c><c r="C2" t="s"><v></v></c></row>',
    });
    expect(record?.fields).toEqual({ ExternalId: 'u-1' });
  });

  it('part names are matched case-insensitively and zip entries written with backslashes are found', async () => {
    const parts = workbookBytes({
      rows: `<row r="1">${inline('A1', 'ExternalId')}</row><row r="2">${inline('A2', 'u-1')}</row>`,
    });
    // Re-zip the same entries under other spellings of their names.
    const { ZipEntries } = await import('../../src/input/zip-entries.js');
    const entries = await inTempDir(async (dir) => {
      const path = join(dir, 'a.xlsx');
      await writeFile(path, parts);
      const zip = await ZipEntries.open(path);
      const out: ZipInput[] = [];
      for (const entry of zip.entries.values()) {
        const chunks: Buffer[] = [];
        for await (const chunk of zip.chunks(entry.name, 1 << 20)) chunks.push(chunk);
        out.push({ name: entry.name, data: Buffer.concat(chunks) });
      }
      return out;
    });
    const renamed = (rename: (name: string) => string): Buffer =>
      zipBytes(entries.map((entry) => ({ ...entry, name: rename(entry.name) })));
    const upper = await readWorkbook(
      renamed((name) => (name.startsWith('xl/') ? name.replace('xl/', 'XL/').replace('sheet1', 'Sheet1') : name)),
    );
    expect(upper.map((r) => r.fields)).toEqual([{ ExternalId: 'u-1' }]);
    const backslashes = await readWorkbook(renamed((name) => name.replace(/\//g, '\\')));
    expect(backslashes.map((r) => r.fields)).toEqual([{ ExternalId: 'u-1' }]);
  });

  it('hidden means hidden or veryHidden: a first sheet with state="show" is the one read', async () => {
    const workbook = (state: string): ZipInput => ({
      name: 'xl/workbook.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${MAIN}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" state="${state}" r:id="rId1"/></sheets></workbook>`,
    });
    const rows = `<row r="1">${inline('A1', 'ExternalId')}</row><row r="2">${inline('A2', 'u-1')}</row>`;
    expect((await readWorkbook({ rows, entries: [workbook('show')] })).map((r) => r.fields)).toEqual([
      { ExternalId: 'u-1' },
    ]);
    await expect(readWorkbook({ rows, entries: [workbook('veryHidden')] })).rejects.toThrow(
      /every worksheet is hidden/,
    );
  });
});
