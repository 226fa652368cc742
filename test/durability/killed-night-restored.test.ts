import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { range, reportItems, startExamctl } from './helpers.js';
import { untilStopped } from '../support/cli.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { restoredStorePlace } from '../support/restored-store.js';

/**
 * A `user sync --changed-only` night killed outright (`kill -9` at a marker: no end head recorded), the
 * store copied while it ran (the run stopped by its own SIGSTOP at an earlier marker), restored to that
 * copy, and the same file again: every user of the file is in the store (docs/sync.md, "Where the store
 * stands", the row of a run killed outright). On the local store and through `local serve`.
 */

const USERS = 600;
const place = restoredStorePlace('examctl-killed-night-');
/** The night's file: every user with FirstName `value`. */
async function night(value: string): Promise<void> {
  const lines = ['ExternalId,FirstName,LastName,Email,UserName,Role'];
  for (const id of range('k', USERS)) lines.push(`${id},${value},Last,${id}@example.test,name-${id},Candidate`);
  await writeFile(join(place.dir, 'users.csv'), `${lines.join('\n')}\n`);
}

/** The users of the file whose FirstName is `value` in the store (or the store at `path`). */
async function holding(value: string, path = place.store()): Promise<number> {
  const world = JSON.parse((await examctl(['local', 'export', '--store', path], place.dir, place.env)).stdout) as {
    Users: { ExternalId: string; FirstName: string }[];
  };
  return world.Users.filter((user) => user.ExternalId.startsWith('k-') && user.FirstName === value).length;
}

/**
 * A night of users.csv stopped by its own SIGSTOP at its 300th outcome, the store copied (its LOCK left
 * out), let go on, and killed with SIGKILL at its 550th: the memory holds acknowledgements after the copy.
 * At 300, a batch head after the start head is on record whatever the window (128 toward `local serve`):
 * a batch's head is the one the first request sent after it began stood on, answered at most a window later.
 */
async function killedWithCopy(target: string[]): Promise<void> {
  const run = startExamctl(['user', 'sync', '--changed-only', '--file', 'users.csv', ...target], place.dir, {
    ...place.env,
    EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:300:SIGSTOP,outcome:550:SIGKILL',
  });
  await untilStopped(run);
  await place.copy();
  run.child.kill('SIGCONT');
  expect((await run.done).signal).toBe('SIGKILL');
}

async function history(target: () => string[]): Promise<void> {
  await night('One');
  const first = await examctl(
    ['user', 'sync', '--changed-only', '--file', 'users.csv', ...target()],
    place.dir,
    place.env,
  );
  expect(first.code, first.stderr).toBe(0);
  await night('Two');
  await killedWithCopy(target());
  // The copy holds part of the killed night (the rest is still One), the store after the kill more of it.
  const copied = await holding('Two', join(place.dir, 'copy'));
  expect(copied).toBeGreaterThan(0);
  expect(copied).toBeLessThan(await holding('Two'));
  await place.restore();
  expect(await holding('Two')).toBe(copied);
  const again = await examctl(
    ['--json', 'user', 'sync', '--changed-only', '--file', 'users.csv', ...target()],
    place.dir,
    place.env,
  );
  expect(again.code, again.stderr).toBe(0);
  expect(await holding('Two')).toBe(USERS);
  // What the copy holds of the killed night is not sent again (the store changed it after the head before the copy).
  const unchanged = reportItems(again.stdout).filter((item) => item.action === 'unchanged').length;
  expect(unchanged).toBeGreaterThan(0);
  expect(unchanged).toBeLessThanOrEqual(copied);
}

describe('a --changed-only night killed outright, the store restored to a copy taken during it, the same file', () => {
  it('on the local store: every user of the file is in the store', () => history(() => ['--store', place.store()]));

  it('through local serve: every user of the file is in the store', async () => {
    await place.serve();
    await history(() => ['--target', 'remote', '--base-url', `http://127.0.0.1:${place.port}`, '--yes']);
  });
});
