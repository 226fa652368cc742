import { afterEach, describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { readdir, writeFile } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { runCli } from '../../src/cli/run-cli.js';
import { writeTablesXlsx } from '../../src/report/xlsx-report-writer.js';
import { EXCEL_CELL_CHARS } from '../../src/formats/xstring.js';
import { MAX_SHEET_COLUMNS, MAX_SHEET_ROWS } from '../../src/input/sheet-rows.js';
import { readXlsxRecords } from '../../src/input/xlsx-reader.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { json, startHostileServer, type HostileServer } from '../support/hostile-server.js';
import { readAll } from './helpers.js';

/**
 * Issue 50, "Never past Excel's limits": no workbook examctl writes has a cell over 32,767
 * characters, a column past XFD or a row past 1,048,576, whatever a file or a server gives it;
 * what would not fit is refused before anything is sent (a report) or cut with a visible marker
 * and a warning (a server's answer); and examctl's own reader reads every such workbook back.
 */

const TOKEN = 'limits-test-token-0123456789';
let server: HostileServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function cli(dir: string, argv: string[], env: Record<string, string> = {}) {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), ...env });
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

async function firstSheet(path: string): Promise<ExcelJS.Worksheet> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.readFile(path);
  return book.worksheets[0] as ExcelJS.Worksheet;
}

describe('a report that would not fit a sheet is refused before anything is sent', () => {
  it('a 16,407-column CSV with --report x.xlsx: exit 2 naming the columns, nothing sent; the same run with a .csv report goes ahead', async () => {
    await withTempDir(async (dir) => {
      const store = ['--store', join(dir, 'store')];
      expect((await cli(dir, [...store, 'local', 'init'])).code).toBe(0);
      const extra = Array.from({ length: 16_402 }, (_, i) => `X${i + 1}`);
      const header = ['ExternalId', 'FirstName', 'LastName', 'Email', 'Role', ...extra];
      const row = ['u-wide', 'Ann', 'Lee', 'ann@example.test', 'Candidate', ...extra.map(() => 'x')];
      await writeFile(join(dir, 'wide.csv'), `${header.join(',')}\n${row.join(',')}\n`);
      const refused = await cli(dir, [
        ...store,
        '--yes',
        'user',
        'sync',
        '--file',
        'wide.csv',
        '--ignore-unknown-columns',
        '--report',
        'wide.xlsx',
      ]);
      expect(refused.code).toBe(2);
      expectCoded(refused.stderr, 'E2000', '--report wide.xlsx', '16,414 columns', '16,407', '16,384', '.csv', '.json');
      expect(await readdir(dir)).not.toContain('wide.xlsx');
      // Nothing was sent: no run journal, and the user is not in the store.
      await expect(readdir(join(dir, 'runs'))).rejects.toThrow();
      const exported = await cli(dir, [...store, 'local', 'export']);
      expect(exported.stdout).not.toContain('u-wide');
      const sent = await cli(dir, [
        ...store,
        '--yes',
        'user',
        'sync',
        '--file',
        'wide.csv',
        '--ignore-unknown-columns',
        '--report',
        'wide-report.csv',
      ]);
      expect(sent.code).toBe(0);
      expect((await cli(dir, [...store, 'local', 'export'])).stdout).toContain('u-wide');
    });
  });

  it('more records than a sheet has rows: a real run with --report x.xlsx is exit 2 before anything is sent', async () => {
    await withTempDir(async (dir) => {
      const store = ['--store', join(dir, 'store')];
      expect((await cli(dir, [...store, 'local', 'init'])).code).toBe(0);
      const lines = ['ExternalId,FirstName,LastName,Email,Role'];
      for (let i = 0; i < MAX_SHEET_ROWS; i++) lines.push(`u${i},A,B,u${i}@example.test,Candidate`);
      await writeFile(join(dir, 'many.csv'), `${lines.join('\n')}\n`);
      const refused = await cli(dir, [
        ...store,
        '--yes',
        'user',
        'sync',
        '--file',
        'many.csv',
        '--report',
        'many.xlsx',
      ]);
      expect(refused.code).toBe(2);
      expectCoded(refused.stderr, 'E2000', '--report many.xlsx', '1,048,577 rows', '1,048,576 records');
      await expect(readdir(join(dir, 'runs'))).rejects.toThrow();
    });
  }, 120_000);
});

