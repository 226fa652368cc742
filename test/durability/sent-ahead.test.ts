import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { range, writeUsersCsv, type Finished } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { demoServerDirs } from '../support/serve-store.js';

/**
 * A journaled remote run puts the next units on record as sent before their turn (docs/runs.md,
 * "Sent ahead"). Killed (SIGKILL) while some of those were on record but had not gone out, the
 * run is finished by `runs resume`: each of them is sent once, and none is reported failed that
 * the target did not refuse.
 * The target is `local serve` with a fixed latency, so requests are slow next to the journal.
 */

const place = demoServerDirs('ahead', ['--faults', 'latency:15-15ms', '--faults-seed', '1']);

interface JournalCounts {
  /** Units on record as sent. */
  sent: Set<number>;
  /** Units with an outcome on record. */
  answered: Set<number>;
}

function journalCounts(): JournalCounts {
  const [id] = readdirSync(join(place.dir, 'runs'));
  const sent = new Set<number>();
  const answered = new Set<number>();
  for (const line of readFileSync(join(place.dir, 'runs', id!, 'journal.ndjson'), 'utf8').split('\n')) {
    if (line === '') continue;
    const body = (JSON.parse(line) as { b: { t: string; n: number } }).b;
    if (body.t === 'sent') sent.add(body.n);
    if (body.t === 'outcome') answered.add(body.n);
  }
  return { sent, answered };
}

/** The requests to `route` in a server's log (DemoServer.stop or restart: the whole of it). */
const requestsTo = (log: string, route: string): number =>
  log.split('\n').filter((line) => line.startsWith(`POST /api/v1/integrations${route} `)).length;

/**
 * Runs `args` against the server; the run sends itself `signal` once `atLeast` units are on record
 * as sent (EXAMCTL_TEST_SIGNAL_AFTER): a point the run reaches, however fast the machine is.
 */
async function signalOnceRecorded(args: string[], atLeast: number, signal: NodeJS.Signals): Promise<Finished> {
  return examctl(['--target', 'remote', '--base-url', place.baseUrl, '--yes', ...args], place.dir, {
    ...place.env,
    EXAMCTL_TEST_SIGNAL_AFTER: `sent:${atLeast}:${signal}`,
  });
}

async function killOnceRecorded(args: string[], atLeast: number): Promise<void> {
  expect((await signalOnceRecorded(args, atLeast, 'SIGKILL')).signal).toBe('SIGKILL');
}

interface ShownReport {
  summary: { total: number; ok: number; failed: number; skipped: number };
  items: {
    source: { line: number };
    id: string | null;
    status: string;
    errors: { message: string }[];
    note?: string;
  }[];
}

async function resumeAndShow(exitCode = 0): Promise<ShownReport> {
  const resumed = await examctl(['--base-url', place.baseUrl, '--yes', 'runs', 'resume'], place.dir, place.env);
  expect(resumed.code, resumed.stderr).toBe(exitCode);
  return JSON.parse((await examctl(['--json', 'runs', 'show', 'last'], place.dir, place.env)).stdout) as ShownReport;
}

function exported(kind: 'Users' | 'Schedules'): Record<string, string>[] {
  const world = readFileSync(join(place.dir, 'world.json'), 'utf8');
  return (JSON.parse(world) as Record<string, Record<string, string>[]>)[kind] ?? [];
}

async function exportStore(): Promise<void> {
  writeFileSync(
    join(place.dir, 'world.json'),
    (await examctl(['local', 'export', '--store', join(place.dir, 'store')], place.dir, place.env)).stdout,
  );
}

