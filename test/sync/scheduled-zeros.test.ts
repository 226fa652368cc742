import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { localStoreDirs } from '../support/local-store-dir.js';
import { examctlStep as examctl } from '../support/in-process.js';

/**
 * Leading zeros across commands (docs/input-formats.md, "Leading zeros"): a schedule push makes
 * its candidates' users, so a user sync whose id is one of those candidates without its zeros
 * (Excel read the column as numbers) would make a second user of the same person, and so would a
 * schedule push whose candidate id is a user synced, or a candidate pushed, with its zeros.
 * Refused like an id the user memory holds with zeros, unless --really-new-ids.
 */

const place = localStoreDirs('scheduled-zeros');

const SITTINGS_HEADER =
  'ScheduleExtId,AssessmentExtId,Title,StartDateTime,EndDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email\n';

/** A sittings file of one row per [schedule, candidate id]. */
function writeSittings(name: string, rows: [schedule: string, candidate: string][]): void {
  const lines = rows.map(
    ([schedule, id]) =>
      `${schedule},A-MATH-1,Maths,2026-12-14T09:00:00Z,2026-12-14T12:00:00Z,H-NORTH-DEC,North,${id},Ann,Lee,ann.lee@example.test\n`,
  );
  writeFileSync(join(place.dir, name), SITTINGS_HEADER + lines.join(''));
}

const push = (file: string, ...flags: string[]) =>
  examctl(
    ['schedule', 'push', '--file', file, '--target', 'local', '--store', 'store', '--yes', ...flags],
    place.dir,
    place.env,
  );

/** The store's user ids and schedule ids. */
async function stored(): Promise<{ users: string[]; schedules: string[] }> {
  const exported = await examctl(['local', 'export', '--store', 'store'], place.dir, place.env);
  const world = JSON.parse(exported.stdout) as {
    Users: { ExternalId: string }[];
    Schedules: { ScheduleExtId: string }[];
  };
  return {
    users: world.Users.map((user) => user.ExternalId),
    schedules: world.Schedules.map((schedule) => schedule.ScheduleExtId),
  };
}

describe('a user sync after a schedule push', () => {
  it('an id that is a pushed candidate without its leading zeros is refused, nothing sent; --really-new-ids sends it', async () => {
    writeSittings('sittings.csv', [['S-Z1', '004512']]);
    const pushed = await push('sittings.csv');
    expect(pushed.code, pushed.stderr + pushed.stdout).toBe(0);
    writeFileSync(
      join(place.dir, 'users.csv'),
      'ExternalId,FirstName,LastName,Email,Role\n4512,Ann,Lee,ann.lee@example.test,Candidate\n',
    );
    const sync = (...flags: string[]) =>
      examctl(
        ['user', 'sync', '--file', 'users.csv', '--target', 'local', '--store', 'store', '--yes', ...flags],
        place.dir,
        place.env,
      );
    const refused = await sync();
    expect(refused.code).toBe(2);
    expectCoded(refused.stderr, 'E2000', '1 new id', 'users.csv:2 4512 for 004512', '--really-new-ids');
    expect((await stored()).users).not.toContain('4512');
    expect((await sync('--really-new-ids')).code).toBe(0);
  });
});

describe('a schedule push', () => {
  it('a candidate id that is a user synced with leading zeros is refused, nothing sent; --really-new-ids sends it, and then it is known', async () => {
    writeFileSync(
      join(place.dir, 'users.csv'),
      'ExternalId,FirstName,LastName,Email,Role\n004512,Ann,Lee,ann.lee@example.test,Candidate\n',
    );
    expect(
      (
        await examctl(
          ['user', 'sync', '--file', 'users.csv', '--target', 'local', '--store', 'store', '--yes'],
          place.dir,
          place.env,
        )
      ).code,
    ).toBe(0);
    writeSittings('sittings.csv', [
      ['S-Z2', 'C-1'],
      ['S-Z2', '4512'],
    ]);
    const refused = await push('sittings.csv');
    expect(refused.code).toBe(2);
    expectCoded(refused.stderr, 'E2000', '1 new candidate id', 'sittings.csv:3 4512 for 004512', '--really-new-ids');
    const before = await stored();
    expect(before.users).not.toContain('4512');
    expect(before.users).not.toContain('C-1');
    expect(before.schedules).not.toContain('S-Z2');
    const sent = await push('sittings.csv', '--really-new-ids');
    expect(sent.code, sent.stderr).toBe(0);
    expect((await stored()).users).toEqual(expect.arrayContaining(['004512', '4512']));
    // 4512 is a candidate examctl registered now: known exactly, it passes without the flag.
    writeSittings('again.csv', [
      ['S-Z3', '4512'],
      ['S-Z3', '004512'],
    ]);
    // ...but not beside 004512 in one file: that pair is refused whatever the memory knows.
    expect((await push('again.csv')).code).toBe(2);
    writeSittings('again.csv', [['S-Z3', '4512']]);
    const known = await push('again.csv');
    expect(known.code, known.stderr).toBe(0);
  });

  it('a candidate id that an earlier push registered with leading zeros is refused, a dry run too, an unreadable user memory done without; the same id with its zeros passes', async () => {
    writeSittings('first.csv', [['S-Z1', '004512']]);
    expect((await push('first.csv')).code).toBe(0);
    // The user memory beside the schedule memory cannot be read (a directory): the guard does without it.
    const memoryDir = join(place.dir, 'state', 'synced');
    mkdirSync(join(memoryDir, readdirSync(memoryDir)[0]!, 'users.ndjson'));
    writeSittings('stripped.csv', [['S-Z2', '4512']]);
    const dry = await push('stripped.csv', '--dry-run');
    expect(dry.code).toBe(2);
    expect(dry.stderr).toContain('(stripped.csv:2 4512 for 004512)');
    const refused = await push('stripped.csv');
    expect(refused.code).toBe(2);
    const after = await stored();
    expect(after.users).not.toContain('4512');
    expect(after.schedules).not.toContain('S-Z2');
    // The same candidate in another schedule, its zeros kept: known exactly, sent.
    writeSittings('kept.csv', [['S-Z2', '004512']]);
    const kept = await push('kept.csv');
    expect(kept.code, kept.stderr).toBe(0);
    expect((await stored()).schedules).toContain('S-Z2');
  });

  it('two candidate ids of one file that are one without leading zeros refuse the run, naming both lines once; --really-new-ids sends them', async () => {
    writeSittings('pair.csv', [
      ['S-P1', '0777'],
      ['S-P1', 'C-2'],
      ['S-P2', '777'],
      ['S-P3', '777'],
    ]);
    for (const flags of [['--dry-run'], []]) {
      const refused = await push('pair.csv', ...flags);
      expect(refused.code).toBe(2);
      expectCoded(refused.stderr, 'E2000', 'two candidate ids', 'pair.csv:2 0777', 'pair.csv:4 777');
    }
    const before = await stored();
    expect(before.users.filter((id) => ['0777', '777', 'C-2'].includes(id))).toEqual([]);
    expect(before.schedules.filter((id) => /^S-P\d$/.test(id))).toEqual([]);
    const sent = await push('pair.csv', '--really-new-ids');
    expect(sent.code, sent.stderr).toBe(0);
    expect((await stored()).users).toEqual(expect.arrayContaining(['0777', '777']));
  });
});

