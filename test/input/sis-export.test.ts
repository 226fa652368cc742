/**
 * Issue 32's done-when: a student information system's export as Excel saves it in a German
 * locale (`;`, BOM, CRLF, its own headers, DD.MM.YYYY dates, local times across both daylight
 * saving changes in Europe/Berlin and America/New_York) through `user sync` and `schedule push`
 * to a loopback server, every request body compared field by field.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { writeWorkbook } from '../xlsx/helpers.js';
import { lineWith } from '../support/facts.js';
import { answeredAsPlatform } from '../support/platform-store-route.js';

interface Received {
  path: string;
  body: Record<string, unknown>;
}

let server: http.Server;
let url: string;
const received: Received[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (answeredAsPlatform(req, res)) return;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      received.push({ path: req.url ?? '', body });
      res.writeHead(200, { 'content-type': 'application/json' });
      const content = req.url?.includes('/schedule')
        ? (body.Schedule as Record<string, unknown>).ScheduleExtId
        : { User: body, GroupErrors: [] };
      res.end(JSON.stringify({ Content: content, Success: true, Errors: null }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A file as Excel writes "CSV UTF-8" on a German Windows: BOM, `;`, CRLF. */
function excelCsv(rows: readonly string[]): string {
  return `\ufeff${rows.join('\r\n')}\r\n`;
}

const STUDENTS = excelCsv([
  'Student ID;Given name;Surname;E-Mail;Mobile;Date of birth;Class;Nickname',
  'S-1001;Jürgen;Müller;juergen.mueller@stud.uni-example.de;+49 151 2345678;15.07.2000;H-NORTH;Jü',
  "S-1002;Siobhán;O'Brien;o'brien@x.ie;;1.2.2001;H-NORTH;",
  'S-1003;Ann;Lee;first.last+tag@sub.example.co.uk;+1 212 555 0100;29.02.2004;H-SOUTH|H-NORTH;Annie',
]);

const MAP = {
  'Student ID': 'ExternalId',
  'Given name': 'FirstName',
  Surname: 'LastName',
  Mobile: 'CellularPhone',
  'Date of birth': 'DateOfBirth',
  Class: 'Hierarchies',
};

function remote(...args: string[]): string[] {
  return ['--base-url', url, '--allow-insecure-http', '--yes', ...args];
}

const TOKEN = { EXAMCTL_TOKEN: 'dev-token' };

