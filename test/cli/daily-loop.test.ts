import { describe, expect, it } from 'vitest';
import { expectCoded, itemLine } from '../support/coded-message.js';
import { lineWith } from '../support/facts.js';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';

const USERS = resolve(__dirname, '../../fixtures/users.csv');

/** A store with the fixture's users, and a file that creates one, updates one, leaves the rest and has one invalid row. */
async function planCase(dir: string): Promise<{ store: string; file: string }> {
  const store = join(dir, 'store');
  const text = await readFile(USERS, 'utf8');
  await writeFile(join(dir, 'users.csv'), text);
  expect(await runCli(['--store', store, 'user', 'sync', '--file', 'users.csv'], testDeps(dir).deps)).toBe(0);
  const lines = text.trimEnd().split('\n');
  lines[1] = lines[1]!.replace('Haddad', 'Haddad-Smith');
  lines.push(
    'new-1,New,Person,new@students.example.test,new-1,Candidate,H-NORTH,,,',
    'bad-1,,,x,bad-1,Candidate,H-NORTH,,,',
  );
  await writeFile(join(dir, 'changed.csv'), `${lines.join('\n')}\n`);
  return { store, file: 'changed.csv' };
}

describe('a plan people can read (dry run on the local engine)', () => {
  it('the summary counts what would be created, updated, left and refused, changes first, and names changed fields', () =>
    withTempDir(async (dir) => {
      const { store, file } = await planCase(dir);
      const io = testDeps(dir);
      expect(await runCli(['--store', store, 'user', 'sync', '--file', file, '--dry-run'], io.deps)).toBe(1);
      const text = io.stderr.text;
      expect(lineWith(text, 'plan: ', '1 to create', '1 to update', '19 unchanged', '1 invalid')).toBeTruthy();
      expect(text).toContain('  ~ stu-2001 (LastName)');
      expect(text).toContain('  + new-1');
      expect(text).toContain('  ! bad-1 (invalid)');
      expect(text).toMatch(/\+ new-1\n(.|\n)*= stu-2002/);
    }));

  it('the dry-run JSON carries the same plan in the same words', () =>
    withTempDir(async (dir) => {
      const { store, file } = await planCase(dir);
      const io = testDeps(dir);
      await runCli(['--store', store, 'user', 'sync', '--file', file, '--dry-run', '--json'], io.deps);
      expect(JSON.parse(io.stdout.text).plan).toEqual({ toCreate: 1, toUpdate: 1, unchanged: 19, invalid: 1 });
      // A file with no valid record has a plan too: all invalid (a script reads plan.invalid, not null).
      await writeFile(join(dir, 'all-bad.csv'), 'ExternalId,FirstName,LastName,Email\nz-1,A,B,bad\n');
      const bad = testDeps(dir);
      await runCli(['--store', store, 'user', 'sync', '--file', 'all-bad.csv', '--dry-run', '--json'], bad.deps);
      expect(JSON.parse(bad.stdout.text).plan).toEqual({ toCreate: 0, toUpdate: 0, unchanged: 0, invalid: 1 });
      expect(bad.stderr.text).toContain('plan: 1 invalid');
    }));

  it("a schedule's plan names the users its candidates would change, a new schedule's too", () =>
    withTempDir(async (dir) => {
      const store = join(dir, 'store');
      expect(await runCli(['--store', store, 'local', 'init'], testDeps(dir).deps)).toBe(0);
      const push = async (name: string, dry = true): Promise<string> => {
        // c-1001 is Ada Moreno of the demo world, in H-NORTH: another name renames her user.
        await writeFile(
          join(dir, 's.csv'),
          `ScheduleExtId,AssessmentExtId,StartDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email\nS-NEW,A-PHYS-2,2026-12-20T09:00:00Z,H-NORTH,North campus,c-1001,${name},Moreno,ada.moreno@students.example.test\n`,
        );
        const io = testDeps(dir);
        expect(
          await runCli(
            ['--store', store, 'schedule', 'push', '--file', 's.csv', '--upsert', ...(dry ? ['--dry-run'] : [])],
            io.deps,
          ),
        ).toBe(0);
        return io.stderr.text;
      };
      expect(await push('Ada')).toContain('  + S-NEW\n');
      expect(await push('Adaline')).toContain('  + S-NEW (users)\n');
      await push('Adaline', false);
      expect(await push('Adaline')).toContain('  = S-NEW\n');
      expect(await push('Adela')).toContain('  ~ S-NEW (users, Candidates)\n');
    }));

  it('a remote dry run says only the file was checked', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), await readFile(USERS, 'utf8'));
      const io = testDeps(dir);
      expect(
        await runCli(
          ['--base-url', 'https://exam.example.test', 'user', 'sync', '--file', 'users.csv', '--dry-run'],
          io.deps,
        ),
      ).toBe(0);
      expect(io.stderr.text).toContain('only the file was checked');
      expect(io.stderr.text).not.toContain('plan:');
    }));
});