describe('a cell longer than a cell holds', () => {
  it("from a file: cut with a visible marker and a warning; the report is read back by examctl's reader", async () => {
    await withTempDir(async (dir) => {
      const store = ['--store', join(dir, 'store')];
      await cli(dir, [...store, 'local', 'init']);
      const long = 'é'.repeat(40_000);
      await writeFile(
        join(dir, 'users.csv'),
        `ExternalId,FirstName,LastName,Email,Role,Company\nu-1,Ann,Lee,ann@example.test,Candidate,${long}\n`,
      );
      const run = await cli(dir, [...store, 'user', 'sync', '--file', 'users.csv', '--dry-run', '--report', 'r.xlsx']);
      // Company holds at most 500 characters: the row is invalid, its report written all the same.
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        'warning: r.xlsx: 1 cells longer than a cell holds (32,767 characters) were cut, each ending with "…[cut by examctl: ...]" (first: Report!F2); a .csv or .json report keeps them whole',
      );
      const cell = String((await firstSheet(join(dir, 'r.xlsx'))).getCell('F2').value);
      expect(cell.length).toBeLessThanOrEqual(EXCEL_CELL_CHARS);
      expect(cell).toMatch(/^é+…\[cut by examctl: 40,000 characters, a cell holds 32,767\]$/);
      const back = await readAll(join(dir, 'r.xlsx'), {
        columns: ['ExternalId', 'FirstName', 'LastName', 'Email', 'Role', 'Company'].map((name) => ({
          name,
          kind: 'string' as const,
        })),
        ignoreUnknownColumns: true,
      });
      expect(back.map((record) => record.fields['Company'])).toEqual([cell]);
      // Fed back, it is an input like any other: the cut text fails as the long one did.
      const again = await cli(dir, [...store, 'user', 'sync', '--file', 'r.xlsx', '--dry-run', '--json']);
      expect(JSON.parse(again.stdout).items[0].errors.map((e: { field: string }) => e.field)).toEqual(['Company']);
    });
  });
});

describe("a server's answer that would not fit -o xlsx", () => {
  it('too many fields and a cell too long: cut with a visible marker and warnings; exceljs and examctl read the workbook', async () => {
    const extra: Record<string, string> = {};
    for (let i = 0; i < MAX_SHEET_COLUMNS; i++) extra[`X${i}`] = String(i);
    const result = {
      CandidateExtId: 'c-1',
      PassedStatus: 'SATISFACTORY',
      Score: 50,
      Grade: 'x'.repeat(50_000),
      ...extra,
    };
    server = await startHostileServer((_request, res) =>
      json(res, 200, { Success: true, Content: { ExternalId: 'RS-1', Title: 'Hostile', Results: [result] } }),
    );
    await withTempDir(async (dir) => {
      const shown = await cli(
        dir,
        [
          '--target',
          'remote',
          '--base-url',
          server!.url,
          'review-session',
          'show',
          'RS-1',
          '-o',
          'xlsx',
          '--out',
          'rs.xlsx',
        ],
        { EXAMCTL_TOKEN: TOKEN },
      );
      expect(shown.code).toBe(0);
      expect(shown.stderr).toContain(
        'warning: 1 cells of the service\'s answer longer than a cell holds (32,767 characters) were cut, each ending with "…[cut by examctl: ...]" (first: Results!T2)',
      );
      // 20 result fields, 16,384 extra ones: 16,404 columns, of which the sheet keeps 16,383 and a marker.
      expect(shown.stderr).toContain(
        "warning: the service's answer has more columns than a sheet holds: the last 21 were cut, the sheet's last column says how many; -o csv or ndjson writes them all",
      );
      const sheet = await firstSheet(join(dir, 'rs.xlsx'));
      expect(sheet.getRow(1).cellCount).toBe(MAX_SHEET_COLUMNS);
      expect(sheet.getRow(1).getCell(MAX_SHEET_COLUMNS).value).toBe(
        '…[cut by examctl: 21 more columns, a sheet holds 16,384]',
      );
      expect(String(sheet.getCell('T2').value)).toMatch(
        /^x+…\[cut by examctl: 50,000 characters, a cell holds 32,767\]$/,
      );
      expect(sheet.getCell('N2').value).toBe(50);
      const header = (sheet.getRow(1).values as unknown[]).slice(1).map(String);
      const records = [];
      for await (const record of readXlsxRecords(join(dir, 'rs.xlsx'), {
        columns: header.map((name) => ({ name, kind: 'string' as const })),
      }))
        records.push(record);
      expect(records).toHaveLength(1);
      expect(records[0]!.raw!.cells.length).toBe(MAX_SHEET_COLUMNS);
      // The same answer as CSV keeps every column and the whole cell.
      const csv = await cli(
        dir,
        ['--target', 'remote', '--base-url', server!.url, 'review-session', 'show', 'RS-1', '-o', 'csv', '--no-bom'],
        { EXAMCTL_TOKEN: TOKEN },
      );
      expect(csv.stdout.split(/\r?\n/)[0]!.split(',')).toHaveLength(20 + MAX_SHEET_COLUMNS);
      expect(csv.stdout).toContain('x'.repeat(50_000));
    });
  });

  it('more results than a sheet has rows: the last ones cut, the last row says how many; examctl reads the workbook back', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'rows.xlsx');
      const stream = createWriteStream(path);
      const closed = new Promise<void>((resolve) => stream.on('close', () => resolve()));
      const rows = Array.from({ length: MAX_SHEET_ROWS + 2 }, (_, i) => [i]);
      const written = await writeTablesXlsx(stream, [{ name: 'Results', header: ['Row'], rows }]);
      await closed;
      expect(written).toEqual({ cutCells: { count: 0 }, cutColumns: 0, cutRows: 4 });
      let count = 0;
      let last: readonly string[] | undefined;
      for await (const record of readXlsxRecords(path, { columns: [{ name: 'Row', kind: 'string' }] })) {
        count += 1;
        last = record.raw?.cells;
      }
      expect(count).toBe(MAX_SHEET_ROWS - 1);
      expect(last).toEqual(['…[cut by examctl: 4 more rows, a sheet holds 1,048,576]']);
    });
  }, 120_000);
});
