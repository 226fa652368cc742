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

describe('a memory older than the runs directory', () => {
  it('restored from before a later night: that night is named, --require-memory refuses, a run without it warns in every sink', async () => {
    const { cpSync, rmSync } = await import('node:fs');
    writeUsers('night-1.csv', ids);
    expect((await nightly('night-1.csv')).code).not.toBe(0); // no memory yet: --require-memory refuses the first night
    expect((await sync('night-1.csv', '--population', 'students', '--changed-only', '--disable-missing')).code).toBe(0);
    cpSync(join(place.dir, 'state', 'synced'), join(place.dir, 'old-synced'), { recursive: true });
    writeUsers('night-2.csv', [...ids, 's-31']);
    const second = await nightly('night-2.csv');
    expect(second.code, second.stderr).toBe(0);
    const run = (JSON.parse(second.stdout) as { run: string }).run;
    // The memory of night 1 comes back (a CI cache restored from before night 2); s-31 left since.
    rmSync(join(place.dir, 'state', 'synced'), { recursive: true });
    cpSync(join(place.dir, 'old-synced'), join(place.dir, 'state', 'synced'), { recursive: true });
    const refused = await nightly('night-1.csv');
    expect(refused.code).toBe(2);
    expect(refused.stderr.replace(/\s+/g, ' ')).toContain(
      `--require-memory: the sync memory at ${join(place.dir, 'state', 'synced')}`,
    );
    expect(refused.stderr.replace(/\s+/g, ' ')).toContain(`is older than run ${run} of --population students`);
    expect(await disabled('s-31')).toBe(false);
    // Under GitHub Actions the warning is titled for what it is: a memory found, but incomplete.
    const annotated = await examctl(
      [
        'user',
        'sync',
        '--file',
        'night-1.csv',
        '--target',
        'local',
        '--store',
        'store',
        '--json',
        '--yes',
        '--population',
        'students',
        '--changed-only',
        '--disable-missing',
        '--dry-run',
      ],
      place.dir,
      { ...place.env, GITHUB_ACTIONS: 'true' },
    );
    expect(annotated.stderr).toContain('::warning title=examctl: sync memory incomplete::the sync memory at');
    const warned = await sync('night-1.csv', '--population', 'students', '--changed-only', '--disable-missing');
    expect(warned.code, warned.stderr).toBe(0);
    expect(warned.stderr).toContain(`warning: the sync memory at`);
    expect((JSON.parse(warned.stdout) as { syncMemory: { missesRun?: unknown } }).syncMemory.missesRun).toMatchObject({
      run,
      later: true,
    });
    // Once a run of the population started from it, the memory is the newest again: the next night is quiet.
    const next = await nightly('night-1.csv');
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).not.toContain('is older than run');
  });
});

describe('the runs a memory is compared with are those that fed it', () => {
  it("EXAMCTL_SYNC_DIR and --sync-place.dir name one memory however given; another memory's runs never make it stale", async () => {
    const { cpSync, rmSync } = await import('node:fs');
    const at = (name: string) => ({ ...place.env, EXAMCTL_SYNC_DIR: join(place.dir, name) });
    const run = (file: string, where: Record<string, string>, ...flags: string[]) =>
      examctl(
        [
          'user',
          'sync',
          '--file',
          file,
          '--target',
          'local',
          '--store',
          'store',
          '--json',
          '--yes',
          '--population',
          'students',
          '--changed-only',
          '--disable-missing',
          ...flags,
        ],
        place.dir,
        where,
      );
    writeUsers('all.csv', ids);
    expect((await run('all.csv', at('a'))).code).toBe(0);
    // Another memory (B) fed by a later run: A is not stale for it.
    expect((await run('all.csv', at('b'))).code).toBe(0);
    const again = await run('all.csv', at('a'), '--require-memory');
    expect(again.code, again.stderr).toBe(0);
    // A copy of A; a later night feeds A through the flag, relative to the working directory.
    cpSync(join(place.dir, 'a'), join(place.dir, 'a-old'), { recursive: true });
    const { EXAMCTL_SYNC_DIR: _none, ...noSyncEnv } = at('a');
    const later = await run('all.csv', noSyncEnv, '--sync-dir', 'a');
    expect(later.code, later.stderr).toBe(0);
    const laterRun = (JSON.parse(later.stdout) as { run: string }).run;
    rmSync(join(place.dir, 'a'), { recursive: true });
    cpSync(join(place.dir, 'a-old'), join(place.dir, 'a'), { recursive: true });
    const stale = await run('all.csv', at('a'), '--require-memory');
    expect(stale.code).toBe(2);
    expect(stale.stderr.replace(/\s+/g, ' ')).toContain(`is older than run ${laterRun} of --population students`);
  });
});
