import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, examctl } from '../support/cli.js';
import { withTempDir } from '../support/temp-dir.js';
import { xlsxFixture } from './helpers.js';

beforeAll(ensureBuilt, 180_000);

type User = { ExternalId: string; PostalCode?: string; PhoneNumber?: string; CellularPhone?: string; DateOfBirth?: string; Email?: string };

describe('bin/examctl on workbooks made by other software', () => {
  it('dry-runs an openpyxl workbook: bad cells fail their row only, file[sheet]:row on stderr, exit 1', async () => {
    await withTempDir(async (dir) => {
      const run = await examctl(['user', 'sync', '--file', xlsxFixture('users-openpyxl.xlsx'), '--dry-run'], dir);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('4 items: 1 valid, 0 partial, 3 invalid, 0 skipped');
      expect(run.stderr).toMatch(/users-openpyxl\.xlsx\[Users\]:5 \[u-5\] Company - cell J5: the cell holds the error #N\/A/);
    });
  });

  it('a report fixed in openpyxl and saved by LibreOffice goes back with --only-failed, every value as typed', async () => {
    await withTempDir(async (dir) => {
      expect((await examctl(['local', 'init'], dir)).code).toBe(0);
      const retry = await examctl(['user', 'sync', '--file', xlsxFixture('report-edited-libreoffice.xlsx'), '--only-failed', '--yes', '--json'], dir);
      expect(retry.code).toBe(0);
      const doc = JSON.parse(retry.stdout) as { items: { id: string; status: string }[] };
      expect(doc.items.map((item) => `${item.id}:${item.status}`)).toEqual(['00456:ok']);
      const world = JSON.parse((await examctl(['local', 'export'], dir)).stdout) as { Users: User[] };
      const ids = world.Users.map((user) => user.ExternalId);
      expect(ids).not.toContain('456');
      expect(ids).not.toContain('u-8');
      expect(world.Users.find((user) => user.ExternalId === '00456')).toEqual(
        expect.objectContaining({ Email: 'ann@example.test', PostalCode: '02134', PhoneNumber: '0612345678', CellularPhone: '1234567890123456789', DateOfBirth: '1990-02-28' }),
      );
    });
  });
});
