import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cannotWriteReport } from '../../src/report/report-file.js';
import { checkReplaceable } from '../../src/system/output-file.js';
import { withTempDir } from '../cli/helpers.js';

/** As Windows answers opening a file Excel holds with writes denied (found under Wine 10: docs/windows.md). */
const busy = async (path: string): Promise<void> => {
  throw Object.assign(new Error(`EBUSY: resource busy or locked, open '${path}'`), { code: 'EBUSY' });
};

describe('a --report another program holds open on Windows, refused before anything is sent', () => {
  it('keeps the "close it in Excel" hint in the report message', () =>
    withTempDir(async (dir) => {
      const report = join(dir, 'report.csv');
      await writeFile(report, 'yesterday');
      const refused = await checkReplaceable(report, { platform: 'win32', probe: busy }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(Error);
      const said = cannotWriteReport(report, refused);
      expect(said.message).toBe(
        `cannot write report ${report}: the existing file cannot be replaced (EBUSY): another program holds it open (close it in Excel) or it is read-only`,
      );
    }));
});
