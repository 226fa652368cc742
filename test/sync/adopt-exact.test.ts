import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { ROOT } from '../durability/helpers.js';
import { serve } from './lost-memory-nights.js';
import type { LocalServer } from '../../src/server/serve-local.js';

/**
 * Recoveries exact (docs/sync.md, "When the memory is lost"): `synced adopt` over a memory keeps a
 * leaver examctl disabled; several files adopted in order (the missed nights); `--tentative` for a
 * file whose outcome is not known; an older export imported on a fresh runner, the missed nights
 * adopted in order, then tonight: leavers disabled, a revoked flag not back, no existing user
 * reported created. Against `local serve` (a remote target: the memory says created or updated).
 */

const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role,Hierarchies';
let served: LocalServer | undefined;

afterEach(async () => {
  await served?.close();
  served = undefined;
});

type Rows = Record<string, string>;

/** A users file of `rows` (id -> Hierarchies cell). */
function write(dir: string, name: string, rows: Rows): string {
  writeFileSync(
    join(dir, name),
    `${[HEADER, ...Object.entries(rows).map(([id, links]) => `${id},First,Last ${id},${id}@example.test,name-${id},Candidate,${links}`)].join('\n')}\n`,
  );
  return name;
}

async function cli(dir: string, argv: string[], syncDir = 'synced') {
  const io = testDeps(
    dir,
    {},
    {
      EXAMCTL_TOKEN: 'dev-token',
      EXAMCTL_SYNC_DIR: join(dir, syncDir),
      EXAMCTL_RUNS_DIR: join(dir, `runs-${syncDir}`),
      EXAMCTL_LOCK_TIMEOUT_MS: '0',
    },
  );
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

/** A served store with the demo world and hierarchy H-A; returns the remote target's flags. */
async function platform(dir: string): Promise<string[]> {
  const world = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'world.json'), 'utf8')) as { Hierarchies: unknown[] };
  world.Hierarchies.push({ ExternalId: 'H-A', Title: 'H-A', Parent: 'root', Active: true });
  writeFileSync(join(dir, 'world.json'), JSON.stringify(world));
  expect((await cli(dir, ['local', 'init', '--store', 'store', '--seed', 'world.json'])).code).toBe(0);
  served = await serve(join(dir, 'store'));
  return ['--target', 'remote', '--base-url', served.url];
}

async function night(dir: string, remote: string[], file: string, syncDir = 'synced', ...more: string[]) {
  const run = await cli(
    dir,
    [
      'user',
      'sync',
      '--file',
      file,
      ...remote,
      '--changed-only',
      '--disable-missing',
      '--max-disable',
      '100%',
      '--prune-memberships',
      '--max-prune',
      '100%',
      '--yes',
      '--json',
      ...more,
    ],
    syncDir,
  );
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as { items: { id: string; action?: string; status: string }[] }).items;
}

/** The platform's users: id -> "enabled|links". */
async function held(dir: string): Promise<Record<string, string>> {
  const users = (
    JSON.parse((await cli(dir, ['local', 'export', '--store', 'store'])).stdout) as {
      Users: { ExternalId: string; DisableLogin?: boolean; Hierarchies?: Record<string, unknown>[] }[];
    }
  ).Users;
  const state: Record<string, string> = {};
  for (const user of users.filter((each) => each.ExternalId.startsWith('ax-'))) {
    const links = (user.Hierarchies ?? []).map(
      (link) =>
        `${String(link.ExternalId)}${Object.entries(link)
          .filter(([key, value]) => key !== 'ExternalId' && value === true)
          .map(([key]) => `:${key}`)
          .join('')}`,
    );
    state[user.ExternalId] = `${user.DisableLogin === true ? 'disabled' : 'enabled'}|${links.sort().join(',')}`;
  }
  return state;
}

