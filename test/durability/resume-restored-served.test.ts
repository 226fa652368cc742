import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { expectAllOk, writeSittings } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { restoredStorePlace } from '../support/restored-store.js';

/**
 * As resume-restored.test.ts, through `local serve`: the run's start head is the one the server answers
 * before the first write (the journal header's `storeHead`), so a resume after the served store was restored
 * (server stopped, the copy put back, served again) sends exactly what the store lost (docs/runs.md, "A store
 * restored under a run").
 */

const SCHEDULES = 200;
const place = restoredStorePlace('examctl-resume-restored-served-');

beforeEach(async () => {
  await place.serve();
  writeSittings(place.dir, SCHEDULES);
});

// The markers leave 80 schedules, then 40, to send: the push keeps 8 in flight (not local serve's default
// 128, docs/remote.md), so what its killed attempt had in flight or answered unrecorded stays well below that.
const remote = () => [
  '--target',
  'remote',
  '--base-url',
  `http://127.0.0.1:${place.port}`,
  '--yes',
  '--concurrency',
  '8',
];

async function killedAt(args: string[], marker: string): Promise<{ signal: string | null; stderr: string }> {
  return examctl(args, place.dir, { ...place.env, EXAMCTL_TEST_SIGNAL_AFTER: `${marker}:SIGKILL` });
}

async function heldSchedules(): Promise<number> {
  const world = JSON.parse(
    (await examctl(['local', 'export', '--store', place.store()], place.dir, place.env)).stdout,
  ) as {
    Schedules: { ScheduleExtId?: string }[];
  };
  return world.Schedules.filter((schedule) => schedule.ScheduleExtId?.startsWith('S-R-')).length;
}

/** The killed push's run id, and the head its journal recorded. */
async function killedPush(): Promise<{ run: string; head: string | undefined }> {
  const killed = await killedAt(['schedule', 'push', '--file', 'sittings.csv', ...remote()], 'outcome:120');
  expect(killed.signal).toBe('SIGKILL');
  const run = /\brun (\S+) \(examctl runs show/.exec(killed.stderr)?.[1] ?? '';
  const journal = await readFile(join(place.dir, 'runs', run, 'journal.ndjson'), 'utf8');
  const head = /"t":"run",.*"storeHead":"([A-Za-z0-9_-]{22})"/.exec(journal)?.[1];
  return { run, head };
}

/** A resume killed at a marker, then one that finishes: every schedule once, nothing "already exists". */
async function resumedTwice(): Promise<void> {
  const resume = ['runs', 'resume', '--base-url', `http://127.0.0.1:${place.port}`, '--yes'];
  expect((await killedAt(resume, 'outcome:40')).signal).toBe('SIGKILL');
  const second = await examctl(['--json', ...resume], place.dir, place.env);
  expectAllOk(second, SCHEDULES);
  expect(await heldSchedules()).toBe(SCHEDULES);
}

describe('a schedule push through local serve killed, the served store restored, two resumes', () => {
  it('restored to the copy taken before the run: every schedule once, exit 0', async () => {
    await place.copy('before');
    const { run, head } = await killedPush();
    expect(head).toBeDefined();
    await place.restore('before');
    await resumedTwice();
    expect(run).not.toBe('');
  });

  it('restored to a copy taken after part of the run: every schedule once, exit 0', async () => {
    const { head } = await killedPush();
    expect(head).toBeDefined();
    await place.copy('partway');
    const resume = ['runs', 'resume', '--base-url', `http://127.0.0.1:${place.port}`, '--yes'];
    expect((await killedAt(resume, 'outcome:40')).signal).toBe('SIGKILL');
    await place.restore('partway');
    await resumedTwice();
  });

  it('on the store it left (no restore): no kept row is sent again', async () => {
    await killedPush();
    const resumed = await examctl(
      ['--json', 'runs', 'resume', '--base-url', `http://127.0.0.1:${place.port}`, '--yes'],
      place.dir,
      place.env,
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).not.toContain('not in the store');
    const items = (JSON.parse(resumed.stdout) as { items: { note?: string; errors: unknown[] }[] }).items;
    expect(items.filter((item) => item.note?.startsWith('sent again') === true)).toEqual([]);
    expect(await heldSchedules()).toBe(SCHEDULES);
  });
});
