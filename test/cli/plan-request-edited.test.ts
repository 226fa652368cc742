import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expectCoded } from '../support/coded-message.js';
import { storeCli, withTempDir } from './helpers.js';

const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role';
const row = (id: string, last: string) => `${id},Ann,${last},${id}@example.test,${id},Candidate`;

/** A plan edited and its checksum written again, as anyone may: the checksum is no signature. */
function rechecksummed(text: string, edit: (body: string) => string): string {
  const at = text.lastIndexOf('\n  "checksum"');
  const body = edit(text.slice(0, at));
  return `${body}\n  "checksum": "sha256:${createHash('sha256').update(body).digest('hex')}"\n}\n`;
}

/**
 * What a person reviews is each item's request; apply sends the request its digest names. A plan
 * whose shown request is not the one its digest names is refused whole (E2600), nothing sent:
 * else the review would read one request and apply send another (docs/plan.md, "Refusals").
 */
describe('a plan whose shown request was edited', () => {
  it('is refused, E2600 naming the item, and nothing is sent', () =>
    withTempDir(async (dir) => {
      const cli = storeCli(dir);
      await writeFile(join(dir, 'a.csv'), `${[HEADER, row('u-1', 'Lee'), row('u-2', 'Ng')].join('\n')}\n`);
      expect((await cli(['user', 'sync', '--file', 'a.csv'])).code).toBe(0);
      await writeFile(join(dir, 'b.csv'), `${[HEADER, row('u-1', 'Lee'), row('u-2', 'Ng-Evil')].join('\n')}\n`);
      expect((await cli(['user', 'sync', '--file', 'b.csv', '--dry-run', '--plan-out', 'p.json'])).code).toBe(0);
      const text = await readFile(join(dir, 'p.json'), 'utf8');
      expect(text).toContain('"LastName":"Ng-Evil"');
      await writeFile(
        join(dir, 'edited.json'),
        rechecksummed(text, (body) => body.replace('"Ng-Evil"', '"Ng-Kind"')),
      );
      const applied = await cli(['apply', 'edited.json']);
      expect(applied.code).toBe(2);
      expectCoded(applied.stderr, 'E2600', 'edited.json', 'u-2');
      const world = JSON.parse((await cli(['local', 'export'])).stdout) as {
        Users: { ExternalId: string; LastName: string }[];
      };
      expect(world.Users.find((user) => user.ExternalId === 'u-2')!.LastName).toBe('Ng');
      // The plan as written applies.
      expect((await cli(['apply', 'p.json'])).code).toBe(0);
    }));
});
