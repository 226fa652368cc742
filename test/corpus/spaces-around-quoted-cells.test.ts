import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectRefused, inTempDir, parseReport } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';

// Hand-edited CSVs often have blanks between the delimiter and a quoted cell: `n-2, "A" ,B`.
// Spaces and tabs around a quoted field are allowed and dropped (as csv-parse's ltrim/rtrim
// read them); a quote inside unquoted text is still refused.
describe('spaces around a quoted cell', () => {
  it('are trimmed like any other surrounding whitespace', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 's.csv');
      await writeFile(file, 'ExternalId,FirstName,LastName\n"n-1",A,"B"\n"n-2", "A" ,B\n');
      const run = await examctl(
        ['user', 'sync', '--file', file, '--dry-run', '--json', '--store', join(dir, 's')],
        dir,
      );
      expect(run.code).toBe(0);
      expect(parseReport(run).summary.ok).toBe(2);
    });
  });

  it('still refuses a quote inside unquoted text', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 's.csv');
      await writeFile(file, 'ExternalId,FirstName,LastName\nn-1,A,B\nn-2, A"x" ,B\n');
      const run = await examctl(
        ['user', 'sync', '--file', file, '--dry-run', '--json', '--store', join(dir, 's')],
        dir,
      );
      expectRefused(run, file, 3, /a quote inside an unquoted field/);
    });
  });
});