describe('an SIS export through user sync', () => {
  it('maps the headers, sets Role, reads DD.MM.YYYY and sends every field as the API wants it', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'students.csv'), STUDENTS);
      await writeFile(join(dir, 'map.json'), JSON.stringify(MAP));
      received.length = 0;
      const io = testDeps(dir, {}, TOKEN);
      const code = await runCli(
        remote(
          'user',
          'sync',
          '--file',
          'students.csv',
          '--map-file',
          'map.json',
          '--map',
          'Nickname=Labels',
          '--set',
          'Role=Candidate',
          '--date-format',
          'DD.MM.YYYY',
          '--report',
          'result.csv',
        ),
        io.deps,
      );
      expect(code, io.stderr.text).toBe(0);
      const bodies = received
        .filter((r) => r.path.includes('/user'))
        .map((r) => r.body)
        .sort((a, b) => String(a.ExternalId).localeCompare(String(b.ExternalId)));
      const membership = (id: string) => ({
        ExternalId: id,
        IsCoordinator: false,
        IsAdministrator: false,
        HasViewReportsPermissions: false,
        HasReScoringPermissions: false,
      });
      expect(bodies).toEqual([
        {
          ExternalId: 'S-1001',
          FirstName: 'Jürgen',
          LastName: 'Müller',
          Email: 'juergen.mueller@stud.uni-example.de',
          CellularPhone: '+49 151 2345678',
          DateOfBirth: '2000-07-15',
          Hierarchies: [membership('H-NORTH')],
          Labels: ['Jü'],
          Role: 'Candidate',
        },
        {
          ExternalId: 'S-1002',
          FirstName: 'Siobhán',
          LastName: "O'Brien",
          Email: "o'brien@x.ie",
          DateOfBirth: '2001-02-01',
          Hierarchies: [membership('H-NORTH')],
          Role: 'Candidate',
        },
        {
          ExternalId: 'S-1003',
          FirstName: 'Ann',
          LastName: 'Lee',
          Email: 'first.last+tag@sub.example.co.uk',
          CellularPhone: '+1 212 555 0100',
          DateOfBirth: '2004-02-29',
          Hierarchies: [membership('H-SOUTH'), membership('H-NORTH')],
          Labels: ['Annie'],
          Role: 'Candidate',
        },
      ]);
      // The report keeps the export's own headers and cells: it reads back with the same flags.
      const report = await readFile(join(dir, 'result.csv'), 'utf8');
      expect(report.split(/\r?\n/)[0]).toContain('Student ID;Given name;Surname');
      received.length = 0;
      const again = testDeps(dir, {}, TOKEN);
      expect(
        await runCli(
          remote(
            'user',
            'sync',
            '--file',
            'result.csv',
            '--map-file',
            'map.json',
            '--map',
            'Nickname=Labels',
            '--set',
            'Role=Candidate',
            '--date-format',
            'DD.MM.YYYY',
            '--dry-run',
          ),
          again.deps,
        ),
        again.stderr.text,
      ).toBe(0);
    }));

  it('JSON keys are mapped and read the same way; runs show rebuilds a mapped run from its journal', () =>
    withTempDir(async (dir) => {
      const records = [
        {
          'Student ID': 'S-2001',
          'Given name': 'Ann',
          Surname: 'Lee',
          Email: 'ann@example.test',
          'Date of birth': '31.12.1999',
          Labels: ['x'],
        },
        {
          'Student ID': 'S-2002',
          'Given name': 'Bo',
          Surname: 'Ng',
          Email: 'bo@example.test',
          'Date of birth': '31.04.1999',
          Role: 'Author',
        },
      ];
      await writeFile(join(dir, 'students.json'), JSON.stringify(records));
      await writeFile(join(dir, 'map.json'), JSON.stringify(MAP));
      received.length = 0;
      const env = { ...TOKEN, EXAMCTL_RUNS_DIR: join(dir, 'runs') };
      const io = testDeps(dir, {}, env);
      const code = await runCli(
        remote(
          'user',
          'sync',
          '--file',
          'students.json',
          '--map-file',
          'map.json',
          '--set',
          'Role=Candidate',
          '--date-format',
          'DD.MM.YYYY',
          '--json',
        ),
        io.deps,
      );
      expect(code, io.stderr.text).toBe(1);
      expect(received.map((r) => r.body)).toEqual([
        {
          ExternalId: 'S-2001',
          FirstName: 'Ann',
          LastName: 'Lee',
          Email: 'ann@example.test',
          DateOfBirth: '1999-12-31',
          Labels: ['x'],
          Role: 'Candidate',
        },
      ]);
      const items = (
        JSON.parse(io.stdout.text) as {
          items: { id: string; status: string; errors?: { field: string; message: string }[] }[];
        }
      ).items;
      expect(items[1]).toMatchObject({
        id: 'S-2002',
        status: 'failed',
        errors: [{ field: 'DateOfBirth', message: expect.stringContaining('"31.04.1999" is not a real date') }],
      });
      const shown = testDeps(dir, {}, env);
      expect(await runCli(['runs', 'show', 'last', '--json'], shown.deps), shown.stderr.text).toBe(1);
      const again = (JSON.parse(shown.stdout.text) as { items: { id: string; status: string }[] }).items;
      expect(again.map((item) => [item.id, item.status])).toEqual([
        ['S-2001', 'ok'],
        ['S-2002', 'failed'],
      ]);
    }));

  it('the report of a mapped run, fixed and fed back with --only-failed and the same flags, sends only the fixed row', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'students.csv'), STUDENTS.replace('15.07.2000', '31.06.2000'));
      await writeFile(join(dir, 'map.json'), JSON.stringify(MAP));
      const flags = [
        '--map-file',
        'map.json',
        '--map',
        'Nickname=Labels',
        '--set',
        'Role=Candidate',
        '--date-format',
        'DD.MM.YYYY',
      ];
      received.length = 0;
      const first = testDeps(dir, {}, TOKEN);
      expect(
        await runCli(remote('user', 'sync', '--file', 'students.csv', ...flags, '--report', 'result.csv'), first.deps),
      ).toBe(1);
      expect(received.map((r) => r.body.ExternalId).sort()).toEqual(['S-1002', 'S-1003']);
      const report = await readFile(join(dir, 'result.csv'), 'utf8');
      expect(report.charCodeAt(0)).toBe(0xfeff);
      expect(lineWith(report, '31.06.2000', 'DD.MM.YYYY', 'day 31', 'month 6')).toBeTruthy();
      await writeFile(join(dir, 'result.csv'), report.replace('31.06.2000', '30.06.2000'));
      received.length = 0;
      const retry = testDeps(dir, {}, TOKEN);
      expect(
        await runCli(remote('user', 'sync', '--file', 'result.csv', '--only-failed', ...flags), retry.deps),
        retry.stderr.text,
      ).toBe(0);
      expect(received.map((r) => [r.body.ExternalId, r.body.DateOfBirth, r.body.Role])).toEqual([
        ['S-1001', '2000-06-30', 'Candidate'],
      ]);
    }));

  it('the same from a profile: one --profile instead of the flags', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'students.csv'), STUDENTS);
      await mkdir(join(dir, '.config'), { recursive: true });
      await writeFile(join(dir, '.config', 'map.json'), JSON.stringify(MAP));
      await writeFile(
        join(dir, '.config', 'config.json'),
        JSON.stringify({
          version: 1,
          profiles: {
            sis: {
              baseUrl: url,
              defaults: {
                mapFile: 'map.json',
                map: { Nickname: 'Labels' },
                set: { Role: 'Candidate' },
                dateFormat: 'DD.MM.YYYY',
                timezone: 'Europe/Berlin',
              },
            },
          },
        }),
        { mode: 0o600 },
      );
      received.length = 0;
      const io = testDeps(dir, {}, TOKEN);
      expect(
        await runCli(
          ['--profile', 'sis', '--allow-insecure-http', '--yes', 'user', 'sync', '--file', 'students.csv'],
          io.deps,
        ),
        io.stderr.text,
      ).toBe(0);
      const s1001 = received.map((r) => r.body).find((body) => body.ExternalId === 'S-1001');
      expect(s1001).toMatchObject({ Role: 'Candidate', DateOfBirth: '2000-07-15', Labels: ['Jü'] });
      // A flag wins over the profile: Nickname read as nothing else, and ignored.
      received.length = 0;
      const flagged = testDeps(dir, {}, TOKEN);
      expect(
        await runCli(
          [
            '--profile',
            'sis',
            '--allow-insecure-http',
            '--yes',
            'user',
            'sync',
            '--file',
            'students.csv',
            '--set',
            'Role=Proctor',
          ],
          flagged.deps,
        ),
        flagged.stderr.text,
      ).toBe(0);
      expect(received.map((r) => r.body.Role)).toEqual(['Proctor', 'Proctor', 'Proctor']);
    }));
});

