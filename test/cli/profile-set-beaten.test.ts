/**
 * trial40 F03 and F01: a profile's `set` never beats what the command line gives for that field
 * (a schedule push field flag, --workflow, the --schedule file), and the settings line and the
 * report's profile.settings list only what the run read (docs/remote.md, "Where each setting comes
 * from"). Through the real CLI, in-process, on a local store.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineWith } from '../support/facts.js';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';

async function cli(dir: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = testDeps(dir);
  const code = await runCli(args, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

/** How a line names the profile a setting came from, and why it was picked. */
const SCHOOL = 'profile school (the default profile): ';

const SITTING = [
  '--schedule-id',
  'S-1',
  '--assessment',
  'A-MATH-1',
  '--start',
  '2026-12-14T09:00:00Z',
  '--group',
  'G-1',
  '--group-name',
  'G',
];

/** A local store in `dir` and the default profile `school` (no base URL: the local engine's) with these settings. */
async function setUp(dir: string, ...settings: string[]): Promise<void> {
  expect((await cli(dir, ['local', 'init'])).code).toBe(0);
  const made = await cli(dir, ['config', 'set-profile', 'school', ...settings, '--default']);
  expect(made.code, made.stderr).toBe(0);
  await writeFile(join(dir, 'c.csv'), 'CandidateExtId,FirstName,LastName,Email\nc-1,Ann,Lee,ann@ex.test\n');
}

async function storeOf(
  dir: string,
): Promise<{ Schedules: Record<string, unknown>[] | Record<string, Record<string, unknown>>; Users: unknown }> {
  const exported = await cli(dir, ['local', 'export']);
  expect(exported.code, exported.stderr).toBe(0);
  return JSON.parse(exported.stdout) as never;
}

async function sitting(dir: string, id: string): Promise<Record<string, unknown> | undefined> {
  const { Schedules } = await storeOf(dir);
  return (Array.isArray(Schedules) ? Schedules : Object.values(Schedules)).find(
    (schedule) => schedule.ScheduleExtId === id,
  );
}

