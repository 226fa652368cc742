import { describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { storeCliWithUsers, withTempDir } from './helpers.js';

/**
 * A dry run without --changed-only sends every row: an unchanged user's request is in the plan,
 * and apply sends it. The page's table of them must not say they are not sent (docs/cli.md, "The
 * HTML page"); a row --changed-only leaves out says so in its own note.
 */
describe('the page of a plan whose unchanged rows are sent', () => {
  it('heads their table without "not sent"', () =>
    withTempDir(async (dir) => {
      const cli = await storeCliWithUsers(dir);
      const dry = await cli([
        'user',
        'sync',
        '--file',
        'users.csv',
        '--dry-run',
        '--plan-out',
        'p.json',
        '--report',
        'p.html',
      ]);
      expect(dry.code, dry.stderr).toBe(0);
      const items = JSON.parse(await readFile(join(dir, 'p.json'), 'utf8')).items as {
        action: string;
        digest?: string;
      }[];
      const unchanged = items.filter((item) => item.action === 'unchanged');
      expect(unchanged.length).toBe(20);
      // Each is sent: its request is in the plan.
      expect(unchanged.filter((item) => item.digest === undefined)).toEqual([]);
      const page = await readFile(join(dir, 'p.html'), 'utf8');
      const heading = /<section class="group" id="unchanged"[^]*?<h2>([^<]*)<\/h2>/.exec(page)![1]!;
      expect(heading).not.toContain('not sent');
    }));
});