/**
 * Sittings across the daylight saving changes: Berlin springs forward on 2027-03-28 at 02:00 and
 * falls back on 2027-10-31 at 03:00; New York on 2027-03-14 at 02:00 and 2027-11-07 at 02:00.
 */
const SITTINGS = excelCsv([
  'Exam;Sitting;Exam start;Exam end;Student ID;Given name;Surname;E-Mail',
  'A-MATH;S-WINTER;25.01.2027 14:00;25.01.2027 16:30;S-1001;Jürgen;Müller;juergen.mueller@stud.uni-example.de',
  "A-MATH;S-SPRING;28.03.2027 02:30;28.03.2027 05:00;S-1002;Siobhán;O'Brien;o'brien@x.ie",
  'A-MATH;S-SUMMER;15.07.2027 09:00;15.07.2027 11:00;S-1003;Ann;Lee;first.last+tag@sub.example.co.uk',
  'A-MATH;S-AUTUMN;31.10.2027 02:30;31.10.2027 05:00;S-1001;Jürgen;Müller;juergen.mueller@stud.uni-example.de',
  "A-MATH;S-AUTUMN-OFFSET;31.10.2027 02:30 +02:00;31.10.2027 05:00;S-1002;Siobhán;O'Brien;o'brien@x.ie",
]);

const SITTING_MAP = [
  '--map',
  'Exam=AssessmentExtId',
  '--map',
  'Sitting=ScheduleExtId',
  '--map',
  'Exam start=StartDateTime',
  '--map',
  'Exam end=EndDateTime',
  '--map',
  'Student ID=CandidateExtId',
  '--map',
  'Given name=FirstName',
  '--map',
  'Surname=LastName',
];

async function push(
  dir: string,
  file: string,
  zone: string,
): Promise<{ code: number; schedules: Map<string, Record<string, unknown>>; stderr: string; stdout: string }> {
  received.length = 0;
  const io = testDeps(dir, {}, TOKEN);
  const code = await runCli(
    remote(
      'schedule',
      'push',
      '--file',
      file,
      ...SITTING_MAP,
      '--date-format',
      'DD.MM.YYYY HH:mm',
      '--timezone',
      zone,
      '--group',
      'H-DEC',
      '--group-name',
      'December',
      '--json',
    ),
    io.deps,
  );
  const schedules = new Map(
    received
      .filter((r) => r.path.includes('/schedule'))
      .map((r) => [String((r.body.Schedule as Record<string, unknown>).ScheduleExtId), r.body]),
  );
  return { code, schedules, stderr: io.stderr.text, stdout: io.stdout.text };
}

