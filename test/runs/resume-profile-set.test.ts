import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { examctlStep } from '../support/in-process.js';
import { fingerprintInput } from '../../src/runs/resume-plan.js';
import { RunJournal } from '../../src/runs/run-journal.js';
import { summaryOf } from '../support/facts.js';

/**
 * trial41 F02, F06: a resume sends the rest of a run as its first attempt did. An older examctl
 * journaled a profile's whole set (it beat every flag) and took `--set Owner=..` beside `--owner`
 * (the set won); today's build journals the set without what a flag or the --schedule file beat.
 */

let dir: string;
const cli = (argv: string[]) => examctlStep(argv, dir, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), CI: 'true' });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-resume-set-'));
  await writeFile(
    join(dir, 's.csv'),
    'ScheduleExtId,AssessmentExtId,StartDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email\nS-A,A-MATH-1,2026-12-14T09:00:00Z,G-1,G,c-1,Ann,Lee,ann@ex.test\n',
  );
  expect((await cli(['--store', 'st', 'local', 'init'])).code).toBe(0);
  expect((await cli(['config', 'set-profile', 'p', '--set', 'Owner=dean'])).code).toBe(0);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** An older examctl's schedule push on profile p (set Owner=dean, as it journaled it), killed before its first item. */
async function olderRun(options: Record<string, string | string[]>, set: Record<string, string>): Promise<string> {
  const file = join(dir, 's.csv');
  const store = join(dir, 'st');
  const journal = await RunJournal.start(join(dir, 'runs'), {
    command: 'schedule push',
    options: { file, cwd: dir, store, yes: true, profile: 'p', ...options },
    target: { kind: 'local', store },
    input: await fingerprintInput(file),
    profile: { name: 'p', defaults: { set }, configDir: join(dir, '.config') },
  });
  await journal.close();
  return journal.id;
}

async function ownerOf(id: string): Promise<unknown> {
  const exported = await cli(['--store', 'st', 'local', 'export']);
  const { Schedules } = JSON.parse(exported.stdout) as {
    Schedules: Record<string, unknown>[] | Record<string, Record<string, unknown>>;
  };
  return (Array.isArray(Schedules) ? Schedules : Object.values(Schedules)).find(
    (schedule) => schedule.ScheduleExtId === id,
  )?.Owner;
}

describe("runs resume keeps the profile's set its run took (trial41 F02, F06)", () => {
  it("an older examctl's run: its journaled set still beats --owner, as it did for the first part", async () => {
    await olderRun({ owner: 'scheduler' }, { Owner: 'dean' });
    const resumed = await cli(['runs', 'resume', '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain("profile p (the run's journal): set Owner=dean");
    expect(await ownerOf('S-A')).toBe('dean');
  });

  it("an older examctl's run with --set Owner beside --owner resumes (its --set won) and runs show counts it", async () => {
    const id = await olderRun({ owner: 'scheduler', set: ['Owner=dean'] }, {});
    const shown = await cli(['runs', 'show', id]);
    expect(shown.stdout + shown.stderr).not.toContain('reading its input again failed');
    expect(summaryOf(shown.stderr)).toMatchObject({ total: 1, ok: 0, partial: 0, failed: 0, skipped: 1 });
    const resumed = await cli(['runs', 'resume', '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await ownerOf('S-A')).toBe('dean');
  });

  it("today's run journals the set without what the --schedule file beat; a null field beats nothing (F05)", async () => {
    expect(
      (
        await cli([
          'config',
          'set-profile',
          'p',
          '--set',
          'Owner=dean',
          '--set',
          'Title=Set',
          '--set',
          'UseKeyCode=true',
        ])
      ).code,
    ).toBe(0);
    await writeFile(join(dir, 'sch.json'), '{"Schedule":{"Owner":"scheduler","Title":null},"Workflow":"DEFAULT"}');
    const run = await cli([
      '--store',
      'st',
      '--profile',
      'p',
      'schedule',
      'push',
      '--file',
      's.csv',
      '--schedule',
      'sch.json',
      '--yes',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const [id] = await readdir(join(dir, 'runs'));
    const header = JSON.parse(readFileSync(join(dir, 'runs', id!, 'journal.ndjson'), 'utf8').split('\n')[0]!) as {
      b: { profile: { defaults: unknown } };
    };
    expect(header.b.profile.defaults).toEqual({ set: { Title: 'Set', UseKeyCode: 'true' } });
  });
});