describe('the summary after a run', () => {
  it('says where the report was written, stops suggesting --report, and counts errors per code', () =>
    withTempDir(async (dir) => {
      const rows = Array.from({ length: 25 }, (_, i) => `bad-${i},A,B,not-an-email,bad-${i},Candidate,H-NORTH,,,`);
      await writeFile(
        join(dir, 'bad.csv'),
        `ExternalId,FirstName,LastName,Email,UserName,Role,Hierarchies,Labels,SpecialNeeds,ReasonableAdjustmentPercentage\n${rows.join('\n')}\n`,
      );
      const io = testDeps(dir);
      expect(
        await runCli(
          ['--store', join(dir, 'store'), 'user', 'sync', '--file', 'bad.csv', '--dry-run', '--report', 'result.csv'],
          io.deps,
        ),
      ).toBe(1);
      expect(io.stderr.text).toContain('report written to result.csv');
      expect(io.stderr.text).toContain('every one is in result.csv');
      expect(io.stderr.text).not.toContain('--report <file>');
      expect(io.stderr.text).toMatch(/^\s+209 x 25 /m);
    }));
});

describe('CI', () => {
  it('--report x.xml writes JUnit with a failing testcase per failed record', () =>
    withTempDir(async (dir) => {
      const { store, file } = await planCase(dir);
      const io = testDeps(dir);
      expect(await runCli(['--store', store, 'user', 'sync', '--file', file, '--report', 'result.xml'], io.deps)).toBe(
        1,
      );
      const xml = await readFile(join(dir, 'result.xml'), 'utf8');
      expect(xml).toContain('<testsuite');
      expect(xml.match(/<testcase /g)?.length).toBe(22);
      expect(xml.match(/<failure /g)?.length).toBe(1);
      expect(xml).toContain('209');
    }));

  it('GITHUB_ACTIONS=true: each failed record is also a workflow annotation on stderr', () =>
    withTempDir(async (dir) => {
      const { store, file } = await planCase(dir);
      const io = testDeps(dir, {}, { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: dir });
      await runCli(['--store', store, 'user', 'sync', '--file', file, '--dry-run'], io.deps);
      expect(io.stderr.text).toMatch(/^::error file=changed\.csv,line=23,title=209 212 210::\[bad-1\] Email: /m);
    }));

  it('--json with exit 2 prints one JSON error document on stdout', () =>
    withTempDir(async (dir) => {
      const io = testDeps(dir);
      expect(await runCli(['user', 'sync', '--file', 'missing.csv', '--json'], io.deps)).toBe(2);
      const document = JSON.parse(io.stdout.text) as { error: { exitCode: number; kind: string; message: string } };
      expect(document.error.exitCode).toBe(2);
      expect(['usage', 'input-file']).toContain(document.error.kind);
      expect(document.error.message).toContain('missing.csv');
    }));

  it('--json with a commander usage error (unknown flag) still prints the error document', () =>
    withTempDir(async (dir) => {
      const io = testDeps(dir);
      expect(await runCli(['user', 'sync', '--nope', '-o', 'json'], io.deps)).toBe(2);
      expect(JSON.parse(io.stdout.text).error.kind).toBe('usage');
    }));
});

