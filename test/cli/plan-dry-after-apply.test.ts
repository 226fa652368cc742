import { describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { storeCli, withTempDir } from './helpers.js';

const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role';
const row = (id: string, last: string) => `${id},Ann,${last},${id}@example.test,${id},Candidate`;

/**
 * `apply --dry-run` answers what `apply` would do (docs/plan.md, "Apply"): of a plan applied
 * already, that it was (nothing would be sent), not that another run moved the store (E2601):
 * the run that moved it was the plan's own.
 */
describe('apply --dry-run of a plan applied already', () => {
  it('says it was applied, exit 0, as apply does; no E2601', () =>
    withTempDir(async (dir) => {
      const cli = storeCli(dir);
      await writeFile(join(dir, 'a.csv'), `${[HEADER, row('u-1', 'Lee')].join('\n')}\n`);
      expect((await cli(['user', 'sync', '--file', 'a.csv'])).code).toBe(0);
      await writeFile(join(dir, 'b.csv'), `${[HEADER, row('u-1', 'Li')].join('\n')}\n`);
      expect((await cli(['user', 'sync', '--file', 'b.csv', '--dry-run', '--plan-out', 'p.json'])).code).toBe(0);
      const id = JSON.parse(await readFile(join(dir, 'p.json'), 'utf8')).id as string;
      expect((await cli(['apply', 'p.json'])).code).toBe(0);
      const real = await cli(['apply', 'p.json', '--json']);
      const dry = await cli(['apply', 'p.json', '--dry-run', '--json']);
      expect(dry.stderr).not.toContain('E2601');
      expect([dry.code, JSON.parse(dry.stdout)]).toEqual([real.code, JSON.parse(real.stdout)]);
      expect(JSON.parse(dry.stdout)).toMatchObject({ plan: id, applied: false });
    }));
});
