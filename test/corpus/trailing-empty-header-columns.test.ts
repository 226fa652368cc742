import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpus, expectRefused, inTempDir, parseReport } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';

// Excel and LibreOffice export trailing empty columns (`a,b,,,` on the header and every row)
// once cells right of the data were ever formatted. Unnamed header cells at the END of the
// header are ignored while every cell under them is empty; a value there is refused naming its
// line, and an unnamed column in the middle stays refused.
describe('trailing empty columns of spreadsheet exports', () => {
  it('are ignored when they hold no values', async () => {
    await inTempDir(async (dir) => {
      const run = await examctl(
        [
          'user',
          'sync',
          '--file',
          corpus('trailing-empty-columns.csv'),
          '--dry-run',
          '--json',
          '--store',
          join(dir, 's'),
        ],
        dir,
      );
      expect(run.code).toBe(0);
      expect(parseReport(run).summary.ok).toBe(2);
    });
  });

  it('refuses a value under an unnamed trailing column, naming its line', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 't.csv');
      await writeFile(file, 'ExternalId,FirstName,LastName,,\nn-1,A,B,,\nn-2,A,B,,oops\n');
      const run = await examctl(
        ['user', 'sync', '--file', file, '--dry-run', '--json', '--store', join(dir, 's')],
        dir,
      );
      expectRefused(run, file, 3, /a value in column 5, which has no name in the header/);
    });
  });

  it('still refuses an unnamed column in the middle of the header', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 't.csv');
      await writeFile(file, 'ExternalId,,LastName\nn-1,,B\n');
      const run = await examctl(
        ['user', 'sync', '--file', file, '--dry-run', '--json', '--store', join(dir, 's')],
        dir,
      );
      expectRefused(run, file, 1, /header column 2 has no name/);
    });
  });

  it('leaves them out of the CSV report, which stays valid input', async () => {
    await inTempDir(async (dir) => {
      const report = join(dir, 'r.csv');
      const run = await examctl(
        ['user', 'sync', '--file', corpus('trailing-empty-columns.csv'), '--report', report, '--store', join(dir, 's')],
        dir,
      );
      expect(run.code).toBe(0);
      const { readFile } = await import('node:fs/promises');
      const text = await readFile(report, 'utf8');
      expect(text.split(/\r?\n/)[0]).toBe(
        'ExternalId,FirstName,LastName,Email,Role,Hierarchies,status,error_codes,error_messages,action,note,run',
      );
      const again = await examctl(
        ['user', 'sync', '--file', report, '--only-failed', '--dry-run', '--json', '--store', join(dir, 's')],
        dir,
      );
      expect(again.code).toBe(0);
      expect(parseReport(again).summary.total).toBe(0);
    });
  });
});