describe('a dry run fails where the real run would', () => {
  it('plain http to a host other than loopback: exit 2 with the same message, nothing checked', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), await readFile(USERS, 'utf8'));
      const dry = testDeps(dir);
      expect(
        await runCli(
          ['--base-url', 'http://exam.example.test', 'user', 'sync', '--file', 'users.csv', '--dry-run'],
          dry.deps,
        ),
      ).toBe(2);
      expectCoded(dry.stderr.text, 'E2000', 'http://', 'exam.example.test');
      const allowed = testDeps(dir);
      expect(
        await runCli(
          [
            '--base-url',
            'http://exam.example.test',
            '--allow-insecure-http',
            'user',
            'sync',
            '--file',
            'users.csv',
            '--dry-run',
          ],
          allowed.deps,
        ),
      ).toBe(0);
    }));
});

describe('re-run safety of schedule push', () => {
  const flags = ['--assessment', 'A-MATH-1', '--group', 'H-NORTH', '--group-name', 'North'];
  const candidates = 'CandidateExtId,FirstName,LastName,Email\nc-1,A,B,a@students.example.test\n';

  it('a candidates file without --schedule-id: said before sending, and the generated id printed with the flags to reuse it', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'cands.csv'), candidates);
      const io = testDeps(dir);
      expect(
        await runCli(
          [
            '--store',
            join(dir, 'store'),
            'schedule',
            'push',
            '--file',
            'cands.csv',
            '--start',
            '2026-12-01T09:00:00Z',
            ...flags,
          ],
          io.deps,
        ),
      ).toBe(0);
      const text = io.stderr.text;
      expect(text.indexOf('every run makes a new schedule')).toBeGreaterThanOrEqual(0);
      expect(text.indexOf('every run makes a new schedule')).toBeLessThan(text.indexOf('schedule push on'));
      const id = /generated ScheduleExtId: (\S+)/.exec(text)?.[1];
      expect(id).toBeDefined();
      expect(text).toContain(`--schedule-id ${id} --upsert`);
      expect(text).not.toContain('already past');
    }));

  it('a sittings file whose ScheduleExtId cell is empty on some rows: the note names those rows, not a missing column', () =>
    withTempDir(async (dir) => {
      const row = (id: string, n: number) =>
        `${id},A-MATH-1,2027-06-10T09:00:00Z,2027-06-10T12:00:00Z,H-NORTH,North,c-${n},A,B,c${n}@students.example.test`;
      await writeFile(
        join(dir, 'sit.csv'),
        `ScheduleExtId,AssessmentExtId,StartDateTime,EndDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email\n${row('S-E1', 1)}\n${row('', 2)}\n${row('', 3)}\n`,
      );
      const io = testDeps(dir);
      expect(await runCli(['--store', join(dir, 'store'), 'schedule', 'push', '--file', 'sit.csv'], io.deps)).toBe(0);
      expect(io.stderr.text).toContain(
        'note: no --schedule-id, and ScheduleExtId is empty on sit.csv:3, sit.csv:4: every run makes a new schedule for such rows, so running this again makes another one.',
      );
      expect(io.stderr.text).not.toContain('no ScheduleExtId column');
    }));

  it('the duplicate message names --upsert; a past StartDateTime gets a warning', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'cands.csv'), candidates);
      const argv = [
        '--store',
        join(dir, 'store'),
        'schedule',
        'push',
        '--file',
        'cands.csv',
        '--schedule-id',
        'S-X',
        ...flags,
      ];
      expect(await runCli([...argv, '--start', '2026-12-01T09:00:00Z'], testDeps(dir).deps)).toBe(0);
      const again = testDeps(dir);
      expect(await runCli([...argv, '--start', '2026-12-01T09:00:00Z'], again.deps)).toBe(1);
      expect(itemLine(again.stderr.text, 'S-X', 'Schedule.ScheduleExtId')).toContain('--upsert');
      expect(again.stderr.text).not.toMatch(/^note: no --schedule-id/m);
      const past = testDeps(dir);
      await runCli([...argv, '--start', '2026-01-01T09:00:00Z', '--dry-run'], past.deps);
      expect(lineWith(past.stderr.text, 'S-X', '2026-01-01T09:00:00Z')).toMatch(/^warning: StartDateTime /);
    }));
});

