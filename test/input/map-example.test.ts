/**
 * `examctl template <kind> --map-example` prints a map file with every kind of entry and its notes
 * that examctl reads as it is: each kind's example, saved and given to its command with an export
 * holding the example's columns, passes a dry run with every value computed.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';

async function cli(dir: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = testDeps(dir);
  const code = await runCli(args, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

/** A remote dry run checks the file only: no store, no token, no connection. */
const REMOTE = ['--base-url', 'https://exam.example.org', '--dry-run', '--json'];

const EXPORTS: Record<string, { command: string[]; csv: string[]; mapped: Record<string, string> }> = {
  users: {
    command: ['user', 'sync', '--set', 'Role=Author', '--date-format', 'DD/MM/YYYY'],
    csv: [
      'Student ID,Given name,Surname,Date of birth,Year group,School email,Home email,Department,Exams Officer,Sees Reports',
      'u-1,Ann,Lee,17/03/2004,Year 10,,ann@home.example,Mathematics,Y,y',
    ],
    mapped: {
      Labels: 'Y10',
      UserName: 'Ann.Lee',
      Email: 'ann@home.example',
      Hierarchies: 'DEPT-MATH:coordinator+reports',
    },
  },
  sittings: {
    command: ['schedule', 'push', '--date-format', 'DD/MM/YYYY HH:mm', '--timezone', 'Europe/London'],
    csv: [
      'Candidate number,Forename,Surname,Exam start,School email,Home email,Parent email,Access arrangements,Paper,Centre,Session',
      'c-1,Ann,Lee,14/06/2027 09:00,,,p@home.example,Extra time,Maths Paper 1,NORTH,AM',
    ],
    mapped: {
      // A sitting's rows: its schedule's fields named as the request names them, its candidate's as the row's.
      UserName: 'Ann.Lee',
      Email: 'p@home.example',
      SpecialNeeds: 'yes',
      'Schedule.AssessmentExtId': 'A-MATH-1',
      'Schedule.ScheduleExtId': 'S-NORTH-AM',
      'Schedule.GroupExtId': 'H-NORTH',
      'Schedule.GroupName': 'NORTH - AM',
    },
  },
  candidates: {
    command: [
      'schedule',
      'push',
      '--schedule-id',
      'S-1',
      '--assessment',
      'A-MATH-1',
      '--group',
      'H-1',
      '--group-name',
      'G',
      '--start',
      '2027-06-14T09:00:00Z',
    ],
    csv: [
      'Candidate number,Forename,Surname,School email,Home email,Parent email,Access arrangements',
      'c-1,Ann,Lee,ann@school.example,,,None',
    ],
    mapped: { UserName: 'Ann.Lee', Email: 'ann@school.example', SpecialNeeds: 'no' },
  },
  collection: {
    command: ['collection', 'add'],
    csv: ['Item code,Subject,Owner,LoRepositoryExternalIds', 'item1,Mathematics,owner@example.test,REPO-1'],
    mapped: { Title: 'Mathematics - item1', Taxonomies: 'TAX-MATH' },
  },
};

describe('template --map-example', () => {
  it.each(Object.keys(EXPORTS))('%s: a valid map file with notes, read as it is printed', (kind) =>
    withTempDir(async (dir) => {
      const printed = await cli(dir, ['template', kind, '--map-example']);
      expect(printed.code, printed.stderr).toBe(0);
      const example = JSON.parse(printed.stdout) as Record<string, unknown>;
      expect(Object.keys(example).filter((key) => key.startsWith('//')).length).toBeGreaterThan(2);
      await writeFile(join(dir, 'map.json'), printed.stdout);
      const { command, csv, mapped } = EXPORTS[kind]!;
      await writeFile(join(dir, 'export.csv'), `${csv.join('\n')}\n`);
      const run = await cli(dir, [...REMOTE, ...command, '--file', 'export.csv', '--map-file', 'map.json']);
      expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(0);
      const item = (
        JSON.parse(run.stdout) as { items: { status: string; mapped: { field: string; value: string }[] }[] }
      ).items[0]!;
      expect(item.status).toBe('ok');
      expect(Object.fromEntries(item.mapped.map((value) => [value.field, value.value]))).toEqual(mapped);
    }),
  );

  it('users: every kind of entry is there (a column, a value table, a template, a fallback, Hierarchies with flags)', () =>
    withTempDir(async (dir) => {
      const example = JSON.parse((await cli(dir, ['template', 'users', '--map-example'])).stdout) as Record<
        string,
        Record<string, unknown> | string
      >;
      expect(example['Student ID']).toBe('ExternalId');
      expect(example['Year group']).toMatchObject({ field: 'Labels', values: { 'Year 10': 'Y10' } });
      expect(example.UserName).toHaveProperty('template');
      expect(example.Email).toHaveProperty('fallback');
      expect(example.Hierarchies).toHaveProperty('flags');
    }));

  it.each(Object.keys(EXPORTS))(
    '%s: no value table has a "default", so a word it does not know is never sent as another',
    (kind) =>
      withTempDir(async (dir) => {
        const example = JSON.parse((await cli(dir, ['template', kind, '--map-example'])).stdout) as Record<
          string,
          unknown
        >;
        const withDefault = Object.entries(example).filter(
          ([, entry]) => typeof entry === 'object' && entry !== null && 'default' in entry,
        );
        expect(withDefault.map(([key]) => key)).toEqual([]);
      }),
  );

  it('candidates: an access arrangement the table does not know (Reader) fails its row, never sent as SpecialNeeds no', () =>
    withTempDir(async (dir) => {
      const printed = await cli(dir, ['template', 'candidates', '--map-example']);
      await writeFile(join(dir, 'map.json'), printed.stdout);
      const { command, csv } = EXPORTS.candidates!;
      await writeFile(join(dir, 'export.csv'), `${csv[0]}\nc-1,Ann,Lee,ann@school.example,,,Reader\n`);
      const run = await cli(dir, [...REMOTE, ...command, '--file', 'export.csv', '--map-file', 'map.json']);
      expect(run.code).toBe(1);
      const items = (
        JSON.parse(run.stdout) as { items: { status: string; errors: { field: string; message: string }[] }[] }
      ).items;
      expect(items.map((item) => item.status)).toEqual(['failed']);
      expect(items[0]!.errors.map((error) => error.message)).toEqual([
        expect.stringMatching(
          /^Access arrangements "Reader" has no entry in the value table of --map-file map\.json:\d+ "Access arrangements" \(known: "Extra time", "None"\)/,
        ),
      ]);
    }));

  it('invigilators has none, schedules is called sittings, and -o xlsx is refused: a map file is JSON', () =>
    withTempDir(async (dir) => {
      const none = await cli(dir, ['template', 'invigilators', '--map-example']);
      expect(none.code).toBe(2);
      expectCoded(none.stderr, 'E2000', '--map-example', 'invigilators');
      // The command's own word for its file names the kind.
      const schedules = await cli(dir, ['template', 'schedules', '--map-example']);
      expect([schedules.code, schedules.stdout, schedules.stderr]).toEqual([
        2,
        '',
        'examctl: E2000: unknown kind "schedules": schedule push reads "sittings"; one of users, candidates, sittings, collection, invigilators\n',
      ]);
      const xlsx = await cli(dir, ['template', 'users', '--map-example', '-o', 'xlsx']);
      expect(xlsx.code).toBe(2);
      expectCoded(xlsx.stderr, 'E2000', '--map-example', 'JSON');
    }));
});