describe('kill -9 while units are on record as sent ahead but not sent, then runs resume', () => {
  it('user sync: each unsent unit is sent once by the resume, every user is held once', async () => {
    const ids = range('ahead', 600);
    await writeUsersCsv(join(place.dir, 'users.csv'), ids);
    await killOnceRecorded(['user', 'sync', '--file', 'users.csv'], 150);
    const killed = journalCounts();
    // The server restarted: every request of the killed run it will ever handle is in the old log.
    const received = requestsTo(await place.restart(), '/user');
    // More units on record as sent than requests the server got (all it will ever get of the run): those were
    // recorded ahead and never went out.
    expect(killed.sent.size).toBeGreaterThan(received);
    await exportStore();
    const held = exported('Users').filter((user) => user.ExternalId?.startsWith('ahead-')).length;
    const report = await resumeAndShow();
    expect(report.summary).toMatchObject({ total: 600, ok: 600, failed: 0, skipped: 0 });
    expect(new Set(report.items.map((item) => item.source.line)).size).toBe(600);
    // The resume sent exactly the units the store lacked: an answer on record, or applied since the
    // run's start head (its first answer's, docs/runs.md), none twice, none left out.
    expect(requestsTo(await place.stop(), '/user')).toBe(600 - held);
    await exportStore();
    const users = exported('Users').filter((user) => user.ExternalId?.startsWith('ahead-'));
    expect(users.map((user) => user.ExternalId).sort()).toEqual(ids);
  });

  it('schedule push with Upsert false: a schedule that existed before the run stays a failure, said plainly; what the killed run may have made is noted, never called ok', async () => {
    const lines = [
      'ScheduleExtId,AssessmentExtId,Title,StartDateTime,EndDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email',
    ];
    for (let s = 0; s < 300; s++) {
      // Line 122 reuses S-FUTURE, a schedule the target held before the run: a real duplicate,
      // on record as sent ahead when the run is killed.
      const id = s === 120 ? 'S-FUTURE' : `S-A-${s}`;
      lines.push(
        `${id},A-MATH-1,Sitting ${s},2026-12-14T09:00:00Z,2026-12-14T12:00:00Z,H-A-${s},Group ${s},stu-a${s},Ann,Lee,ann${s}@students.example.test`,
      );
    }
    writeFileSync(join(place.dir, 'sittings.csv'), `${lines.join('\n')}\n`);
    await killOnceRecorded(['schedule', 'push', '--file', 'sittings.csv'], 100);
    const killed = journalCounts();
    expect(killed.sent.has(120)).toBe(true);
    expect(killed.answered.has(120)).toBe(false);
    // The server restarted: no request of the killed run can reach the store any more.
    await place.restart();
    await exportStore();
    const applied = exported('Schedules').filter((schedule) => schedule.ScheduleExtId?.startsWith('S-A-')).length;
    expect(killed.sent.size).toBeGreaterThan(applied + 8);
    // Exit 1: the duplicate is a failure, whatever the killed attempt did or did not send.
    const report = await resumeAndShow(1);
    expect(new Set(report.items.map((item) => item.source.line)).size).toBe(300);
    const future = report.items.find((item) => item.id === 'S-FUTURE');
    expect(future?.status).toBe('failed');
    // The store changed S-FUTURE in no attempt of the run (its head says so): it existed before, exactly, no doubt noted.
    expect(future?.note).toBeUndefined();
    // Applied by the killed run without its answer on record: the duplicate's refusal stands, with
    // the same note (examctl cannot prove it made them). A unit recorded ahead that never went out
    // is created by the resume: plainly ok.
    const noted = report.items.filter((item) => item.status === 'failed' && item.id !== 'S-FUTURE');
    expect(noted).toHaveLength(applied - killed.answered.size);
    for (const item of noted) expect(item.note).toMatch(/may have created it/);
    expect(report.summary).toMatchObject({ total: 300, ok: 299 - noted.length, failed: noted.length + 1 });
    await exportStore();
    expect(exported('Schedules').filter((schedule) => schedule.ScheduleExtId?.startsWith('S-A-'))).toHaveLength(299);
    expect(exported('Schedules').find((schedule) => schedule.ScheduleExtId === 'S-FUTURE')?.Title).toBe(
      'Physics 2 - December sitting',
    );
  });
});

