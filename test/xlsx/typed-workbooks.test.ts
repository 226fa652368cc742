import { describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type ExcelJS from 'exceljs';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { firstSheet, openpyxl, oracleCell, readAll, rowsByHeader, zipEntryText, type OracleSheet } from './helpers.js';
import { RESULT_COLUMNS } from '../../src/report/review-session-csv.js';
import { onTarget } from '../support/target-flags.js';
import { lineWith } from '../support/facts.js';

/**
 * Issue 50, "Typed workbooks": what examctl writes as .xlsx read back by libraries nobody here
 * wrote (exceljs always; openpyxl when Debian's python3-openpyxl is installed) and by examctl's
 * own reader: numbers as numbers, times as Excel dates in the zone asked for, booleans as
 * booleans, ids and codes as text with their leading zeros; a report's offending cells marked.
 */

async function cli(dir: string, argv: string[], env: Record<string, string> = {}) {
  const io = testDeps(dir, {}, env);
  const code = await runCli(onTarget(['--store', join(dir, 'store')], argv), io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

/** The demo world with one result's candidate and keycode made of digits with leading zeros, seeded into the test's store. */
async function termStore(dir: string): Promise<void> {
  expect((await cli(dir, ['local', 'init'])).code).toBe(0);
  expect((await cli(dir, ['local', 'export', '--out', 'world.json'])).code).toBe(0);
  const world = JSON.parse(await readFile(join(dir, 'world.json'), 'utf8')) as {
    ReviewSessions: { ExternalId: string; Results: Record<string, unknown>[] }[];
  };
  const maths = world.ReviewSessions.find((session) => session.ExternalId === 'RS-MATH1-OCT')!;
  Object.assign(maths.Results[0]!, { CandidateExtId: '00123', Keycode: '0042' });
  await writeFile(join(dir, 'world.json'), JSON.stringify(world));
  expect((await cli(dir, ['local', 'init', '--seed', 'world.json', '--force'])).code).toBe(0);
}

describe("a term's review sessions as one typed workbook", () => {
  it('--file ids.csv -o xlsx --timezone Europe/London: numbers, London date-times, booleans, text ids with their zeros, read so by exceljs, openpyxl and examctl', async () => {
    await withTempDir(async (dir) => {
      await termStore(dir);
      await writeFile(join(dir, 'term.csv'), 'ExternalId\nRS-MATH1-OCT\nRS-LANG-PRACTICE\n');
      const shown = await cli(dir, [
        'review-session',
        'show',
        '--file',
        'term.csv',
        '-o',
        'xlsx',
        '--timezone',
        'Europe/London',
        '--out',
        'term.xlsx',
      ]);
      expect(shown.code).toBe(0);
      expect(lineWith(shown.stderr, '2 review sessions', '2 read')).toBeTruthy();
      const path = join(dir, 'term.xlsx');
      const rows = rowsByHeader(await firstSheet(path));
      expect(rows).toHaveLength(12);
      expect(rows.map((row) => row.get('ReviewSession')!.value)).toEqual([
        ...Array(6).fill('RS-MATH1-OCT'),
        ...Array(6).fill('RS-LANG-PRACTICE'),
      ]);
      const first = rows[0]!;
      expect(first.get('CandidateExtId')!.value).toBe('00123');
      expect(first.get('Keycode')!.value).toBe('0042');
      expect(first.get('Score')!.value).toBe(87.5);
      expect(first.get('IsVisited')!.value).toBe(true);
      expect(first.get('Labels')!.value).toBe(null);
      // 2026-10-12T08:00Z is 09:00 in London (BST); exceljs hands a date cell over as that wall clock in UTC.
      const published = first.get('PublishedDate')!;
      expect(published.value).toEqual(new Date('2026-10-12T09:00:00Z'));
      expect(published.numFmt).toBe('yyyy-mm-dd hh:mm:ss');
      expect(first.get('VisitedDate')!.value).toEqual(new Date('2026-10-13T19:21:00Z'));
      // A date of birth is a date, not a midnight instant moved by a zone.
      expect(rows[1]!.get('DateOfBirth')!.value).toEqual(new Date('2004-03-17T00:00:00Z'));
      expect(rows[1]!.get('DateOfBirth')!.numFmt).toBe('yyyy-mm-dd');
      expect(rows[1]!.get('Score')!.value).toBe(41);

      const oracle = openpyxl(path);
      if (oracle !== undefined) {
        const [sheet] = oracle as [OracleSheet];
        const cell = oracleCell(sheet);
        expect(cell(1, 'CandidateExtId')).toEqual(['str', '00123']);
        expect(cell(1, 'Keycode')).toEqual(['str', '0042']);
        expect(cell(1, 'Score')).toEqual(['float', '87.5']);
        expect(cell(2, 'Score')).toEqual(['int', '41']);
        expect(cell(1, 'PublishedDate')).toEqual(['datetime', '2026-10-12T09:00:00']);
        expect(cell(1, 'VisitedDate')).toEqual(['datetime', '2026-10-13T19:21:00']);
        expect(cell(2, 'DateOfBirth')).toEqual(['datetime', '2004-03-17T00:00:00']);
        expect(cell(1, 'IsVisited')).toEqual(['bool', 'True']);
        expect(cell(1, 'SpecialNeeds')).toEqual(['bool', 'False']);
        expect(sheet.types).toEqual(['bool', 'datetime', 'float', 'int', 'str']);
      }

      // examctl's own reader: every cell read back, date cells as their wall clock.
      const header = (await firstSheet(path)).getRow(1).values as unknown[];
      const back = await readAll(path, {
        columns: header.slice(1).map((name) => ({ name: String(name), kind: 'string' as const })),
      });
      expect(back).toHaveLength(12);
      const cells = new Map(back[0]!.raw!.header.map((name, i) => [name, back[0]!.raw!.cells[i]]));
      expect([
        cells.get('CandidateExtId'),
        cells.get('Keycode'),
        cells.get('Score'),
        cells.get('IsVisited'),
        cells.get('PublishedDate'),
      ]).toEqual(['00123', '0042', '87.5', 'true', '2026-10-12T09:00:00']);
    });
  });

  it("without --timezone the workbook keeps UTC; --date-format becomes the cells' number format", async () => {
    await withTempDir(async (dir) => {
      await cli(dir, ['local', 'init']);
      expect((await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'xlsx', '--out', 'utc.xlsx'])).code).toBe(
        0,
      );
      const utc = rowsByHeader(await firstSheet(join(dir, 'utc.xlsx')))[0]!;
      expect(utc.get('PublishedDate')!.value).toEqual(new Date('2026-10-12T08:00:00Z'));
      expect(
        (
          await cli(dir, [
            'review-session',
            'show',
            'RS-MATH1-OCT',
            '-o',
            'xlsx',
            '--date-format',
            'DD/MM/YYYY HH:mm',
            '--out',
            'uk.xlsx',
          ])
        ).code,
      ).toBe(0);
      const uk = rowsByHeader(await firstSheet(join(dir, 'uk.xlsx')));
      expect(uk[0]!.get('PublishedDate')!.numFmt).toBe('dd/mm/yyyy hh:mm');
      expect(uk[1]!.get('DateOfBirth')!.numFmt).toBe('dd/mm/yyyy');
    });
  });
});

describe('the zone of wall times, said in the file', () => {
  it('-o xlsx: the custom document property TimeZone and a note on the header of each time column name the zone, the columns named as in CSV', async () => {
    await withTempDir(async (dir) => {
      await cli(dir, ['local', 'init']);
      const shown = await cli(dir, [
        'review-session',
        'show',
        'RS-MATH1-OCT',
        '-o',
        'xlsx',
        '--timezone',
        'Europe/London',
        '--out',
        'uk.xlsx',
      ]);
      expect(shown.code, shown.stderr).toBe(0);
      const path = join(dir, 'uk.xlsx');
      expect(await zipEntryText(path, 'docProps/custom.xml')).toContain(
        'name="TimeZone"><vt:lpwstr>Europe/London</vt:lpwstr>',
      );
      expect(await zipEntryText(path, '_rels/.rels')).toContain('Target="docProps/custom.xml"');
      expect(await zipEntryText(path, '[Content_Types].xml')).toContain('PartName="/docProps/custom.xml"');
      const sheet = await firstSheet(path);
      const header = (sheet.getRow(1).values as unknown[]).slice(1).map(String);
      expect(header).toEqual([...RESULT_COLUMNS]);
      // And where the reader looks: a note on each time column's header (an Excel date keeps no zone).
      const noteOf = (column: string): string => {
        const value = sheet.getRow(1).getCell(header.indexOf(column) + 1).note;
        return typeof value === 'string' ? value : (value?.texts ?? []).map((run) => run.text).join('');
      };
      for (const column of ['LastSatDate', 'PublishedDate', 'VisitedDate'])
        expect(noteOf(column)).toMatch(/^Times in Europe\/London \(--timezone\): an Excel date keeps no zone/);
      // A date of birth is placed in no zone; the other columns hold no time.
      for (const column of ['DateOfBirth', 'Score', 'CandidateExtId']) expect(noteOf(column)).toBe('');
      // examctl reads its workbook back as before.
      const back = await readAll(path, { columns: header.map((name) => ({ name, kind: 'string' as const })) });
      expect(back.length).toBeGreaterThan(0);
      // Without --timezone: this computer's zone, named as such.
      const here = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'xlsx', '--out', 'here.xlsx'], {
        TZ: 'Europe/Berlin',
      });
      expect(here.code).toBe(0);
      expect(here.stderr).toContain("times in Europe/Berlin (this computer's zone; --timezone to change)");
      expect(await zipEntryText(join(dir, 'here.xlsx'), 'docProps/custom.xml')).toContain(
        '<vt:lpwstr>Europe/Berlin</vt:lpwstr>',
      );
    });
  });

  it('-o csv, ndjson with --date-format: a last column TimeZone on every row; without a date format (times with their offsets) none', async () => {
    await withTempDir(async (dir) => {
      await cli(dir, ['local', 'init']);
      const dated = await cli(dir, [
        'review-session',
        'show',
        'RS-MATH1-OCT',
        '-o',
        'csv',
        '--no-bom',
        '--date-format',
        'DD/MM/YYYY HH:mm',
        '--timezone',
        'Europe/London',
      ]);
      expect(dated.code, dated.stderr).toBe(0);
      const [header, ...rows] = dated.stdout
        .trimEnd()
        .split('\r\n')
        .map((line) => line.split(','));
      expect(header).toEqual([...RESULT_COLUMNS, 'TimeZone']);
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(row.at(-1)).toBe('Europe/London');
      expect(rows[0]![header!.indexOf('PublishedDate')]).toBe('12/10/2026 09:00');
      const ndjson = await cli(
        dir,
        ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'ndjson', '--date-format', 'DD/MM/YYYY HH:mm'],
        { TZ: 'Europe/Berlin' },
      );
      expect((JSON.parse(ndjson.stdout.split('\n')[0]!) as Record<string, unknown>).TimeZone).toBe('Europe/Berlin');
      const sent = await cli(dir, [
        'review-session',
        'show',
        'RS-MATH1-OCT',
        '-o',
        'csv',
        '--no-bom',
        '--timezone',
        'Europe/London',
      ]);
      expect(sent.stdout.split('\r\n')[0]!.split(',')).toEqual([...RESULT_COLUMNS]);
    });
  });
});

