import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { readRun } from './whole-record.js';
import { chosenId } from '../../src/runs/run-id.js';
import { serveLocalStore } from '../../src/server/index.js';
import type { LocalServer } from '../../src/server/serve-local.js';
import { examctl, serveWithFaults } from '../support/faulty-serve.js';

/**
 * A run whose requests the service never answered definitely (every request a 503, a 500, a
 * reset connection, or an answer lost after the work was done): the journal says transient,
 * `runs show` reports those items not done, and `runs resume` against the service, healthy
 * again, sends them and ends with every row once.
 */

let dir: string;
let env: Record<string, string>;
const TOKEN = { EXAMCTL_TOKEN: 'dev-token' };
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-transient-'));
  env = { ...TOKEN, EXAMCTL_RUNS_DIR: join(dir, 'runs') };
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Report {
  run: string;
  summary: { total: number; ok: number; partial: number; failed: number; skipped: number };
  items: {
    source: { line: number };
    id: string | null;
    status: string;
    errors: { code: number | null; message: string }[];
    note?: string;
  }[];
}

const remote = (server: LocalServer): string[] => [
  '--target',
  'remote',
  '--base-url',
  server.url,
  '--yes',
  '--no-input',
  '--json',
  '--concurrency',
  '4',
];

/** The same store served again on the same port, without faults: the recorded base URL reaches it. */
function healthyAgain(failing: LocalServer): Promise<LocalServer> {
  return serveLocalStore({
    storeDir: join(dir, 'served-store'),
    port: Number(new URL(failing.url).port),
    now: () => new Date('2026-11-21T10:00:00Z'),
  });
}

async function exported(): Promise<{
  Users: { ExternalId: string }[];
  Schedules?: { ScheduleExtId?: string; ExternalId?: string }[];
}> {
  const run = await examctl(dir, ['--store', join(dir, 'served-store'), 'local', 'export']);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Awaited<ReturnType<typeof exported>>;
}

