import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { storeCli, withTempDir } from './helpers.js';

/**
 * An update that puts a user in a hierarchy examctl did not send it before shows the join in the
 * plan file (`joined`), as the HTML page does, without --prune-memberships too; `apply` sends that
 * very plan (docs/plan.md, "Before and after").
 */
async function users(dir: string, name: string, hierarchies: string): Promise<string> {
  const rows = ['ExternalId,FirstName,LastName,Email,UserName,Role,Hierarchies'];
  rows.push(`u-1,Ada,One,u-1@example.test,u-1,Candidate,${hierarchies}`);
  rows.push('u-2,Bo,Two,u-2@example.test,u-2,Candidate,H-SOUTH');
  await writeFile(join(dir, name), `${rows.join('\n')}\n`);
  return name;
}

describe('a plan names the hierarchies an update joins', () => {
  it('u-1 joins H-SOUTH: joined in the plan item and on the page, apply sends it', () =>
    withTempDir(async (dir) => {
      const cli = storeCli(dir);
      expect((await cli(['user', 'sync', '--file', await users(dir, 'night1.csv', 'H-NORTH')])).code).toBe(0);
      const night2 = await users(dir, 'night2.csv', 'H-NORTH|H-SOUTH');
      const args = ['user', 'sync', '--file', night2, '--changed-only', '--dry-run'];
      expect((await cli([...args, '--plan-out', 'plan.json', '--report', 'plan.html'])).code).toBe(0);
      const plan = JSON.parse(await readFile(join(dir, 'plan.json'), 'utf8'));
      const u1 = plan.items.find((item: { id: string }) => item.id === 'u-1');
      expect(u1).toMatchObject({ action: 'update', joined: ['H-SOUTH'] });
      expect(u1.removed).toBeUndefined();
      expect(plan.items.find((item: { id: string }) => item.id === 'u-2').joined).toBeUndefined();
      expect(await readFile(join(dir, 'plan.html'), 'utf8')).toContain('[["joins","H-SOUTH"]]');

      const applied = await cli(['apply', 'plan.json', '--json']);
      expect(applied.code, applied.stderr).toBe(0);
      const item = JSON.parse(applied.stdout).items.find((entry: { id: string }) => entry.id === 'u-1');
      expect(item).toMatchObject({ status: 'ok', action: 'updated' });
      // Sent: the next dry run joins nothing.
      expect((await cli([...args, '--plan-out', 'again.json'])).code).toBe(0);
      const again = JSON.parse(await readFile(join(dir, 'again.json'), 'utf8'));
      expect(again.items.filter((entry: { joined?: string[] }) => entry.joined !== undefined)).toEqual([]);
    }));
});