describe('kill -9 as the first answer of a first night through local serve is journaled, then runs resume', () => {
  it('the start head was on record before any request: the resume sends none the store holds, and loses none', async () => {
    const ids = range('first', 600);
    await writeUsersCsv(join(place.dir, 'users.csv'), ids);
    const killed = await examctl(
      ['--target', 'remote', '--base-url', place.baseUrl, '--yes', 'user', 'sync', '--file', 'users.csv'],
      place.dir,
      { ...place.env, EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:1:SIGKILL' },
    );
    expect(killed.signal).toBe('SIGKILL');
    const [id] = readdirSync(join(place.dir, 'runs'));
    const bodies = readFileSync(join(place.dir, 'runs', id!, 'journal.ndjson'), 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => (JSON.parse(line) as { b: { t: string; storeHead?: string } }).b);
    // The store's head in the header, durable before the first request went; no head line.
    expect(bodies[0]?.storeHead).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(bodies.filter((body) => body.t === 'head')).toEqual([]);
    // The server restarted: every request of the killed run it will ever handle is in the old log. The run asked the
    // store's head first, then wrote.
    const log = await place.restart();
    const requests = log.split('\n').filter((line) => /^(GET|POST) /.test(line));
    expect(requests[0]).toMatch(/^GET \/api\/v1\/integrations\/examctl\/store /);
    expect(requests.slice(1).every((line) => line.startsWith('POST /api/v1/integrations/user '))).toBe(true);
    await exportStore();
    const held = exported('Users').filter((user) => user.ExternalId?.startsWith('first-')).length;
    expect(held).toBeGreaterThan(0);
    const report = await resumeAndShow();
    expect(report.summary).toMatchObject({ total: 600, ok: 600, failed: 0, skipped: 0 });
    // Each user the killed attempt applied, answered on record or not, stands: the resume sent only the others.
    expect(requestsTo(await place.stop(), '/user')).toBe(600 - held);
    await exportStore();
    const users = exported('Users').filter((user) => user.ExternalId?.startsWith('first-'));
    expect(users.map((user) => user.ExternalId).sort()).toEqual(ids);
  });
});

describe('a clean stop (SIGINT) while units are on record as sent ahead', () => {
  it('withdraws them at the end: runs show says "not sent", none "no answer recorded", and the resume sends each once', async () => {
    const ids = range('stop', 600);
    await writeUsersCsv(join(place.dir, 'users.csv'), ids);
    expect((await signalOnceRecorded(['user', 'sync', '--file', 'users.csv'], 150, 'SIGINT')).code).toBe(130);
    // The server restarted: its whole log, a line the stopped run's answers outran included.
    const received = requestsTo(await place.restart(), '/user');
    const withdrawn = readFileSync(
      join(place.dir, 'runs', readdirSync(join(place.dir, 'runs'))[0]!, 'journal.ndjson'),
      'utf8',
    )
      .split('\n')
      .filter((line) => line.includes('"t":"unsent"')).length;
    // Units on record ahead that never went out were withdrawn: the sent ones are exactly those the server got.
    expect(journalCounts().sent.size - withdrawn).toBe(received);
    expect(withdrawn).toBeGreaterThan(0);

    const shown = JSON.parse(
      (await examctl(['--json', 'runs', 'show', 'last'], place.dir, place.env)).stdout,
    ) as ShownReport;
    expect(shown.summary).toMatchObject({ total: 600, ok: received, skipped: 600 - received });
    expect(
      shown.items.filter((item) =>
        item.errors.some((error) => /answer was lost|no answer recorded/.test(error.message)),
      ),
    ).toEqual([]);
    expect(
      shown.items
        .filter((item) => item.status === 'skipped')
        .every((item) => /^not sent: the run stopped before it/.test(item.errors[0]!.message)),
    ).toBe(true);

    const report = await resumeAndShow();
    expect(report.summary).toMatchObject({ total: 600, ok: 600 });
    expect(received + requestsTo(await place.stop(), '/user')).toBe(600);
  });
});
