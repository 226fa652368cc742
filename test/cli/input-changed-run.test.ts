// A real run whose input file is rewritten in place while it sends (docs/input-formats.md,
// "Re-reading and hostile files"): nothing of the new content is sent, the run stops as a run
// stopped by a failure (exit 3, the report written, the unsent items skipped, the journal ended),
// and `runs show` and `runs resume` say so. The run pauses itself at a marker it reaches
// (EXAMCTL_TEST_SIGNAL_AFTER=...:SIGSTOP), the file is rewritten, then it goes on: no timing.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { startExamctl, untilStopped, type Finished } from '../support/cli.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { KEEP_ROWS_MAX_CHARS } from '../../src/input/csv-reader.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-input-changed-'));
  expect((await examctl(['local', 'init', '--store', join(dir, 'store')], dir)).code).toBe(0);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs examctl until it stops itself at the marker, rewrites `file` in place with `next`, lets it go on. */
async function rewrittenWhileSent(args: string[], file: string, next: string): Promise<Finished> {
  const run = startExamctl(['--store', join(dir, 'store'), ...args], dir, {
    EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:20:SIGSTOP',
  });
  await untilStopped(run);
  await writeFile(join(dir, file), next);
  run.child.kill('SIGCONT');
  return run.done;
}

async function exported(kind: 'Users' | 'Schedules'): Promise<Record<string, unknown>[]> {
  const world = await examctl(['local', 'export', '--store', join(dir, 'store')], dir);
  return (JSON.parse(world.stdout) as Record<string, Record<string, unknown>[]>)[kind]!;
}

/** The run's report, and `runs show` and `runs resume` of it afterwards. */
async function afterwards(): Promise<{
  report: { error?: { code: string; message: string }; items: { status: string; errors: { message: string }[] }[] };
  shown: Finished;
  resumed: Finished;
}> {
  const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
  const shown = await examctl(['runs', 'show', 'last'], dir);
  const resumed = await examctl(['runs', 'resume'], dir);
  return { report, shown, resumed };
}

function expectStoppedRun(finished: Finished, file: string): void {
  expect(finished.code, finished.stderr).toBe(3);
  // The file and line where it changed, and the resume that sends the rest.
  expectCoded(finished.stderr, 'E3060', `${file}:`, 'examctl runs resume ');
  expect(finished.stderr).toMatch(new RegExp(`${file}:\\d+: `));
}

