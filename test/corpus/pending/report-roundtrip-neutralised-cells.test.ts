import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpus, examctl, inTempDir } from '../helpers.js';

// SPEC AMBIGUITY (src/input/csv-reader.ts or src/cli/run-records.ts): the CSV report prefixes
// formula-looking cells with `'` (contract), and the contract also says the report "is itself
// valid input for the same command". Fed back, the `'` becomes part of the data: a user whose
// Company was "+1" is re-sent with Company "'+1", i.e. the retry silently changes the record.
// Reading chosen: when the input is a run report (it has the status/error_codes/error_messages
// columns), a cell that is `'` followed by one of = + - @ tab CR is read without the `'`.
// Repro:
//   T=$(mktemp -d); bin/examctl user sync --store $T/s --file fixtures/corpus/formulas.csv --report $T/r.csv
//   sed -i 's/bad-email/cx2@students.example.test/' $T/r.csv
//   bin/examctl user sync --store $T/s --file $T/r.csv --only-failed; bin/examctl local export --store $T/s | grep -A3 '"cx-2"'
// Expected: FirstName "+1", LastName "-2", Company "@x". Actual: "'+1", "'-2", "'@x".
describe('pending: a neutralised report fed back keeps the original values', () => {
  it.skip('strips the neutralising quote from a run report input', async () => {
    await inTempDir(async (dir) => {
      const store = join(dir, 's');
      const report = join(dir, 'r.csv');
      await examctl(['user', 'sync', '--file', corpus('formulas.csv'), '--report', report, '--store', store], dir);
      const { writeFile } = await import('node:fs/promises');
      await writeFile(report, (await readFile(report, 'utf8')).replace('bad-email', 'cx2@students.example.test'));
      const retry = await examctl(['user', 'sync', '--file', report, '--only-failed', '--store', store], dir);
      expect(retry.code).toBe(0);
      const world = JSON.parse((await examctl(['local', 'export', '--store', store], dir)).stdout) as { Users: Record<string, unknown>[] };
      const user = world.Users.find((u) => u.ExternalId === 'cx-2')!;
      expect([user.FirstName, user.LastName, user.Company]).toEqual(['+1', '-2', '@x']);
    });
  });
});
