/**
 * Errors quote the file's own text (docs/input-formats.md, "Dates, times and time zones"): every
 * message about a time or a date shows the value as the file (or a flag) wrote it, with the zone
 * used, and the UTC value second: schedule push's "already past" warning, a domain rule (End
 * after Start), an engine rule (the span), a service's answer; through the real CLI.
 */
import http from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { quoteWritten } from '../../src/domain/written-times.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { writeWorkbook } from '../xlsx/helpers.js';
import { lineWith } from '../support/facts.js';
import { answeredAsPlatform } from '../support/platform-store-route.js';

const LONDON = ['--date-format', 'DD/MM/YYYY HH:mm', '--timezone', 'Europe/London'];

/** A sitting in London the day the clocks go forward: 09:00 BST is 08:00 UTC. */
const SITTINGS = [
  'Sitting,Exam,Exam start,Exam end,Room,Room name,Candidate,First name,Last name,Email',
  'S-1,A-MATH-1,28/03/2027 09:00,,H-NORTH,North,c-1,Ann,Lee,ann@example.test',
  'S-2,A-MATH-1,28/03/2027 09:00,28/03/2027 08:30,H-NORTH,North,c-2,Bo,Ng,bo@example.test',
  'S-3,A-MATH-1,28/03/2027 09:00,28/03/2027 10:00,H-NORTH,North,c-3,Cy,Od,cy@example.test',
].join('\n');

const MAP = {
  Sitting: 'ScheduleExtId',
  Exam: 'AssessmentExtId',
  'Exam start': 'StartDateTime',
  'Exam end': 'EndDateTime',
  Room: 'GroupExtId',
  'Room name': 'GroupName',
  Candidate: 'CandidateExtId',
  'First name': 'FirstName',
  'Last name': 'LastName',
};

interface Item {
  id: string;
  status: string;
  errors: { field: string; message: string }[];
}

