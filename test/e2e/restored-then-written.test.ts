import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineWith } from '../support/facts.js';
import { ROOT, range } from '../durability/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { restoredStorePlace } from '../support/restored-store.js';

/**
 * What a night and `doctor` say of a store restored to where a night found it, then written by another
 * command (a fork), and of a store replaced under its memory (docs/sync.md, "Where the store stands";
 * docs/remote.md, "examctl doctor"). On the local store and through `local serve`.
 */

const USERS = 20;
const place = restoredStorePlace('examctl-restored-written-');
/** The night's file: every user with FirstName `value`. */
async function night(value: string): Promise<void> {
  const lines = ['ExternalId,FirstName,LastName,Email,UserName,Role'];
  for (const id of range('k', USERS)) lines.push(`${id},${value},Last,${id}@example.test,name-${id},Candidate`);
  await writeFile(join(place.dir, 'users.csv'), `${lines.join('\n')}\n`);
}

/** The users of the file whose FirstName is `value` in the store. */
async function holding(value: string): Promise<number> {
  const world = JSON.parse(
    (await examctl(['local', 'export', '--store', place.store()], place.dir, place.env)).stdout,
  ) as {
    Users: { ExternalId: string; FirstName: string }[];
  };
  return world.Users.filter((user) => user.ExternalId.startsWith('k-') && user.FirstName === value).length;
}

async function sync(target: string[]): Promise<{ code: number; run: string; stderr: string; notes: string[] }> {
  const done = await examctl(
    ['--json', 'user', 'sync', '--changed-only', '--file', 'users.csv', ...target],
    place.dir,
    place.env,
  );
  const report = JSON.parse(done.stdout) as { run: string; items: { note?: string }[] };
  return {
    code: done.code ?? -1,
    run: report.run,
    stderr: done.stderr,
    notes: report.items.map((item) => item.note ?? ''),
  };
}

/** The sync memory check of `doctor --json`. */
async function memoryCheck(target: string[]): Promise<{ status: string; detail: string; code?: string }> {
  const done = await examctl(['--json', 'doctor', ...target], place.dir, place.env);
  const report = JSON.parse(done.stdout) as {
    checks: { name: string; status: string; detail: string; code?: string }[];
  };
  return report.checks.find((check) => check.name === 'sync memory')!;
}

async function forked(target: () => string[]): Promise<void> {
  await night('One');
  expect((await sync(target())).code).toBe(0);
  await place.copy();
  await night('Two');
  const two = await sync(target());
  expect(two.code).toBe(0);
  await place.restore();
  // Another command writes the restored store: it moves past the head night Two found, holding none of Two.
  const push = await examctl(
    ['schedule', 'push', '--file', join(ROOT, 'fixtures/sittings.csv'), ...target()],
    place.dir,
    place.env,
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
  // What it sends again, counted: the users night Two had acknowledged.
  expect(lineWith(again.stderr, 'sent again', `${USERS} users`)).toBeTruthy();
  // Each row says why it went, though the file did not change it.
  const why = `sent again: run ${two.run} acknowledged it, and the store was restored to before that`;
  expect(again.notes.filter((note) => note === why)).toHaveLength(USERS);
  expect(again.stderr).not.toContain('only part of');
  expect(await holding('Two')).toBe(USERS);
}

async function replaced(target: () => string[]): Promise<void> {
  await night('One');
  expect((await sync(target())).code).toBe(0);
  await place.close();
  const init = ['local', 'init', '--force', '--store', place.store(), '--seed', join(ROOT, 'fixtures/world.json')];
  expect((await examctl(init, place.dir, place.env)).code).toBe(0);
  if (place.served()) await place.serve();
  // A --require-memory night refuses this memory with E2504: doctor's warning carries that code.
  const check = await memoryCheck(target());
  expect(check).toMatchObject({ status: 'warn', code: 'E2504' });
  const night2 = await examctl(
    ['user', 'sync', '--changed-only', '--require-memory', '--file', 'users.csv', ...target()],
    place.dir,
    place.env,
  );
  expect(night2.code).toBe(2);
  expect(night2.stderr).toContain('E2504');
}

const local = () => ['--store', place.store()];
const served = () => ['--target', 'remote', '--base-url', `http://127.0.0.1:${place.port}`, '--yes'];

describe('a store restored to where a night found it, then written by another command', () => {
  it('on the local store: the night and doctor say where that night found it; the night sends it again', () =>
    forked(local));

  it('through local serve: the same', async () => {
    await place.serve();
    await forked(served);
  });
});

describe('a store replaced under its memory (local init --force)', () => {
  it("on the local store: doctor's warning has the code a --require-memory night refuses with", () => replaced(local));

  it('through local serve: the same', async () => {
    await place.serve();
    await replaced(served);
  });
});
