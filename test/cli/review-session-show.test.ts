import { afterEach, describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type http from 'node:http';
import { runCli } from '../../src/cli/run-cli.js';
import { firstSheet, rowsByHeader } from '../xlsx/helpers.js';
import { testDeps, withTempDir } from './helpers.js';
import { json, startHostileServer, type HostileServer } from '../support/hostile-server.js';
import { lineWith } from '../support/facts.js';

/**
 * Issue 50, "Results in the admin's terms" and "Many sessions in one file": `review-session
 * show` in the admin's zone and format, and a term's sessions as one table.
 */

const TOKEN = 'show-test-token-0123456789';
let server: HostileServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function cli(dir: string, argv: string[], env: Record<string, string> = {}) {
  const io = testDeps(dir, {}, env);
  // A store typed beside --target remote names two targets (exit 2): the remote calls go without it.
  const store =
    argv.includes('--target') && argv[argv.indexOf('--target') + 1] === 'remote' ? [] : ['--store', join(dir, 'store')];
  const code = await runCli([...store, ...argv], io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

function rowOf(text: string, label: string): string {
  const line = text.split('\n').find((entry) => entry.startsWith(`│ ${label} `));
  if (line === undefined) throw new Error(`no row ${label} in\n${text}`);
  return line.replace(/│/g, '|').replace(/\s+/g, ' ').trim();
}

describe("review-session show in the admin's zone", () => {
  it("the table is in this computer's zone and says so; --timezone and --date-format change it", async () => {
    await withTempDir(async (dir) => {
      await cli(dir, ['local', 'init']);
      const london = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT'], { TZ: 'Europe/London' });
      expect(london.code).toBe(0);
      expect(rowOf(london.stdout, 'Times')).toBe(
        "| Times | Europe/London (this computer's zone; --timezone to change) |",
      );
      expect(rowOf(london.stdout, 'c-1001')).toContain('| 2026-10-12 09:00 | 2026-10-13 19:21 |');
      const tokyo = await cli(
        dir,
        ['review-session', 'show', 'RS-MATH1-OCT', '--timezone', 'Asia/Tokyo', '--date-format', 'DD.MM.YYYY HH:mm'],
        { TZ: 'Europe/London' },
      );
      expect(rowOf(tokyo.stdout, 'Times')).toBe('| Times | Asia/Tokyo (--timezone), DD.MM.YYYY HH:mm |');
      expect(rowOf(tokyo.stdout, 'c-1001')).toContain('| 12.10.2026 17:00 | 14.10.2026 03:21 |');
    });
  });

  it("a file's wall times are in the admin's zone as the table's are: --date-format alone, and a workbook, take this computer's zone and say which", async () => {
    await withTempDir(async (dir) => {
      await cli(dir, ['local', 'init']);
      const rows = (stdout: string) => parse(stdout, { columns: true, bom: true }) as Record<string, string>[];
      const berlin = await cli(
        dir,
        ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'csv', '--date-format', 'DD.MM.YYYY HH:mm'],
        { TZ: 'Europe/Berlin' },
      );
      expect(rows(berlin.stdout)[1]!.PublishedDate).toBe('12.10.2026 10:00');
      expect(berlin.stderr).toContain("times in Europe/Berlin (this computer's zone; --timezone to change)");
      const workbook = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'xlsx', '--out', 'r.xlsx'], {
        TZ: 'Europe/London',
      });
      expect(workbook.stderr).toContain("times in Europe/London (this computer's zone; --timezone to change)");
      expect(rowsByHeader(await firstSheet(join(dir, 'r.xlsx')))[1]!.get('PublishedDate')!.value).toEqual(
        new Date('2026-10-12T09:00:00Z'),
      );
      // As sent, each time with its offset: nothing to say.
      const sent = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'csv'], { TZ: 'Europe/Berlin' });
      expect(rows(sent.stdout)[1]!.PublishedDate).toBe('2026-10-12T08:00:00.000Z');
      expect(sent.stderr).not.toContain('times in');
    });
  });

  it('csv keeps UTC as sent unless asked; DateOfBirth is a date; a bad zone or format is exit 2 before anything is read', async () => {
    await withTempDir(async (dir) => {
      await cli(dir, ['local', 'init']);
      const rows = (stdout: string) => parse(stdout, { columns: true, bom: true }) as Record<string, string>[];
      const sent = rows(
        (await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'csv'], { TZ: 'Europe/London' })).stdout,
      );
      expect([sent[1]!.DateOfBirth, sent[1]!.PublishedDate, sent[1]!.Score]).toEqual([
        '2004-03-17',
        '2026-10-12T08:00:00.000Z',
        '41',
      ]);
      const london = rows(
        (await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'csv', '--timezone', 'Europe/London'])).stdout,
      );
      expect([london[1]!.DateOfBirth, london[1]!.PublishedDate, london[1]!.VisitedDate]).toEqual([
        '2004-03-17',
        '2026-10-12T09:00:00+01:00',
        '2026-10-14T08:02:00+01:00',
      ]);
      // ';' alone keeps the point; the comma only when asked.
      const semicolon = await cli(dir, [
        'review-session',
        'show',
        'RS-MATH1-OCT',
        '-o',
        'csv',
        '--delimiter',
        ';',
        '--no-bom',
      ]);
      expect(semicolon.stdout.split(/\r?\n/)[1]).toContain(';87.5;');
      const comma = await cli(dir, [
        'review-session',
        'show',
        'RS-MATH1-OCT',
        '-o',
        'csv',
        '--delimiter',
        ';',
        '--decimal-separator',
        ',',
        '--no-bom',
      ]);
      expect(comma.stdout.split(/\r?\n/)[1]).toContain(';"87,5";');
      const zone = await cli(dir, [
        'review-session',
        'show',
        'RS-MATH1-OCT',
        '-o',
        'csv',
        '--timezone',
        'Europe/Londn',
      ]);
      expect([zone.code, zone.stdout, zone.stderr]).toEqual([
        2,
        '',
        'examctl: E2000: --timezone: unknown time zone "Europe/Londn": give an IANA name such as Europe/Paris, America/New_York or UTC\n',
      ]);
      const format = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '--date-format', 'DD/MM/YY']);
      expect(format.code).toBe(2);
      expectCoded(format.stderr, 'E2000', '--date-format DD/MM/YY', '"YY"');
    });
  });

  it('the hour the clocks go back is written with its offset where the format has none and as text in a workbook, so the two instants stay two and read back', async () => {
    await withTempDir(async (dir) => {
      await cli(dir, ['local', 'init']);
      expect((await cli(dir, ['local', 'export', '--out', 'world.json'])).code).toBe(0);
      const world = JSON.parse(await readFile(join(dir, 'world.json'), 'utf8')) as {
        ReviewSessions: { ExternalId: string; Results: Record<string, unknown>[] }[];
      };
      const results = world.ReviewSessions.find((session) => session.ExternalId === 'RS-MATH1-OCT')!.Results;
      // 00:30Z and 01:30Z on 25 October 2026 are both 01:30 in London: first in BST, then in GMT.
      Object.assign(results[0]!, { VisitedDate: '2026-10-25T00:30:00.000Z' });
      Object.assign(results[1]!, { VisitedDate: '2026-10-25T01:30:00.000Z' });
      await writeFile(join(dir, 'world.json'), JSON.stringify(world));
      expect((await cli(dir, ['local', 'init', '--seed', 'world.json', '--force'])).code).toBe(0);
      const uk = ['--timezone', 'Europe/London', '--date-format', 'DD/MM/YYYY HH:mm'];
      const csv = parse((await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'csv', ...uk])).stdout, {
        columns: true,
        bom: true,
      }) as Record<string, string>[];
      expect(csv.map((row) => row.VisitedDate)).toEqual([
        '25/10/2026 01:30 +01:00',
        '25/10/2026 01:30 +00:00',
        '',
        '',
        '',
        '12/10/2026 10:45',
      ]);
      // Any other time has no offset: the admin's format as asked.
      expect(csv[0]!.PublishedDate).toBe('12/10/2026 09:00');
      const table = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT'], { TZ: 'Europe/London' });
      expect(rowOf(table.stdout, 'c-1001')).toContain('| 2026-10-25 01:30 +01:00 |');
      expect(rowOf(table.stdout, 'c-1002')).toContain('| 2026-10-25 01:30 +00:00 |');
      // A workbook's Excel date keeps no zone: those two cells are the times with their offsets, the others dates.
      expect(
        (await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'xlsx', ...uk, '--out', 'uk.xlsx'])).code,
      ).toBe(0);
      const sheet = rowsByHeader(await firstSheet(join(dir, 'uk.xlsx')));
      expect(sheet.map((row) => row.get('VisitedDate')!.value)).toEqual([
        '2026-10-25T01:30:00+01:00',
        '2026-10-25T01:30:00+00:00',
        null,
        null,
        null,
        new Date('2026-10-12T10:45:00Z'),
      ]);
      expect(sheet[0]!.get('PublishedDate')!.value).toEqual(new Date('2026-10-12T09:00:00Z'));
      // Read back with the same flags, the two texts are the two instants again.
      const header =
        'ScheduleExtId,AssessmentExtId,Title,StartDateTime,EndDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email';
      const later = (text: string) => text.replace('2026', '2027').replace('25/10', '31/10');
      await writeFile(
        join(dir, 'back.csv'),
        [
          header,
          ...csv
            .slice(0, 2)
            .map(
              (row, i) =>
                `S-BACK${i},A-MATH-1,T,${later(row.VisitedDate!)},31/10/2027 05:00,H-NORTH,North,c-1001,Ada,Moreno,ada@example.test`,
            ),
        ].join('\n'),
      );
      const back = await cli(dir, ['schedule', 'push', '--file', 'back.csv', '--dry-run', ...uk, '--json']);
      expect(back.code, back.stderr).toBe(0);
      expect((JSON.parse(back.stdout) as { items: { status: string }[] }).items.map((item) => item.status)).toEqual([
        'ok',
        'ok',
      ]);
      const pushed = await cli(dir, ['schedule', 'push', '--file', 'back.csv', ...uk]);
      expect(pushed.code, pushed.stderr).toBe(0);
      expect((await cli(dir, ['local', 'export', '--out', 'after.json'])).code).toBe(0);
      const schedules = (
        JSON.parse(await readFile(join(dir, 'after.json'), 'utf8')) as {
          Schedules: { ScheduleExtId: string; StartDateTime: string }[];
        }
      ).Schedules;
      const starts = ['S-BACK0', 'S-BACK1'].map(
        (id) => schedules.find((schedule) => schedule.ScheduleExtId === id)?.StartDateTime,
      );
      expect(starts).toEqual(['2027-10-31T00:30:00.000Z', '2027-10-31T01:30:00.000Z']);
    });
  });
});

