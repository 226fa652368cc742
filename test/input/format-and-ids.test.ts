import { describe, expect, it } from 'vitest';
import { detectFormat, formatFromExtension, readRecords } from '../../src/input/format.js';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readIdList } from '../../src/input/id-list.js';
import { neutraliseCell } from '../../src/formats/report-csv-contract.js';
import { writeWorkbook } from '../xlsx/helpers.js';
import { collect, expectInputFileError, fixture, userColumns } from './helpers.js';

describe('detectFormat', () => {
  it('goes by the extension, in any case', async () => {
    expect(await detectFormat('x/users.csv')).toBe('csv');
    expect(await detectFormat('x/USERS.JSON')).toBe('json');
    expect(await detectFormat('x/users.ndjson')).toBe('json');
    expect(await detectFormat('x/users.jsonl')).toBe('json');
    expect(formatFromExtension('x/users.txt')).toBeUndefined();
  });

  it('looks at the first non-blank character for any other extension', async () => {
    expect(await detectFormat(fixture('records-json.data'))).toBe('json');
    expect(await detectFormat(fixture('records-csv.data'))).toBe('csv');
  });

  it('looks inside in the --encoding given: a windows-1252 accent in a .txt export is read, not refused as binary', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'examctl-sniff-'));
    try {
      const file = path.join(dir, 'users.txt');
      await fs.writeFile(file, Buffer.from('ExternalId,FirstName\nu-1,Zo\xeb\n', 'latin1'));
      expect(await detectFormat(file, file, 'windows-1252')).toBe('csv');
      const records = await collect(readRecords(file, { columns: userColumns, encoding: 'windows-1252' }));
      expect(records.map((record) => record.fields['FirstName'])).toEqual(['Zoë']);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses markup (a JUnit or HTML report given back) on the line it starts, by file', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'examctl-sniff-'));
    try {
      for (const [name, text, line] of [
        ['report.xml', '<?xml version="1.0"?>\n<testsuites/>\n', 1],
        ['plan.html', '\n\n  <!DOCTYPE html>\n', 3],
      ] as const) {
        await fs.writeFile(path.join(dir, name), text);
        await expectInputFileError(detectFormat(path.join(dir, name), name), { file: name, line, reason: /markup/ });
      }
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('reports an unreadable file when it has to look inside', async () => {
    await expectInputFileError(detectFormat(fixture('missing.data'), 'missing.data'), {
      line: undefined,
      reason: /no such file/,
    });
  });
});

describe('readRecords', () => {
  it('dispatches to the CSV or the JSON reader', async () => {
    const fromCsv = await collect(
      readRecords(fixture('records-csv.data'), { columns: userColumns, displayName: 'r.data' }),
    );
    expect(fromCsv.map((record) => [record.source.file, record.source.line, record.fields])).toEqual([
      ['r.data', 2, { ExternalId: 'u-1', FirstName: 'Ann' }],
    ]);
    expect(fromCsv[0]?.raw).toBeDefined();
    const fromJson = await collect(readRecords(fixture('records-json.data'), { columns: userColumns }));
    expect(fromJson.map((record) => [record.source.line, record.fields])).toEqual([[2, { ExternalId: 'u-1' }]]);
    // The extension decides before the content: a .json file goes to the JSON reader.
    const byName = await collect(readRecords(fixture('users-array.json'), { columns: userColumns }));
    expect(byName.map((record) => [record.source.line, record.fields.ExternalId])).toEqual([
      [2, 'u-1'],
      [6, 'u-2'],
      [8, 'u-3'],
    ]);
  });
});

describe('readIdList', () => {
  const ids = async (name: string) =>
    (await readIdList(fixture(name), { displayName: name })).map((entry) => [entry.id, entry.source.line]);

  it('reads plain text: one id per line, blank lines and # comments skipped, an optional header', async () => {
    expect(await ids('ids.txt')).toEqual([
      ['inv-1', 2],
      ['inv-2', 4],
      ['inv-3', 5],
    ]);
    expect(await ids('ids-with-header.txt')).toEqual([
      ['inv-1', 2],
      ['inv-2', 3],
    ]);
  });

  it('reads the id column of a CSV, and a one-column CSV without header', async () => {
    expect(await ids('ids.csv')).toEqual([
      ['inv-1', 2],
      ['inv-2', 3],
    ]);
    expect(await ids('ids-single-column.csv')).toEqual([
      ['inv-1', 1],
      ['inv-2', 2],
    ]);
  });

  it('reads a run report CSV with its status', async () => {
    const entries = await readIdList(fixture('ids-report.csv'));
    expect(entries.map((entry) => [entry.id, entry.status])).toEqual([
      ['inv-1', 'ok'],
      ['inv-2', 'failed'],
    ]);
  });

  it("gives back the ids a run report CSV quoted against formulas, and keeps a plain list's quotes", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'examctl-ids-'));
    try {
      const ids = ['@inv-9', '-inv-8', "'=inv-7", 'inv-6'];
      const cells = ids.map(neutraliseCell);
      expect(cells).toEqual(["'@inv-9", "'-inv-8", "''=inv-7", 'inv-6']);
      const report = path.join(dir, 'report.csv');
      await fs.writeFile(
        report,
        [
          'UserExtId,status,error_codes,error_messages',
          ...cells.map((cell) => `${cell},failed,319,not an invigilator`),
        ].join('\n'),
      );
      expect((await readIdList(report)).map((entry) => entry.id)).toEqual(ids);
      const plain = path.join(dir, 'plain.csv');
      await fs.writeFile(plain, ['UserExtId,note', ...cells.map((cell) => `${cell},x`)].join('\n'));
      expect((await readIdList(plain)).map((entry) => entry.id)).toEqual(cells);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('reads the id column of a run report workbook made from a plain list (file, line, id), with its status', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'examctl-ids-'));
    try {
      const report = path.join(dir, 'report.xlsx');
      await writeWorkbook(report, [
        {
          name: 'Report',
          rows: [
            ['file', 'line', 'id', 'status', 'error_codes', 'error_messages', 'action', 'note', 'run', 'warnings'],
            ['ids.txt', '1', 'inv-1', 'ok', '', '', ''],
            ['ids.txt', '2', '-inv-2', 'failed', '319', 'not an invigilator', ''],
          ],
        },
      ]);
      expect((await readIdList(report)).map((entry) => [entry.id, entry.status])).toEqual([
        ['inv-1', 'ok'],
        ['-inv-2', 'failed'],
      ]);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('reads a JSON array of strings with the line of each', async () => {
    const entries = await readIdList(fixture('ids.json'), { displayName: 'ids.json' });
    expect(entries).toEqual([
      { id: 'inv-1', source: { file: 'ids.json', line: 2, index: 0 } },
      { id: 'inv-2', source: { file: 'ids.json', line: 4, index: 1 } },
    ]);
  });

  it('refuses a CSV without an id column, a non-string JSON element and a missing file', async () => {
    await expectInputFileError(readIdList(fixture('ids-no-column.csv')), {
      line: 1,
      reason: /no id column: name one of the columns UserExtId/,
    });
    await expectInputFileError(readIdList(fixture('ids-bad.json')), {
      line: 1,
      reason: /array element 1 is not a string/,
    });
    await expectInputFileError(readIdList(fixture('ids-missing.txt')), {
      line: undefined,
      reason: /cannot read: no such file/,
    });
    await expectInputFileError(readIdList(fixture('binary.csv')), { line: 3, reason: /binary content/ });
  });
});