describe("a profile's set against what the command line gives (trial40 F03)", () => {
  it('--no-proctoring, --no-lock-on-connection-loss and --title beat the profile; its beaten settings are not on the line', () =>
    withTempDir(async (dir) => {
      await setUp(
        dir,
        '--set',
        'UseProctoringService=true',
        '--set',
        'LockExamOnConnectionLoss=true',
        '--set',
        'Title=Sitting',
      );
      const run = await cli(dir, [
        'schedule',
        'push',
        '--file',
        'c.csv',
        ...SITTING,
        '--no-proctoring',
        '--no-lock-on-connection-loss',
        '--title',
        'Resit',
        '--json',
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(await sitting(dir, 'S-1')).toMatchObject({
        UseProctoringService: false,
        LockExamOnConnectionLoss: false,
        Title: 'Resit',
      });
      expect(lineWith(run.stderr, SCHOOL, 'none of its settings')).toBeTruthy();
      expect((JSON.parse(run.stdout) as { profile: { settings: unknown } }).profile.settings).toEqual({});
    }));

  it("--workflow and the --schedule file beat it too; a field neither gives is still the profile's", () =>
    withTempDir(async (dir) => {
      await setUp(
        dir,
        '--set',
        'Workflow=EXTERNAL_ATTEMPTS',
        '--set',
        'UseProctoringService=true',
        '--set',
        'LockExamOnConnectionLoss=true',
      );
      await writeFile(join(dir, 'sch.json'), '{"Title":"JsonTitle","UseProctoringService":false}');
      const run = await cli(dir, [
        'schedule',
        'push',
        '--file',
        'c.csv',
        '--schedule',
        'sch.json',
        ...SITTING,
        '--workflow',
        'DEFAULT',
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(await sitting(dir, 'S-1')).toMatchObject({
        Title: 'JsonTitle',
        UseProctoringService: false,
        LockExamOnConnectionLoss: true,
      });
      expect(lineWith(run.stderr, SCHOOL, 'LockExamOnConnectionLoss=true')).toBeTruthy();
    }));

  it("the wrapped --schedule file's Workflow beats it; a null field of the file gives nothing (trial41 F01, F05)", () =>
    withTempDir(async (dir) => {
      await setUp(dir, '--set', 'Workflow=EXTERNAL_ATTEMPTS', '--set', 'Owner=dean');
      await writeFile(join(dir, 'sch.json'), '{"Schedule":{"Owner":null},"Workflow":"DEFAULT"}');
      const run = await cli(dir, ['schedule', 'push', '--file', 'c.csv', '--schedule', 'sch.json', ...SITTING]);
      expect(run.code, run.stderr).toBe(0);
      expect(await sitting(dir, 'S-1')).toMatchObject({ Owner: 'dean' });
      const typed = await cli(dir, [
        'schedule',
        'push',
        '--file',
        'c.csv',
        '--schedule',
        'sch.json',
        ...SITTING,
        '--set',
        'Owner=ann',
        '--dry-run',
      ]);
      expect(typed.stderr).not.toContain('both give it');
    }));

  it('a hand-written set key in another case loses to the flag and to a typed --set, as the line says (trial41 F03)', () =>
    withTempDir(async (dir) => {
      await setUp(dir, '--set', 'Owner=dean', '--set', 'Title=Set');
      const config = join(dir, '.config', 'config.json');
      await writeFile(
        config,
        (await readFile(config, 'utf8')).replace('"Owner"', '"owner"').replace('"Title"', '"title"'),
      );
      const run = await cli(dir, [
        'schedule',
        'push',
        '--file',
        'c.csv',
        ...SITTING,
        '--owner',
        'scheduler',
        '--set',
        'TITLE=Typed',
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(await sitting(dir, 'S-1')).toMatchObject({ Owner: 'scheduler', Title: 'Typed' });
      expect(lineWith(run.stderr, SCHOOL, 'none of its settings')).toBeTruthy();
      const line = await cli(dir, ['schedule', 'push', '--file', 'c.csv', ...SITTING, '--dry-run']);
      expect(lineWith(line.stderr, SCHOOL, 'owner=dean title=Set')).toBeTruthy();
    }));

  it('a flag and a --set for one field are two values: exit 2 naming both, nothing made', () =>
    withTempDir(async (dir) => {
      await setUp(dir, '--timezone', 'UTC');
      const run = await cli(dir, [
        'schedule',
        'push',
        '--file',
        'c.csv',
        ...SITTING,
        '--title',
        'FlagTitle',
        '--set',
        'title=SetTitle',
      ]);
      expect(run.code).toBe(2);
      expectCoded(run.stderr, 'E2000', '--set title', '--title');
      expect(await sitting(dir, 'S-1')).toBeUndefined();
    }));
});

describe('the settings line lists only what the run read (trial40 F01)', () => {
  it('a set onto a field the command does not take, and input settings of a run that reads no file, are left off', () =>
    withTempDir(async (dir) => {
      await setUp(
        dir,
        '--set',
        'Role=Author',
        '--set',
        'Company=ACME',
        '--map',
        'Dept=Company',
        '--timezone',
        'Asia/Tokyo',
        '--encoding',
        'windows-1252',
      );
      await writeFile(
        join(dir, 's.csv'),
        'ScheduleExtId,AssessmentExtId,StartDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email\nS-2,A-MATH-1,2026-12-14T09:00:00Z,G-1,G,c-2,Bo,Li,bo@ex.test\n',
      );
      const push = await cli(dir, ['schedule', 'push', '--file', 's.csv', '--json']);
      expect(push.code, push.stderr).toBe(0);
      // schedule push takes no Role (its candidates stay Candidates): not listed; Company it takes, and the map onto it.
      expect((JSON.parse(push.stdout) as { profile: { settings: unknown } }).profile.settings).toEqual({
        map: { Dept: 'Company' },
        set: { Company: 'ACME' },
        timezone: 'Asia/Tokyo',
        encoding: 'windows-1252',
      });
      const byFlags = await cli(dir, ['collection', 'add', '--title', 'T1', '--external-id', 'c1']);
      expect(byFlags.code, byFlags.stderr).toBe(0);
      expect(lineWith(byFlags.stderr, SCHOOL, 'none of its settings')).toBeTruthy();
      const byArguments = await cli(dir, ['invigilators', 'remove', 'S-2', 'inv-1', '--missing-ok']);
      expect(lineWith(byArguments.stderr, SCHOOL, 'none of its settings')).toBeTruthy();
      await writeFile(
        join(dir, 'u.json'),
        '[{"ExternalId":"u1","FirstName":"A","LastName":"B","Email":"a@ex.test","UserName":"u1","Role":"Candidate"}]',
      );
      const json = await cli(dir, ['user', 'sync', '--file', 'u.json', '--dry-run']);
      expect(json.stderr).toContain(
        'profile school (the default profile): map Dept=Company, set Role=Author Company=ACME, timezone Asia/Tokyo; sync memory ',
      );
    }));
});

describe('a typed --set given twice for one field', () => {
  it('exit 2 naming the field, never a value (a PIN neither), nothing made; config set-profile refuses it too (trial42 F02, F04)', () =>
    withTempDir(async (dir) => {
      await setUp(dir);
      const twice = await cli(dir, [
        'schedule',
        'push',
        '--file',
        'c.csv',
        ...SITTING,
        '--set',
        'Owner=dean',
        '--set',
        'owner_=scheduler',
      ]);
      expect(twice.code).toBe(2);
      expectCoded(twice.stderr, 'E2000', '--set', 'Owner');
      expect(twice.stderr).not.toMatch(/dean|scheduler/);
      expect(await sitting(dir, 'S-1')).toBeUndefined();
      for (const secret of [
        ['--set', 'PIN=4711', '--set', 'pin=0815'],
        ['--pin', '4711', '--pin', '0815'],
      ]) {
        const json = await cli(dir, ['--json', 'schedule', 'push', '--file', 'c.csv', ...SITTING, ...secret]);
        expect(json.code).toBe(2);
        expect(`${json.stdout}${json.stderr}`).not.toMatch(/4711|0815/);
        expect(JSON.parse(json.stdout).error.message).toMatch(/given twice/);
      }
      expect(
        (await cli(dir, ['config', 'set-profile', 'school', '--set', 'Role=Author', '--set', 'role=Author'])).code,
      ).toBe(2);
    }));
});
