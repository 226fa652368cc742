import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { lineWith } from '../support/facts.js';
import { expectCoded } from '../support/coded-message.js';
import { localStoreDirs } from '../support/local-store-dir.js';
import { examctlStep as examctl } from '../support/in-process.js';

/**
 * The thresholds in a population of 40 (QA 41-A F4): the old default (10 % or 100, whichever is
 * larger) let a header-only export disable all 40 and an emptied Hierarchies column prune all 40.
 * The default now never lets more than a quarter go; docs/ci.md's `--max-disable 2%` lets one go.
 */

const place = localStoreDirs('small-population');

const ids = Array.from({ length: 40 }, (_, i) => `p-${i + 1}`);
function writeUsers(file: string, rows: readonly string[], hierarchies = 'H-NORTH'): void {
  writeFileSync(
    join(place.dir, file),
    `${['ExternalId,FirstName,LastName,Role,Hierarchies', ...rows.map((id) => `${id},A,B,Candidate,${hierarchies}`)].join('\n')}\n`,
  );
}
const sync = (file: string, ...flags: string[]) =>
  examctl(
    ['user', 'sync', '--file', file, '--target', 'local', '--store', 'store', '--json', '--changed-only', ...flags],
    place.dir,
    place.env,
  );
const disabledCount = async () => {
  const exported = await examctl(['local', 'export', '--store', 'store'], place.dir, place.env);
  return (JSON.parse(exported.stdout) as { Users: { ExternalId: string; DisableLogin?: boolean }[] }).Users.filter(
    (user) => user.ExternalId.startsWith('p-') && user.DisableLogin === true,
  ).length;
};

describe('a population of 40', () => {
  beforeEach(async () => {
    writeUsers('all.csv', ids);
    expect((await sync('all.csv')).code).toBe(0);
  });

  it('a header-only export with --disable-missing: exit 2 naming the count and the default, nobody disabled', async () => {
    writeUsers('empty.csv', []);
    const night = await sync('empty.csv', '--disable-missing');
    expect(night.code).toBe(2);
    expectCoded(night.stderr, 'E2503', '--disable-missing', '40 of the 40 users');
    // The default threshold, with its rule.
    expect(lineWith(night.stderr, 'more than 10', '10 %', '25 %')).toBeTruthy();
    expect(await disabledCount()).toBe(0);
  });

  it('an emptied Hierarchies column with --prune-memberships: exit 2, nothing pruned', async () => {
    writeUsers('emptied.csv', ids, '');
    const night = await sync('emptied.csv', '--prune-memberships');
    expect(night.code).toBe(2);
    expectCoded(night.stderr, 'E2503', '--prune-memberships', '40 of the 40 users');
  });

  it("three leavers go under the default; docs/ci.md's --max-disable 2% lets one go (2 % of 37, rounded up)", async () => {
    writeUsers('three-left.csv', ids.slice(3));
    const night = await sync('three-left.csv', '--disable-missing');
    expect(night.code, night.stderr).toBe(0);
    expect(await disabledCount()).toBe(3);
    writeUsers('one-more-left.csv', ids.slice(4));
    const ci = await sync('one-more-left.csv', '--disable-missing', '--max-disable', '2%');
    expect(ci.code, ci.stderr).toBe(0);
    expect(await disabledCount()).toBe(4);
  });
});

describe('a dry run whose input has an unknown column (QA 41-A)', () => {
  it('--disable-missing: exit 2 naming the column, no summary and no report written', async () => {
    writeFileSync(join(place.dir, 'nick.csv'), 'ExternalId,FirstName,LastName,Role,Nick\np-1,A,B,Candidate,x\n');
    const dry = await sync('nick.csv', '--disable-missing', '--dry-run', '--report', 'r.csv');
    expect(dry.code).toBe(2);
    expect(dry.stderr).toContain('nick.csv:1: unknown column: "Nick"');
    expect(dry.stderr).not.toContain('0 items');
    // --json: stdout is the error document alone, no report of 0 items.
    expect(JSON.parse(dry.stdout)).toMatchObject({ error: { exitCode: 2 } });
    expect(dry.stdout).not.toContain('"items"');
    expect(existsSync(join(place.dir, 'r.csv'))).toBe(false);
  });
});
