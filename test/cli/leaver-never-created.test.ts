import { describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { storeCli, withTempDir } from './helpers.js';

/**
 * A user the target never had (a row skipped by --max-errors: not in the sync memory either), left
 * out of the next file (no leaver: nothing to disable) and back the night after: the request creates
 * it, so every place says `create`, never `enable` (docs/plan.md, "Actions").
 */
const header = 'ExternalId,FirstName,LastName,Email,UserName,Role';
const row = (i: number, email = `u${i}@example.test`) => `u-${i},F${i},L${i},${email},u-${i},Candidate`;

describe('a leaver who was never on the target, back in the file', () => {
  it('is a create in the dry run, the plan file and the real run, as the target says', () =>
    withTempDir(async (dir) => {
      const cli = storeCli(dir);
      const write = (name: string, rows: string[]) => writeFile(join(dir, name), `${[header, ...rows].join('\n')}\n`);
      expect((await cli(['local', 'init'])).code).toBe(0);
      // Night 1: u-1 is invalid, the run stops there: u-2 and u-3 are never sent.
      await write('n1.csv', [row(0), row(1, 'no-at-sign'), row(2), row(3)]);
      expect((await cli(['user', 'sync', '--file', 'n1.csv', '--changed-only', '--max-errors', '1'])).code).toBe(1);
      // Night 2: u-2 left the file; never sent, it is no leaver (docs/sync.md, "A request cut short").
      await write('n2.csv', [row(0), row(1), row(3)]);
      const n2 = await cli(['user', 'sync', '--file', 'n2.csv', '--changed-only', '--disable-missing', '--json']);
      expect(n2.code).toBe(0);
      expect(JSON.parse(n2.stdout).items.filter((item: { id: string }) => item.id === 'u-2')).toEqual([]);
      // Night 3: u-2 is back.
      await write('n3.csv', [row(0), row(1), row(2), row(3)]);
      const nightly = ['user', 'sync', '--file', 'n3.csv', '--changed-only', '--disable-missing'];
      const dry = await cli([...nightly, '--dry-run', '--json', '--plan-out', 'p.json']);
      expect(dry.code).toBe(0);
      const counts = JSON.parse(dry.stdout).plan;
      expect(counts).toMatchObject({ toCreate: 1, unchanged: 3 });
      expect(counts.toEnable ?? 0).toBe(0);
      const plan = JSON.parse(await readFile(join(dir, 'p.json'), 'utf8'));
      expect(plan.items.find((item: { id: string }) => item.id === 'u-2').action).toBe('create');
      const real = await cli([...nightly, '--json']);
      expect(real.code).toBe(0);
      const { summary } = JSON.parse(real.stdout);
      expect(summary).toMatchObject({ created: 1, unchanged: 3 });
      expect(summary.actions).toEqual({ create: 1, unchanged: 3 });
    }));
});