function candidate(id: string, first: string, last: string, email: string): Record<string, unknown> {
  return { CandidateExtId: id, FirstName: first, LastName: last, Email: email };
}

describe('an SIS sittings export through schedule push, across daylight saving', () => {
  it('Europe/Berlin: winter and summer times get their offsets; the skipped and the repeated hour fail their schedule only', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'sittings.csv'), SITTINGS);
      const { code, schedules, stdout, stderr } = await push(dir, 'sittings.csv', 'Europe/Berlin');
      expect(code, stderr).toBe(1);
      expect([...schedules.keys()].sort()).toEqual(['S-AUTUMN-OFFSET', 'S-SUMMER', 'S-WINTER']);
      expect(schedules.get('S-WINTER')).toEqual({
        Schedule: {
          AssessmentExtId: 'A-MATH',
          ScheduleExtId: 'S-WINTER',
          StartDateTime: '2027-01-25T13:00:00.000Z',
          EndDateTime: '2027-01-25T15:30:00.000Z',
          GroupExtId: 'H-DEC',
          GroupName: 'December',
        },
        Candidates: [candidate('S-1001', 'Jürgen', 'Müller', 'juergen.mueller@stud.uni-example.de')],
      });
      expect(schedules.get('S-SUMMER')).toEqual({
        Schedule: {
          AssessmentExtId: 'A-MATH',
          ScheduleExtId: 'S-SUMMER',
          StartDateTime: '2027-07-15T07:00:00.000Z',
          EndDateTime: '2027-07-15T09:00:00.000Z',
          GroupExtId: 'H-DEC',
          GroupName: 'December',
        },
        Candidates: [candidate('S-1003', 'Ann', 'Lee', 'first.last+tag@sub.example.co.uk')],
      });
      // In the overlap, a written offset decides: 02:30+02:00 is 00:30Z; 05:00 is after it (+01:00).
      expect(schedules.get('S-AUTUMN-OFFSET')).toEqual({
        Schedule: {
          AssessmentExtId: 'A-MATH',
          ScheduleExtId: 'S-AUTUMN-OFFSET',
          StartDateTime: '2027-10-31T00:30:00.000Z',
          EndDateTime: '2027-10-31T04:00:00.000Z',
          GroupExtId: 'H-DEC',
          GroupName: 'December',
        },
        Candidates: [candidate('S-1002', 'Siobhán', "O'Brien", "o'brien@x.ie")],
      });
      const items = (JSON.parse(stdout) as { items: { id: string; status: string; errors: { message: string }[] }[] })
        .items;
      const failed = Object.fromEntries(
        items
          .filter((item) => item.status === 'failed')
          .map((item) => [item.id, item.errors.map((e) => e.message).join('; ')]),
      );
      expect(Object.keys(failed).sort()).toEqual(['S-AUTUMN', 'S-SPRING']);
      expect(failed['S-SPRING']).toContain('"28.03.2027 02:30" does not exist in Europe/Berlin');
      expect(failed['S-AUTUMN']).toContain('"31.10.2027 02:30" happens twice in Europe/Berlin');
      expect(schedules.has('S-SPRING')).toBe(false);
    }));

  it('a time in the spring-forward gap fails its schedule, naming the value and the zone', () =>
    withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'gap.csv'),
        excelCsv([
          'Exam;Sitting;Exam start;Exam end;Student ID;Given name;Surname;E-Mail',
          'A-MATH;S-GAP;14.03.2027 02:30;14.03.2027 05:00;S-1;Ann;Lee;ann@example.test',
          'A-MATH;S-OK;14.03.2027 03:00;14.03.2027 05:00;S-2;Bo;Ng;bo@example.test',
        ]),
      );
      const { code, schedules, stdout, stderr } = await push(dir, 'gap.csv', 'America/New_York');
      expect(code, stderr).toBe(1);
      expect(schedules.get('S-OK')?.Schedule).toMatchObject({
        StartDateTime: '2027-03-14T07:00:00.000Z',
        EndDateTime: '2027-03-14T09:00:00.000Z',
      });
      expect(schedules.has('S-GAP')).toBe(false);
      expect(stdout).toContain('\\"14.03.2027 02:30\\" does not exist in America/New_York');
    }));

  it('America/New_York: EST and EDT offsets either side of both changes', () =>
    withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'ny.csv'),
        excelCsv([
          'Exam;Sitting;Exam start;Exam end;Student ID;Given name;Surname;E-Mail',
          'A-MATH;S-BEFORE;13.03.2027 09:00;13.03.2027 11:00;S-1;Ann;Lee;ann@example.test',
          'A-MATH;S-AFTER;14.03.2027 09:00;14.03.2027 11:00;S-2;Bo;Ng;bo@example.test',
          'A-MATH;S-FALL;07.11.2027 01:30;07.11.2027 04:00;S-3;Cy;Li;cy@example.test',
          'A-MATH;S-FALL-OFFSET;07.11.2027 01:30 -05:00;07.11.2027 04:00;S-4;Di;Ma;di@example.test',
        ]),
      );
      const { code, schedules, stdout, stderr } = await push(dir, 'ny.csv', 'America/New_York');
      expect(code, stderr).toBe(1);
      expect(schedules.get('S-BEFORE')?.Schedule).toMatchObject({
        StartDateTime: '2027-03-13T14:00:00.000Z',
        EndDateTime: '2027-03-13T16:00:00.000Z',
      });
      expect(schedules.get('S-AFTER')?.Schedule).toMatchObject({
        StartDateTime: '2027-03-14T13:00:00.000Z',
        EndDateTime: '2027-03-14T15:00:00.000Z',
      });
      expect(schedules.get('S-FALL-OFFSET')?.Schedule).toMatchObject({
        StartDateTime: '2027-11-07T06:30:00.000Z',
        EndDateTime: '2027-11-07T09:00:00.000Z',
      });
      expect(schedules.has('S-FALL')).toBe(false);
      expect(stdout).toContain('happens twice in America/New_York');
    }));
});

