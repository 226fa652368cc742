import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { expectCoded, failedCheck } from '../support/coded-message.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { PINNED_NOW } from '../support/cli.js';
import { childEnv } from '../support/child-env.js';
import { StringSink } from '../support/string-sink.js';
import { runCli } from '../../src/cli/run-cli.js';
import { memoryDir } from '../../src/context/target.js';
import { memoryFile } from '../../src/sync/memory-files.js';

/**
 * The moved-store rule (docs/store.md, "Creating and replacing") where the nights keep their
 * memory in a sync folder of their own (--sync-dir, EXAMCTL_SYNC_DIR): `local serve`, `doctor` and
 * `local init` look there too (trial37 F01, F02); `local init` moves the memory aside before it
 * makes the store, and a move that fails makes nothing (F07).
 */

// The move aside fails while `failMove` is set (root can write a read-only folder: the tests run as root).
const failMove = vi.hoisted(() => ({ on: false }));
vi.mock('node:fs/promises', async (actual) => {
  const fs = await actual<typeof import('node:fs/promises')>();
  const rename: typeof fs.rename = async (from, to) => {
    if (failMove.on && /[/\\]X[/\\][0-9a-f]{16}$/.test(String(from)))
      throw Object.assign(new Error(`EACCES: permission denied, rename '${String(from)}'`), { code: 'EACCES' });
    return fs.rename(from, to);
  };
  return { ...fs, rename, default: { ...fs, rename } };
});

const NIGHTLY = ['--changed-only', '--disable-missing', '--max-disable', '100%', '--json'];
let dir: string;
let env: Record<string, string>;
const syncDir = () => join(dir, 'X');
const real = () => ({ kind: 'local' as const, store: join(dir, 'real', 's') });
const night = (store: string, ids: string[], ...flags: string[]) => {
  writeFileSync(
    join(dir, 'users.json'),
    JSON.stringify(
      ids.map((id) => ({ ExternalId: id, FirstName: 'S', LastName: id, Role: 'Candidate', Hierarchies: [] })),
    ),
  );
  return examctl(
    ['user', 'sync', '--file', 'users.json', '--target', 'local', '--store', store, ...NIGHTLY, ...flags],
    dir,
    env,
  );
};
const actions = (stdout: string) =>
  (JSON.parse(stdout) as { items: { id: string; action?: string }[] }).items.map((item) => `${item.id} ${item.action}`);
// What the refusals advise: the folder named, as the admin's shell (without the job's flag or variable) would not find it.
const advice = () => `examctl local init --store ${real().store} --sync-dir ${syncDir()}`;
/** What E2301 names: the store path that is gone and the memory that names a store there. */
const gone = (): string[] => [real().store, memoryDir(syncDir(), real())];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-moved-sync-dir-'));
  env = { EXAMCTL_RUNS_DIR: join(dir, 'state', 'runs') };
  mkdirSync(join(dir, 'real'));
  failMove.on = false;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it("a state service's address is no folder: the moved-store rule never reads <cwd>/http:/… (docs/store.md)", async () => {
  expect((await night('real/s', ['a'], '--sync-dir', 'X')).code).toBe(0);
  // The folder the address names if taken as a relative path, holding a memory that names the store.
  const folder = join(dir, 'http:', '127.0.0.1:9', 'm');
  mkdirSync(join(folder, '..'), { recursive: true });
  renameSync(syncDir(), folder);
  renameSync(join(dir, 'real', 's'), join(dir, 'moved'));
  const init = await examctl(['local', 'init', '--store', 'real/s', '--sync-dir', 'http://127.0.0.1:9/m'], dir, env);
  expect([init.code, init.stderr]).toEqual([0, expect.not.stringContaining('sync memory')]);
  expect(existsSync(memoryDir(folder, real()))).toBe(true);
});