describe('an input file rewritten in place while the run sends it', () => {
  it('user sync over the keep-rows limit (read from disk again to send) sends nothing of the new content', async () => {
    const rows = (name: string): string[] =>
      Array.from(
        { length: Math.ceil(KEEP_ROWS_MAX_CHARS / 40) },
        (_, i) => `u${i},${name}${i},L${i},u${i}@x.test,Candidate`,
      );
    await writeFile(
      join(dir, 'users.csv'),
      ['ExternalId,FirstName,LastName,Email,Role', ...rows('Ann'), ''].join('\n'),
    );
    const next = [
      'ExternalId,FirstName,LastName,Email,Role',
      ...rows('Zedd'),
      'u1,DUPLICATE,X,dup@x.test,Candidate',
      '',
    ].join('\n');
    const finished = await rewrittenWhileSent(
      ['user', 'sync', '--file', 'users.csv', '--report', 'report.json'],
      'users.csv',
      next,
    );
    expectStoppedRun(finished, 'users.csv');
    const users = (await exported('Users')).filter((user) => /^u\d+$/.test(String(user.ExternalId)));
    expect(users.length).toBeGreaterThanOrEqual(20);
    expect(users.length).toBeLessThan(rows('Ann').length);
    expect(users.filter((user) => !String(user.FirstName).startsWith('Ann'))).toEqual([]);
    const { report, shown, resumed } = await afterwards();
    expect(report.error).toMatchObject({ code: 'E3060', message: expect.stringMatching(/users\.csv:\d+: /) });
    expect(report.items.length).toBeLessThan(rows('Ann').length);
    expect(report.items.filter((item) => item.status === 'ok')).toHaveLength(users.length);
    expect(
      report.items
        .filter((item) => item.status !== 'ok')
        .every(
          (item) => item.status === 'skipped' && /^not sent: the run stopped before it/.test(item.errors[0]!.message),
        ),
    ).toBe(true);
    // The units never read again are counted as skipped, here and in `runs show`, which says why.
    const summary = `${rows('Ann').length.toLocaleString('en-US')} items: ${users.length.toLocaleString('en-US')} ok, 0 partial, 0 failed, ${(rows('Ann').length - users.length).toLocaleString('en-US')} skipped`;
    expect(finished.stderr).toContain(summary);
    expect(shown.stderr + shown.stdout).toContain(summary);
    expect(shown.stderr).toMatch(
      /items it never reached are counted as skipped but not listed: its input file \S+users\.csv changed since the run started/,
    );
    expect(shown.stdout).not.toMatch(/DUPLICATE|Zedd/);
    expect(resumed.code).toBe(2);
    expectCoded(resumed.stderr, 'E2200', join(dir, 'users.csv'));
  });

  it('schedule push of JSON requests (read again to send, at any size) sends nothing of the new content', async () => {
    // A CSV's sittings are sent once the whole file is read (the send pass then holds what it read, all checked); whole requests stream.
    const requests = (title: string): string =>
      Array.from({ length: 3000 }, (_, s) =>
        JSON.stringify({
          Schedule: {
            ScheduleExtId: `S-${s}`,
            AssessmentExtId: 'A-MATH-1',
            Title: `${title} ${s}`,
            StartDateTime: '2026-12-14T09:00:00Z',
            EndDateTime: '2026-12-14T12:00:00Z',
            GroupExtId: 'H-NORTH',
            GroupName: 'North',
          },
          Candidates: [{ CandidateExtId: `c${s}`, FirstName: 'F', LastName: 'L', Email: `c${s}@x.test` }],
        }),
      ).join('\n');
    await writeFile(join(dir, 's.ndjson'), requests('Old'));
    const finished = await rewrittenWhileSent(
      ['schedule', 'push', '--file', 's.ndjson', '--report', 'report.json'],
      's.ndjson',
      requests('Newer'),
    );
    expectStoppedRun(finished, 's.ndjson');
    const titles = (await exported('Schedules'))
      .filter((schedule) => /^S-\d+$/.test(String(schedule.ScheduleExtId)))
      .map((schedule) => String(schedule.Title));
    expect(titles.length).toBeGreaterThanOrEqual(20);
    expect(titles.length).toBeLessThan(3000);
    expect(titles.filter((title) => !title.startsWith('Old '))).toEqual([]);
    const { report, resumed } = await afterwards();
    expect(report.error).toMatchObject({ code: 'E3060', message: expect.stringMatching(/s\.ndjson:\d+: /) });
    expect(resumed.code).toBe(2);
  });
});

describe('runs show --report r.csv of a run whose input changed since (trial23 f08)', () => {
  it('says why the report has no input cells: it is no retry file', async () => {
    const users = 'ExternalId,FirstName,LastName,Email,UserName,Role\nu-1,Ann,Lee,ann@example.test,ann,Candidate\n';
    await writeFile(join(dir, 'in.csv'), users);
    const runsDir = ['--runs-dir', join(dir, 'runs')];
    expect(
      (await examctl(['user', 'sync', '--file', 'in.csv', '--store', join(dir, 'store'), ...runsDir], dir)).code,
    ).toBe(0);
    await writeFile(join(dir, 'in.csv'), users.replace('ann@', 'anx@'));
    const shown = await examctl(['runs', 'show', 'last', '--report', 'b.csv', ...runsDir], dir);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stderr).toMatch(
      /the report has no input cells: its input file \S+in\.csv changed since the run started/,
    );
  });
});
