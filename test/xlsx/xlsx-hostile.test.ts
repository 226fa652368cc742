// Workbooks built to hurt or simply broken: each is refused (exit 2) naming the file, or the
// sheet and row, and the reason, after reading no more than the limits allow.
import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { USER_COLUMNS } from '../../src/domain/columns.js';
import type { XlsxReadOptions } from '../../src/input/xlsx-reader.js';
import { expectInputFileError } from '../input/helpers.js';
import { inTempDir, readAll } from './helpers.js';
import { workbookBytes, zipBytes, type WorkbookParts } from './zip-writer.js';

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const SHEET = 'xl/worksheets/sheet1.xml';

function rowsXml(count: number): string {
  let xml = '<row r="1"><c r="A1" t="inlineStr"><is><t>ExternalId</t></is></c></row>';
  for (let r = 2; r <= count + 1; r++)
    xml += `<row r="${r}"><c r="A${r}" t="inlineStr"><is><t>u-${r}</t></is></c></row>`;
  return xml;
}

const sheetXml = (rows: string): string =>
  `<?xml version="1.0"?><worksheet xmlns="${MAIN}"><sheetData>${rows}</sheetData></worksheet>`;

/** Writes the workbook and reads it, giving the promise of the read (to expect a refusal of). */
async function refusal(
  bytes: Buffer,
  expected: { file?: string; line: number | undefined; reason: RegExp },
  options: Partial<XlsxReadOptions> = {},
): Promise<void> {
  await inTempDir(async (dir) => {
    const path = join(dir, 'h.xlsx');
    await writeFile(path, bytes);
    await expectInputFileError(readAll(path, { columns: USER_COLUMNS, displayName: 'h.xlsx', ...options }), expected);
  });
}

const workbook = (parts: WorkbookParts): Buffer => workbookBytes(parts);

