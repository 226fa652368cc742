// A date-time field from a cell holding a date without a time (a whole day under a format with no
// time part) is refused, as the CSV text 2027-01-20 is; a cell formatted with a time is taken as
// shown, 00:00 included. docs/input-formats.md, ".xlsx".
import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli } from '../../src/cli/run-cli.js';
import { readCell } from '../../src/input/xlsx-cells.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { writeWorkbook } from './helpers.js';
import { lineWith } from '../support/facts.js';

const HEADER = [
  'ScheduleExtId',
  'AssessmentExtId',
  'Title',
  'StartDateTime',
  'EndDateTime',
  'GroupExtId',
  'GroupName',
  'CandidateExtId',
  'FirstName',
  'LastName',
  'Email',
];
const CANDIDATE = ['c-1', 'Ann', 'Lee', 'ann@example.test'];
const DAY = new Date(Date.UTC(2027, 0, 20));
const NOON = new Date(Date.UTC(2027, 0, 20, 12));

async function push(dir: string, file: string) {
  const io = testDeps(dir);
  const code = await runCli(
    ['--store', join(dir, 'store'), 'schedule', 'push', '--file', file, '--timezone', 'Europe/London', '--json'],
    io.deps,
  );
  return {
    code,
    items: JSON.parse(io.stdout.text).items as { status: string; errors: { field: string; message: string }[] }[],
    stderr: io.stderr.text,
  };
}

describe('a date-only cell in a date-time field', () => {
  it('is refused as the CSV text is, naming the file, row, cell and field', async () => {
    await withTempDir(async (dir) => {
      await writeWorkbook(join(dir, 'dateonly.xlsx'), [
        {
          name: 'Sittings',
          rows: [
            HEADER,
            [
              'S-DAY',
              'A-MATH-1',
              'Day',
              { value: DAY, numFmt: 'dd/mm/yyyy' },
              { value: NOON, numFmt: 'dd/mm/yyyy hh:mm' },
              'H-DAY',
              'Day grp',
              ...CANDIDATE,
            ],
          ],
        },
      ]);
      await writeFile(
        join(dir, 'dateonly.csv'),
        `${HEADER.join(',')}\nS-DAY,A-MATH-1,Day,2027-01-20,2027-01-20T12:00:00Z,H-DAY,Day grp,${CANDIDATE.join(',')}\n`,
      );
      const csv = await push(dir, 'dateonly.csv');
      const xlsx = await push(dir, 'dateonly.xlsx');
      expect(csv.items.map((item) => item.status)).toEqual(['failed']);
      expect(xlsx.code).toBe(csv.code);
      expect(xlsx.code).not.toBe(0);
      expect(xlsx.items.map((item) => item.status)).toEqual(['failed']);
      expect(xlsx.items[0]!.errors).toEqual([
        expect.objectContaining({
          field: 'Schedule.StartDateTime',
          message: 'cell D2: StartDateTime is a date cell (2027-01-20) without a time; give the date and time',
        }),
      ]);
      expect(lineWith(xlsx.stderr, 'dateonly.xlsx[Sittings]:2', 'StartDateTime', '2027-01-20')).toBeTruthy();
    });
  });

  it('a cell formatted with a time, 00:00 included, is taken as shown', async () => {
    await withTempDir(async (dir) => {
      await writeWorkbook(join(dir, 'midnight.xlsx'), [
        {
          name: 'Sittings',
          rows: [
            HEADER,
            [
              'S-MID',
              'A-MATH-1',
              'Midnight',
              { value: DAY, numFmt: 'dd/mm/yyyy hh:mm' },
              { value: NOON, numFmt: 'dd/mm/yyyy hh:mm' },
              'H-MID',
              'Mid grp',
              ...CANDIDATE,
            ],
          ],
        },
      ]);
      const { code, items, stderr } = await push(dir, 'midnight.xlsx');
      expect(items.map((item) => [item.status, item.errors])).toEqual([['ok', []]]);
      expect(code).toBe(0);
      expect(stderr).toContain('1 ok: 1 created');
      const io = testDeps(dir);
      await runCli(['--store', join(dir, 'store'), 'local', 'export'], io.deps);
      const stored = (
        JSON.parse(io.stdout.text) as { Schedules: { ScheduleExtId: string; StartDateTime: string }[] }
      ).Schedules.find((s) => s.ScheduleExtId === 'S-MID');
      expect(stored?.StartDateTime).toBe('2027-01-20T00:00:00.000Z');
    });
  });
});

describe('readCell: a date without a time in a date-time field', () => {
  const start = { field: 'StartDateTime', timeZone: 'Europe/London' };
  const refusal = {
    problem: 'StartDateTime is a date cell (2027-01-20) without a time; give the date and time',
    shown: '2027-01-20',
  };

  it('a whole serial under a date format, or a t="d" date alone, is refused; a time in the format or the value is read', () => {
    expect(readCell(46407, 'yyyy-mm-dd', start)).toEqual(refusal);
    expect(readCell({ isoDate: '2027-01-20' }, undefined, start)).toEqual(refusal);
    expect(readCell(46407, 'yyyy-mm-dd h:mm AM/PM', start)).toMatchObject({ text: '2027-01-20T00:00:00+00:00' });
    expect(readCell({ isoDate: '2027-01-20T00:00:00' }, undefined, start)).toMatchObject({
      text: '2027-01-20T00:00:00+00:00',
    });
    expect(readCell(46407.5, 'dd/mm/yyyy', start)).toMatchObject({ text: '2027-01-20T12:00:00+00:00' });
    // A date field still takes the date alone.
    expect(readCell(46407, 'dd/mm/yyyy', { field: 'DateOfBirth' })).toEqual({ text: '2027-01-20' });
  });
});
