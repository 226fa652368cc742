/**
 * Issue 50's "Done when", whole, through the real CLI as an exams officer in Europe/London would
 * go: an SIS export (Windows-1252, `;`, CRLF, ids with leading zeros, DD/MM/YYYY dates, department
 * names) and an HR export (a department column and Y/N, true/false, 1/0 columns) go in with only a
 * map file and a profile each, never edited; the words no table knows fail their rows by name, and
 * a dry run's workbook report marks the cell each failed on, computed fields included; a
 * schedule's wrong times are quoted as the file wrote them, the UTC second; the term's review
 * sessions come out as one typed workbook in London time, read back by openpyxl (python3) as
 * numbers, datetimes and text with its leading zeros.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { firstSheet, HAS_OPENPYXL, openpyxl, oracleCell, rowsByHeader, type OracleSheet } from '../xlsx/helpers.js';
import { testDeps, withTempDir } from './helpers.js';
import { onTarget } from '../support/target-flags.js';
import { lineWith, summaryOf } from '../support/facts.js';

async function cli(dir: string, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = testDeps(dir);
  const code = await runCli(onTarget(['--store', join(dir, 'store')], argv), io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

/** A file as Excel saves "CSV" on a UK Windows: Windows-1252, CRLF. */
function windows1252(lines: string[]): Buffer {
  return Buffer.from(`${lines.join('\r\n')}\r\n`, 'latin1');
}

const SIS = windows1252([
  'Pupil No;Forename;Family name;Pupil email;DOB;Form;Subject',
  '000417;Siobhán;Ó Dónaill;siobhan.odonaill@acad.example;17/03/2011;10A;Mathematics',
  '000418;Zoë;Brontë;zoe.bronte@acad.example;02/11/2010;11B;  science  ',
  '000419;Renée;Faÿ;renee.fay@acad.example;29/02/2012;10A;Maths',
]);

const SIS_MAP = {
  '//': "the SIS's nightly export",
  'Pupil No': 'ExternalId',
  Forename: 'FirstName',
  'Family name': 'LastName',
  'Pupil email': 'Email',
  DOB: 'DateOfBirth',
  UserName: { template: 'pupil-{Pupil No}' },
  Form: { field: 'Labels', values: { '10A': 'Y10', '11B': 'Y11' } },
  Subject: { field: 'Hierarchies', values: { Mathematics: 'DEPT-MATH', Science: 'DEPT-SCI' } },
};

const HR = windows1252([
  'Staff Ref;Given;Surname;Work email;Personal email;Dept;Exams Officer;Sees Reports;Rescorer',
  '0071;Ann;Lee;ann.lee@acad.example;;Mathematics;Y;Y;0',
  '0072;Bob;Ng;;bob.ng@home.example;Science;N;true;1',
  '0074;Dan;Øberg;dan.oberg@acad.example;;History;N;N;0',
  '0075;Eve;Ames;eve.ames@acad.example;;Mathematics;maybe;N;0',
  '0076;Fay;Orr;fay.orr@acad.example;;;Y;N;0',
  '0077;Gus;Ray;;gus at home;Science;N;N;0',
]);

const HR_MAP = {
  'Staff Ref': 'ExternalId',
  Given: 'FirstName',
  Surname: 'LastName',
  Email: { column: 'Work email', fallback: 'Personal email' },
  UserName: { template: '{Given}.{Surname}' },
  Hierarchies: {
    column: 'Dept',
    values: { Mathematics: 'DEPT-MATH', Science: 'DEPT-SCI' },
    flags: { 'Exams Officer': 'coordinator', 'Sees Reports': 'reports', Rescorer: 'rescoring' },
  },
};

const SITTINGS = windows1252([
  'Centre;Session;Paper;Exam start;Exam end;Candidate number;Forename;Surname;Email',
  'NORTH;AM;Maths Paper 1;28/03/2027 09:00;28/03/2027 08:30;000417;Siobhán;Ó Dónaill;s.o@acad.example',
  'WEST;PM;Maths Paper 1;15/06/2027 14:00;15/06/2027 17:00;000418;Zoë;Brontë;z.b@acad.example',
]);

const SITTINGS_MAP = {
  'Candidate number': 'CandidateExtId',
  'Exam start': 'StartDateTime',
  'Exam end': 'EndDateTime',
  Forename: 'FirstName',
  Surname: 'LastName',
  Paper: { field: 'AssessmentExtId', values: { 'Maths Paper 1': 'A-MATH-1' } },
  ScheduleExtId: { template: 'S-{Centre}-{Session}' },
  GroupExtId: { template: 'H-{Centre}' },
  GroupName: { template: '{Centre} - {Session}' },
};