const USERS = [
  'ExternalId,FirstName,LastName,Email,Role,DateOfBirth,SpecialNeeds,ReasonableAdjustmentPercentage,PhoneNumber',
  '00456,Ann,Lee,ann@example.test,Candidate,17/03/2004,yes,25,+49 30 1234567',
  'u-2,Bo,Ng,not-an-address,Candidate,30/02/2004,no,abc,0123',
  'u-3,Cy,Oh,cy@example.test,Candidate,,true,007,',
].join('\n');

/** A cell's note (an Excel comment) as text. */
function note(cell: ExcelJS.Cell): string {
  const value = cell.note;
  return typeof value === 'string' ? value : (value?.texts ?? []).map((run) => run.text).join('');
}

/** USERS synced into a new store (`extra`: --dry-run or not), its report written to `report`. */
async function usersReport(dir: string, report: string, ...extra: string[]) {
  await cli(dir, ['local', 'init']);
  await writeFile(join(dir, 'users.csv'), USERS);
  return cli(dir, ['user', 'sync', '--file', 'users.csv', ...extra, '--date-format', 'DD/MM/YYYY', '--report', report]);
}

describe('a run report workbook', () => {
  it('types the cells of number, yes/no and date fields where they read back the same; a dry run marks each offending cell with a fill and a note of its codes and messages', async () => {
    await withTempDir(async (dir) => {
      const run = await usersReport(dir, 'dry.xlsx', '--dry-run');
      expect(run.code).toBe(1);
      const path = join(dir, 'dry.xlsx');
      const sheet = await firstSheet(path);
      const [ann, bo, cy] = rowsByHeader(sheet) as [
        Map<string, ExcelJS.Cell>,
        Map<string, ExcelJS.Cell>,
        Map<string, ExcelJS.Cell>,
      ];
      expect(ann.get('ExternalId')!.value).toBe('00456');
      expect(ann.get('DateOfBirth')!.value).toEqual(new Date('2004-03-17T00:00:00Z'));
      // Shown the way the input wrote it.
      expect(ann.get('DateOfBirth')!.numFmt).toBe('dd/mm/yyyy');
      expect(ann.get('SpecialNeeds')!.value).toBe(true);
      expect(ann.get('ReasonableAdjustmentPercentage')!.value).toBe(25);
      expect(ann.get('PhoneNumber')!.value).toBe('+49 30 1234567');
      // 007 would read back as 7: the text typed stays.
      expect(cy.get('ReasonableAdjustmentPercentage')!.value).toBe('007');
      // A failed cell keeps the text that failed; the others of its row are typed all the same.
      expect(bo.get('DateOfBirth')!.value).toBe('30/02/2004');
      expect(bo.get('ReasonableAdjustmentPercentage')!.value).toBe('abc');
      expect(bo.get('SpecialNeeds')!.value).toBe(false);
      expect(bo.get('status')!.value).toBe('invalid');

      // The offending cells: a strong fill and a note (an Excel comment) with each error's code and
      // message, as in the row's error columns; the rest of the row the red of a failed row.
      const strong = (cell: ExcelJS.Cell) => (cell.fill as ExcelJS.FillPattern | undefined)?.fgColor?.argb;
      expect(note(bo.get('Email')!)).toBe(
        '209 Email: Email is not a valid address: it has no @ (expected name@domain.tld)',
      );
      expect(note(bo.get('DateOfBirth')!)).toMatch(/^246 DateOfBirth: /);
      expect(
        note(bo.get('ReasonableAdjustmentPercentage')!)
          .split('\n')
          .map((line) => line.slice(0, 4)),
      ).toEqual(['249 ', '250 ']);
      expect(bo.get('FirstName')!.note).toBeUndefined();
      for (const field of ['Email', 'DateOfBirth', 'ReasonableAdjustmentPercentage'])
        expect(strong(bo.get(field)!)).toBe('FFC00000');
      expect(String(bo.get('error_codes')!.value).split('|').sort()).toEqual(['209', '246', '249', '250']);
      expect(bo.get('error_messages')!.value).toContain(
        'Email: Email is not a valid address: it has no @ (expected name@domain.tld)',
      );
      expect(bo.get('error_messages')!.value).toMatch(/DateOfBirth: .*ReasonableAdjustmentPercentage: /);
      expect(strong(bo.get('FirstName')!)).toBe('FFF8CBAD');
      for (const row of [ann, cy])
        for (const cell of row.values()) expect([cell.note, strong(cell)]).toEqual([undefined, undefined]);
      // Excel shows a note only with its legacy drawing beside the comments part.
      expect(await zipEntryText(path, 'xl/worksheets/_rels/sheet1.xml.rels')).toContain('vmlDrawing1.vml');
      expect(await zipEntryText(path, '[Content_Types].xml')).toContain('PartName="/xl/comments1.xml"');

      const oracle = openpyxl(path);
      if (oracle !== undefined) {
        const [read] = oracle as [OracleSheet];
        expect(read.marked).toEqual(['D3', 'F3', 'H3']);
        expect(read.typed[1]!.slice(0, 9)).toEqual([
          ['str', '00456'],
          ['str', 'Ann'],
          ['str', 'Lee'],
          ['str', 'ann@example.test'],
          ['str', 'Candidate'],
          ['datetime', '2004-03-17T00:00:00'],
          ['bool', 'True'],
          ['int', '25'],
          ['str', '+49 30 1234567'],
        ]);
      }

      // Fed back, the workbook gives the records the CSV gave.
      const fromCsv = await cli(dir, [
        'user',
        'sync',
        '--file',
        'users.csv',
        '--dry-run',
        '--date-format',
        'DD/MM/YYYY',
        '--json',
      ]);
      const fromXlsx = await cli(dir, [
        'user',
        'sync',
        '--file',
        'dry.xlsx',
        '--dry-run',
        '--date-format',
        'DD/MM/YYYY',
        '--json',
      ]);
      const outcome = (stdout: string) =>
        (
          JSON.parse(stdout) as { items: { id: string; status: string; errors: { code: number | null }[] }[] }
        ).items.map((item) => [item.id, item.status, item.errors.map((e) => e.code)]);
      expect(outcome(fromXlsx.stdout)).toEqual(outcome(fromCsv.stdout));
      const back = await readAll(path, {
        columns: USERS.split('\n')[0]!
          .split(',')
          .map((name) => ({ name, kind: 'string' as const })),
        ignoreUnknownColumns: true,
      });
      expect(back.map((record) => record.raw!.cells.slice(0, 9))).toEqual([
        ['00456', 'Ann', 'Lee', 'ann@example.test', 'Candidate', '2004-03-17', 'true', '25', '+49 30 1234567'],
        ['u-2', 'Bo', 'Ng', 'not-an-address', 'Candidate', '30/02/2004', 'false', 'abc', '0123'],
        ['u-3', 'Cy', 'Oh', 'cy@example.test', 'Candidate', '', 'true', '007', ''],
      ]);
    });
  });

  it("a real run's report marks each cell a failed row failed on, with its note, for the officer who fixes it there", async () => {
    await withTempDir(async (dir) => {
      const run = await usersReport(dir, 'result.xlsx');
      expect(run.code).toBe(1);
      const [ann, bo] = rowsByHeader(await firstSheet(join(dir, 'result.xlsx'))) as [
        Map<string, ExcelJS.Cell>,
        Map<string, ExcelJS.Cell>,
      ];
      expect(bo.get('status')!.value).toBe('failed');
      expect(note(bo.get('Email')!)).toMatch(/^209 Email: /);
      expect(note(bo.get('DateOfBirth')!)).toMatch(/^246 DateOfBirth: /);
      expect((bo.get('Email')!.fill as ExcelJS.FillPattern | undefined)?.fgColor?.argb).toBe('FFC00000');
      expect(bo.get('FirstName')!.note).toBeUndefined();
      for (const cell of ann.values()) expect(cell.note).toBeUndefined();
    });
  });

  it("a valid file's dry-run report stays plain: no note, no fill", async () => {
    await withTempDir(async (dir) => {
      await cli(dir, ['local', 'init']);
      await writeFile(
        join(dir, 'users.csv'),
        USERS.split('\n')
          .filter((_, i) => i !== 2)
          .join('\n'),
      );
      expect(
        (
          await cli(dir, [
            'user',
            'sync',
            '--file',
            'users.csv',
            '--dry-run',
            '--date-format',
            'DD/MM/YYYY',
            '--report',
            'dry.xlsx',
          ])
        ).code,
      ).toBe(0);
      const sheet = await firstSheet(join(dir, 'dry.xlsx'));
      for (const row of rowsByHeader(sheet))
        for (const cell of row.values())
          expect([cell.note, (cell.fill as ExcelJS.FillPattern | undefined)?.fgColor]).toEqual([undefined, undefined]);
      expect((await readFile(join(dir, 'dry.xlsx'))).includes('comments')).toBe(false);
    });
  });

  it("a schedule's start and end are Excel date-times in the run's --timezone, read back in it; without one, the text as written", async () => {
    await withTempDir(async (dir) => {
      await cli(dir, ['local', 'init']);
      const header =
        'AssessmentExtId,Title,ScheduleExtId,StartDateTime,EndDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email';
      await writeFile(
        join(dir, 'sittings.csv'),
        `${header}\nA-MATH-1,Maths,S-NEW1,28/03/2027 09:00,28/03/2027 11:00,H-NORTH,North,c-1001,Ada,Moreno,ada@example.test\n`,
      );
      const zoned = ['--date-format', 'DD/MM/YYYY HH:mm', '--timezone', 'Europe/London'];
      expect(
        (await cli(dir, ['schedule', 'push', '--file', 'sittings.csv', '--dry-run', ...zoned, '--report', 'dry.xlsx']))
          .code,
      ).toBe(0);
      const [row] = rowsByHeader(await firstSheet(join(dir, 'dry.xlsx')));
      expect(row!.get('StartDateTime')!.value).toEqual(new Date('2027-03-28T09:00:00Z'));
      expect(row!.get('StartDateTime')!.numFmt).toBe('dd/mm/yyyy hh:mm');
      const again = await cli(dir, [
        'schedule',
        'push',
        '--file',
        'dry.xlsx',
        '--dry-run',
        '--timezone',
        'Europe/London',
        '--json',
      ]);
      expect(again.code).toBe(0);
      const offsetIso = await cli(dir, ['schedule', 'push', '--file', 'sittings.csv', '--dry-run', ...zoned, '--json']);
      expect(JSON.parse(again.stdout).items).toEqual(
        JSON.parse(offsetIso.stdout).items.map((item: { source: object }) => ({ ...item, source: expect.any(Object) })),
      );
      // A report written again from the run's journal types its cells as the run's own report did.
      const runs = { EXAMCTL_RUNS_DIR: join(dir, 'runs') };
      expect((await cli(dir, ['schedule', 'push', '--file', 'sittings.csv', ...zoned], runs)).code).toBe(0);
      expect((await cli(dir, ['runs', 'show', 'last', '--report', 'shown.xlsx'], runs)).code).toBe(0);
      const shown = rowsByHeader(await firstSheet(join(dir, 'shown.xlsx')))[0]!;
      expect([shown.get('StartDateTime')!.value, shown.get('status')!.value]).toEqual([
        new Date('2027-03-28T09:00:00Z'),
        'ok',
      ]);
      await writeFile(
        join(dir, 'iso.csv'),
        `${header}\nA-MATH-1,Maths,S-NEW2,2027-03-28T09:00:00+01:00,2027-03-28T11:00:00+01:00,H-NORTH,North,c-1001,Ada,Moreno,ada@example.test\n`,
      );
      expect(
        (await cli(dir, ['schedule', 'push', '--file', 'iso.csv', '--dry-run', '--report', 'iso.xlsx'])).code,
      ).toBe(0);
      expect(rowsByHeader(await firstSheet(join(dir, 'iso.xlsx')))[0]!.get('StartDateTime')!.value).toBe(
        '2027-03-28T09:00:00+01:00',
      );
      // 01:30 in London on the night the clocks go back happens twice: an Excel date of it could not be read back, so it stays text.
      await writeFile(
        join(dir, 'autumn.csv'),
        `${header}\nA-MATH-1,Maths,S-NEW3,2027-10-31T01:30:00+01:00,2027-10-31T03:00:00Z,H-NORTH,North,c-1001,Ada,Moreno,ada@example.test\n`,
      );
      expect(
        (
          await cli(dir, [
            'schedule',
            'push',
            '--file',
            'autumn.csv',
            '--dry-run',
            '--timezone',
            'Europe/London',
            '--report',
            'autumn.xlsx',
          ])
        ).code,
      ).toBe(0);
      const autumn = rowsByHeader(await firstSheet(join(dir, 'autumn.xlsx')))[0]!;
      expect([autumn.get('StartDateTime')!.value, autumn.get('EndDateTime')!.value]).toEqual([
        '2027-10-31T01:30:00+01:00',
        new Date('2027-10-31T03:00:00Z'),
      ]);
    });
  });
});
