import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpus, inTempDir, parseCsv } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';

// The CSV run report never holds a password (docs/cli-contract.md, "Run report": secrets never appear in
// reports): the Password column is kept, so the report is still valid input, but its cells are
// written empty, and an empty cell means "not set", so a retry does not change the password.
// The JSON report and the human summary carry no input cells at all.
describe('CSV run report and passwords', () => {
  it('blanks the Password cells of the CSV report', async () => {
    await inTempDir(async (dir) => {
      const report = join(dir, 'p.csv');
      const run = await examctl(
        ['user', 'sync', '--file', corpus('passwords.csv'), '--report', report, '--store', join(dir, 's')],
        dir,
      );
      expect(run.code).toBe(1);
      const text = await readFile(report, 'utf8');
      expect(text.split(/\r?\n/)[0]).toContain('Password');
      expect(text).not.toContain('Corpus-Secret');
      expect(text).not.toMatch(/\bSec4\b/);
      // Still valid input: the Password column is there, with empty cells.
      const rows = parseCsv(text).filter((row) => row.length > 1);
      const column = (rows[0] as string[]).indexOf('Password');
      expect(rows.slice(1).every((row) => row[column] === '')).toBe(true);
      expect(run.stderr).not.toContain('Corpus-Secret');
    });
  });
});