describe('zip bombs and damaged entries', () => {
  it('a sheet that inflates past the size its directory declares stops there, at the row reached', async () => {
    // 20,000 rows (~1 MB of XML) declared as 2,000 bytes.
    const bytes = workbook({ entries: [{ name: SHEET, data: sheetXml(rowsXml(20_000)), declaredSize: 2000 }] });
    await refusal(bytes, {
      file: 'h.xlsx[Sheet1]',
      line: undefined,
      reason: /^refused: xl\/worksheets\/sheet1\.xml inflates to more than the 2,000 bytes its zip directory declares/,
    });
  });

  it('the rows before the refusal are read, the refusal names the row reached', async () => {
    const bytes = workbook({ entries: [{ name: SHEET, data: sheetXml(rowsXml(20_000)), declaredSize: 200_000 }] });
    const error = await inTempDir(async (dir) => {
      const path = join(dir, 'h.xlsx');
      await writeFile(path, bytes);
      return readAll(path, { columns: USER_COLUMNS, displayName: 'h.xlsx' }).then(
        () => undefined,
        (caught: unknown) => caught as { line?: number; reason?: string },
      );
    });
    expect(error?.reason).toContain('200,000 bytes');
    expect(error?.line).toBeGreaterThan(1000);
    expect(error?.line).toBeLessThan(20_000);
  });

  it('an entry declaring more than the limit is refused before it is inflated', async () => {
    const bytes = workbook({ rows: rowsXml(100) });
    await refusal(
      bytes,
      {
        file: 'h.xlsx[Sheet1]',
        line: undefined,
        reason: /^refused: xl\/worksheets\/sheet1\.xml declares [\d,]+ bytes inflated, over the limit of 1,000 bytes/,
      },
      { limits: { sheetBytes: 1000 } },
    );
  });

  it('an entry shorter than declared, or failing its CRC-32, is a damaged file', async () => {
    const data = sheetXml(rowsXml(10));
    // Found at the end of the entry: the row is the last one read.
    await refusal(workbook({ entries: [{ name: SHEET, data, declaredSize: Buffer.byteLength(data) + 5 }] }), {
      line: 11,
      reason:
        /^not a readable \.xlsx workbook: a damaged zip entry \(xl\/worksheets\/sheet1\.xml inflates to [\d,]+ bytes, its directory declares/,
    });
    await refusal(workbook({ entries: [{ name: SHEET, data, crc: 12345 }] }), {
      line: 11,
      reason: /fails its CRC-32 check/,
    });
  });

  it('an archive cut short is refused by name', async () => {
    const bytes = workbook({ rows: rowsXml(10) });
    await refusal(bytes.subarray(0, bytes.length - 30), {
      file: 'h.xlsx',
      line: undefined,
      reason: /^not an \.xlsx workbook: no zip directory/,
    });
  });
});

describe('shared strings', () => {
  const strings = (count: number): string =>
    Array.from({ length: count }, (_, i) => `<si><t>text ${i}</t></si>`).join('');

  it('cells pointing to one long shared string are bound per row as a CSV record is (128,000 bytes), header and data alike (issue 81)', async () => {
    // A 13 KB file whose cells all point to one 1 MiB text wrote an 839 MB report.
    const long = '<si><t>' + 'x'.repeat(1 << 20) + '</t></si>';
    const cells = (r: number, count: number): string =>
      Array.from({ length: count }, (_, i) => `<c r="${String.fromCharCode(66 + i)}${r}" t="s"><v>0</v></c>`).join('');
    const header = `<row r="1">${['ExternalId', 'FirstName', 'LastName', 'Email']
      .map((name, i) => `<c r="${String.fromCharCode(65 + i)}1" t="inlineStr"><is><t>${name}</t></is></c>`)
      .join('')}</row>`;
    const dataRow = `<row r="2"><c r="A2" t="inlineStr"><is><t>u-1</t></is></c>${cells(2, 3)}</row>`;
    await refusal(workbook({ sharedStrings: long, rows: header + dataRow }), {
      line: 2,
      reason: /^row too large: row 2 holds over 128,000 bytes of text in its cells \(the limit for one record/,
    });
    await refusal(workbook({ sharedStrings: long, rows: `<row r="1">${cells(1, 1)}</row>${dataRow}` }), {
      line: 1,
      reason: /^header too large: row 1 holds over 128,000 bytes/,
    });
    // Within the bound (three cells of 40,000 characters): read.
    const within = '<si><t>' + 'é'.repeat(20_000) + '</t></si>';
    const rows = await inTempDir(async (dir) => {
      const path = join(dir, 'h.xlsx');
      await writeFile(path, workbook({ sharedStrings: within, rows: header + dataRow }));
      return readAll(path, { columns: USER_COLUMNS, displayName: 'h.xlsx' });
    });
    expect(rows.length).toBe(1);
  });

  it('a table of more texts than the limit is refused before any row is read', async () => {
    await refusal(
      workbook({ sharedStrings: strings(2000), rows: rowsXml(1) }),
      {
        file: 'h.xlsx',
        line: undefined,
        reason: /^refused: xl\/sharedStrings\.xml: the shared strings table holds over 1,000 texts/,
      },
      { limits: { sharedStrings: 1000 } },
    );
  });

  it('a table larger than the byte limit is refused without inflating it', async () => {
    await refusal(
      workbook({ sharedStrings: strings(2000), rows: rowsXml(1) }),
      {
        file: 'h.xlsx',
        line: undefined,
        reason: /^refused: xl\/sharedStrings\.xml declares [\d,]+ bytes inflated, over the limit of 10,000 bytes/,
      },
      { limits: { sharedStringsBytes: 10_000 } },
    );
  });

  it('beside a second sheet, a damaged cell of the first is refused at its sheet, row and cell, not called empty (trial35 F09)', async () => {
    const rel = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
    const link = (id: string, type: string, target: string) =>
      `<Relationship Id="${id}" Type="${rel}/${type}" Target="${target}"/>`;
    const bytes = workbook({
      sharedStrings: strings(1),
      rows: '<row r="1"><c r="A1" t="s"><v>0</v></c></row><row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2" t="s"><v>7</v></c></row>',
      entries: [
        {
          name: 'xl/workbook.xml',
          data: `<workbook xmlns="${MAIN}" xmlns:r="${rel}"><sheets><sheet name="Users" sheetId="1" r:id="rId1"/><sheet name="Notes" sheetId="2" r:id="rId9"/></sheets></workbook>`,
        },
        {
          name: 'xl/_rels/workbook.xml.rels',
          data: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${link('rId1', 'worksheet', 'worksheets/sheet1.xml')}${link('rId2', 'sharedStrings', 'sharedStrings.xml')}${link('rId9', 'worksheet', 'worksheets/sheet2.xml')}</Relationships>`,
        },
        {
          name: 'xl/worksheets/sheet2.xml',
          data: sheetXml('<row r="1"><c r="A1" t="inlineStr"><is><t>Note</t></is></c></row>'),
        },
      ],
    });
    await refusal(bytes, {
      file: 'h.xlsx[Users]',
      line: 2,
      reason: /cell B2 points to shared string "7", but the table holds 1/,
    });
  });

  it('a cell pointing past the table is a damaged file at its row', async () => {
    await refusal(
      workbook({
        sharedStrings: strings(1),
        rows: '<row r="1"><c r="A1" t="s"><v>0</v></c></row><row r="2"><c r="A2" t="s"><v>5</v></c></row>',
      }),
      {
        file: 'h.xlsx[Sheet1]',
        line: 2,
        reason:
          /^the worksheet xl\/worksheets\/sheet1\.xml is not valid XML: cell A2 points to shared string "5", but the table holds 1/,
      },
    );
  });
});

describe('parts that are not XML', () => {
  it('a binary sheet part', async () => {
    const bytes = workbook({ sheetPart: Buffer.from([0x50, 0x4b, 0xff, 0xfe, 0x00, 0x80, 0x81, 0x3c]) });
    await refusal(bytes, {
      file: 'h.xlsx[Sheet1]',
      line: undefined,
      reason: /^the worksheet xl\/worksheets\/sheet1\.xml is not valid XML: not UTF-8 text \(binary content\)/,
    });
  });

  it('a text sheet part, an empty one, one cut short, one with mismatched tags', async () => {
    await refusal(workbook({ sheetPart: 'ExternalId\nu-1\n' }), {
      line: undefined,
      reason: /text outside the XML root element \("ExternalId/,
    });
    await refusal(workbook({ sheetPart: '' }), {
      line: undefined,
      reason: /no XML element \(the part is empty or not XML\)/,
    });
    const cut = sheetXml(rowsXml(5)).slice(0, -60);
    await refusal(workbook({ sheetPart: cut }), { line: 6, reason: /the XML ends inside (a tag|<)/ });
    await refusal(workbook({ rows: `${rowsXml(3)}<row r="5"><c r="A5"><v>1</c></row>` }), {
      line: 5,
      reason: /<\/c> closes <v> \(the XML is damaged\)/,
    });
  });

  it('a row numbered 0, past the last sheet row or not a number is a damaged sheet at the row before it', async () => {
    for (const r of ['0', '1048577', 'x2']) {
      await refusal(workbook({ rows: `${rowsXml(2)}<row r="${r}"><c r="A4"><v>1</v></c></row>` }), {
        file: 'h.xlsx[Sheet1]',
        line: 3,
        reason: new RegExp(
          `^the worksheet xl/worksheets/sheet1\\.xml is not valid XML: a row numbered "${r}", which is no sheet row`,
        ),
      });
    }
  });

  it('a missing sheet part', async () => {
    await refusal(workbook({ withoutSheet: true }), {
      file: 'h.xlsx[Sheet1]',
      line: undefined,
      reason: /^the worksheet is missing from the file \(no xl\/worksheets\/sheet1\.xml in the archive\)/,
    });
  });

  it('a damaged styles or workbook part is refused naming the part', async () => {
    await refusal(workbook({ rows: rowsXml(1), styles: '<cellXfs><xf numFmtId="0"></cellXfs>' }), {
      file: 'h.xlsx',
      line: undefined,
      reason: /^not a readable \.xlsx workbook: xl\/styles\.xml is not valid XML: <\/cellXfs> closes <xf>/,
    });
    await refusal(
      workbook({
        rows: rowsXml(1),
        entries: [{ name: 'xl/workbook.xml', data: '<workbook><sheets><sheet name="a" r:id="rId1"' }],
      }),
      {
        file: 'h.xlsx',
        line: undefined,
        reason: /^not a readable \.xlsx workbook: xl\/workbook\.xml is not valid XML: the XML ends inside a tag/,
      },
    );
  });
});

describe('entities', () => {
  const billionLaughs = `<?xml version="1.0"?><!DOCTYPE worksheet [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>`;

  it('a DTD with entity declarations in the sheet is refused, not expanded', async () => {
    await refusal(
      workbook({
        sheetPart: `${billionLaughs}<worksheet><sheetData><row r="1"><c t="inlineStr"><is><t>&b;</t></is></c></row></sheetData></worksheet>`,
      }),
      {
        file: 'h.xlsx[Sheet1]',
        line: undefined,
        reason:
          /^the worksheet xl\/worksheets\/sheet1\.xml is not valid XML: a document type declaration \(<!DOCTYPE \.\.\.>\), which no workbook part has: entity declarations are refused/,
      },
    );
  });

  it('a DTD in the shared strings, and an undefined entity in a cell, are refused', async () => {
    await refusal(
      workbook({
        rows: rowsXml(1),
        entries: [
          { name: 'xl/sharedStrings.xml', data: `${billionLaughs}<sst><si><t>&b;</t></si></sst>` },
          {
            name: 'xl/_rels/workbook.xml.rels',
            data: '<Relationships><Relationship Id="rId1" Type="x/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="x/sharedStrings" Target="sharedStrings.xml"/></Relationships>',
          },
        ],
      }),
      {
        file: 'h.xlsx',
        line: undefined,
        reason: /^not a readable \.xlsx workbook: xl\/sharedStrings\.xml is not valid XML: a document type declaration/,
      },
    );
    await refusal(
      workbook({ rows: `${rowsXml(2)}<row r="4"><c r="A4" t="inlineStr"><is><t>a &nbsp; b</t></is></c></row>` }),
      {
        file: 'h.xlsx[Sheet1]',
        line: 4,
        reason:
          /the entity &nbsp; is not defined \(a workbook part uses only &amp; &lt; &gt; &quot; &apos; and numeric references\)/,
      },
    );
  });
});

describe('sizes inside a part', () => {
  it('a row beyond column XFD, an element nested too deep, a cell of over a million characters', async () => {
    const cells = Array.from({ length: 16_385 }, () => '<c><v>1</v></c>').join('');
    await refusal(workbook({ rows: `${rowsXml(1)}<row r="3">${cells}</row>` }), {
      line: 3,
      reason: /the worksheet xl\/worksheets\/sheet1\.xml is not valid XML: a cell right of column XFD, the last one/,
    });
    await refusal(workbook({ rows: `${rowsXml(1)}<row r="3"><c r="XFE3"><v>1</v></c></row>` }), {
      line: 3,
      reason: /a cell reference "XFE3" that is no cell/,
    });
    const deep = `${'<x>'.repeat(300)}${'</x>'.repeat(300)}`;
    await refusal(workbook({ rows: `${rowsXml(1)}<row r="3"><c r="A3"><v>1</v></c></row><row r="4">${deep}</row>` }), {
      line: 4,
      reason: /^refused: xl\/worksheets\/sheet1\.xml: elements nested over 256 deep/,
    });
    const huge = '<![CDATA[' + 'x'.repeat(100_000) + ']]>';
    await refusal(
      workbook({
        rows: `${rowsXml(1)}<row r="3"><c r="A3" t="inlineStr"><is><t>${huge.repeat(11)}</t></is></c></row>`,
      }),
      {
        line: 3,
        reason: /^refused: xl\/worksheets\/sheet1\.xml: cell A3 holds over 1,048,576 characters/,
      },
    );
  });
});

describe('a workbook that is only a zip', () => {
  it('a zip without any workbook part', async () => {
    await refusal(zipBytes([{ name: 'readme.txt', data: 'hello' }]), {
      file: 'h.xlsx',
      line: undefined,
      reason: /^not an \.xlsx workbook: it has no worksheet$/,
    });
  });
});