describe('--file - reads stdin', () => {
  it('a real run reads the piped CSV (twice: structure, then send) and names it stdin', () =>
    withTempDir(async (dir) => {
      const text = await readFile(USERS, 'utf8');
      const io = testDeps(dir, { stdin: Readable.from([text]) });
      expect(
        await runCli(['--store', join(dir, 'store'), 'user', 'sync', '--file', '-', '--report', 'r.csv'], io.deps),
      ).toBe(0);
      expect(io.stderr.text).toMatch(/20 items: 20 ok/);
      const bad = testDeps(dir, {
        stdin: Readable.from(['ExternalId,FirstName,LastName,Email,UserName,Role\nu-1,A,B,nope,u-1,Candidate\n']),
      });
      expect(await runCli(['--store', join(dir, 'store'), 'user', 'sync', '--file', '-', '--dry-run'], bad.deps)).toBe(
        1,
      );
      expect(bad.stderr.text).toContain('stdin:2 [u-1] Email 209');
    }));
});

describe('the local store is found like .git', () => {
  it('from a subdirectory, the parent directory store is used and named; local init still makes one here', () =>
    withTempDir(async (dir) => {
      expect(await runCli(['local', 'init'], testDeps(dir).deps)).toBe(0);
      const sub = join(dir, 'exams', 'dec');
      await mkdir(sub, { recursive: true });
      const io = testDeps(sub, {}, { HOME: '/nowhere' });
      expect(await runCli(['schedule', 'links', 'S-FUTURE', '-o', 'json'], io.deps)).toBe(0);
      expect(io.stderr.text).toContain(`using the local store ${join('..', '..', '.examctl-store')}`);
      expect(JSON.parse(io.stdout.text).target.store).toBe(join(dir, '.examctl-store'));
      expect(existsSync(join(sub, '.examctl-store'))).toBe(false);
    }));

  it('the search stops below the home directory', () =>
    withTempDir(async (dir) => {
      expect(await runCli(['local', 'init'], testDeps(dir).deps)).toBe(0);
      const sub = join(dir, 'home', 'ann');
      await mkdir(sub, { recursive: true });
      const io = testDeps(sub, {}, { HOME: sub });
      await runCli(['user', 'sync', '--file', USERS, '--dry-run'], io.deps);
      expect(io.stderr.text).not.toContain('using the local store');
      expect(io.stderr.text).toContain(`no store yet at ${join(sub, '.examctl-store')}`);
    }));
});

describe('invigilators remove says who was removed', () => {
  it('names the removed ids and the ones that were not invigilators', () =>
    withTempDir(async (dir) => {
      const io = testDeps(dir);
      expect(
        await runCli(
          ['--store', join(dir, 'store'), 'invigilators', 'remove', 'S-FUTURE', 'inv-1', 'inv-2', 'stu-2001'],
          io.deps,
        ),
      ).toBe(1);
      expect(lineWith(io.stderr.text, 'removed from S-FUTURE', 'inv-1, inv-2')).toMatch(/^removed /);
      expect(lineWith(io.stderr.text, 'not invigilators of S-FUTURE', 'stu-2001')).toBeTruthy();
      const dry = testDeps(dir);
      await runCli(
        ['--store', join(dir, 'store'), 'invigilators', 'remove', 'S-FUTURE', 'inv-3', '--dry-run'],
        dry.deps,
      );
      expect(lineWith(dry.stderr.text, 'would remove from S-FUTURE', 'inv-3')).toBeTruthy();
    }));
});

describe('an unknown CSV header suggests the column it resembles', () => {
  it('Emial -> Email, FristName -> FirstName; an unrelated name suggests nothing', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'typo.csv'), 'ExternalId,FristName,LastName,Emial,Shoe\nu-1,A,B,a@example.test,42\n');
      const io = testDeps(dir);
      expect(
        await runCli(['--store', join(dir, 'store'), 'user', 'sync', '--file', 'typo.csv', '--dry-run'], io.deps),
      ).toBe(2);
      expect(io.stderr.text).toContain('"FristName" (did you mean "FirstName"?)');
      expect(io.stderr.text).toContain('"Emial" (did you mean "Email"?)');
      expect(io.stderr.text).toMatch(/"Shoe"(?! \(did)/);
    }));
});