describe('several review sessions in one table', () => {
  it('ids as arguments: one CSV with a ReviewSession column; a session that cannot be read is one row with its error, exit 1, the rest written', async () => {
    await withTempDir(async (dir) => {
      await cli(dir, ['local', 'init']);
      const shown = await cli(dir, [
        'review-session',
        'show',
        'RS-MATH1-OCT',
        'RS-NOPE',
        'RS-LANG-PRACTICE',
        '-o',
        'csv',
        '--no-bom',
      ]);
      expect(shown.code).toBe(1);
      const rows = parse(shown.stdout, { columns: true }) as Record<string, string>[];
      expect(Object.keys(rows[0]!).at(0)).toBe('ReviewSession');
      expect(Object.keys(rows[0]!).at(-1)).toBe('Error');
      expect(rows.map((row) => row.ReviewSession)).toEqual([
        ...Array(6).fill('RS-MATH1-OCT'),
        'RS-NOPE',
        ...Array(6).fill('RS-LANG-PRACTICE'),
      ]);
      expect(rows[6]).toMatchObject({ CandidateExtId: '', Error: '1101 Review session has not been found: RS-NOPE' });
      expect(rows.filter((row) => row.Error !== '')).toHaveLength(1);
      expect(lineWith(shown.stderr, 'RS-NOPE', ' 1101 ')).toMatch(/^examctl: /);
      expect(lineWith(shown.stderr, '3 review sessions', '2 read', '12 results', '1 failed')).toBeTruthy();
    });
  });

  it('--file ids.csv (an ExternalId column): ndjson, one object per result; json, one array; a file without the column is exit 2', async () => {
    await withTempDir(async (dir) => {
      await cli(dir, ['local', 'init']);
      await writeFile(join(dir, 'ids.csv'), 'Term,ExternalId\nautumn,RS-LANG-PRACTICE\nautumn,RS-MATH1-OCT\n');
      const ndjson = await cli(dir, [
        'review-session',
        'show',
        '--file',
        'ids.csv',
        '-o',
        'ndjson',
        '--timezone',
        'Europe/London',
      ]);
      expect(ndjson.code).toBe(0);
      const lines = ndjson.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines).toHaveLength(12);
      expect(lines[0]).toMatchObject({
        ReviewSession: 'RS-LANG-PRACTICE',
        CandidateExtId: 'c-1001',
        Score: 93,
        IsVisited: true,
        Labels: [],
        Error: null,
        PublishedDate: '2026-11-01T09:00:00+00:00',
      });
      expect(lines[7]).toMatchObject({
        ReviewSession: 'RS-MATH1-OCT',
        DateOfBirth: '2004-03-17',
        PublishedDate: '2026-10-12T09:00:00+01:00',
      });
      const document = await cli(dir, ['review-session', 'show', '--file', 'ids.csv', '--json']);
      expect(JSON.parse(document.stdout)).toEqual(
        lines.map((line) => ({
          ...line,
          PublishedDate: expect.any(String),
          VisitedDate: line.VisitedDate === null ? null : expect.any(String),
          LastSatDate: line.LastSatDate === null ? null : expect.any(String),
        })),
      );
      await writeFile(join(dir, 'bad.csv'), 'Term,Session\nautumn,RS-MATH1-OCT\n');
      const bad = await cli(dir, ['review-session', 'show', '--file', 'bad.csv']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('bad.csv:1: no id column');
      const none = await cli(dir, ['review-session', 'show']);
      expect([none.code, none.stderr]).toEqual([
        2,
        'examctl: E2000: review-session show: give a review session id (or several, or --file ids.csv)\n',
      ]);
      await writeFile(join(dir, 'many.txt'), Array.from({ length: 1001 }, (_, i) => `RS-${i}`).join('\n'));
      const many = await cli(dir, ['review-session', 'show', '--file', 'many.txt', '-o', 'csv']);
      // No cap on the sessions asked for: they stream (the million-result heap test: review-session-stream.test.ts).
      expect(many.code).toBe(1);
      expect(
        (parse(many.stdout, { columns: true, bom: true }) as Record<string, string>[]).map((row) => row.ReviewSession),
      ).toEqual(Array.from({ length: 1001 }, (_, i) => `RS-${i}`));
      expect(lineWith(many.stderr, '1,001 review sessions', '1,001 failed')).toBeTruthy();
      const sheet = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '--sheet', 'Ids']);
      expect(sheet.code).toBe(2);
      expectCoded(sheet.stderr, 'E2000', '--sheet', '--file');
    });
  });

  it('one id keeps the output of one session: no ReviewSession column, -o json the Content as sent', async () => {
    await withTempDir(async (dir) => {
      await cli(dir, ['local', 'init']);
      const csv = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'csv', '--no-bom']);
      expect(csv.stdout.startsWith('CandidateExtId,ScheduleExtId,')).toBe(true);
      const content = JSON.parse(
        (await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '--json'])).stdout,
      ) as Record<string, unknown>;
      expect(content['ExternalId']).toBe('RS-MATH1-OCT');
      expect(content['Pin']).toBe('withheld');
    });
  });

  it('the sessions are read concurrently, never more at once than --concurrency', async () => {
    const held: http.ServerResponse[] = [];
    let inFlight = 0;
    let most = 0;
    let received = 0;
    const ids = ['RS-1', 'RS-2', 'RS-3', 'RS-4', 'RS-5'];
    // Each answer waits until two requests are in flight (or the last one came): a client that
    // read one at a time would never get its first answer.
    server = await startHostileServer((_request, res) => {
      received += 1;
      inFlight += 1;
      most = Math.max(most, inFlight);
      held.push(res);
      if (held.length === 2 || received === ids.length) {
        for (const waiting of held.splice(0)) {
          inFlight -= 1;
          json(waiting, 200, {
            Success: true,
            Content: { ExternalId: 'RS', Results: [{ CandidateExtId: 'c-1', PassedStatus: 'SATISFACTORY', Score: 1 }] },
          });
        }
      }
    });
    await withTempDir(async (dir) => {
      const shown = await cli(
        dir,
        [
          '--target',
          'remote',
          '--base-url',
          server!.url,
          '--concurrency',
          '2',
          'review-session',
          'show',
          ...ids,
          '-o',
          'csv',
          '--no-bom',
        ],
        { EXAMCTL_TOKEN: TOKEN },
      );
      expect(shown.code).toBe(0);
      expect(most).toBe(2);
      expect(server!.requests.map((request) => request.url.replace(/^.*\/external\//, '/external/')).sort()).toEqual(
        ids.map((id) => `/external/review-sessions/${id}`),
      );
      expect(
        (parse(shown.stdout, { columns: true }) as Record<string, string>[]).map((row) => row.ReviewSession),
      ).toEqual(ids);
    });
  });
});

