import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { examctl, inTempDir, parseReport } from '../helpers.js';

// SPEC AMBIGUITY (src/input/csv-reader.ts): hand-edited CSVs often have a space after the
// delimiter before a quoted cell: `n-2, "Ann" ,Lee`. examctl trims every cell anyway
// (docs/input-formats.md), yet refuses this row as "a quote inside an unquoted field ... double
// the inner quote", which misleads. Reading chosen: whitespace around a quoted field is
// allowed and dropped (csv-parse's ltrim/rtrim do exactly this); a quote inside text stays refused.
// Repro:
//   printf 'ExternalId,FirstName,LastName\n"n-1",A,"B"\n"n-2", "A" ,B\n' > /tmp/s.csv
//   bin/examctl user sync --dry-run --file /tmp/s.csv
// Expected: exit 0, 2 valid. Actual: exit 2, "/tmp/s.csv:3: a quote inside an unquoted field".
describe('pending: spaces around a quoted cell', () => {
  it.skip('are trimmed like any other surrounding whitespace', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 's.csv');
      await writeFile(file, 'ExternalId,FirstName,LastName\n"n-1",A,"B"\n"n-2", "A" ,B\n');
      const run = await examctl(['user', 'sync', '--file', file, '--dry-run', '--json', '--store', join(dir, 's')], dir);
      expect(run.code).toBe(0);
      expect(parseReport(run).summary.ok).toBe(2);
    });
  });
});