describe('a schedule push of a schedule id without its leading zeros', () => {
  it('is refused when examctl pushed the id with them: nothing sent (it would be a second schedule); --really-new-ids sends it', async () => {
    writeSittings('first.csv', [['004512', 'C-1']]);
    expect((await push('first.csv')).code).toBe(0);
    writeSittings('again.csv', [
      ['4512', 'C-1'],
      ['4512', 'C-2'],
    ]);
    const refused = await push('again.csv');
    expect(refused.code).toBe(2);
    expectCoded(refused.stderr, 'E2000', '1 new schedule id', 'again.csv:2 4512 for 004512', 'second schedule');
    expect((await stored()).schedules).not.toContain('4512');
    expect((await push('again.csv', '--really-new-ids')).code).toBe(0);
    expect((await stored()).schedules).toContain('4512');
  });
});

describe('a schedule examctl named (no ScheduleExtId in the file)', () => {
  it('registers its candidates for the guard too: a later push of one of them without its zeros is refused (found by a trial)', async () => {
    const candidates = (name: string, id: string) =>
      writeFileSync(
        join(place.dir, name),
        `CandidateExtId,FirstName,LastName,Email\n${id},Ada,Byron,ada@example.test\n`,
      );
    const named = (file: string, ...flags: string[]) =>
      push(
        file,
        '--assessment',
        'A-MATH-1',
        '--start',
        '2027-02-01T09:00:00Z',
        '--group',
        'H-NORTH-DEC',
        '--group-name',
        'North',
        ...flags,
      );
    candidates('a.csv', '0042');
    const first = await named('a.csv');
    expect(first.code, first.stderr).toBe(0);
    candidates('b.csv', '42');
    const refused = await named('b.csv', '--schedule-id', 'S-B');
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain('b.csv:2 42 for 0042');
    expect((await stored()).users).not.toContain('42');
  });
});

describe('a user a schedule push rewrote (trial26 F02)', () => {
  it('is no longer unchanged for the nightly user sync --changed-only: sent again, once, saying why', async () => {
    writeFileSync(
      join(place.dir, 'users.csv'),
      'ExternalId,FirstName,LastName,Email,Role\nu-7,Ann,Lee,ann@school.test,Candidate\n',
    );
    const sync = () =>
      examctl(
        ['user', 'sync', '--changed-only', '--file', 'users.csv', '--target', 'local', '--store', 'store', '--yes'],
        place.dir,
        place.env,
      );
    const email = async () => {
      const world = JSON.parse(
        (await examctl(['local', 'export', '--store', 'store'], place.dir, place.env)).stdout,
      ) as { Users: { ExternalId: string; Email: string }[] };
      return world.Users.find((user) => user.ExternalId === 'u-7')?.Email;
    };
    expect((await sync()).code).toBe(0);
    writeSittings('sittings.csv', [['S-F2', 'u-7']]);
    const pushed = await push('sittings.csv', '--upsert', '--changed-only');
    expect(pushed.code, pushed.stderr + pushed.stdout).toBe(0);
    expect(await email()).toBe('ann.lee@example.test');
    const night = await sync();
    // The store names u-7 as changed since the user sync's last head (docs/sync.md, "Where the store stands").
    expect(night.stdout + night.stderr).toContain('1 ok: 1 updated');
    expect(await email()).toBe('ann@school.test');
    const next = await sync();
    expect(next.stdout + next.stderr).toContain('1 unchanged (not sent)');
  });
});