describe('one session the target fails to give (docs/remote.md, "What each answer means")', () => {
  it("a 500, or a 200 that is not the API's session, is exit 3 with the error document; 1101 stays exit 1 with its own; of several, a row each", async () => {
    const answers: Record<string, [number, unknown]> = {
      'RS-500': [500, 'boom'],
      'RS-LIST': [
        200,
        { Success: true, Content: { ExternalId: 'RS-LIST', Results: { Items: [{ Score: 91 }], Total: 1 } } },
      ],
      'RS-NULL': [200, { Success: true, Errors: null, Content: null }],
      'RS-ROW': [200, { Success: true, Content: { ExternalId: 'RS-ROW', Results: ['c-1'] } }],
      'RS-NOPE': [
        400,
        {
          Success: false,
          Content: null,
          Errors: [{ Code: 1101, Message: 'Review session has not been found: RS-NOPE' }],
        },
      ],
    };
    server = await startHostileServer((request, res) => json(res, ...answers[request.url.split('/').at(-1)!]!));
    await withTempDir(async (dir) => {
      const show = (...argv: string[]) =>
        cli(dir, ['--target', 'remote', '--base-url', server!.url, 'review-session', 'show', ...argv, '--json'], {
          EXAMCTL_TOKEN: TOKEN,
        });
      const words = {
        'RS-500': 'internal server error (500)',
        'RS-LIST': 'its Results is not a list',
        'RS-NULL': 'its Content is not an object',
        'RS-ROW': 'a Results entry is not an object',
      };
      for (const [id, message] of Object.entries(words)) {
        const one = await show(id);
        expect([one.code, JSON.parse(one.stdout)]).toEqual([
          3,
          { error: expect.objectContaining({ exitCode: 3, message: expect.stringContaining(message) }) },
        ]);
      }
      const nope = await show('RS-NOPE');
      expect([nope.code, JSON.parse(nope.stdout).errors[0].code]).toEqual([1, 1101]);
      const several = await show('RS-LIST', 'RS-500');
      expect([several.code, (JSON.parse(several.stdout) as { Error: string }[]).map((row) => row.Error)]).toEqual([
        1,
        [expect.stringContaining(words['RS-LIST']), expect.stringContaining(words['RS-500'])],
      ]);
    });
  });
});