describe('synced adopt, exact', () => {
  it('over a memory, keeps a leaver examctl disabled: back in the file, the next night enables it', () =>
    withTempDir(async (dir) => {
      const remote = await platform(dir);
      await night(dir, remote, write(dir, 'n1.csv', { 'ax-1': '', 'ax-2': '', 'ax-3': '' }));
      await night(dir, remote, write(dir, 'n2.csv', { 'ax-1': '', 'ax-3': '' }));
      expect((await held(dir))['ax-2']).toBe('disabled|');
      const adopted = await cli(dir, ['synced', 'adopt', '--file', 'n1.csv', ...remote]);
      expect(adopted.code, adopted.stderr).toBe(0);
      const items = await night(dir, remote, 'n1.csv');
      expect(items.find((item) => item.id === 'ax-2')?.action).not.toBe('unchanged');
      expect((await held(dir))['ax-2']).toBe('enabled|');
    }));

  it('adopts several files in order, then --tentative: a tentative joiner missing from the next file never existed (240), the rest go again', () =>
    withTempDir(async (dir) => {
      const remote = await platform(dir);
      write(dir, 'a.csv', { 'ax-1': '', 'ax-2': '' });
      write(dir, 'b.csv', { 'ax-1': 'H-A', 'ax-2': '', 'ax-3': '' });
      await night(dir, remote, 'a.csv', 'real');
      await night(dir, remote, 'b.csv', 'real');
      const adopted = await cli(dir, ['synced', 'adopt', '--file', 'a.csv', '--file', 'b.csv', ...remote]);
      expect(adopted.code, adopted.stderr).toBe(0);
      expect(adopted.stderr).toContain('of a.csv');
      expect(adopted.stderr).toContain('of b.csv');
      expect((await night(dir, remote, 'b.csv')).every((item) => item.action === 'unchanged')).toBe(true);
      // A night whose outcome is not known: ax-9 may or may not have been made (it was not).
      write(dir, 'c.csv', { 'ax-1': 'H-A', 'ax-2': '', 'ax-3': '', 'ax-9': '' });
      const tentative = await cli(dir, ['synced', 'adopt', '--tentative', '--file', 'c.csv', ...remote]);
      expect(tentative.code, tentative.stderr).toBe(0);
      // b.csv after c.csv's adoption: an older night's file (docs/sync.md, "Stale input"), meant here.
      const items = await night(dir, remote, 'b.csv', 'synced', '--allow-old-file');
      // The rest go again; ax-9's disable changed nothing on the target (no login to turn off).
      expect(items.filter((item) => item.action === 'unchanged').map((item) => item.id)).toEqual(['ax-9']);
      expect(items.find((item) => item.id === 'ax-9')).toMatchObject({
        status: 'ok',
        note: expect.stringContaining('not on the target'),
      });
      expect(await held(dir)).toEqual({ 'ax-1': 'enabled|H-A', 'ax-2': 'enabled|', 'ax-3': 'enabled|' });
    }));

  it('an older export imported on a fresh runner, the missed nights adopted in order, then tonight: the platform equals the file', () =>
    withTempDir(async (dir) => {
      const remote = await platform(dir);
      await night(dir, remote, write(dir, 'n1.csv', { 'ax-1': 'H-A:coordinator', 'ax-2': '', 'ax-3': '' }));
      expect((await cli(dir, ['synced', 'export', ...remote, '--out', 'night-1.json'])).code).toBe(0);
      // Two nights the export misses: a joiner, a coordinator revoked, then the joiner and ax-3 leave.
      await night(dir, remote, write(dir, 'n2.csv', { 'ax-1': 'H-A', 'ax-2': '', 'ax-3': '', 'ax-4': '' }));
      await night(dir, remote, write(dir, 'n3.csv', { 'ax-1': 'H-A', 'ax-2': '' }), 'synced', '--allow-disable-recent');
      // A fresh runner: the old export imported, then the missed nights' files adopted in order.
      expect((await cli(dir, ['synced', 'import', 'night-1.json', ...remote], 'fresh')).code).toBe(0);
      const adopted = await cli(dir, ['synced', 'adopt', '--file', 'n2.csv', '--file', 'n3.csv', ...remote], 'fresh');
      expect(adopted.code, adopted.stderr).toBe(0);
      const tonight = write(dir, 'n4.csv', { 'ax-1': 'H-A', 'ax-2': '', 'ax-5': '' });
      // ax-4 joined with n2's adoption and left in n3, whose adoption disables nobody: tonight disables it, and
      // needs the flag night 3 needed in the history without the loss (docs/sync.md, "Stale input").
      const items = await night(dir, remote, tonight, 'fresh', '--require-memory', '--allow-disable-recent');
      expect(items.filter((item) => item.action === 'created').map((item) => item.id)).toEqual(['ax-5']);
      expect(await held(dir)).toEqual({
        'ax-1': 'enabled|H-A',
        'ax-2': 'enabled|',
        'ax-3': 'disabled|',
        'ax-4': 'disabled|',
        'ax-5': 'enabled|',
      });
    }));
});
