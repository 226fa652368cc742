import { copyFileSync, cpSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { ROOT } from '../durability/helpers.js';
import { serve } from './lost-memory-nights.js';
import type { LocalServer } from '../../src/server/serve-local.js';
import { servedStoreAt } from '../../src/port/integration-api.js';

/**
 * A store served by `local serve` as the remote target is judged as a local one (docs/sync.md,
 * "Drift"): restored from a backup or replaced (`local init --force`), it is older than its memory:
 * the unchanged are sent that night, said once.
 */

let served: LocalServer | undefined;

afterEach(async () => {
  await served?.close();
  served = undefined;
});

async function cli(dir: string, argv: string[]) {
  const io = testDeps(
    dir,
    {},
    {
      EXAMCTL_TOKEN: 'dev-token',
      EXAMCTL_SYNC_DIR: join(dir, 'synced'),
      EXAMCTL_RUNS_DIR: join(dir, 'runs'),
      EXAMCTL_LOCK_TIMEOUT_MS: '0',
    },
  );
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

/** The served store stopped, `change`d, and served again at the same address (the same target, so the same memory). */
async function again(dir: string, change: () => Promise<unknown> | void): Promise<void> {
  const port = served!.port;
  await served!.close();
  await change();
  served = await serve(join(dir, 'store'), port);
}

/** A file cut after the line `last` picks (by default its last line dropped), as a kill leaves it. */
function cutFile(file: string, last = (lines: string[]) => lines.length - 2) {
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  writeFileSync(file, `${lines.slice(0, last(lines) + 1).join('\n')}\n`);
}

/** The newest run's journal killed after item `n`'s last outcome (a resume's, if it resent it), and its memory's end line (`memory`). */
function killedAfter(dir: string, n: number, memory: string) {
  const run = readdirSync(join(dir, 'runs')).sort().at(-1)!;
  cutFile(join(dir, 'runs', run, 'journal.ndjson'), (lines) =>
    lines.findLastIndex((line) => line.includes(`"n":${n},`) && line.includes('"status"')),
  );
  cutFile(memory);
  return run;
}

/** Night 1 (S-MATH1-DEC alone) pushed to a served store; `push` runs the nights after (both sittings). */
async function firstNight(dir: string) {
  const sittings = readFileSync(join(ROOT, 'fixtures', 'sittings.csv'), 'utf8')
    .trimEnd()
    .split('\n');
  writeFileSync(
    join(dir, 'night1.csv'),
    `${sittings.filter((line, i) => i === 0 || line.startsWith('S-MATH1-DEC')).join('\n')}\n`,
  );
  writeFileSync(join(dir, 'night2.csv'), `${sittings.join('\n')}\n`);
  const init = ['local', 'init', '--store', 'store', '--seed', join(ROOT, 'fixtures', 'world.json')];
  expect((await cli(dir, init)).code).toBe(0);
  served = await serve(join(dir, 'store'));
  const push = async (file = 'night2.csv', ...more: string[]) => {
    const run = await cli(dir, [
      'schedule',
      'push',
      '--file',
      file,
      '--upsert',
      '--changed-only',
      '--target',
      'remote',
      '--base-url',
      served!.url,
      '--yes',
      '--json',
      ...more,
    ]);
    const items = run.code === 2 ? [] : (JSON.parse(run.stdout) as { items: { id: string; action?: string }[] }).items;
    return { ...run, actions: items.map((item) => `${item.id} ${item.action}`) };
  };
  expect((await push('night1.csv')).code).toBe(0);
  return { init, push };
}

describe('a store served by local serve, under its schedule memory', () => {
  it('restored from a backup: every sitting is sent, said once; the nights before and after are quiet', () =>
    withTempDir(async (dir) => {
      const { push } = await firstNight(dir);
      await again(dir, () => cpSync(join(dir, 'store'), join(dir, 'store.bak'), { recursive: true }));
      const older =
        /note: the remote store is older than run \S+ left it \(restored or cut back\): every schedule the memory calls unchanged is sent as changed/g;
      const second = await push('night2.csv', '--require-memory');
      expect([second.code, second.actions, second.stderr.match(older)]).toEqual([
        0,
        ['S-MATH1-DEC unchanged', 'S-PHYS2-JAN created'],
        null,
      ]);
      await again(dir, () => {
        rmSync(join(dir, 'store'), { recursive: true });
        cpSync(join(dir, 'store.bak'), join(dir, 'store'), { recursive: true });
      });
      for (const night of [3, 4]) {
        const run = await push('night2.csv', '--require-memory');
        expect(run.code, run.stderr).toBe(0);
        // Both sent (a remote answer does not say created or updated: the memory knew both).
        expect(run.actions).toEqual(
          night === 3
            ? ['S-MATH1-DEC updated', 'S-PHYS2-JAN updated']
            : ['S-MATH1-DEC unchanged', 'S-PHYS2-JAN unchanged'],
        );
        expect(run.stderr.match(older)?.length ?? 0, run.stderr).toBe(night === 3 ? 1 : 0);
      }
    }));

  it('a night killed after its acknowledgements, the store restored (new files) to the backup before it, then runs resume: the sitting it created is created again (trial49 F01)', () =>
    withTempDir(async (dir) => {
      const { push } = await firstNight(dir);
      await again(dir, () => cpSync(join(dir, 'store'), join(dir, 'store.bak'), { recursive: true }));
      expect((await push('night2.csv')).actions).toEqual(['S-MATH1-DEC unchanged', 'S-PHYS2-JAN created']);
      const run = killedAfter(dir, 1, join(dir, 'synced', readdirSync(join(dir, 'synced'))[0]!, 'schedules.ndjson'));
      await again(dir, () => {
        rmSync(join(dir, 'store'), { recursive: true });
        cpSync(join(dir, 'store.bak'), join(dir, 'store'), { recursive: true });
      });
      expect((await cli(dir, ['runs', 'resume', run, '--base-url', served!.url, '--yes'])).code).toBe(0);
      const world = JSON.parse((await cli(dir, ['local', 'export', '--store', 'store'])).stdout) as {
        Schedules: { ScheduleExtId: string }[];
      };
      expect(world.Schedules.map((schedule) => schedule.ScheduleExtId)).toEqual(
        expect.arrayContaining(['S-MATH1-DEC', 'S-PHYS2-JAN']),
      );
      expect((await push('night2.csv')).actions).toEqual(['S-MATH1-DEC unchanged', 'S-PHYS2-JAN unchanged']);
    }));

  it('replaced with a new token (local init --force, no --seed): the store question refused is the run refused, not a quiet night of all unchanged', () =>
    withTempDir(async (dir) => {
      const { push } = await firstNight(dir);
      expect((await push('night2.csv')).code).toBe(0);
      await again(dir, () => cli(dir, ['local', 'init', '--store', 'store', '--force']));
      const run = await cli(dir, [
        'schedule',
        'push',
        '--file',
        'night2.csv',
        '--upsert',
        '--changed-only',
        '--target',
        'remote',
        '--base-url',
        served!.url,
        '--yes',
      ]);
      expect([run.code, run.stderr]).toEqual([3, expect.stringContaining('the service refused the token (403)')]);
    }));

  it('replaced (local init --force): older than its memory too, everything sent, said once', () =>
    withTempDir(async (dir) => {
      const { init, push } = await firstNight(dir);
      await again(dir, () => cli(dir, [...init, '--force']));
      for (const night of [2, 3]) {
        const run = await push('night2.csv', '--require-memory');
        expect(run.code, run.stderr).toBe(0);
        expect(run.actions).toEqual(
          night === 2
            ? ['S-MATH1-DEC updated', 'S-PHYS2-JAN created']
            : ['S-MATH1-DEC unchanged', 'S-PHYS2-JAN unchanged'],
        );
        expect(run.stderr.match(/note: the remote store is older than run \S+ left it/g)?.length ?? 0, run.stderr).toBe(
          night === 2 ? 1 : 0,
        );
      }
      const world = JSON.parse((await cli(dir, ['local', 'export', '--store', 'store'])).stdout) as {
        Schedules: { ScheduleExtId: string }[];
      };
      expect(world.Schedules.map((schedule) => schedule.ScheduleExtId)).toEqual(
        expect.arrayContaining(['S-MATH1-DEC', 'S-PHYS2-JAN']),
      );
    }));
  it('restored in place (its journal file cut back) and written past the recorded length by another command: older still (trial38 F01)', () =>
    withTempDir(async (dir) => {
      const { push } = await firstNight(dir);
      const journal = join(dir, 'store', readdirSync(join(dir, 'store')).find((name) => name.startsWith('journal-'))!);
      const backup = readFileSync(journal);
      expect((await push('night2.csv')).actions).toEqual(['S-MATH1-DEC unchanged', 'S-PHYS2-JAN created']);
      const length = statSync(journal).size;
      await again(dir, () => writeFileSync(journal, backup));
      const staff = Array.from({ length: 40 }, (_, i) => `s-${i},Staff,Member,s${i}@example.test,Candidate`);
      writeFileSync(join(dir, 'staff.csv'), `ExternalId,FirstName,LastName,Email,Role\n${staff.join('\n')}\n`);
      expect(
        (
          await cli(dir, [
            'user',
            'sync',
            '--file',
            'staff.csv',
            '--target',
            'remote',
            '--base-url',
            served!.url,
            '--yes',
          ])
        ).code,
      ).toBe(0);
      expect(statSync(journal).size).toBeGreaterThan(length);
      for (const night of [3, 4]) {
        const run = await push('night2.csv');
        expect(run.actions).toEqual(
          ['S-MATH1-DEC', 'S-PHYS2-JAN'].map((id) => `${id} ${night === 3 ? 'updated' : 'unchanged'}`),
        );
        expect(run.stderr.match(/note: the remote store is older than run \S+ left it/g)?.length ?? 0, run.stderr).toBe(
          night === 3 ? 1 : 0,
        );
      }
    }));

  it('doctor warns of it before the night, in the words the night would say (the same code judges)', () =>
    withTempDir(async (dir) => {
      const { init } = await firstNight(dir);
      const doctor = () => cli(dir, ['doctor', '--target', 'remote', '--base-url', served!.url]);
      const before = await doctor();
      expect(before.stdout).toMatch(
        /\nok {4}sync memory [^\n]*schedules 1 \(without --population: newest run [^)]*\)\n/,
      );
      await again(dir, () => cli(dir, [...init, '--force']));
      const after = await doctor();
      expect(after.stdout).toMatch(
        /\nwarn {2}sync memory .*: the remote store is older than run \S+ left it \(restored or cut back\): every schedule the memory calls unchanged is sent as changed\n/,
      );
    }));
});

describe('a served store restored from a backup: the memory\'s "exists" and "disabled" are not believed either (trial38 F01, F04)', () => {
  /** The store backed up after the night `at`, the nights run, then the backup served again. */
  async function restoredAfter(dir: string, at: number, nights: (() => Promise<unknown>)[]) {
    for (const [i, night] of nights.entries()) {
      await night();
      if (i === at) await again(dir, () => cpSync(join(dir, 'store'), join(dir, 'store.bak'), { recursive: true }));
    }
    await again(dir, () => {
      rmSync(join(dir, 'store'), { recursive: true });
      cpSync(join(dir, 'store.bak'), join(dir, 'store'), { recursive: true });
    });
  }
  const exported = async (dir: string) => (await cli(dir, ['local', 'export', '--store', 'store'])).stdout;

  /** u-1..u-3 (u3.csv) and u-1, u-2 (u2.csv) served; `sync` runs a nightly --disable-missing night: its items' id, action and a not-on-the-target note. */
  async function leaverNights(dir: string) {
    const header = 'ExternalId,FirstName,LastName,Email,Role\n';
    const row = (n: number) => `u-${n},F,L${n},u${n}@example.test,Candidate\n`;
    writeFileSync(join(dir, 'u2.csv'), header + row(1) + row(2));
    writeFileSync(join(dir, 'u3.csv'), header + row(1) + row(2) + row(3));
    served = await serve(join(dir, 'store'));
    return async (file: string, ...more: string[]) => {
      const run = await cli(dir, [
        'user',
        'sync',
        '--file',
        file,
        '--disable-missing',
        '--changed-only',
        '--target',
        'remote',
        '--base-url',
        served!.url,
        '--yes',
        '--json',
        ...more,
      ]);
      expect(run.code, run.stderr).toBe(0);
      return (JSON.parse(run.stdout) as { items: { id: string; action?: string; note?: string }[] }).items.map(
        (item) =>
          `${item.id} ${item.action}${item.note?.startsWith('not on the target') === true ? `: ${item.note}` : ''}`,
      );
    };
  }

  it('a link and a flag a --prune-memberships night removed after the backup are removed again, the night after is quiet (trial48 F03)', () =>
    withTempDir(async (dir) => {
      const rows = (north: string, south: string) =>
        `ExternalId,FirstName,LastName,Email,Role,Hierarchies\nu-1,F,L,u1@example.test,Candidate,${north}\nu-2,F,L,u2@example.test,Candidate,${south}\n`;
      writeFileSync(join(dir, 'n1.csv'), rows('H-NORTH', 'H-SOUTH:coordinator'));
      writeFileSync(join(dir, 'n2.csv'), rows('H-SOUTH', 'H-SOUTH'));
      served = await serve(join(dir, 'store'));
      const sync = async (file: string) => {
        const run = await cli(dir, [
          'user',
          'sync',
          '--file',
          file,
          '--changed-only',
          '--prune-memberships',
          '--max-prune',
          '2',
          '--target',
          'remote',
          '--base-url',
          served!.url,
          '--yes',
          '--json',
        ]);
        expect(run.code, run.stderr).toBe(0);
        return (JSON.parse(run.stdout) as { items: { id: string; action?: string; removed?: string[] }[] }).items.map(
          (item) => `${item.id} ${item.action} ${item.removed?.join('|') ?? ''}`.trim(),
        );
      };
      await restoredAfter(dir, 0, [() => sync('n1.csv'), () => sync('n2.csv')]);
      expect(await sync('n2.csv')).toEqual(['u-1 updated H-NORTH', 'u-2 updated H-SOUTH:coordinator']);
      const users = (
        JSON.parse(await exported(dir)) as {
          Users: { ExternalId: string; Hierarchies?: { ExternalId: string; IsCoordinator?: boolean }[] }[];
        }
      ).Users;
      expect(
        users
          .filter((user) => user.ExternalId.startsWith('u-'))
          .map((user) =>
            user.Hierarchies?.map((h) => `${h.ExternalId}${h.IsCoordinator === true ? ':coordinator' : ''}`),
          ),
      ).toEqual([['H-SOUTH'], ['H-SOUTH']]);
      expect(await sync('n2.csv')).toEqual(['u-1 unchanged', 'u-2 unchanged']);
    }));

  it('schedule push --upsert --only-new is refused (exit 2, nothing sent); run once without it, it believes the memory again', () =>
    withTempDir(async (dir) => {
      const { push } = await firstNight(dir);
      await restoredAfter(dir, 0, [async () => undefined, () => push('night2.csv')]);
      const before = await exported(dir);
      const refused = await push('night2.csv', '--only-new');
      expect([refused.code, before === (await exported(dir))]).toEqual([2, true]);
      expect(refused.stderr).toMatch(
        /--only-new: the remote store is older than run \S+ left it \(restored or cut back\), so examctl cannot tell which schedules it holds; nothing was sent\. Restore its newest backup, or run once without --only-new/,
      );
      expect((await push('night2.csv')).actions).toEqual(['S-MATH1-DEC updated', 'S-PHYS2-JAN updated']);
      expect((await push('night2.csv', '--only-new')).actions).toEqual([
        'S-MATH1-DEC unchanged',
        'S-PHYS2-JAN unchanged',
      ]);
    }));

  it('user sync --disable-missing disables again the leaver the backup has enabled; the night after sends nothing', () =>
    withTempDir(async (dir) => {
      const sync = await leaverNights(dir);
      await restoredAfter(dir, 0, [() => sync('u3.csv'), () => sync('u2.csv')]);
      const refused = await cli(dir, [
        'user',
        'sync',
        '--file',
        'u3.csv',
        '--only-new',
        '--target',
        'remote',
        '--base-url',
        served!.url,
        '--yes',
      ]);
      expect([refused.code, refused.stderr]).toEqual([
        2,
        expect.stringMatching(
          /--only-new: the remote store is older than run \S+ left it \(restored or cut back\), so examctl cannot tell which users it holds; nothing was sent/,
        ),
      ]);
      expect(await sync('u2.csv')).toEqual(['u-1 updated', 'u-2 updated', 'u-3 disabled']);
      const users = (JSON.parse(await exported(dir)) as { Users: { ExternalId: string; DisableLogin?: boolean }[] })
        .Users;
      expect(users.find((user) => user.ExternalId === 'u-3')?.DisableLogin).toBe(true);
      expect(await sync('u2.csv')).toEqual(['u-1 unchanged', 'u-2 unchanged']);
    }));

  it('a returner examctl enabled, the store restored from a backup that has it disabled: the night sends it DisableLogin false again, remembered as the file gives it (trial48 F05)', () =>
    withTempDir(async (dir) => {
      const sync = await leaverNights(dir);
      await restoredAfter(dir, 1, [
        () => sync('u3.csv'),
        () => sync('u2.csv'),
        () => sync('u3.csv', '--allow-old-file'),
      ]);
      expect(await sync('u3.csv', '--allow-old-file')).toEqual(['u-1 updated', 'u-2 updated', 'u-3 updated']);
      const users = (JSON.parse(await exported(dir)) as { Users: { ExternalId: string; DisableLogin?: boolean }[] })
        .Users;
      expect(users.find((user) => user.ExternalId === 'u-3')?.DisableLogin).toBe(false);
      expect(await sync('u3.csv', '--allow-old-file')).toEqual(['u-1 unchanged', 'u-2 unchanged', 'u-3 unchanged']);
    }));

  it('a leaver the store does not hold (a backup older than its whole life, or the store replaced): its disable answered 240 is ok, not on the target, never created, not sent again (trial39 F04)', () =>
    withTempDir(async (dir) => {
      const sync = await leaverNights(dir);
      const users = async () =>
        (JSON.parse(await exported(dir)) as { Users: { ExternalId: string }[] }).Users.map(
          (user) => user.ExternalId,
        ).filter((id) => id.startsWith('u-'));
      await restoredAfter(dir, 0, [
        () => sync('u2.csv'),
        () => sync('u3.csv'),
        () => sync('u2.csv', '--allow-disable-recent', '--allow-old-file'),
      ]);
      const gone = 'u-3 unchanged: not on the target: nothing to disable';
      expect(await sync('u2.csv')).toEqual(['u-1 updated', 'u-2 updated', gone]);
      expect(await users()).toEqual(['u-1', 'u-2']);
      expect(await sync('u2.csv')).toEqual(['u-1 unchanged', 'u-2 unchanged']);
      // Replaced: every leaver goes again, none is there; back in the file, one is created.
      await again(dir, () =>
        cli(dir, ['local', 'init', '--store', 'store', '--seed', join(ROOT, 'fixtures', 'world.json'), '--force']),
      );
      expect(await sync('u2.csv')).toEqual(['u-1 updated', 'u-2 updated', gone]);
      expect(await sync('u2.csv')).toEqual(['u-1 unchanged', 'u-2 unchanged']);
      expect(await sync('u3.csv', '--allow-old-file')).toEqual(['u-1 unchanged', 'u-2 unchanged', 'u-3 sent']);
      expect(await users()).toEqual(['u-1', 'u-2', 'u-3']);
    }));
});

describe('a served store restored in place: under the running server, or after a night killed before its end (trial48 F01, F02)', () => {
  const header = 'ExternalId,FirstName,LastName,Email,Role\n';
  const users = (domain: string) =>
    header + [1, 2, 3].map((n) => `u-${n},F,L${n},u${n}@${domain},Candidate\n`).join('');
  /** The store's files copied back over it (`cp store.bak/* store/`: the same files, cut back). */
  const restoreInPlace = (dir: string) => {
    for (const name of readdirSync(join(dir, 'store.bak')))
      copyFileSync(join(dir, 'store.bak', name), join(dir, 'store', name));
  };
  async function night(dir: string, file: string) {
    const io = testDeps(
      dir,
      {},
      {
        EXAMCTL_TOKEN: 'dev-token',
        EXAMCTL_SYNC_DIR: join(dir, 'synced'),
        EXAMCTL_RUNS_DIR: join(dir, 'runs'),
        EXAMCTL_LOCK_TIMEOUT_MS: '0',
      },
    );
    io.deps.retrySleep = async () => undefined;
    const code = await runCli(
      [
        'user',
        'sync',
        '--file',
        file,
        '--changed-only',
        '--target',
        'remote',
        '--base-url',
        served!.url,
        '--yes',
        '--json',
      ],
      io.deps,
    );
    const items =
      code === 0
        ? (JSON.parse(io.stdout.text) as { items: { id: string; action?: string }[] }).items.map(
            (item) => `${item.id} ${item.action}`,
          )
        : [];
    return { code, items, stderr: io.stderr.text };
  }
  /** Night 1 (old e-mails), the store's backup taken with the server stopped, night 2 (new ones): each test then breaks it its own way. */
  async function nightsWithBackup(dir: string): Promise<void> {
    writeFileSync(join(dir, 'old.csv'), users('old.test'));
    writeFileSync(join(dir, 'new.csv'), users('new.test'));
    expect(
      (await cli(dir, ['local', 'init', '--store', 'store', '--seed', join(ROOT, 'fixtures', 'world.json')])).code,
    ).toBe(0);
    served = await serve(join(dir, 'store'));
    expect((await night(dir, 'old.csv')).code).toBe(0);
    await again(dir, () => cpSync(join(dir, 'store'), join(dir, 'store.bak'), { recursive: true }));
    expect((await night(dir, 'new.csv')).items).toEqual(['u-1 updated', 'u-2 updated', 'u-3 updated']);
  }
  const emails = async (dir: string) =>
    (
      JSON.parse((await cli(dir, ['local', 'export', '--store', 'store'])).stdout) as {
        Users: { ExternalId: string; Email: string }[];
      }
    ).Users.filter((user) => user.ExternalId.startsWith('u-')).map((user) => user.Email);

  it('under the running server (it answers 503, it cannot say where it stands): the night stops, exit 3, nothing sent; restarted, the store is older and all goes again', () =>
    withTempDir(async (dir) => {
      await nightsWithBackup(dir);
      restoreInPlace(dir);
      // The server notices the cut-back at the store route (503: the night stops) or not yet (the night finds it older and sends all).
      const stopped = await night(dir, 'new.csv');
      const said =
        stopped.code === 3
          ? /local serve cannot say where its store stands \(.*\): restored or cut back under it/
          : /note: the remote store is older than run \S+ left it/;
      expect([stopped.code === 3 || stopped.items.join(), stopped.stderr]).toEqual([
        stopped.code === 3 || 'u-1 updated,u-2 updated,u-3 updated',
        expect.stringMatching(said),
      ]);
      await again(dir, () => undefined);
      const next = await night(dir, 'new.csv');
      expect([next.items, stopped.stderr + next.stderr]).toEqual([
        stopped.code === 3
          ? ['u-1 updated', 'u-2 updated', 'u-3 updated']
          : ['u-1 unchanged', 'u-2 unchanged', 'u-3 unchanged'],
        expect.stringMatching(/note: the remote store is older than run \S+ left it/),
      ]);
      expect(await emails(dir)).toEqual(['u1@new.test', 'u2@new.test', 'u3@new.test']);
    }));

  it('a night killed after its acknowledgements (its end never recorded), the store then restored to the backup before it: the next night sends what it sent', () =>
    withTempDir(async (dir) => {
      await nightsWithBackup(dir);
      // Killed once all was acknowledged: the memory's last line (the night's end, with its position) never written, its runs directory gone.
      const memory = join(dir, 'synced', readdirSync(join(dir, 'synced'))[0]!, 'users.ndjson');
      const lines = readFileSync(memory, 'utf8').trimEnd().split('\n');
      expect(lines.at(-1)).toContain('"e":true');
      writeFileSync(memory, `${lines.slice(0, -1).join('\n')}\n`);
      rmSync(join(dir, 'runs'), { recursive: true });
      await again(dir, () => restoreInPlace(dir));
      const next = await night(dir, 'new.csv');
      expect([next.items, next.stderr]).toEqual([
        ['u-1 updated', 'u-2 updated', 'u-3 updated'],
        expect.stringMatching(/note: run \S+ ended before it said where it left the store: what it sent is sent again/),
      ]);
      expect(await emails(dir)).toEqual(['u1@new.test', 'u2@new.test', 'u3@new.test']);
      expect((await night(dir, 'new.csv')).items).toEqual(['u-1 unchanged', 'u-2 unchanged', 'u-3 unchanged']);
    }));

  it('a night killed after two acknowledgements, the store restored (new files) to the backup before it, then runs resume: the resume sends again what its journal kept (trial49 F01)', () =>
    withTempDir(async (dir) => {
      await nightsWithBackup(dir);
      // Killed after two outcomes: the journal cut after its second, the memory's end line never written.
      const memory = join(dir, 'synced', readdirSync(join(dir, 'synced'))[0]!, 'users.ndjson');
      const run = killedAfter(dir, 1, memory);
      await again(dir, () => {
        rmSync(join(dir, 'store'), { recursive: true });
        cpSync(join(dir, 'store.bak'), join(dir, 'store'), { recursive: true });
      });
      const resume = () => cli(dir, ['runs', 'resume', run, '--base-url', served!.url, '--yes', '--json']);
      const resumed = await resume();
      expect([resumed.code, resumed.stderr]).toEqual([
        0,
        expect.stringMatching(/note: the remote store is older than run \S+ left it/),
      ]);
      expect(await emails(dir)).toEqual(['u1@new.test', 'u2@new.test', 'u3@new.test']);
      // That resume killed after its first resend (u-2 not sent again): its resume sends what the first attempt's journal kept.
      killedAfter(dir, 0, memory);
      writeFileSync(join(dir, 'u2old.csv'), `${header}u-2,F,L2,u2@old.test,Candidate\n`);
      await again(dir, async () =>
        expect(
          (await cli(dir, ['user', 'sync', '--file', 'u2old.csv', '--target', 'local', '--store', 'store', '--yes']))
            .code,
        ).toBe(0),
      );
      expect(await emails(dir)).toEqual(['u1@new.test', 'u2@old.test', 'u3@new.test']);
      expect((await resume()).code).toBe(0);
      expect(await emails(dir)).toEqual(['u1@new.test', 'u2@new.test', 'u3@new.test']);
      expect((await night(dir, 'new.csv')).items).toEqual(['u-1 unchanged', 'u-2 unchanged', 'u-3 unchanged']);
    }));
});

describe('a server that does not say it is local serve', () => {
  it('is never asked where its store stands: every night sends only its own requests, and the memory is believed', () =>
    withTempDir(async (dir) => {
      const paths: string[] = [];
      const server = http.createServer((req, res) => {
        paths.push(`${req.method} ${req.url}`);
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              Content: { User: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown, GroupErrors: [] },
              Success: true,
              Errors: null,
            }),
          );
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        writeFileSync(
          join(dir, 'users.csv'),
          'ExternalId,FirstName,LastName,Email,Role\nu-1,F,L,u1@example.test,Candidate\n',
        );
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        for (const night of [1, 2]) {
          const run = await cli(dir, [
            'user',
            'sync',
            '--file',
            'users.csv',
            '--changed-only',
            '--target',
            'remote',
            '--base-url',
            url,
            '--yes',
            '--json',
            ...(night === 2 ? ['--require-memory'] : []),
          ]);
          expect(run.code, run.stderr).toBe(0);
          expect(run.stderr).not.toContain('older than run');
        }
        expect(paths).toEqual(['POST /api/v1/integrations/user']);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    }));

  it("takes an answer of the store route only whole and of local serve's shape (a hostile one makes nothing of it)", () => {
    const lineage = [[3, 120, '77:1700000000000000000'], [[2, 90, '76:1600000000000000000']]];
    expect(servedStoreAt(lineage)).toEqual(lineage);
    expect(servedStoreAt([[3, 120, '77:1'], null])).toEqual([[3, 120, '77:1'], null]);
    // Asked at a length: with the checksums of what its journal holds before its length and that one.
    expect(servedStoreAt([[3, 120, '77:1', 4026531839], [[2, 90, '76:1']], 0])).toEqual([
      [3, 120, '77:1', 4026531839],
      [[2, 90, '76:1']],
      0,
    ]);
    for (const wrong of [
      null,
      'x',
      [],
      [[3, 120, '77:1']],
      [[3, 120, 77], null],
      [[3, -1, '77:1'], null],
      [[3, 120, '77:1'], [[1, 2, '\u001b[2J:1']]],
      [[3, 120, '77:1', 'x'], null],
      [[3, 120, '77:1'], null, -1],
      { lineage },
    ])
      expect(servedStoreAt(wrong)).toBeUndefined();
  });
});