describe('messages about times quote the file', () => {
  it('no "already past" warning for a start that is no date-time: Date.parse would roll 30 February over, or read 02/01 month first', () =>
    withTempDir(async (dir) => {
      const header =
        'ScheduleExtId,AssessmentExtId,StartDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName';
      const rows = [
        'S-FEB,A-MATH-1,2026-02-30T09:00:00Z',
        'S-US,A-MATH-1,02/01/2026 09:00',
        'S-OLD,A-MATH-1,2026-01-05T09:00:00Z',
      ];
      const csv = [header, ...rows.map((row, i) => `${row},H-NORTH,North,c-${i},Ann,Lee`)].join('\n');
      await writeFile(join(dir, 'sittings.csv'), `${csv}\n`);
      const io = testDeps(dir, {}, { EXAMCTL_NOW: '2026-06-01T10:00:00Z' });
      const code = await runCli(
        ['--store', join(dir, 'store'), 'schedule', 'push', '--file', 'sittings.csv', '--dry-run'],
        io.deps,
      );
      expect(code, io.stderr.text).toBe(1);
      const warning = lineWith(io.stderr.text, 'already past');
      expect(warning).toContain('S-OLD');
      expect(warning).not.toContain('S-FEB');
      expect(warning).not.toContain('S-US');
      lineWith(io.stderr.text, 'S-FEB', '2026-02-30T09:00:00Z', 'not a real date');
    }));

  it('the "already past" warning, a domain rule and an engine rule name 28/03/2027 09:00 (Europe/London) before the UTC', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'sittings.csv'), SITTINGS);
      await writeFile(join(dir, 'map.json'), JSON.stringify(MAP));
      expect(await runCli(['local', 'init', '--store', join(dir, 'store')], testDeps(dir).deps)).toBe(0);
      // The engine's clock after the sitting: its start is past.
      const io = testDeps(dir, {}, { EXAMCTL_NOW: '2027-04-01T10:00:00Z' });
      const code = await runCli(
        [
          '--store',
          join(dir, 'store'),
          'schedule',
          'push',
          '--file',
          'sittings.csv',
          '--map-file',
          'map.json',
          ...LONDON,
          '--dry-run',
          '--json',
        ],
        io.deps,
      );
      expect(code, io.stderr.text).toBe(1);
      expect(io.stderr.text).toContain(
        'warning: StartDateTime already past for S-1 (28/03/2027 09:00 (Europe/London) = 2027-03-28T08:00:00.000Z), S-2 (28/03/2027 09:00 (Europe/London) = 2027-03-28T08:00:00.000Z), S-3',
      );
      const items = (JSON.parse(io.stdout.text) as { items: Item[] }).items;
      const byId = new Map(items.map((item) => [item.id, item]));
      // A domain rule: both times as written, each with its zone, the UTC second.
      expect(byId.get('S-2')!.errors.map((error) => error.message)).toContain(
        'EndDateTime must be after StartDateTime: EndDateTime 28/03/2027 08:30 (Europe/London) = 2027-03-28T07:30:00.000Z, StartDateTime 28/03/2027 09:00 (Europe/London) = 2027-03-28T08:00:00.000Z',
      );
      // An engine rule (A-MATH-1 takes 90 minutes): the span it measured, between the file's times.
      expect(
        byId
          .get('S-3')!
          .errors.map((error) => error.message)
          .join('\n'),
      ).toContain(
        'The schedule lasts 60 minutes (StartDateTime 28/03/2027 09:00 (Europe/London) = 2027-03-28T08:00:00.000Z to EndDateTime 28/03/2027 10:00 (Europe/London) = 2027-03-28T09:00:00.000Z)',
      );
    }));

  it("--start as typed in the flag's zone; a time already written with an offset is quoted once, as it is", () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'c.csv'), 'CandidateExtId,FirstName,LastName,Email\nc-1,Ann,Lee,ann@example.test\n');
      const base = [
        '--base-url',
        'https://exam.example.org',
        'schedule',
        'push',
        '--file',
        'c.csv',
        '--schedule-id',
        'S-X',
        '--assessment',
        'A-1',
        '--group',
        'G-1',
        '--group-name',
        'G',
        '--dry-run',
      ];
      const typed = testDeps(dir, {}, { EXAMCTL_NOW: '2027-04-01T10:00:00Z' });
      await runCli([...base, '--start', '28/03/2027 09:00', ...LONDON], typed.deps);
      expect(lineWith(typed.stderr.text, 'S-X', '28/03/2027 09:00 (Europe/London) = 2027-03-28T08:00:00.000Z')).toMatch(
        /^warning: StartDateTime /,
      );
      const iso = testDeps(dir, {}, { EXAMCTL_NOW: '2027-04-01T10:00:00Z' });
      await runCli([...base, '--start', '2027-03-28T08:00:00Z'], iso.deps);
      expect(lineWith(iso.stderr.text, 'S-X', '(2027-03-28T08:00:00Z)')).toMatch(/^warning: StartDateTime /);
    }));

  it("a service's answer that quotes the UTC it was sent is shown with the file's time first", () =>
    withTempDir(async (dir) => {
      const server = http.createServer((req, res) => {
        if (answeredAsPlatform(req, res)) return;
        req.resume();
        req.on('end', () => {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              Content: null,
              Success: false,
              Errors: [
                {
                  Field: 'Schedule.StartDateTime',
                  Code: null,
                  Message: 'StartDateTime 2027-03-28T08:00:00.000Z is in the past',
                },
              ],
            }),
          );
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
        await writeFile(join(dir, 'sittings.csv'), SITTINGS.split('\n').slice(0, 2).join('\n'));
        await writeFile(join(dir, 'map.json'), JSON.stringify(MAP));
        const io = testDeps(dir, {}, { EXAMCTL_TOKEN: 'dev-token', EXAMCTL_NOW: '2027-01-01T00:00:00Z' });
        const code = await runCli(
          [
            '--base-url',
            url,
            '--allow-insecure-http',
            '--yes',
            'schedule',
            'push',
            '--file',
            'sittings.csv',
            '--map-file',
            'map.json',
            ...LONDON,
            '--json',
          ],
          io.deps,
        );
        expect(code, io.stderr.text).toBe(1);
        const [item] = (JSON.parse(io.stdout.text) as { items: Item[] }).items;
        expect(item!.errors[0]!.message).toBe(
          'StartDateTime 28/03/2027 09:00 (Europe/London) = 2027-03-28T08:00:00.000Z is in the past',
        );
        expect(io.stderr.text).toContain(
          'StartDateTime 28/03/2027 09:00 (Europe/London) = 2027-03-28T08:00:00.000Z is in the past',
        );
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    }));

  it('an .xlsx date-time cell placed in --timezone is quoted as the sheet shows it', () =>
    withTempDir(async (dir) => {
      const header = SITTINGS.split('\n')[0]!.split(',');
      const row = [
        'S-1',
        'A-MATH-1',
        { value: new Date(Date.UTC(2027, 2, 28, 9, 0)), numFmt: 'dd/mm/yyyy hh:mm' },
        '',
        'H-NORTH',
        'North',
        'c-1',
        'Ann',
        'Lee',
        'ann@example.test',
      ];
      await writeWorkbook(join(dir, 'sittings.xlsx'), [{ name: 'Sittings', rows: [header, row] }]);
      await writeFile(join(dir, 'map.json'), JSON.stringify(MAP));
      const io = testDeps(dir, {}, { EXAMCTL_NOW: '2027-04-01T10:00:00Z' });
      await runCli(
        [
          '--base-url',
          'https://exam.example.org',
          'schedule',
          'push',
          '--file',
          'sittings.xlsx',
          '--map-file',
          'map.json',
          '--timezone',
          'Europe/London',
          '--dry-run',
        ],
        io.deps,
      );
      expect(io.stderr.text).toContain(
        'warning: StartDateTime already past for S-1 (2027-03-28T09:00:00 (Europe/London) = 2027-03-28T08:00:00.000Z)',
      );
    }));

  it('quoteWritten: the same instant in any offset, dates, and nothing else', () => {
    const written = [
      { field: 'StartDateTime', text: '28/03/2027 09:00', zone: 'Europe/London', value: '2027-03-28T08:00:00.000Z' },
      { field: 'DateOfBirth', text: '17/03/2004', value: '2004-03-17' },
    ];
    expect(quoteWritten('starts 2027-03-28T09:00+01:00', written)).toBe(
      'starts 28/03/2027 09:00 (Europe/London) = 2027-03-28T09:00+01:00',
    );
    expect(quoteWritten('born 2004-03-17, sent 2027-03-28T08:00:01Z', written)).toBe(
      'born 17/03/2004 = 2004-03-17, sent 2027-03-28T08:00:01Z',
    );
    expect(quoteWritten('StartDateTime "28/03/2027 09:00" is 2027-03-28T08:00:00.000Z', written)).toBe(
      'StartDateTime "28/03/2027 09:00" is 2027-03-28T08:00:00.000Z',
    );
  });
});