describe.each([
  ['--sync-dir X', ['--sync-dir', 'X'], {}],
  ['EXAMCTL_SYNC_DIR=X', [], { EXAMCTL_SYNC_DIR: 'X' }],
])(
  'nights that keep their memory in %s, the store moved (trial37 F01, F02)',
  (_, flags, given: Record<string, string>) => {
    beforeEach(async () => {
      Object.assign(env, given);
      expect((await night('real/s', ['a', 'b', 'c'], ...flags)).code).toBe(0);
      expect(existsSync(memoryDir(syncDir(), real()))).toBe(true);
      renameSync(join(dir, 'real', 's'), join(dir, 'moved'));
    });

    it('local serve refuses, naming the memory in that folder; nothing is created', async () => {
      const stderr = new StringSink();
      const io = {
        stdout: new StringSink(),
        stderr,
        env: { ...childEnv(dir), EXAMCTL_NOW: PINNED_NOW, ...env },
        now: () => new Date(),
        isTTY: false,
        cwd: dir,
      };
      expect(
        await runCli(['--store', 'real/s', 'local', 'serve', '--port', '0', ...flags], {
          ...io,
          signal: AbortSignal.abort(),
        }),
      ).toBe(2);
      expectCoded(stderr.text, 'E2301', ...gone(), advice());
      expect(existsSync(real().store)).toBe(false);
    });

    it('doctor fails the store check naming the memory in that folder, and reads the memory there', async () => {
      const doctor = await examctl(['doctor', '--target', 'local', '--store', 'real/s', ...flags], dir, env);
      expect(doctor.code, doctor.stderr).toBe(3);
      failedCheck(doctor.stdout, 'store', 'E2301', ...gone(), 'exit 2', advice());
      const moved = await examctl(['doctor', '--target', 'local', '--store', 'moved', ...flags], dir, env);
      expect(moved.stdout).toContain(
        `the next run takes in this store's memory kept for the path it was moved from (${memoryFile(syncDir(), real(), 'users')})`,
      );
    });

    it("local init moves that memory aside in that folder: the moved store's next night takes it in", async () => {
      const init = await examctl(['local', 'init', '--store', 'real/s', ...flags], dir, env);
      expect(init.code, init.stderr).toBe(0);
      expect(init.stderr).toMatch(
        new RegExp(
          `note: the sync memory ${memoryDir(syncDir(), real())} names a store made here before: moved to ${syncDir()}/[0-9a-f]{16} `,
        ),
      );
      expect(actions((await night('real/s', ['a'], ...flags)).stdout)).toEqual(['a created']);
      const moved = await night('moved', ['a', 'b'], ...flags);
      expect(moved.stderr).toContain('note: took in');
      expect(actions(moved.stdout)).toEqual(['a unchanged', 'b unchanged', 'c disabled']);
    });

    it('the way out, run as printed from a shell without the flag or variable, moves that memory aside: the moved store keeps it (trial39 F03)', async () => {
      const refused = await night('real/s', ['a'], ...flags);
      expect(refused.code).toBe(2);
      expectCoded(refused.stderr, 'E2301', ...gone(), advice());
      // As every refusal after the input was read (docs/ci.md): the item listed skipped, in the report and summary.
      expect(JSON.parse(refused.stdout).summary).toMatchObject({ total: 1, skipped: 1 });
      const init = await examctl(advice().split(' ').slice(1), dir);
      expect(init.stderr).toContain(
        `note: the sync memory ${memoryDir(syncDir(), real())} names a store made here before: moved to ${syncDir()}/`,
      );
      expect(actions((await night('real/s', ['a'], ...flags)).stdout)).toEqual(['a created']);
      expect(actions((await night('moved', ['a', 'b'], ...flags)).stdout)).toEqual([
        'a unchanged',
        'b unchanged',
        'c disabled',
      ]);
    });

    it("a local init that looked in another folder: the new store's first night says whose the memory is, without a --force nobody gave (trial39 F03)", async () => {
      expect((await examctl(['local', 'init', '--store', 'real/s'], dir)).code).toBe(0);
      const first = await night('real/s', ['a'], ...flags);
      expect(first.stderr).toContain(
        `the sync memory ${memoryFile(syncDir(), real(), 'users')} is of another store (this one holds none of the store heads it saw): not used; this store's memory starts again`,
      );
      expect(first.stderr).not.toContain('--force');
    });
  },
);

it("nights in the default folder of a shell like the admin's: the way out is the bare command (trial39 F03)", async () => {
  env.EXAMCTL_RUNS_DIR = '';
  expect((await night('real/s', ['a', 'b', 'c'])).code).toBe(0);
  renameSync(join(dir, 'real', 's'), join(dir, 'moved'));
  const refused = await night('real/s', ['a']);
  expect(refused.code).toBe(2);
  expectCoded(refused.stderr, 'E2301', real().store, `examctl local init --store ${real().store}`);
});

describe('local init where the memory cannot be moved aside (trial37 F07)', () => {
  beforeEach(async () => {
    expect((await night('real/s', ['a', 'b', 'c'], '--sync-dir', 'X')).code).toBe(0);
    renameSync(join(dir, 'real', 's'), join(dir, 'moved'));
  });

  it('makes no store, shows no token, says the folder, why and what to do (exit 2); once it can, the next init does it all', async () => {
    const kept = readFileSync(memoryFile(syncDir(), real(), 'users'), 'utf8');
    failMove.on = true;
    const init = await examctl(['local', 'init', '--store', 'real/s', '--sync-dir', 'X'], dir, env);
    expect(init.code).toBe(2);
    expectCoded(init.stderr, 'E2000', memoryDir(syncDir(), real()), 'EACCES', 'examctl local init');
    expect(init.stderr).not.toContain('API token');
    expect(existsSync(real().store)).toBe(false);
    expect(readdirSync(syncDir())).toEqual([memoryDir(syncDir(), real()).slice(syncDir().length + 1)]);
    expect(readFileSync(memoryFile(syncDir(), real(), 'users'), 'utf8')).toBe(kept);
    failMove.on = false;
    const again = await examctl(['local', 'init', '--store', 'real/s', '--sync-dir', 'X'], dir, env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('API token of this store, shown only now');
    expect(actions((await night('moved', ['a', 'b'], '--sync-dir', 'X')).stdout)).toEqual([
      'a unchanged',
      'b unchanged',
      'c disabled',
    ]);
  });

  it('a store that cannot be made there puts the memory back: nothing half done', async () => {
    mkdirSync(join(dir, 'real', 's'));
    writeFileSync(join(dir, 'real', 's', 'notes.txt'), 'not a store');
    const init = await examctl(['local', 'init', '--store', 'real/s', '--sync-dir', 'X'], dir, env);
    expect(init.code).toBe(2);
    expectCoded(init.stderr, 'E2000', real().store, 'CURRENT');
    expect(readdirSync(syncDir())).toEqual([memoryDir(syncDir(), real()).slice(syncDir().length + 1)]);
    expect(actions((await night('moved', ['a', 'b'], '--sync-dir', 'X')).stdout)).toEqual([
      'a unchanged',
      'b unchanged',
      'c disabled',
    ]);
  });
});
