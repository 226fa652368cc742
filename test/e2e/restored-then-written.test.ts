import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, range } from '../durability/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { serveLocalStore } from '../../src/server/index.js';
import type { LocalServer } from '../../src/server/serve-local.js';

/**
 * What a night and `doctor` say of a store restored to where a night found it, then written by another
 * command (a fork), and of a store replaced under its memory (docs/sync.md, "Where the store stands";
 * docs/remote.md, "examctl doctor"). On the local store and through `local serve`.
 */

const USERS = 20;
let dir: string;
let env: Record<string, string>;
let server: LocalServer | undefined;
let port = 0;

const store = () => join(dir, 'store');

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-restored-written-'));
  env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'synced'), EXAMCTL_TOKEN: 'dev-token' };
  const init = ['local', 'init', '--store', store(), '--seed', join(ROOT, 'fixtures/world.json')];
  expect((await examctl(init, dir, env)).code).toBe(0);
  port = 0;
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function serve(): Promise<void> {
  server = await serveLocalStore({ storeDir: store(), port });
  port = server.port;
}

async function restore(): Promise<void> {
  await server?.close();
  await rm(store(), { recursive: true, force: true });
  await cp(join(dir, 'copy'), store(), { recursive: true });
  if (server !== undefined) await serve();
}

/** The night's file: every user with FirstName `value`. */
async function night(value: string): Promise<void> {
  const lines = ['ExternalId,FirstName,LastName,Email,UserName,Role'];
  for (const id of range('k', USERS)) lines.push(`${id},${value},Last,${id}@example.test,name-${id},Candidate`);
  await writeFile(join(dir, 'users.csv'), `${lines.join('\n')}\n`);
}

/** The users of the file whose FirstName is `value` in the store. */
async function holding(value: string): Promise<number> {
  const world = JSON.parse((await examctl(['local', 'export', '--store', store()], dir, env)).stdout) as {
    Users: { ExternalId: string; FirstName: string }[];
  };
  return world.Users.filter((user) => user.ExternalId.startsWith('k-') && user.FirstName === value).length;
}

async function sync(target: string[]): Promise<{ code: number; run: string; stderr: string }> {
  const done = await examctl(['--json', 'user', 'sync', '--changed-only', '--file', 'users.csv', ...target], dir, env);
  return { code: done.code ?? -1, run: (JSON.parse(done.stdout) as { run: string }).run, stderr: done.stderr };
}

/** The sync memory check of `doctor --json`. */
async function memoryCheck(target: string[]): Promise<{ status: string; detail: string; code?: string }> {
  const done = await examctl(['--json', 'doctor', ...target], dir, env);
  const report = JSON.parse(done.stdout) as {
    checks: { name: string; status: string; detail: string; code?: string }[];
  };
  return report.checks.find((check) => check.name === 'sync memory')!;
}

async function forked(target: () => string[]): Promise<void> {
  await night('One');
  expect((await sync(target())).code).toBe(0);
  await cp(store(), join(dir, 'copy'), { recursive: true, filter: (from) => !from.endsWith('LOCK') });
  await night('Two');
  const two = await sync(target());
  expect(two.code).toBe(0);
  await restore();
  // Another command writes the restored store: it moves past the head night Two found, holding none of Two.
  const push = await examctl(
    ['schedule', 'push', '--file', join(ROOT, 'fixtures/sittings.csv'), ...target()],
    dir,
    env,
  );
  expect(push.code, push.stderr).toBe(0);
  expect(await holding('Two')).toBe(0);
  const check = await memoryCheck(target());
  expect(check.status).toBe('warn');
  expect(check.detail).toContain(`where run ${two.run} found it`);
  expect(check.detail).not.toContain('only part of');
  const again = await sync(target());
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toContain(`where run ${two.run} found it`);
  expect(again.stderr).not.toContain('only part of');
  expect(await holding('Two')).toBe(USERS);
}

async function replaced(target: () => string[]): Promise<void> {
  await night('One');
  expect((await sync(target())).code).toBe(0);
  await server?.close();
  const init = ['local', 'init', '--force', '--store', store(), '--seed', join(ROOT, 'fixtures/world.json')];
  expect((await examctl(init, dir, env)).code).toBe(0);
  if (server !== undefined) await serve();
  // A --require-memory night refuses this memory with E2504: doctor's warning carries that code.
  const check = await memoryCheck(target());
  expect(check).toMatchObject({ status: 'warn', code: 'E2504' });
  const night2 = await examctl(
    ['user', 'sync', '--changed-only', '--require-memory', '--file', 'users.csv', ...target()],
    dir,
    env,
  );
  expect(night2.code).toBe(2);
  expect(night2.stderr).toContain('E2504');
}

const local = () => ['--store', store()];
const served = () => ['--target', 'remote', '--base-url', `http://127.0.0.1:${port}`, '--yes'];

describe('a store restored to where a night found it, then written by another command', () => {
  it('on the local store: the night and doctor say where that night found it; the night sends it again', () =>
    forked(local));

  it('through local serve: the same', async () => {
    await serve();
    await forked(served);
  });
});

describe('a store replaced under its memory (local init --force)', () => {
  it("on the local store: doctor's warning has the code a --require-memory night refuses with", () => replaced(local));

  it('through local serve: the same', async () => {
    await serve();
    await replaced(served);
  });
});
