import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { chosenId } from '../../src/runs/run-id.js';
import { startExamctl, type Running } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { okEnvelope, startFaultServer, type FaultServer } from '../support/fault-server.js';

/**
 * A create the service would name (no ScheduleExtId, no collection ExternalId), killed as its
 * request was applied, then resumed (QA 41-A F5): the resume sent it again and the service made
 * a second schedule or collection, though docs/runs.md promises exactly once. examctl now names
 * it (run and position), so the resend meets "already exists": one entity, reported ok.
 */

let dir: string;
let env: Record<string, string>;
let server: FaultServer;
/** The ids the service holds, as a platform would (a second create of one id is refused). */
let schedules: string[];
let collections: string[];
let running: Running | undefined;
let killFirst = false;
/** Kill at the request for this collection title instead of the first one. */
let killAtTitle: string | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-chosen-id-'));
  env = { EXAMCTL_RUNS_DIR: join(dir, 'state', 'runs'), EXAMCTL_TOKEN: 'dev-token' };
  schedules = [];
  collections = [];
  killFirst = false;
  killAtTitle = undefined;
  server = await startFaultServer();
  server.fallback = (request) => {
    const body = JSON.parse(request.body) as { Schedule?: { ScheduleExtId?: string }; ExternalId?: string };
    let id: string;
    if (request.url.endsWith('/schedule')) {
      id = body.Schedule?.ScheduleExtId ?? `gen${schedules.length}`;
      if (schedules.includes(id))
        return {
          status: 400,
          body: { Content: null, Success: false, Errors: [{ Code: null, Message: `Duplicate ScheduleExtId ${id}` }] },
        };
      schedules.push(id);
    } else {
      id = body.ExternalId ?? `gen${collections.length}`;
      if (collections.includes(id))
        return {
          status: 200,
          body: { Content: null, Success: false, Errors: [{ Code: 810, Message: 'ExternalId already exists' }] },
        };
      collections.push(id);
    }
    if (killFirst && (killAtTitle === undefined || (body as { Title?: string }).Title === killAtTitle)) {
      killFirst = false;
      running?.child.kill('SIGKILL');
    }
    return request.url.endsWith('/schedule') ? okEnvelope(id) : okEnvelope({ ExternalId: id, Errors: [] });
  };
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const remote = () => ['--target', 'remote', '--base-url', server.url, '--allow-insecure-http', '--yes'];

async function killedThenResumed(args: readonly string[]) {
  killFirst = true;
  running = startExamctl([...args, ...remote()], dir, env);
  const killed = await running.done;
  expect(killed.signal).toBe('SIGKILL');
  const resumed = await examctl(
    ['--base-url', server.url, '--allow-insecure-http', '--yes', '--json', 'runs', 'resume'],
    dir,
    env,
  );
  expect(resumed.code, resumed.stderr).toBe(0);
  return JSON.parse(resumed.stdout) as {
    run: string;
    items: { id: string | null; status: string; errors: { message: string }[]; note?: string }[];
  };
}