describe('the same sittings as a workbook', () => {
  it('mapped headers; a date-time cell and a text cell both placed in --timezone', () =>
    withTempDir(async (dir) => {
      await writeWorkbook(join(dir, 'sittings.xlsx'), [
        {
          name: 'Export',
          rows: [
            ['Exam', 'Sitting', 'Exam start', 'Exam end', 'Student ID', 'Given name', 'Surname', 'E-Mail'],
            [
              'A-MATH',
              'S-CELL',
              { value: new Date(Date.UTC(2027, 6, 15, 9, 0)), numFmt: 'dd.mm.yyyy hh:mm' },
              '15.07.2027 11:00',
              'S-1',
              'Ann',
              'Lee',
              'ann@example.test',
            ],
          ],
        },
      ]);
      const { code, schedules, stderr } = await push(dir, 'sittings.xlsx', 'Europe/Berlin');
      expect(code, stderr).toBe(0);
      expect(schedules.get('S-CELL')).toEqual({
        Schedule: {
          AssessmentExtId: 'A-MATH',
          ScheduleExtId: 'S-CELL',
          StartDateTime: '2027-07-15T07:00:00.000Z',
          EndDateTime: '2027-07-15T09:00:00.000Z',
          GroupExtId: 'H-DEC',
          GroupName: 'December',
        },
        Candidates: [candidate('S-1', 'Ann', 'Lee', 'ann@example.test')],
      });
    }));
});

describe('whole schedule requests in JSON', () => {
  it('are mapped, completed by --set and read by --date-format and --timezone inside Schedule and each candidate', () =>
    withTempDir(async (dir) => {
      const request = {
        Schedule: {
          Exam: 'A-MATH',
          Sitting: 'S-JSON',
          'Exam start': '31.10.2027 03:00',
          GroupExtId: 'H-DEC',
          GroupName: 'December',
        },
        Candidates: [{ 'Student ID': 'S-1', 'Given name': 'Ann', Surname: 'Lee', Email: 'ann@example.test' }],
      };
      await writeFile(join(dir, 'requests.json'), JSON.stringify([request]));
      received.length = 0;
      const io = testDeps(dir, {}, TOKEN);
      const code = await runCli(
        remote(
          'schedule',
          'push',
          '--file',
          'requests.json',
          ...SITTING_MAP,
          '--set',
          'Title=Maths',
          '--date-format',
          'DD.MM.YYYY HH:mm',
          '--timezone',
          'Europe/Berlin',
        ),
        io.deps,
      );
      expect(code, io.stderr.text).toBe(0);
      expect(received.map((r) => r.body)).toEqual([
        {
          Schedule: {
            AssessmentExtId: 'A-MATH',
            ScheduleExtId: 'S-JSON',
            StartDateTime: '2027-10-31T02:00:00.000Z',
            GroupExtId: 'H-DEC',
            GroupName: 'December',
            Title: 'Maths',
          },
          Candidates: [candidate('S-1', 'Ann', 'Lee', 'ann@example.test')],
        },
      ]);
    }));
});
