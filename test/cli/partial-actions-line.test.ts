import { describe, expect, it } from 'vitest';
import { lineWith, summaryOf } from '../support/facts.js';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { storeCli, withTempDir } from './helpers.js';

/** The summary's actions line counts the items it names: a partial item's action is said as partial, never as ok (docs/cli.md). */
describe('a run with a partial item: the actions line', () => {
  it('says "1 ok and 1 partial: 2 created", not "1 ok: 2 created"', () =>
    withTempDir(async (dir) => {
      const cli = storeCli(dir);
      const rows = [
        'ExternalId,FirstName,LastName,Email,UserName,Role,Hierarchies',
        'q-1,A,B,q1@example.test,q-1,Candidate,H-NORTH',
        'q-2,A,B,q2@example.test,q-2,Candidate,H-NOWHERE',
      ];
      await writeFile(join(dir, 'u.csv'), `${rows.join('\n')}\n`);
      expect((await cli(['local', 'init'])).code).toBe(0);
      const run = await cli(['user', 'sync', '--file', 'u.csv']);
      expect(run.code).toBe(1);
      expect(summaryOf(run.stderr)).toMatchObject({ total: 2, ok: 1, partial: 1, failed: 0, skipped: 0 });
      expect(lineWith(run.stderr, '1 ok and 1 partial: ', '2 created')).toBeTruthy();
      expect(run.stderr).not.toMatch(/^1 ok: /m);
      // The JSON summary counts what the items' action column says, the partial one too: both users exist.
      const again = await cli(['user', 'sync', '--file', 'u.csv', '--json']);
      const { summary, items } = JSON.parse(again.stdout) as {
        summary: { created?: number; updated?: number; unchanged?: number };
        items: { action?: string }[];
      };
      expect(items.map((item) => item.action)).toEqual(['unchanged', 'unchanged']);
      expect([summary.created, summary.updated, summary.unchanged]).toEqual([0, 0, 2]);
    }));

  it("the JSON summary counts the partial item's action as its report row says it", () =>
    withTempDir(async (dir) => {
      const cli = storeCli(dir);
      await writeFile(
        join(dir, 'u.csv'),
        'ExternalId,FirstName,LastName,Email,Role,Hierarchies\nq-1,A,B,q1@example.test,Candidate,H-NORTH|H-NOWHERE\n',
      );
      expect((await cli(['local', 'init'])).code).toBe(0);
      const run = await cli(['user', 'sync', '--file', 'u.csv', '--json']);
      expect(run.code).toBe(1);
      const { summary, items } = JSON.parse(run.stdout) as {
        summary: { partial: number; created?: number };
        items: { status: string; action?: string }[];
      };
      expect(items.map((item) => [item.status, item.action])).toEqual([['partial', 'created']]);
      expect([summary.partial, summary.created]).toEqual([1, 1]);
    }));
});