/** The demo world with the school's departments and a term of three sittings' review sessions, its ids and keycodes digits with leading zeros. */
async function schoolStore(dir: string): Promise<void> {
  expect((await cli(dir, ['local', 'init'])).code).toBe(0);
  expect((await cli(dir, ['local', 'export', '--out', 'world.json'])).code).toBe(0);
  const world = JSON.parse(await readFile(join(dir, 'world.json'), 'utf8')) as {
    Hierarchies: Record<string, unknown>[];
    ReviewSessions: { ExternalId: string; Results: Record<string, unknown>[] }[];
  };
  world.Hierarchies.push(
    { ExternalId: 'DEPT-MATH', Title: 'Mathematics', Parent: 'root', Active: true },
    { ExternalId: 'DEPT-SCI', Title: 'Science', Parent: 'root', Active: true },
  );
  const maths = world.ReviewSessions.find((session) => session.ExternalId === 'RS-MATH1-OCT')!;
  for (const n of [1, 2, 3]) {
    const sitting = JSON.parse(JSON.stringify(maths)) as typeof maths;
    sitting.ExternalId = `RS-T1-0${n}`;
    sitting.Results.forEach((result, i) =>
      Object.assign(result, { CandidateExtId: `00${417 + i}`, Keycode: `00${n}${i}` }),
    );
    world.ReviewSessions.push(sitting);
  }
  await writeFile(join(dir, 'world.json'), JSON.stringify(world));
  expect((await cli(dir, ['local', 'init', '--seed', 'world.json', '--force'])).code).toBe(0);
}

async function workbookRows(path: string): Promise<Map<string, ExcelJS.Cell>[]> {
  return rowsByHeader(await firstSheet(path));
}

/** The marked cells of a dry run's workbook report: column header -> the cell's note (its errors' codes and messages), for each data row. */
function marked(rows: Map<string, ExcelJS.Cell>[]): Record<string, string>[] {
  return rows.map((row) => {
    const marks: Record<string, string> = {};
    for (const [name, cell] of row) {
      if ((cell.fill as ExcelJS.FillPattern | undefined)?.fgColor?.argb !== 'FFC00000') continue;
      const note = cell.note;
      marks[name] = typeof note === 'string' ? note : (note?.texts ?? []).map((run) => run.text).join('');
    }
    return marks;
  });
}

interface ExportedUser {
  ExternalId: string;
  UserName: string;
  FirstName: string;
  LastName: string;
  Email: string;
  DateOfBirth: string | null;
  Labels: string[] | null;
  Hierarchies:
    | {
        ExternalId: string;
        IsCoordinator: boolean;
        HasViewReportsPermissions: boolean;
        HasReScoringPermissions: boolean;
      }[]
    | null;
}

async function usersOf(dir: string): Promise<Map<string, ExportedUser>> {
  expect((await cli(dir, ['local', 'export', '--out', 'after.json'])).code).toBe(0);
  const world = JSON.parse(await readFile(join(dir, 'after.json'), 'utf8')) as { Users: ExportedUser[] };
  return new Map(world.Users.map((user) => [user.ExternalId, user]));
}

