import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { ROOT } from '../durability/helpers.js';
import { serve } from './lost-memory-nights.js';
import type { LocalServer } from '../../src/server/serve-local.js';
import { servedStoreHead } from '../../src/port/integration-api.js';
import { answeredAsPlatform } from '../support/platform-store-route.js';

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
  it('restored from a backup: exactly what the store lost is sent again, said once; the nights before and after are quiet', () =>
    withTempDir(async (dir) => {
      const { push } = await firstNight(dir);
      await again(dir, () => cpSync(join(dir, 'store'), join(dir, 'store.bak'), { recursive: true }));
      const older = /note: the remote store is back at where run \S+ (found|left) it \(restored, or cut back\)/g;
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
        // Only the sitting the restore undid, made again (local serve says what its store did).
        expect(run.actions).toEqual(
          night === 3
            ? ['S-MATH1-DEC unchanged', 'S-PHYS2-JAN created']
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
});

describe('a server that does not say it is local serve', () => {
  it('is asked where its store stands once a night, before any write (a 404: none), and the memory is believed', () =>
    withTempDir(async (dir) => {
      const paths: string[] = [];
      const server = http.createServer((req, res) => {
        paths.push(`${req.method} ${req.url}`);
        if (answeredAsPlatform(req, res)) return;
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
        const asked = 'GET /api/v1/integrations/examctl/store';
        expect(paths).toEqual([asked, 'POST /api/v1/integrations/user', asked]);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    }));

  it("takes an answer of the store route only whole and of local serve's shape (a hostile one makes nothing of it)", () => {
    const [head, asked] = ['A'.repeat(22), ['B'.repeat(22), 'C'.repeat(22)]];
    const changed = ['users:u1'];
    expect(servedStoreHead({ Head: head, Holds: [asked[0]], Changed: changed }, asked)).toEqual({
      head,
      holds: [asked[0]],
      changed,
    });
    // An older examctl's answer without what changed: it holds none.
    expect(servedStoreHead({ Head: head, Holds: [asked[0]] }, asked)).toEqual({ head, holds: [], changed: [] });
    for (const wrong of [
      null,
      'x',
      [],
      { Head: 'short', Holds: [] },
      { Head: head },
      { Head: head, Holds: ['D'.repeat(22)] },
      { Head: head, Holds: ['\u001b[2J'] },
      { Head: 7, Holds: [] },
      { Head: head, Holds: [], Changed: [7] },
    ])
      expect(servedStoreHead(wrong, asked)).toBeUndefined();
  });
});
