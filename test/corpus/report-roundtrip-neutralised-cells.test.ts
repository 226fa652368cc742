import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpus, inTempDir } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';

// The CSV report prefixes formula-looking cells with `'` (contract) and is valid input for the
// same command. When the input is a run report (it has the status, error_codes and
// error_messages columns), a cell that is `'` followed by = + - @ tab or CR is read without
// the `'`, so a fix-and-retry sends the original values ("+1", not "'+1").
describe('a neutralised report fed back keeps the original values', () => {
  it('strips the neutralising quote from a run report input', async () => {
    await inTempDir(async (dir) => {
      const store = join(dir, 's');
      const report = join(dir, 'r.csv');
      await examctl(['user', 'sync', '--file', corpus('formulas.csv'), '--report', report, '--store', store], dir);
      const { writeFile } = await import('node:fs/promises');
      await writeFile(report, (await readFile(report, 'utf8')).replace('bad-email', 'cx2@students.example.test'));
      const retry = await examctl(['user', 'sync', '--file', report, '--only-failed', '--store', store], dir);
      expect(retry.code).toBe(0);
      const world = JSON.parse((await examctl(['local', 'export', '--store', store], dir)).stdout) as {
        Users: Record<string, unknown>[];
      };
      const user = world.Users.find((u) => u.ExternalId === 'cx-2')!;
      expect([user.FirstName, user.LastName, user.Company]).toEqual(['+1', '-2', '@x']);
    });
  });
});
