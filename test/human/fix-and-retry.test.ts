import { describe, it, expect } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from '../support/cli.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { parseCsv } from '../support/csv.js';
import { withTempDir } from '../support/temp-dir.js';

/**
 * The fix-and-retry loop end to end, as an admin runs it with the built binary: push a file with
 * errors keeping a CSV report (exit 1), fix the bad cells in the report, feed the report back
 * with --only-failed (only the fixed rows are sent; exit 0), and the ok rows are not re-sent.
 */

const FIXTURE = join(ROOT, 'fixtures/users-with-errors.csv');

function toCsv(rows: string[][]): string {
  return (
    rows
      .map((row) => row.map((cell) => (/[",\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell)).join(','))
      .join('\r\n') + '\r\n'
  );
}

interface JsonReport {
  items: Array<{ id: string | null; status: string; action?: string; source: { file: string; line: number } }>;
  summary: { total: number; ok: number; failed: number };
}

describe('fix-and-retry loop (bin/examctl)', () => {
  it('report -> fix the cells -> --only-failed sends only the fixed rows', async () => {
    await withTempDir(async (dir) => {
      // 1. Push the file with errors, keeping a CSV report: some rows fail, exit 1.
      const first = await examctl(['user', 'sync', '--file', FIXTURE, '--report', 'r.csv', '--json'], dir);
      expect(first.code).toBe(1);
      const firstReport = JSON.parse(first.stdout) as JsonReport;
      const okIds = firstReport.items.filter((item) => item.status === 'ok').map((item) => item.id);
      const failedIds = firstReport.items.filter((item) => item.status !== 'ok').map((item) => item.id);
      expect(okIds.length).toBeGreaterThan(0);
      expect(failedIds.length).toBeGreaterThan(0);

      // 2. The report holds the original columns, then status, error_codes, error_messages.
      const original = parseCsv(await readFile(FIXTURE, 'utf8'));
      const rows = parseCsv(await readFile(join(dir, 'r.csv'), 'utf8'));
      const header = rows[0]!;
      expect(header).toEqual([...original[0]!, 'status', 'error_codes', 'error_messages', 'action', 'note', 'run']);
      expect(rows.slice(1).map((row) => row.slice(0, original[0]!.length))).toEqual(original.slice(1));
      const col = (name: string): number => header.indexOf(name);
      const failedRows = rows.slice(1).filter((row) => row[col('status')] !== 'ok');
      expect(failedRows.map((row) => row[col('error_codes')]).sort()).toEqual(['209', '219', '250']);

      // 3. Fix the bad cells the way an admin would, guided by error_codes.
      for (const row of failedRows) {
        const codes = row[col('error_codes')]!.split('|');
        if (codes.includes('209')) row[col('Email')] = row[col('Email')]!.replace('(at)', '@');
        if (codes.includes('219')) row[col('ExternalId')] = row[col('ExternalId')]!.replace(/\s+/g, '-');
        if (codes.includes('250')) row[col('SpecialNeeds')] = 'true';
      }
      await writeFile(join(dir, 'r.csv'), toCsv(rows));

      // 4. Feed the report back: only the rows not ok run again, and they pass.
      const retry = await examctl(
        ['user', 'sync', '--file', 'r.csv', '--only-failed', '--report', 'r2.csv', '--json'],
        dir,
      );
      expect(retry.code).toBe(0);
      const retryReport = JSON.parse(retry.stdout) as JsonReport;
      expect(retryReport.summary).toMatchObject({ total: failedRows.length, ok: failedRows.length, failed: 0 });
      // The rows keep their line numbers in r.csv, and no ok row was sent again.
      expect(retryReport.items.map((item) => item.source.line)).toEqual(
        rows.slice(1).flatMap((row, index) => (row[col('status')] !== 'ok' ? [index + 2] : [])),
      );
      for (const id of okIds) expect(retryReport.items.map((item) => item.id)).not.toContain(id);
      expect(retryReport.items.every((item) => item.action === 'created')).toBe(true);

      // With --only-failed the new report keeps only what is still not ok: here, nothing is left to fix.
      const again = parseCsv(await readFile(join(dir, 'r2.csv'), 'utf8'));
      expect(again.slice(1)).toEqual([]);

      // 5. The store holds every user of the file once.
      const world = JSON.parse((await examctl(['local', 'export'], dir)).stdout) as {
        Users: Array<{ ExternalId: string }>;
      };
      const ids = world.Users.map((user) => user.ExternalId);
      for (const id of ['stu-3001', 'stu-3002', 'stu-3003', 'stu-3004', 'stu-3005'])
        expect(ids.filter((entry) => entry === id)).toHaveLength(1);
      expect(ids).not.toContain('stu 3004');

      // --max-errors: a run that stops early reports the rest skipped (exit 1).
      const capped = await examctl(
        ['user', 'sync', '--file', FIXTURE, '--max-errors', '1', '--dry-run', '--json'],
        dir,
      );
      expect(capped.code).toBe(1);
      const cappedReport = JSON.parse(capped.stdout) as JsonReport;
      expect(cappedReport.items.filter((item) => item.status === 'failed')).toHaveLength(1);
      expect(cappedReport.items.filter((item) => item.status === 'skipped').length).toBeGreaterThan(0);
    }, 'examctl-retry-');
  });
});