describe("an exams officer's term: the exports in with their own words, the results out in London time and the workbook's types", () => {
  it('SIS and HR exports through a map file and a profile each; unknown words fail by name; a schedule error quotes the file; the term as one typed workbook', async (context) => {
    await withTempDir(async (dir) => {
      await schoolStore(dir);
      await writeFile(join(dir, 'sis.csv'), SIS);
      await writeFile(join(dir, 'hr.csv'), HR);
      await writeFile(join(dir, 'sittings.csv'), SITTINGS);
      await writeFile(join(dir, 'sis-map.json'), JSON.stringify(SIS_MAP, null, 2));
      await writeFile(join(dir, 'hr-map.json'), JSON.stringify(HR_MAP, null, 2));
      await writeFile(join(dir, 'sittings-map.json'), JSON.stringify(SITTINGS_MAP, null, 2));
      const base = ['--base-url', 'https://exam.acad.example'];
      const sisProfile = await cli(dir, [
        'config',
        'set-profile',
        'sis',
        ...base,
        '--map-file',
        'sis-map.json',
        '--set',
        'Role=Candidate',
        '--date-format',
        'DD/MM/YYYY',
        '--timezone',
        'Europe/London',
        '--encoding',
        'windows-1252',
        '--delimiter',
        ';',
      ]);
      expect(sisProfile.code, sisProfile.stderr).toBe(0);
      expect(
        (
          await cli(dir, [
            'config',
            'set-profile',
            'hr',
            ...base,
            '--map-file',
            'hr-map.json',
            '--set',
            'Role=Author',
            '--encoding',
            'windows-1252',
          ])
        ).code,
      ).toBe(0);
      expect(
        (
          await cli(dir, [
            'config',
            'set-profile',
            'exams',
            ...base,
            '--map-file',
            'sittings-map.json',
            '--date-format',
            'DD/MM/YYYY HH:mm',
            '--timezone',
            'Europe/London',
            '--encoding',
            'windows-1252',
          ])
        ).code,
      ).toBe(0);
      const shown = await cli(dir, ['config', 'show']);
      expect(shown.stdout).toContain(
        `* sis  https://exam.acad.example  token: not set  (mapFile ${join(dir, 'sis-map.json')}, set Role=Candidate, dateFormat DD/MM/YYYY, timezone Europe/London, encoding windows-1252, delimiter ;)`,
      );

      // The SIS: a dry run names the word no table knows, and marks its cell in the workbook report.
      const sisDry = await cli(dir, [
        '--profile',
        'sis',
        '--target',
        'local',
        'user',
        'sync',
        '--file',
        'sis.csv',
        '--dry-run',
        '--report',
        'sis-dry.xlsx',
      ]);
      expect(sisDry.code).toBe(1);
      expect(summaryOf(sisDry.stderr)).toMatchObject({
        dryRun: true,
        total: 3,
        ok: 2,
        partial: 0,
        failed: 1,
        skipped: 0,
      });
      expect(sisDry.stderr).toContain(
        `sis.csv:4 [000419] Hierarchies 9016 Subject "Maths" has no entry in the value table of profile sis: mapFile ${join(dir, 'sis-map.json')}:18 "Subject" (known: "Mathematics", "Science")`,
      );
      expect(sisDry.stderr).toContain('Hierarchies "DEPT-SCI" from Subject "science"');
      const sisReport = await workbookRows(join(dir, 'sis-dry.xlsx'));
      expect(sisReport[0]!.get('Pupil No')!.value).toBe('000417');
      expect(sisReport[0]!.get('Forename')!.value).toBe('Siobhán');
      expect(marked(sisReport)).toEqual([
        {},
        {},
        { Subject: expect.stringMatching(/^9016 Hierarchies: Subject "Maths" has no entry/) as unknown as string },
      ]);

      // Sent: the platform's words, never the export's.
      expect(
        (await cli(dir, ['--profile', 'sis', '--target', 'local', 'user', 'sync', '--file', 'sis.csv'])).code,
      ).toBe(1);
      let users = await usersOf(dir);
      expect(users.get('000417')).toMatchObject({
        UserName: 'pupil-000417',
        FirstName: 'Siobhán',
        LastName: 'Ó Dónaill',
        DateOfBirth: '2011-03-17',
        Labels: ['Y10'],
        Hierarchies: [{ ExternalId: 'DEPT-MATH', IsCoordinator: false }],
      });
      expect(users.get('000418')?.Hierarchies).toMatchObject([{ ExternalId: 'DEPT-SCI' }]);
      expect(users.has('000419')).toBe(false);

      // The HR: Y/N, true/false and 1/0 give the flags; each row that cannot be read fails by name, its own cell marked.
      const hrDry = await cli(dir, [
        '--profile',
        'hr',
        '--target',
        'local',
        'user',
        'sync',
        '--file',
        'hr.csv',
        '--dry-run',
        '--report',
        'hr-dry.xlsx',
      ]);
      expect(hrDry.code).toBe(1);
      expect(summaryOf(hrDry.stderr)).toMatchObject({
        dryRun: true,
        total: 6,
        ok: 2,
        partial: 0,
        failed: 4,
        skipped: 0,
      });
      expect(hrDry.stderr).toContain(
        'hr.csv:4 [0074] Hierarchies 9016 Dept "History" has no entry in the value table of profile hr',
      );
      expect(hrDry.stderr).toContain('(known: "Mathematics", "Science")');
      expect(hrDry.stderr).toContain(
        'hr.csv:5 [0075] Hierarchies 9016 Exams Officer "maybe" is not yes or no (Y/N, yes/no, true/false, 1/0)',
      );
      expect(hrDry.stderr).toContain(
        'hr.csv:6 [0076] Hierarchies 9016 Exams Officer "Y" gives the flag coordinator but "Dept" is empty: a flag needs a hierarchy',
      );
      expect(hrDry.stderr).toContain(
        'Hierarchies "DEPT-MATH:coordinator+reports" from Dept "Mathematics", Exams Officer "Y", Sees Reports "Y", Rescorer "0"',
      );
      expect(hrDry.stderr).toContain('Email "bob.ng@home.example" from Personal email "bob.ng@home.example"');
      const hrMarks = marked(await workbookRows(join(dir, 'hr-dry.xlsx')));
      expect(hrMarks.map((marks) => Object.keys(marks))).toEqual([
        [],
        [],
        ['Dept'],
        ['Exams Officer'],
        ['Dept'],
        ['Personal email'],
      ]);
      expect(hrMarks[2]!.Dept).toMatch(/^9016 Hierarchies: .*"History"/);
      expect(hrMarks[5]!['Personal email']).toMatch(/^209 Email: /);
      expect((await cli(dir, ['--profile', 'hr', '--target', 'local', 'user', 'sync', '--file', 'hr.csv'])).code).toBe(
        1,
      );
      users = await usersOf(dir);
      expect(users.get('0071')).toMatchObject({
        UserName: 'Ann.Lee',
        Email: 'ann.lee@acad.example',
        Hierarchies: [
          {
            ExternalId: 'DEPT-MATH',
            IsCoordinator: true,
            HasViewReportsPermissions: true,
            HasReScoringPermissions: false,
          },
        ],
      });
      expect(users.get('0072')).toMatchObject({
        Email: 'bob.ng@home.example',
        Hierarchies: [
          {
            ExternalId: 'DEPT-SCI',
            IsCoordinator: false,
            HasViewReportsPermissions: true,
            HasReScoringPermissions: true,
          },
        ],
      });
      for (const id of ['0074', '0075', '0076', '0077']) expect(users.has(id)).toBe(false);

      // A schedule whose end comes before its start: the times as the file wrote them, with the zone, the UTC second.
      const push = await cli(dir, [
        '--profile',
        'exams',
        '--target',
        'local',
        'schedule',
        'push',
        '--file',
        'sittings.csv',
      ]);
      expect(push.code).toBe(1);
      expect(push.stderr).toContain(
        'sittings.csv:2 [S-NORTH-AM] Schedule.EndDateTime - EndDateTime must be after StartDateTime: EndDateTime 28/03/2027 08:30 (Europe/London) = 2027-03-28T07:30:00.000Z, StartDateTime 28/03/2027 09:00 (Europe/London) = 2027-03-28T08:00:00.000Z',
      );
      expect(summaryOf(push.stderr)).toMatchObject({ total: 2, ok: 1, partial: 0, failed: 1, skipped: 0 });

      // The term's results: one workbook, the profile's zone, one row for the session that cannot be read.
      await writeFile(join(dir, 'term.csv'), 'ExternalId\nRS-T1-01\nRS-T1-02\nRS-NOPE\nRS-T1-03\n');
      const term = await cli(dir, [
        '--profile',
        'sis',
        '--target',
        'local',
        'review-session',
        'show',
        '--file',
        'term.csv',
        '-o',
        'xlsx',
        '--out',
        'term.xlsx',
      ]);
      expect(term.code).toBe(1);
      expect(lineWith(term.stderr, '4 review sessions', '3 read', '1 failed')).toBeTruthy();
      const rows = await workbookRows(join(dir, 'term.xlsx'));
      expect(rows.map((row) => row.get('ReviewSession')!.value)).toEqual([
        ...Array(6).fill('RS-T1-01'),
        ...Array(6).fill('RS-T1-02'),
        'RS-NOPE',
        ...Array(6).fill('RS-T1-03'),
      ]);
      expect(rows[12]!.get('Error')!.value).toMatch(/^1101 .*\bRS-NOPE$/);
      // The table says which zone its times are in.
      const table = await cli(dir, ['--profile', 'sis', '--target', 'local', 'review-session', 'show', 'RS-T1-01']);
      expect(table.stdout).toMatch(/Times +│ Europe\/London \(profile sis\), DD\/MM\/YYYY/);
      expect(table.stdout).toContain('12/10/2026 09:00');

      if (!HAS_OPENPYXL) {
        context.skip(
          'python3 with openpyxl is not installed: the term workbook was read with exceljs only, not by openpyxl',
        );
        return;
      }
      const [sheet] = openpyxl(join(dir, 'term.xlsx')) as [OracleSheet];
      const cell = oracleCell(sheet);
      expect(cell(1, 'CandidateExtId')).toEqual(['str', '00417']);
      expect(cell(1, 'Keycode')).toEqual(['str', '0010']);
      expect(cell(1, 'Score')).toEqual(['float', '87.5']);
      expect(cell(2, 'Score')).toEqual(['int', '41']);
      // 2026-10-12T08:00Z and 2026-10-13T18:21Z in London (BST): 09:00 and 19:21.
      expect(cell(1, 'PublishedDate')).toEqual(['datetime', '2026-10-12T09:00:00']);
      expect(cell(1, 'VisitedDate')).toEqual(['datetime', '2026-10-13T19:21:00']);
      expect(cell(2, 'DateOfBirth')).toEqual(['datetime', '2004-03-17T00:00:00']);
      expect(cell(1, 'IsVisited')).toEqual(['bool', 'True']);
      expect(cell(13, 'Error')).toEqual(['str', '1101 Review session has not been found: RS-NOPE']);
    });
  });
});
