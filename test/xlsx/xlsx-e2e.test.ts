import { describe, expect, it } from 'vitest';
import { examctl } from '../support/cli.js';
import { withTempDir } from '../support/temp-dir.js';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { xlsxFixture } from './helpers.js';
import { workbookBytes } from './zip-writer.js';
import { summaryOf } from '../support/facts.js';

type User = {
  ExternalId: string;
  PostalCode?: string;
  PhoneNumber?: string;
  CellularPhone?: string;
  DateOfBirth?: string;
  Email?: string;
};

describe('bin/examctl on workbooks made by other software', () => {
  it('dry-runs an openpyxl workbook: bad cells fail their row only, file[sheet]:row on stderr, exit 1', async () => {
    await withTempDir(async (dir) => {
      const run = await examctl(['user', 'sync', '--file', xlsxFixture('users-openpyxl.xlsx'), '--dry-run'], dir);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(summaryOf(run.stderr)).toMatchObject({ dryRun: true, total: 4, ok: 1, partial: 0, failed: 3, skipped: 0 });
      expect(run.stderr).toMatch(
        /users-openpyxl\.xlsx\[Users\]:5 \[u-5\] Company 9014 cell J5: the cell holds the error #N\/A/,
      );
    });
  });

  it('a report fixed in openpyxl and saved by LibreOffice goes back with --only-failed, every value as typed', async () => {
    await withTempDir(async (dir) => {
      expect((await examctl(['local', 'init'], dir)).code).toBe(0);
      const retry = await examctl(
        ['user', 'sync', '--file', xlsxFixture('report-edited-libreoffice.xlsx'), '--only-failed', '--yes', '--json'],
        dir,
      );
      expect(retry.code).toBe(0);
      const doc = JSON.parse(retry.stdout) as { items: { id: string; status: string }[] };
      expect(doc.items.map((item) => `${item.id}:${item.status}`)).toEqual(['00456:ok']);
      const world = JSON.parse((await examctl(['local', 'export'], dir)).stdout) as { Users: User[] };
      const ids = world.Users.map((user) => user.ExternalId);
      expect(ids).not.toContain('456');
      expect(ids).not.toContain('u-8');
      expect(world.Users.find((user) => user.ExternalId === '00456')).toEqual(
        expect.objectContaining({
          Email: 'ann@example.test',
          PostalCode: '02134',
          PhoneNumber: '0612345678',
          CellularPhone: '1234567890123456789',
          DateOfBirth: '1990-02-28',
        }),
      );
    });
  });

  it('a zip bomb and a DTD are refused with exit 2, file[sheet] and the reason, no stack trace, nothing sent', async () => {
    await withTempDir(async (dir) => {
      const rows = Array.from(
        { length: 5000 },
        (_, i) => `<row r="${i + 2}"><c r="A${i + 2}" t="inlineStr"><is><t>u-${i}</t></is></c></row>`,
      ).join('');
      const sheet = `<worksheet><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>ExternalId</t></is></c></row>${rows}</sheetData></worksheet>`;
      await writeFile(
        join(dir, 'bomb.xlsx'),
        workbookBytes({ entries: [{ name: 'xl/worksheets/sheet1.xml', data: sheet, declaredSize: 1000 }] }),
      );
      expect((await examctl(['local', 'init'], dir)).code).toBe(0);
      const bomb = await examctl(['user', 'sync', '--file', 'bomb.xlsx', '--yes'], dir);
      expect(bomb.code).toBe(2);
      expect(bomb.stderr).toMatch(
        /bomb\.xlsx\[Sheet1\]: refused: xl\/worksheets\/sheet1\.xml inflates to more than the 1,000 bytes its zip directory declares/,
      );
      expect(bomb.stderr).not.toMatch(/\n\s+at /);
      await writeFile(
        join(dir, 'dtd.xlsx'),
        workbookBytes({ sheetPart: `<!DOCTYPE w [<!ENTITY a "x">]><worksheet><sheetData/></worksheet>` }),
      );
      const dtd = await examctl(['user', 'sync', '--file', 'dtd.xlsx', '--dry-run'], dir);
      expect(dtd.code).toBe(2);
      expect(dtd.stderr).toContain(
        'dtd.xlsx[Sheet1]: the worksheet xl/worksheets/sheet1.xml is not valid XML: a document type declaration',
      );
      const world = JSON.parse((await examctl(['local', 'export'], dir)).stdout) as { Users: User[] };
      expect(world.Users.map((user) => user.ExternalId)).not.toContain('u-0');
    });
  });
});
