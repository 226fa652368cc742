import { describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { storeCli, withTempDir } from './helpers.js';

interface Item {
  id: string;
  action?: string;
  changes?: { field: string; known: boolean; before?: unknown; after?: unknown }[];
  removed?: string[];
}

const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role,Hierarchies,Labels';
const row = (id: string, hierarchies: string) => `${id},Ann,Lee,${id}@example.test,${id},Author,${hierarchies},staff`;

/**
 * A permission gained or revoked on a link the user keeps changes the request, not a field: the
 * plan and its page name it before and after (docs/plan.md, "Before and after"), so an
 * administrator granted overnight is seen at review.
 */
describe('a plan names what a request does to memberships', () => {
  it('a flag gained, a flag revoked by the file, a link joined: before and after in the plan and the page', () =>
    withTempDir(async (dir) => {
      const cli = storeCli(dir);
      const first = [
        HEADER,
        row('t-01', 'H-SOUTH:coordinator'),
        row('t-02', 'H-NORTH:reports'),
        row('t-03', 'H-NORTH'),
      ];
      await writeFile(join(dir, 'night1.csv'), `${first.join('\n')}\n`);
      expect((await cli(['user', 'sync', '--file', 'night1.csv'])).code).toBe(0);
      const second = [
        HEADER,
        row('t-01', 'H-SOUTH:coordinator+administrator'),
        row('t-02', 'H-NORTH'),
        row('t-03', 'H-NORTH|H-SOUTH'),
      ];
      await writeFile(join(dir, 'night2.csv'), `${second.join('\n')}\n`);
      const dry = await cli([
        'user',
        'sync',
        '--file',
        'night2.csv',
        '--changed-only',
        '--dry-run',
        '--plan-out',
        'plan.json',
        '--report',
        'plan.html',
      ]);
      expect(dry.code, dry.stderr).toBe(0);
      const planned = JSON.parse(await readFile(join(dir, 'plan.json'), 'utf8')).items as Item[];
      const of = (id: string) => planned.find((item) => item.id === id)!;
      expect(planned.map((item) => item.action)).toEqual(['update', 'update', 'update']);
      expect(of('t-01').changes).toEqual([
        {
          field: 'Hierarchies',
          known: true,
          before: 'H-SOUTH:coordinator',
          after: 'H-SOUTH:coordinator+administrator',
        },
      ]);
      expect(of('t-02').changes).toEqual([
        { field: 'Hierarchies', known: true, before: 'H-NORTH:reports', after: 'H-NORTH' },
      ]);
      // A link joined had no value before; the link kept as it was is not listed.
      expect(of('t-03').changes).toEqual([{ field: 'Hierarchies', known: true, after: 'H-SOUTH' }]);
      // The terminal's plan line names the field; the page's row holds both values.
      expect(dry.stderr).toContain('~ t-01 (Hierarchies)');
      const page = await readFile(join(dir, 'plan.html'), 'utf8');
      const t01 = page.split('\n').find((line) => line.includes('"t-01"'))!;
      expect(t01).toContain('["Hierarchies","H-SOUTH:coordinator"]');
      expect(t01).toContain('["Hierarchies","H-SOUTH:coordinator+administrator"]');
      // Apply sends the plan: the store then holds the plan's after.
      expect((await cli(['apply', 'plan.json'])).code).toBe(0);
      const world = JSON.parse((await cli(['local', 'export'])).stdout) as {
        Users: { ExternalId: string; Hierarchies?: { ExternalId: string; IsAdministrator?: boolean }[] }[];
      };
      const t01Stored = world.Users.find((user) => user.ExternalId === 't-01')!;
      expect(t01Stored.Hierarchies).toEqual([
        expect.objectContaining({ ExternalId: 'H-SOUTH', IsAdministrator: true }),
      ]);
    }));
});
