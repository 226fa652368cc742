import { describe, expect, it } from 'vitest';
import { createWriteStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { USER_COLUMNS } from '../../src/domain/columns.js';
import { reportStatusOf } from '../../src/input/csv-reader.js';
import type { InputRecord } from '../../src/input/record.js';
import { RunReportBuilder } from '../../src/report/report-writers.js';
import { type ReportEntry } from '../../src/report/run-report.js';
import type { ItemStatus } from '../../src/report/run-report.js';
import { openXlsxReportFile, writeTablesXlsx, XlsxReportWriter } from '../../src/report/xlsx-report-writer.js';
import { inTempDir, readAll, writeWorkbook } from './helpers.js';

/** Values a spreadsheet round trip used to change (docs/input-formats.md). */
const TRICKY = [
  ['00456', 'Ann', 'Lee', '=1+1', '1234567890123456789', '2026-03-01', 'p@ss-1'],
  ['02134', 'Zoë', 'Ødegård', '+33 6 12 34 56 78', '1.5', 'TRUE', 'hunter22'],
  ['u-3', '@handle', '-minus', "'quoted", '0.1', '3/4', 'xyzzy-9'],
];
const HEADER = ['ExternalId', 'FirstName', 'LastName', 'Company', 'PhoneNumber', 'City', 'Password'];

async function sourceWorkbook(dir: string): Promise<string> {
  const path = join(dir, 'users.xlsx');
  // Typed as text cells, as a template's text columns keep them.
  await writeWorkbook(path, [{ name: 'Users', rows: [HEADER, ...TRICKY] }]);
  return path;
}

function entry(record: InputRecord, status: ItemStatus): ReportEntry {
  const errors =
    status === 'ok'
      ? []
      : [{ field: 'ExternalId', code: 219 as const, message: 'ExternalId may contain only - _ a-z A-Z 0-9 @' }];
  return {
    item: { source: record.source, id: String(record.fields['ExternalId']), status, errors },
    rows: [{ line: record.source.line, header: record.raw?.header ?? [], cells: record.raw?.cells ?? [] }],
  };
}

async function writeReport(
  path: string,
  records: readonly InputRecord[],
  statuses: readonly ItemStatus[],
  onlyNotOk = false,
): Promise<void> {
  const file = await openXlsxReportFile(path, { onlyNotOk });
  const builder = new RunReportBuilder([file.sink]);
  for (const [i, record] of records.entries()) await builder.add(entry(record, statuses[i] ?? 'ok'));
  await builder.finish();
  await file.commit();
}

describe('xlsx run report', () => {
  it('fed back, gives every value exactly as it was read, Password blank, status columns ignored', async () => {
    await inTempDir(async (dir) => {
      const original = await readAll(await sourceWorkbook(dir), { columns: USER_COLUMNS });
      const report = join(dir, 'report.xlsx');
      await writeReport(report, original, ['ok', 'failed', 'partial']);
      const back = await readAll(report, { columns: USER_COLUMNS });
      expect(back.map((r) => r.raw?.header)).toEqual(
        back.map(() => [...HEADER, 'status', 'error_codes', 'error_messages', 'action', 'note', 'run', 'warnings']),
      );
      expect(back.map((r) => r.raw?.cells.slice(0, 6))).toEqual(TRICKY.map((row) => row.slice(0, 6)));
      const withoutPassword = (r: InputRecord) =>
        Object.fromEntries(Object.entries(r.fields).filter(([k]) => k !== 'Password'));
      expect(back.map((r) => r.fields)).toEqual(original.map(withoutPassword));
      expect(back.map(reportStatusOf)).toEqual(['ok', 'failed', 'partial']);
      // --only-failed keeps the rows that are not ok.
      expect(back.filter((r) => reportStatusOf(r) !== 'ok').map((r) => r.fields['ExternalId'])).toEqual([
        '02134',
        'u-3',
      ]);
      const statusAt = back[1]!.raw!.header.indexOf('status');
      expect(back[1]?.raw?.cells.slice(statusAt, statusAt + 3)).toEqual([
        'failed',
        '219',
        'ExternalId: ExternalId may contain only - _ a-z A-Z 0-9 @',
      ]);
      expect((await readdir(dir)).sort()).toEqual(['report.xlsx', 'users.xlsx']);
    });
  });

  it('writes text cells in text columns, a frozen header with a filter, failed rows filled', async () => {
    await inTempDir(async (dir) => {
      const original = await readAll(await sourceWorkbook(dir), { columns: USER_COLUMNS });
      const report = join(dir, 'report.xlsx');
      await writeReport(report, original, ['ok', 'failed', 'ok']);
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.readFile(report);
      const sheet = workbook.worksheets[0] as ExcelJS.Worksheet;
      expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
      expect(sheet.autoFilter).toBeDefined();
      expect(sheet.getColumn(1).numFmt).toBe('@');
      for (let row = 1; row <= 4; row++) {
        sheet.getRow(row).eachCell((cell) => {
          expect(cell.type).toBe(ExcelJS.ValueType.String);
          expect(cell.numFmt).toBe('@');
        });
      }
      expect(sheet.getCell('A2').value).toBe('00456');
      expect(sheet.getCell('E2').value).toBe('1234567890123456789');
      expect(sheet.getCell('D2').value).toBe('=1+1');
      expect(sheet.getCell('G2').value).toBeNull();
      expect(sheet.getCell('A3').fill).toMatchObject({ type: 'pattern', pattern: 'solid' });
      expect((sheet.getCell('A2').fill as ExcelJS.FillPattern | undefined)?.pattern ?? 'none').toBe('none');
      expect(sheet.getCell('A1').font?.bold).toBe(true);
    });
  });

  it('with --only-failed keeps only rows still to fix; with none, the input header alone', async () => {
    await inTempDir(async (dir) => {
      const original = await readAll(await sourceWorkbook(dir), { columns: USER_COLUMNS });
      const report = join(dir, 'r.xlsx');
      await writeReport(report, original, ['ok', 'failed', 'ok'], true);
      expect((await readAll(report, { columns: USER_COLUMNS })).map((r) => r.fields['ExternalId'])).toEqual(['02134']);
      await writeReport(report, original, ['ok', 'ok', 'ok'], true);
      expect(await readAll(report, { columns: USER_COLUMNS })).toEqual([]);
    });
  });

  it('an item without rows (JSON input) is one row of file, line, id and the status columns', async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, 'j.xlsx');
      const stream = createWriteStream(path);
      const writer = new XlsxReportWriter(stream, { run: '20261101T010000.000Z-aaaa' });
      await writer.item({
        item: {
          source: { file: 'users.json', line: 3 },
          id: 'u-1',
          status: 'failed',
          errors: [{ field: 'Email', code: 209, message: 'bad' }],
          warnings: [{ field: 'PhoneNumber', code: 9003, message: 'exponent form' }],
        },
      });
      await writer.finish();
      await new Promise<void>((resolve) => stream.on('close', () => resolve()));
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.readFile(path);
      const sheet = workbook.worksheets[0] as ExcelJS.Worksheet;
      expect(sheet.getRow(1).values).toEqual([
        undefined,
        'file',
        'line',
        'id',
        'status',
        'error_codes',
        'error_messages',
        'action',
        'note',
        'run',
        'warnings',
      ]);
      // The line a number, the rest text.
      expect(sheet.getRow(2).values).toEqual([
        undefined,
        'users.json',
        3,
        'u-1',
        'failed',
        '209',
        'Email: bad',
        undefined,
        undefined,
        '20261101T010000.000Z-aaaa',
        'PhoneNumber: exponent form',
      ]);
    });
  });

  it('an unwritable report location is refused before anything is written', async () => {
    await expect(openXlsxReportFile('/nonexistent-dir/report.xlsx')).rejects.toThrow(
      /cannot write report \/nonexistent-dir\/report\.xlsx: the directory does not exist \(ENOENT\)/,
    );
  });
});