/** Fails the run with `spec`, checks the journal and `runs show`, then resumes against the healthy service. */
async function failThenResume(
  spec: string,
  args: string[],
  rows: number,
): Promise<{ shown: Report; resumed: Report; final: Report }> {
  const failing = await serveWithFaults(dir, spec, 7, []);
  let first;
  try {
    first = await examctl(dir, [...remote(failing), ...args], env);
  } finally {
    await failing.close();
  }
  expect(first.code, first.stderr).toBe(3);
  const id =
    (JSON.parse(first.stdout) as { run?: string; error?: unknown }).run ??
    /run (\S+) \(examctl runs show/.exec(first.stderr)?.[1];
  expect(id).toBeDefined();
  const record = await readRun(join(dir, 'runs'), id as string);
  const outcomes = [...record.items.values()].flatMap((history) =>
    history.outcome === undefined ? [] : [history.outcome],
  );
  expect(outcomes.length).toBeGreaterThan(0);
  expect(outcomes.every((outcome) => outcome.transient && outcome.status === 'failed')).toBe(true);

  const show = await examctl(dir, ['--json', 'runs', 'show', id as string], env);
  expect(show.code).toBe(1);
  const shown = JSON.parse(show.stdout) as Report;
  expect(shown.summary).toMatchObject({ total: rows, ok: 0, failed: 0, skipped: rows });
  expect(shown.items.filter((item) => item.errors[0]?.code === 9026)).toHaveLength(outcomes.length);

  const healthy = await healthyAgain(failing);
  let resume;
  try {
    // The same --base-url as the run's, as a CI job gives it: no --target-from-run needed.
    resume = await examctl(dir, ['--base-url', healthy.url, '--json', '--yes', '--no-input', 'runs', 'resume'], env);
  } finally {
    await healthy.close();
  }
  expect(resume.code, resume.stderr).toBe(0);
  const final = JSON.parse((await examctl(dir, ['--json', 'runs', 'show', id as string], env)).stdout) as Report;
  expect(final.summary).toMatchObject({ total: rows, ok: rows });
  expect(new Set(final.items.map((item) => item.source.line)).size).toBe(rows);
  return { shown, resumed: JSON.parse(resume.stdout) as Report, final };
}

describe('transient failures are journaled as such and resent by runs resume', () => {
  const USERS = 12;
  for (const spec of ['503:100%', '500:100%', 'reset:100%', 'lost:100%']) {
    it(`user sync through ${spec}, then resumed against the healthy service: every user once`, async () => {
      const ids = Array.from({ length: USERS }, (_, i) => `tr-${i}`);
      await writeFile(
        join(dir, 'users.csv'),
        `ExternalId,FirstName,LastName,Email,Role\n${ids.map((id) => `${id},Ann,Lee,${id}@example.test,Candidate`).join('\n')}\n`,
      );
      await failThenResume(spec, ['user', 'sync', '--file', 'users.csv'], USERS);
      const users = (await exported()).Users.filter((user) => user.ExternalId.startsWith('tr-'));
      expect(users.map((user) => user.ExternalId).sort()).toEqual([...ids].sort());
    });
  }

  it('schedule push --upsert through lost:100% (created, answer lost): resumed, each schedule ok and held once', async () => {
    const head =
      'ScheduleExtId,AssessmentExtId,Title,StartDateTime,EndDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email';
    const rows = Array.from(
      { length: 6 },
      (_, i) =>
        `S-TR-${i},A-MATH-1,Transient ${i},2026-12-14T09:00:00Z,2026-12-14T12:00:00Z,H-NORTH-DEC,North,stu-tr-${i},Ann,Lee,stu-tr-${i}@example.test`,
    );
    await writeFile(join(dir, 'sittings.csv'), `${head}\n${rows.join('\n')}\n`);
    // With --upsert, a resend of what a lost attempt created updates it (without, the resume cannot
    // tell a schedule it made from one made before: test/runs/resume.test.ts, docs/runs.md).
    const { final } = await failThenResume('lost:100%', ['schedule', 'push', '--file', 'sittings.csv', '--upsert'], 6);
    expect(final.items.every((item) => item.status === 'ok')).toBe(true);
    const schedules = JSON.stringify((await exported()).Schedules ?? []);
    for (let i = 0; i < 6; i++) expect(schedules.split(`"S-TR-${i}"`).length - 1).toBe(1);
  });
});

describe('a create under the id examctl chose, its answer lost (trial35 F06)', () => {
  it('its report and runs show --report say unknown, and --only-failed refuses them (a second would be made), naming runs resume', async () => {
    await writeFile(join(dir, 'c.csv'), 'ExternalId,Title\n,Physics\nchem-1,Chemistry\n');
    const failing = await serveWithFaults(dir, 'lost:100%', 7, []);
    try {
      const first = await examctl(
        dir,
        [...remote(failing), 'collection', 'add', '--file', 'c.csv', '--report', 'r.csv'],
        env,
      );
      expect(first.code, first.stderr).toBe(3);
      const id = (JSON.parse(first.stdout) as { run: string }).run;
      expect((await examctl(dir, ['runs', 'show', id, '--report', 's.csv'], env)).stderr).not.toMatch(/^examctl:/m);
      for (const report of ['r.csv', 's.csv']) {
        const rows = (await readFile(join(dir, report), 'utf8')).split(/\r?\n/);
        // Its own id makes a resend safe (here it met "already exists"): only the row without one is in doubt.
        expect(rows.slice(1, 3).map((row) => row.split(',').slice(0, 3).join(','))).toEqual([
          ',Physics,unknown',
          'chem-1,Chemistry,failed',
        ]);
        const retry = await examctl(
          dir,
          [...remote(failing), 'collection', 'add', '--file', report, '--only-failed'],
          env,
        );
        expectCoded(retry.stderr, 'E2111', `${report}:2: `, `run ${id} `, '--only-failed', `examctl runs resume ${id}`);
        expect(retry.stderr).toContain(
          `${report}:2: run ${id} lost the answer to this create (an id examctl chose): --only-failed would make another; nothing sent. examctl runs resume ${id}`,
        );
      }
    } finally {
      await failing.close();
    }
  });
});

describe("a retry's create whose answer was lost, its report fed back (trial38 F02, F07)", () => {
  it('the refusal names the retry (the run that lost it), whose resume settles it: one schedule; every view names the chosen id', async () => {
    const flags = [
      'schedule',
      'push',
      '--assessment',
      'A-MATH-1',
      '--start',
      '2026-12-20T09:00:00Z',
      '--group',
      'H-NORTH',
      '--group-name',
      'North',
    ];
    await writeFile(join(dir, 'c.csv'), 'CandidateExtId,FirstName,LastName,Email\nc-1,Ann,One,not-an-email\n');
    const failing = await serveWithFaults(dir, 'lost:100%', 7, []);
    let retry;
    try {
      const first = await examctl(dir, [...remote(failing), ...flags, '--file', 'c.csv', '--report', 'r1.csv'], env);
      expect(first.code, first.stderr).toBe(1);
      await writeFile(
        join(dir, 'r1.csv'),
        (await readFile(join(dir, 'r1.csv'), 'utf8')).replace('not-an-email', 'ann@example.test'),
      );
      retry = await examctl(
        dir,
        [...remote(failing), ...flags, '--file', 'r1.csv', '--only-failed', '--report', 'r2.csv'],
        env,
      );
      expect(retry.code, retry.stderr).toBe(3);
    } finally {
      await failing.close();
    }
    const run = (JSON.parse(retry.stdout) as Report).run;
    const id = chosenId(run, 0);
    expect((JSON.parse(retry.stdout) as Report).items[0]).toMatchObject({ id, status: 'skipped' });
    expect((await readFile(join(dir, 'r2.csv'), 'utf8')).split(/\r?\n/)[1]).toMatch(
      new RegExp(`^c-1,.*,unknown,.*,may exist as ${id} \\(the id examctl chose\\),${run}$`),
    );
    expect((JSON.parse((await examctl(dir, ['--json', 'runs', 'show', run], env)).stdout) as Report).items[0]?.id).toBe(
      id,
    );
    expect((await examctl(dir, ['runs', 'show', run], env)).stderr).toContain(`[${id}]`);
    const healthy = await healthyAgain(failing);
    try {
      const refused = await examctl(dir, [...remote(healthy), ...flags, '--file', 'r2.csv', '--only-failed'], env);
      expect(refused.code, refused.stderr).toBe(2);
      expectCoded(refused.stderr, 'E2111', 'r2.csv:2: ', `run ${run} `, '--only-failed', `examctl runs resume ${run}`);
      expect(
        (await examctl(dir, ['--base-url', healthy.url, '--yes', '--no-input', 'runs', 'resume', run], env)).code,
      ).toBe(0);
      await examctl(dir, ['runs', 'show', run, '--report', 'r3.csv'], env);
      expect((await examctl(dir, [...remote(healthy), ...flags, '--file', 'r3.csv', '--only-failed'], env)).code).toBe(
        0,
      );
    } finally {
      await healthy.close();
    }
    const held = ((await exported()).Schedules ?? []).filter((schedule) => JSON.stringify(schedule).includes('"c-1"'));
    expect(held.map((schedule) => schedule.ScheduleExtId)).toEqual([id]);
  });
});
