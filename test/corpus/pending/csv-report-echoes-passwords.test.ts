import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpus, examctl, inTempDir } from '../helpers.js';

// BUG (src/report/, CsvReportWriter): the CSV run report copies the input's Password cells
// verbatim, but cli-contract.md says "Secrets (tokens, passwords) never appear in output,
// reports or logs".
// Repro:
//   T=$(mktemp -d); bin/examctl user sync --store $T/s --file fixtures/corpus/passwords.csv \
//     --report $T/p.csv; grep -c Corpus-Secret $T/p.csv
// Expected: 0 (the Password column kept, so the report is still valid input, but its cells
// blank: an empty cell means "not set", so a retry does not change the password).
// Actual: 2 (Corpus-Secret-Alpha-1 and Corpus-Secret-Gamma-3, and "Sec4" on the 247 row).
describe('pending: CSV run report must not echo passwords', () => {
  it.skip('blanks the Password cells of the CSV report', async () => {
    await inTempDir(async (dir) => {
      const report = join(dir, 'p.csv');
      const run = await examctl(['user', 'sync', '--file', corpus('passwords.csv'), '--report', report, '--store', join(dir, 's')], dir);
      expect(run.code).toBe(1);
      const text = await readFile(report, 'utf8');
      expect(text.split(/\r?\n/)[0]).toContain('Password');
      expect(text).not.toContain('Corpus-Secret');
      expect(text).not.toMatch(/\bSec4\b/);
    });
  });
});