describe('writeTablesXlsx', () => {
  it('keeps every character of a cell through the file: CR, controls, DEL, escape-like text, lone surrogates', async () => {
    const values = [
      'a\rb',
      'a\r\nb',
      'x\u0001y\u000bz\u001bw',
      'del\u007f',
      'lit_x0041_',
      '_x005F_',
      'lone\ud800',
      '\udc00lone',
      'ff\uffff',
      'pair 😀',
      'tab\there',
    ];
    await inTempDir(async (dir) => {
      const path = join(dir, 'hostile.xlsx');
      const stream = createWriteStream(path);
      await writeTablesXlsx(stream, [{ name: 'Values', header: values.map((_, i) => `c${i}`), rows: [values] }]);
      await new Promise<void>((resolve) => stream.on('close', () => resolve()));
      const back = await readAll(path, { columns: values.map((_, i) => ({ name: `c${i}`, kind: 'string' as const })) });
      expect(back[0]?.raw?.cells).toEqual(values);
    });
  });

  it('writes each table on its own sheet, every cell text', async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, 'results.xlsx');
      const stream = createWriteStream(path);
      await writeTablesXlsx(stream, [
        { name: 'Results', header: ['CandidateExtId', 'Score'], rows: [['007', '12.50']] },
        { name: 'Other', header: ['a'], rows: [] },
      ]);
      await new Promise<void>((resolve) => stream.on('close', () => resolve()));
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.readFile(path);
      expect(workbook.worksheets.map((s) => s.name)).toEqual(['Results', 'Other']);
      expect(workbook.worksheets[0]?.getCell('A2').value).toBe('007');
      expect(workbook.worksheets[0]?.getCell('B2').value).toBe('12.50');
    });
  });
});
