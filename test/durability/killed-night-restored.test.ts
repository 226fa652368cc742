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
/** The resumed night's users: enough that its SIGTERM comes with most of them not sent. */
const RESUMED_USERS = 2000;
const place = restoredStorePlace('examctl-killed-night-');
/** The night's file: every user with FirstName `value`. */
async function night(value: string, users = USERS): Promise<void> {
  const lines = ['ExternalId,FirstName,LastName,Email,UserName,Role'];
  for (const id of range('k', users)) lines.push(`${id},${value},Last,${id}@example.test,name-${id},Candidate`);
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
async function killedWithCopy(
  target: string[],
  markers = 'outcome:300:SIGSTOP,outcome:550:SIGKILL',
): Promise<{ code: number | null; signal: string | null }> {
  const run = startExamctl(['user', 'sync', '--changed-only', '--file', 'users.csv', ...target], place.dir, {
    ...place.env,
    EXAMCTL_TEST_SIGNAL_AFTER: markers,
  });
  await untilStopped(run);
  await place.copy();
  run.child.kill('SIGCONT');
  return run.done;
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
  expect((await killedWithCopy(target())).signal).toBe('SIGKILL');
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

/**
 * The night killed with a copy, restored, then `runs resume` instead of the file again: each count said of what
 * goes again (the resume's, the sync memory's) is the count of items the report notes sent again, and the store
 * holds the whole file. The memory's note leaves the run's own acknowledgements to the resume, which judges each
 * by the head its commit made (docs/runs.md, "A store restored under a run").
 */
async function resumedHistory(): Promise<void> {
  await night('One', RESUMED_USERS);
  const store = ['--store', place.store()];
  const first = await examctl(
    ['user', 'sync', '--changed-only', '--file', 'users.csv', ...store],
    place.dir,
    place.env,
  );
  expect(first.code, first.stderr).toBe(0);
  await night('Two', RESUMED_USERS);
  // Stopped at its 600th outcome by SIGTERM, its answers on record (a kill -9 may lose the last group of them):
  // at most a window (256) more were sent ahead, so most of the file is left for the resume.
  expect((await killedWithCopy(store, 'outcome:150:SIGSTOP,outcome:600:SIGTERM')).code).toBe(130);
  const copied = await holding('Two', join(place.dir, 'copy'));
  await place.restore();
  const resumed = await examctl(['--json', 'runs', 'resume', '--yes'], place.dir, place.env);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(await holding('Two')).toBe(RESUMED_USERS);
  const noted = reportItems(resumed.stdout).filter((item) => item.note?.startsWith('sent again') === true).length;
  expect(noted).toBeGreaterThan(0);
  // Every count a note gives of rows or users going again, summed: exactly the items so noted.
  const said = [...resumed.stderr.matchAll(/(\d+) (?:rows? an earlier attempt|users?$)/gm)].map(([, n]) => Number(n));
  expect(said.reduce((sum, n) => sum + n, 0)).toBe(noted);
  // What the copy held of the killed night was not sent again.
  expect(noted).toBeLessThanOrEqual(RESUMED_USERS - copied);
}

describe('a --changed-only night killed outright, the store restored to a copy taken during it, runs resume', () => {
  it('on the local store: the notes count exactly what goes again', () => resumedHistory());
});

describe('a --changed-only night killed outright, the store restored to a copy taken during it, the same file', () => {
  it('on the local store: every user of the file is in the store', () => history(() => ['--store', place.store()]));

  it('through local serve: every user of the file is in the store', async () => {
    await place.serve();
    await history(() => ['--target', 'remote', '--base-url', `http://127.0.0.1:${place.port}`, '--yes']);
  });
});
