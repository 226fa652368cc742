import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { localStoreDirs } from '../support/local-store-dir.js';
import { examctlStep as examctl } from '../support/in-process.js';

/**
 * A one-off sync beside a nightly population (docs/sync.md, "Two exports, two populations"): a
 * run without --population and without --disable-missing (a fix sent by hand, the plain send job)
 * leaves the users it sends in their population, so the population's next night still disables
 * one who left its file. A run that names a population, or takes its file as a whole one, moves
 * the user to it.
 */

const place = localStoreDirs('one-off-population');

const ids = Array.from({ length: 30 }, (_, i) => `s-${i + 1}`);
function writeUsers(file: string, rows: readonly string[], last = (_id: string) => 'B'): void {
  writeFileSync(
    join(place.dir, file),
    `${['ExternalId,FirstName,LastName,Role,Hierarchies', ...rows.map((id) => `${id},A,${last(id)},Candidate,H-NORTH`)].join('\n')}\n`,
  );
}
const sync = (file: string, ...flags: string[]) =>
  examctl(
    ['user', 'sync', '--file', file, '--target', 'local', '--store', 'store', '--json', '--yes', ...flags],
    place.dir,
    place.env,
  );
const nightly = (file: string) =>
  sync(file, '--population', 'students', '--changed-only', '--disable-missing', '--require-memory');
const disabled = async (id: string): Promise<boolean> => {
  const exported = await examctl(['local', 'export', '--store', 'store'], place.dir, place.env);
  return (
    (JSON.parse(exported.stdout) as { Users: { ExternalId: string; DisableLogin?: boolean }[] }).Users.find(
      (user) => user.ExternalId === id,
    )?.DisableLogin === true
  );
};
const populations = async (): Promise<Record<string, number>> => {
  const shown = await examctl(['synced', 'show', '--json'], place.dir, place.env);
  return (
    (JSON.parse(shown.stdout) as { memories: { populations?: Record<string, number> }[] }).memories[0]?.populations ??
    {}
  );
};

describe('a one-off sync beside the nightly population', () => {
  it('a fix sent without --population keeps the user in students: the night it leaves, it is disabled', async () => {
    writeUsers('all.csv', ids);
    expect((await sync('all.csv', '--population', 'students', '--disable-missing')).code).toBe(0);
    // The hotfix: one user's name corrected, sent by hand.
    writeUsers('fix.csv', ['s-5'], () => 'Fixed');
    const fix = await sync('fix.csv');
    expect(fix.code, fix.stderr).toBe(0);
    expect(await populations()).toEqual({ students: 30 });
    // The next night s-5 has left the export.
    writeUsers(
      'left.csv',
      ids.filter((id) => id !== 's-5'),
    );
    const night = await nightly('left.csv');
    expect(night.code, night.stderr).toBe(0);
    expect(
      (JSON.parse(night.stdout) as { items: { id: string; action?: string }[] }).items.find(
        (item) => item.id === 's-5',
      ),
    ).toMatchObject({ action: 'disabled' });
    expect(await disabled('s-5')).toBe(true);
  });

  it('a fix with --prune-memberships and no --population counts every remembered user for --max-prune (one of 30 loses a link: sent)', async () => {
    writeUsers('all.csv', ids);
    expect((await sync('all.csv', '--population', 'students', '--disable-missing')).code).toBe(0);
    writeFileSync(
      join(place.dir, 'move.csv'),
      'ExternalId,FirstName,LastName,Role,Hierarchies\ns-5,A,B,Candidate,H-SOUTH\n',
    );
    const fix = await sync('move.csv', '--prune-memberships');
    expect(fix.code, fix.stderr).toBe(0);
    const exported = await examctl(['local', 'export', '--store', 'store'], place.dir, place.env);
    const user = (
      JSON.parse(exported.stdout) as { Users: { ExternalId: string; Hierarchies?: { ExternalId: string }[] }[] }
    ).Users.find((entry) => entry.ExternalId === 's-5');
    expect(user?.Hierarchies?.map((link) => link.ExternalId)).toEqual(['H-SOUTH']);
  });

  it('a run that names another population moves the user there: the students night leaves it alone', async () => {
    writeUsers('all.csv', ids);
    expect((await sync('all.csv', '--population', 'students', '--disable-missing')).code).toBe(0);
    writeUsers('staff.csv', ['s-7']);
    expect((await sync('staff.csv', '--population', 'staff')).code).toBe(0);
    expect(await populations()).toEqual({ staff: 1, students: 29 });
    writeUsers(
      'left.csv',
      ids.filter((id) => id !== 's-7'),
    );
    const night = await nightly('left.csv');
    expect(night.code, night.stderr).toBe(0);
    expect(await disabled('s-7')).toBe(false);
  });
});
