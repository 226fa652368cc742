import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpus, examctl, inTempDir } from '../helpers.js';

// SPEC AMBIGUITY (src/cli/run-records.ts): `--only-failed` with a file that is not a run report
// (no status column) silently sends every row, e.g. after picking the original file instead of
// result.csv by mistake; for schedule push that re-sends every schedule. Reading chosen: a
// usage error, exit 2, nothing sent: "--only-failed needs a run report CSV (no status column
// in FILE)".
// Repro:
//   bin/examctl user sync --file fixtures/corpus/booleans.csv --only-failed --dry-run
// Expected: exit 2 naming the missing status column. Actual: exit 1, all 13 rows processed.
describe('pending: --only-failed on a file without a status column', () => {
  it.skip('is a usage error', async () => {
    await inTempDir(async (dir) => {
      const run = await examctl(['user', 'sync', '--file', corpus('booleans.csv'), '--only-failed', '--dry-run', '--json', '--store', join(dir, 's')], dir);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/status/);
    });
  });
});