describe('a review session id longer than the API\'s string(60) (docs/interpretations.md, "Review sessions")', () => {
  it('is refused before anything is sent: exit 2 naming its length and the limit, and the file and line of a --file id', async () => {
    server = await startHostileServer((_request, res) =>
      json(res, 200, { Success: true, Content: { ExternalId: 'RS', Results: [] }, Errors: null }),
    );
    const long = `RS-${'x'.repeat(58)}`;
    await withTempDir(async (dir) => {
      const remote = ['--target', 'remote', '--base-url', server!.url, 'review-session', 'show'];
      const argument = await cli(dir, [...remote, 'RS-1', long], { EXAMCTL_TOKEN: TOKEN });
      expect(argument.code).toBe(2);
      expectCoded(argument.stderr, 'E2000', 'review-session show:', '61 characters', 'at most 60');
      await writeFile(join(dir, 'ids.csv'), `ExternalId\nRS-1\n${long}\n`);
      const listed = await cli(dir, [...remote, '--file', 'ids.csv'], { EXAMCTL_TOKEN: TOKEN });
      expect(listed.code).toBe(2);
      expectCoded(listed.stderr, 'E2000', 'ids.csv:3:', '61 characters', 'at most 60');
      expect(server!.requests).toEqual([]);
      // 60 characters is the API's to look up.
      const atLimit = await cli(dir, [...remote, long.slice(0, 60), '--json'], { EXAMCTL_TOKEN: TOKEN });
      expect(atLimit.code).toBe(0);
      expect(server!.requests).toHaveLength(1);
    });
  });
});