describe('a create the service would name, killed as it was applied, then resumed', () => {
  it('schedule push of a candidates file without --schedule-id: one schedule, the resend ok as already made', async () => {
    writeFileSync(
      join(dir, 'candidates.csv'),
      'CandidateExtId,FirstName,LastName,Email\nstu-1,Ann,Lee,ann@example.test\nstu-2,Bo,Ng,bo@example.test\n',
    );
    const resumed = await killedThenResumed([
      'schedule',
      'push',
      '--file',
      'candidates.csv',
      '--assessment',
      'A-MATH-1',
      '--start',
      '2027-01-10T09:00:00Z',
      '--end',
      '2027-01-10T11:00:00Z',
      '--group',
      'H-NORTH',
      '--group-name',
      'North',
    ]);
    expect(schedules).toHaveLength(1);
    expect(schedules[0]).toBe(chosenId(resumed.run, 0));
    expect(resumed.items).toHaveLength(1);
    // Its id is this run's alone, so the resend's "already exists" proves the killed attempt made it.
    expect(resumed.items[0]).toMatchObject({ status: 'ok', id: schedules[0], action: 'created', errors: [] });
    expect(resumed.items[0]?.note).toMatch(new RegExp(`^created .* run ${resumed.run}\\b`));
  });

  it('collection add without --external-id: one collection', async () => {
    const resumed = await killedThenResumed(['collection', 'add', '--title', 'Physics']);
    expect(collections).toEqual([chosenId(resumed.run, 0)]);
    expect(resumed.items[0]).toMatchObject({ status: 'ok', id: collections[0] });
  });

  it('three collections, killed at the second: the resumed report and runs show give each its chosen id', async () => {
    writeFileSync(
      join(dir, 'three.json'),
      JSON.stringify([{ Title: 'Physics' }, { Title: 'Chemistry' }, { Title: 'Biology' }]),
    );
    killAtTitle = 'Chemistry';
    const resumed = await killedThenResumed(['collection', 'add', '--file', 'three.json']);
    const chosen = [0, 1, 2].map((n) => chosenId(resumed.run, n));
    expect(collections).toEqual(chosen);
    expect(resumed.items.map((item) => [item.status, item.id])).toEqual(chosen.map((id) => ['ok', id]));
    const shown = await examctl(['runs', 'show', resumed.run, '--json'], dir, env);
    expect(shown.code, shown.stderr).toBe(0);
    expect((JSON.parse(shown.stdout) as { items: { id: string | null }[] }).items.map((item) => item.id)).toEqual(
      chosen,
    );
  });

  it('ids the file gives are sent as given', async () => {
    writeFileSync(
      join(dir, 'c.json'),
      JSON.stringify([{ ExternalId: 'phys1', Title: 'Physics' }, { Title: 'Chemistry' }]),
    );
    const run = await examctl(['collection', 'add', '--file', 'c.json', '--json', ...remote()], dir, env);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { run: string };
    expect(collections).toEqual(['phys1', chosenId(report.run, 1)]);
  });
});

describe('the report loop after such a kill (trial35 F06)', () => {
  it('runs show --report says unknown for the create in flight; --only-failed refuses it (nothing sent), runs resume makes it once', async () => {
    writeFileSync(join(dir, 'c.csv'), 'Title\nPhysics\n');
    killFirst = true;
    running = startExamctl(['collection', 'add', '--file', 'c.csv', ...remote()], dir, env);
    expect((await running.done).signal).toBe('SIGKILL');
    await examctl(['runs', 'show', 'last', '--report', 'r.csv'], dir, env);
    const row = readFileSync(join(dir, 'r.csv'), 'utf8').split(/\r?\n/)[1]!;
    const id = row.split(',').at(-1)!;
    expect(row).toMatch(/^Physics,unknown,9026,"?sent \(or about to be\) when the run stopped/);
    const retry = await examctl(['collection', 'add', '--file', 'r.csv', '--only-failed', ...remote()], dir, env);
    expect(retry.code, retry.stderr).toBe(2);
    expectCoded(retry.stderr, 'E2111', 'r.csv:2: ', `run ${id} `, '--only-failed', `examctl runs resume ${id}`);
    expect(collections).toEqual([chosenId(id, 0)]);
    const resumed = await examctl(
      ['--base-url', server.url, '--allow-insecure-http', '--yes', 'runs', 'resume'],
      dir,
      env,
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(collections).toEqual([chosenId(id, 0)]);
    await examctl(['runs', 'show', id, '--report', 'r2.csv'], dir, env);
    expect(readFileSync(join(dir, 'r2.csv'), 'utf8').split(/\r?\n/)[1]).toMatch(/^Physics,ok,/);
  });

  it('unknown is refused; set to failed by hand it is made anew (docs/runs.md, "An id examctl chooses")', async () => {
    writeFileSync(join(dir, 'c.csv'), 'Title\nPhysics\n');
    killFirst = true;
    running = startExamctl(['collection', 'add', '--file', 'c.csv', ...remote()], dir, env);
    expect((await running.done).signal).toBe('SIGKILL');
    await examctl(['runs', 'show', 'last', '--report', 'r.csv'], dir, env);
    const report = readFileSync(join(dir, 'r.csv'), 'utf8');
    const id = report.trim().split(',').at(-1)!;
    const retry = await examctl(['collection', 'add', '--file', 'r.csv', '--only-failed', ...remote()], dir, env);
    expect(retry.code, retry.stderr).toBe(2);
    expectCoded(retry.stderr, 'E2111', 'r.csv:2:', `run ${id}`);
    expect(collections).toEqual([chosenId(id, 0)]);
    writeFileSync(join(dir, 'r.csv'), report.replace(',unknown,', ',failed,'));
    const anew = await examctl(['collection', 'add', '--file', 'r.csv', '--only-failed', ...remote()], dir, env);
    expect(anew.code, anew.stderr).toBe(0);
    expect(collections).toHaveLength(2);
  });
});
