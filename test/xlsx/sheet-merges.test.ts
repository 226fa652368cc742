// Merged cells: a vertical merge is read on every row it covers (as the sheet shows it), any
// other merge as stored (its top-left cell alone). docs/input-formats.md, ".xlsx".
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { CANDIDATE_COLUMNS, SCHEDULE_COLUMNS, USER_COLUMNS } from '../../src/domain/columns.js';
import { verticalMerges } from '../../src/input/sheet-merges.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { inTempDir, readAll, writeWorkbook } from './helpers.js';
import { workbookBytes } from './zip-writer.js';

const SITTING_HEADER = [
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
const candidate = (n: number) => [`m-${n}`, 'A', `A${n}`, `a${n}@m.example.test`];
const schedule = ['S-MRG', 'A-MATH-1', 'Merged', '2027-06-10T09:00:00Z', '2027-06-10T12:00:00Z', 'H-MRG', 'Merged grp'];

async function* chunked(text: string, at: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text, 'utf8');
  yield bytes.subarray(0, at);
  yield bytes.subarray(at);
}

describe('verticalMerges: the merged ranges after the rows, found without reading the rows', () => {
  const part =
    '<worksheet xmlns="m"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>mergeCells &lt;mergeCell ref="B2:B9"/&gt;</t></is></c></row></sheetData>' +
    '<mergeCells count="4"><mergeCell ref="A2:A4"/><mergeCell ref="B2:D2"/><mergeCell ref="E3:F5"/><mergeCell ref="AB10:AB12"/></mergeCells><pageMargins left="0.7"/></worksheet>';

  it('only one-column ranges of several rows, wherever a chunk ends; text in a cell is no merge', async () => {
    for (let at = 0; at <= Buffer.byteLength(part); at++) {
      expect(await verticalMerges(chunked(part, at), 1 << 20), `split at ${at}`).toEqual([
        { column: 1, top: 2, bottom: 4 },
        { column: 28, top: 10, bottom: 12 },
      ]);
    }
  });

  it('a prefixed namespace (x:mergeCell) reads alike; a sheet without merges has none', async () => {
    const prefixed =
      '<x:worksheet xmlns:x="m"><x:sheetData></x:sheetData><x:mergeCells><x:mergeCell ref="C5:C7"/></x:mergeCells></x:worksheet>';
    expect(await verticalMerges(chunked(prefixed, 10), 1 << 20)).toEqual([{ column: 3, top: 5, bottom: 7 }]);
    expect(await verticalMerges(chunked('<worksheet><sheetData/></worksheet>', 5), 1 << 20)).toEqual([]);
  });

  it('a tail after the rows longer than a small part is refused', async () => {
    const long = `<worksheet><sheetData></sheetData><mergeCells>${'<mergeCell ref="A1:A2"/>'.repeat(100)}</mergeCells></worksheet>`;
    await expect(verticalMerges(chunked(long, 3), 1000)).rejects.toThrow(/over 1,000 bytes after its rows/);
  });
});

describe('a vertical merge is read on every row it covers', () => {
  it('ScheduleExtId merged down A2:A4, other columns filled on each row: every row has it', async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, 'm.xlsx');
      await writeWorkbook(path, [
        {
          name: 'Sittings',
          rows: [
            SITTING_HEADER,
            ['S-MRG2', ...schedule.slice(1), ...candidate(1)],
            [null, ...schedule.slice(1), ...candidate(2)],
            [null, ...schedule.slice(1), ...candidate(3)],
          ],
          merges: ['A2:A4'],
        },
      ]);
      const records = await readAll(path, { columns: [...CANDIDATE_COLUMNS, ...SCHEDULE_COLUMNS] });
      expect(
        records.map((record) => [record.source.line, record.fields['ScheduleExtId'], record.fields['CandidateExtId']]),
      ).toEqual([
        [2, 'S-MRG2', 'm-1'],
        [3, 'S-MRG2', 'm-2'],
        [4, 'S-MRG2', 'm-3'],
      ]);
      // The report gives the row back as the sheet shows it.
      expect(records[2]?.raw?.cells[0]).toBe('S-MRG2');
    });
  });

  it('a horizontal merge stays in its first cell; a label merged down rows with nothing else makes no record', async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, 'h.xlsx');
      await writeWorkbook(path, [
        {
          name: 'Users',
          rows: [
            ['ExternalId', 'FirstName', 'LastName', 'City'],
            ['u-1', 'Ann', null, 'Paris'],
            ['u-2', 'Bob', 'Ng', null],
            ['u-3', 'Cy', 'Lo', null],
            undefined,
            undefined,
          ],
          // B2:C2 across; D2:D6 down past the last record, onto rows with nothing else.
          merges: ['B2:C2', 'D2:D6'],
        },
      ]);
      const records = await readAll(path, { columns: USER_COLUMNS });
      expect(records.map((record) => [record.source.line, record.fields])).toEqual([
        [2, { ExternalId: 'u-1', FirstName: 'Ann', City: 'Paris' }],
        [3, { ExternalId: 'u-2', FirstName: 'Bob', LastName: 'Ng', City: 'Paris' }],
        [4, { ExternalId: 'u-3', FirstName: 'Cy', LastName: 'Lo', City: 'Paris' }],
      ]);
    });
  });

  it('a header cell merged down is not a value of the rows below it', async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, 'q.xlsx');
      const inline = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
      const sheetPart =
        '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>' +
        `<row r="1">${inline('A1', 'ExternalId')}${inline('B1', 'City')}</row><row r="2">${inline('A2', 'u-1')}</row><row r="3">${inline('A3', 'u-2')}</row>` +
        '</sheetData><mergeCells count="1"><mergeCell ref="B1:B3"/></mergeCells></worksheet>';
      await writeFile(path, workbookBytes({ sheetPart }));
      const records = await readAll(path, { columns: USER_COLUMNS });
      expect(records.map((record) => record.fields)).toEqual([{ ExternalId: 'u-1' }, { ExternalId: 'u-2' }]);
    });
  });
});

describe('schedule push of a sheet whose ScheduleExtId is merged down', () => {
  it('one schedule with all three candidates, no generated schedule', async () => {
    await withTempDir(async (dir) => {
      await writeWorkbook(join(dir, 'merged.xlsx'), [
        {
          name: 'Sittings',
          rows: [
            SITTING_HEADER,
            ['S-MRG2', ...schedule.slice(1), ...candidate(1)],
            [null, ...schedule.slice(1), ...candidate(2)],
            [null, ...schedule.slice(1), ...candidate(3)],
          ],
          merges: ['A2:A4'],
        },
      ]);
      const io = testDeps(dir);
      const code = await runCli(
        ['--store', join(dir, 'store'), 'schedule', 'push', '--file', 'merged.xlsx', '--dry-run', '--json'],
        io.deps,
      );
      expect(code).toBe(0);
      const items = JSON.parse(io.stdout.text).items as { id: string; status: string }[];
      expect(items.map((item) => [item.id, item.status])).toEqual([['S-MRG2', 'ok']]);
    });
  });
});
