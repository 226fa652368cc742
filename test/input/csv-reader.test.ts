import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCsvRecords, reportStatusOf } from '../../src/input/csv-reader.js';
import { normalizeColumnName } from '../../src/domain/field-names.js';
import { listCellEntries } from '../../src/domain/list-cells.js';
import { collect, expectInputFileError, fixture, userColumns } from './helpers.js';

const read = (name: string, ignoreUnknownColumns = false) =>
  collect(readCsvRecords(fixture(name), { columns: userColumns, ignoreUnknownColumns, displayName: name }));

describe('readCsvRecords: good files', () => {
  it('matches header names ignoring case, spaces, _ and -; trims cells; splits lists; drops empty cells', async () => {
    const records = await read('users-basic.csv');
    expect(records.map((record) => record.fields)).toEqual([
      {
        ExternalId: 'u-1',
        FirstName: 'Ann',
        LastName: 'Lee',
        Email: 'ann@example.test',
        Labels: ['blue', 'green'],
        SpecialNeeds: 'yes',
      },
      { ExternalId: 'u-2', FirstName: 'Bob', LastName: 'Marley', Labels: ['red', 'blue'] },
      { ExternalId: 'u-3', FirstName: 'Zoë', LastName: 'Ødegård', Email: 'zoe@example.test', SpecialNeeds: 'NO' },
    ]);
    expect(records.map((record) => record.source)).toEqual([
      { file: 'users-basic.csv', line: 2, index: 0 },
      { file: 'users-basic.csv', line: 3, index: 1 },
      { file: 'users-basic.csv', line: 4, index: 2 },
    ]);
  });

  it('keeps the original header and the cells of each row in raw', async () => {
    const [first] = await read('users-basic.csv');
    expect(first?.raw?.header).toEqual(['External Id', 'first_name', 'LAST-NAME', 'Email', 'Labels', 'SpecialNeeds']);
    expect(first?.raw?.cells).toEqual(['u-1', 'Ann', 'Lee', 'ann@example.test', 'blue|green', 'yes']);
  });

  it('reads UTF-8 with a BOM and CRLF line ends', async () => {
    const records = await read('users-bom-crlf.csv');
    expect(records.map((record) => [record.source.line, record.fields])).toEqual([
      [2, { ExternalId: 'u-1', FirstName: 'Ann', LastName: 'Lee' }],
      [3, { ExternalId: 'u-2', FirstName: 'Bob', LastName: 'Marley' }],
    ]);
    expect(records[0]?.raw?.header[0]).toBe('ExternalId');
  });

  it('detects the semicolon delimiter from the header and keeps commas in cells', async () => {
    const records = await read('users-semicolon.csv');
    expect(records.map((record) => record.fields)).toEqual([
      { ExternalId: 'u-1', FirstName: 'Ann', LastName: 'Lee', Company: 'Acme, Inc.' },
      { ExternalId: 'u-2', FirstName: 'Bob', LastName: 'Marley; Sons', Company: 'Say "hi"' },
    ]);
  });

  it('honours an Excel sep= first line and counts it as a line', async () => {
    const records = await read('sep-directive.csv');
    expect(records).toHaveLength(1);
    expect(records[0]?.fields).toEqual({ ExternalId: 'u-1', FirstName: 'Ann, the first' });
    expect(records[0]?.source.line).toBe(3);
  });

  it('gives quoted multi-line records the line where they start', async () => {
    const records = await read('quoted-newlines.csv');
    expect(records.map((record) => record.source.line)).toEqual([2, 3, 5, 8]);
    expect(records[0]?.fields.Company).toBe('Acme, Inc.');
    expect(records[1]?.fields.Company).toBe('first line\nsecond line');
    expect(records[2]?.fields.LastName).toBe('Doe "Junior"');
    expect(records[2]?.fields.Company).toBe('a\r\nb\r\nc');
  });

  it('skips blank, whitespace-only and all-empty rows without losing line numbers', async () => {
    const records = await read('blank-lines.csv');
    expect(records.map((record) => [record.source.line, record.source.index, record.fields.ExternalId])).toEqual([
      [4, 0, 'u-1'],
      [7, 1, 'u-2'],
    ]);
  });

  it('decodes UTF-16 LE and BE files with a BOM', async () => {
    const le = await read('utf16le.csv');
    expect(le.map((record) => record.fields)).toEqual([
      { ExternalId: 'u-1', FirstName: 'Zoë' },
      { ExternalId: 'u-2', FirstName: 'Łukasz' },
    ]);
    expect(le.map((record) => record.source.line)).toEqual([2, 3]);
    const be = await read('utf16be.csv');
    expect(be.map((record) => record.fields)).toEqual([{ ExternalId: 'u-1', FirstName: 'Zoë' }]);
  });

  it('reads Excel "Unicode text" (UTF-16, tab-separated)', async () => {
    const records = await read('excel-unicode-text.txt');
    expect(records.map((record) => [record.source.line, record.fields])).toEqual([
      [2, { ExternalId: 'u-1', FirstName: 'Zoë', Company: 'Acme, Inc.' }],
    ]);
  });

  it('yields zero records for a header-only file', async () => {
    expect(await read('header-only.csv')).toEqual([]);
  });

  it('accepts a run report CSV: status, error_codes and error_messages are ignored but kept in raw', async () => {
    const records = await read('report-as-input.csv');
    expect(records.map((record) => record.fields)).toEqual([
      { ExternalId: 'u-1', FirstName: 'Ann', LastName: 'Lee' },
      { ExternalId: 'u-2', FirstName: 'Bob' },
    ]);
    expect(records.map(reportStatusOf)).toEqual(['ok', 'failed']);
    expect(records[1]?.raw?.cells[5]).toBe('LastName is required; Email is not a valid address');
  });

  it('re-reads the file on every iteration of the same iterable', async () => {
    const records = readCsvRecords(fixture('users-basic.csv'), { columns: userColumns });
    const first = await collect(records);
    const second = await collect(records);
    expect(second).toEqual(first);
    expect(first).toHaveLength(3);
  });

  it('names the path as given when no display name is set', async () => {
    const [first] = await collect(readCsvRecords(fixture('users-bom-crlf.csv'), { columns: userColumns }));
    expect(first?.source.file).toBe(fixture('users-bom-crlf.csv'));
  });
});

describe('readCsvRecords: broken files', () => {
  it('refuses an empty file and a file of blank lines: no header row', async () => {
    await expectInputFileError(read('empty.csv'), { file: 'empty.csv', line: 1, reason: /no header row/ });
    await expectInputFileError(read('blank-only.csv'), { line: 1, reason: /no header row/ });
  });

  it('refuses binary content by name', async () => {
    const error = await expectInputFileError(read('binary.csv'), {
      line: 3,
      reason: /^not a text file \(binary content\)/,
    });
    expect(error.message).toMatch(/^binary\.csv:3: /);
  });

  it('refuses a NUL byte on the line it is on, also far into the file and in UTF-16', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'examctl-nul-'));
    try {
      const rows = Array.from({ length: 5000 }, (_, i) => `u-${i},Ann,Lee`);
      rows[3997] = 'u-3997,A\u0000nn,Lee';
      const text = `ExternalId,FirstName,LastName\n${rows.join('\n')}\n`;
      await writeFile(join(dir, 'far.csv'), text);
      // Line 1 is the header: row 3997 is on line 3999, past the first 64 KiB read.
      await expectInputFileError(
        collect(readCsvRecords(join(dir, 'far.csv'), { columns: userColumns, displayName: 'far.csv' })),
        { line: 3999, reason: /^not a text file \(binary content\)$/ },
      );
      await writeFile(
        join(dir, 'utf16.csv'),
        Buffer.concat([
          Buffer.from([0xff, 0xfe]),
          Buffer.from('ExternalId,FirstName\nu-1,Ann\nu-2,B\u0000o\n', 'utf16le'),
        ]),
      );
      await expectInputFileError(
        collect(readCsvRecords(join(dir, 'utf16.csv'), { columns: userColumns, displayName: 'utf16.csv' })),
        { line: 3, reason: /binary content/ },
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses invalid UTF-8 naming the line it is on', async () => {
    await expectInputFileError(read('latin1.csv'), { line: 3, reason: /not a text file \(binary content\).*UTF-8/ });
  });

  it('refuses ragged rows with the line where the row starts', async () => {
    await expectInputFileError(read('ragged-more.csv'), {
      line: 3,
      reason: /row has 4 cells but the header has 3 columns/,
    });
    await expectInputFileError(read('ragged-less.csv'), {
      line: 3,
      reason: /row has 2 cells but the header has 3 columns/,
    });
  });

  it('names every unknown column', async () => {
    const error = await expectInputFileError(read('unknown-columns.csv'), {
      line: 1,
      reason: /unknown columns: "Nickname", "Shoe Size"/,
    });
    expect(error.reason).toMatch(/--ignore-unknown-columns/);
  });

  it('skips unknown columns when asked to', async () => {
    const records = await read('unknown-columns.csv', true);
    expect(records.map((record) => record.fields)).toEqual([{ ExternalId: 'u-1', FirstName: 'Ann' }]);
    expect(records[0]?.raw?.cells).toEqual(['u-1', 'annie', 'Ann', '38']);
  });

  it('names both columns of a duplicate', async () => {
    await expectInputFileError(read('duplicate-columns.csv'), {
      line: 1,
      reason: /"FirstName" and "first name" both mean FirstName/,
    });
  });

  it('refuses an empty header cell', async () => {
    await expectInputFileError(read('empty-header-cell.csv'), { line: 1, reason: /header column 2 has no name/ });
  });

  it('turns quote errors into file:line errors at the record start', async () => {
    const error = await expectInputFileError(read('quote-not-closed.csv'), { line: 3, reason: /quote not closed/ });
    expect(error.message).toMatch(/^quote-not-closed\.csv:3: /);
    await expectInputFileError(read('bad-closing-quote.csv'), { line: 3, reason: /invalid closing quote/ });
  });

  it('reports a missing file, a directory and a header with no known column', async () => {
    await expectInputFileError(
      collect(readCsvRecords(fixture('nope.csv'), { columns: userColumns, displayName: 'nope.csv' })),
      {
        file: 'nope.csv',
        line: undefined,
        reason: /^cannot read: no such file$/,
      },
    );
    await expectInputFileError(collect(readCsvRecords(fixture(''), { columns: userColumns })), {
      line: undefined,
      reason: /^cannot read: is a directory$/,
    });
    await expectInputFileError(
      collect(
        readCsvRecords(fixture('unknown-columns.csv'), {
          columns: [{ name: 'Title', kind: 'string' }],
          ignoreUnknownColumns: true,
        }),
      ),
      { line: 1, reason: /no known column/ },
    );
  });
});

describe('column helpers', () => {
  it('normalises header names', () => {
    expect(['first name', 'FIRST_NAME', 'FirstName', 'first-name', ' First  Name '].map(normalizeColumnName)).toEqual(
      Array(5).fill('firstname'),
    );
  });

  it('splits list cells on | and line breaks, trimming entries and dropping empty ones; a JSON array cell on | alone', () => {
    expect(listCellEntries('a | b||c ')).toEqual(['a', 'b', 'c']);
    expect(listCellEntries('10.0.0.0/8')).toEqual(['10.0.0.0/8']);
    expect(listCellEntries(' | ')).toEqual([]);
    expect(listCellEntries('extra-time\nreader')).toEqual(['extra-time', 'reader']);
    // A cell that starts with [ but is no JSON array (two bracketed labels, a line each): two entries.
    expect(listCellEntries('[SEN]\n[EAL]')).toEqual(['[SEN]', '[EAL]']);
    expect(listCellEntries('[\n  {"ExternalId": "H-A"}\n]')).toEqual(['[\n  {"ExternalId": "H-A"}\n]']);
    expect(listCellEntries('H-NORTH\r\nH-SOUTH\r\n\r\n|H-EAST\rH-WEST\n')).toEqual([
      'H-NORTH',
      'H-SOUTH',
      'H-EAST',
      'H-WEST',
    ]);
    expect(listCellEntries('a, b\nc')).toEqual(['a, b', 'c']);
    expect(listCellEntries(' [\n {"ExternalId": "H-NORTH"}\n]')).toEqual(['[\n {"ExternalId": "H-NORTH"}\n]']);
  });
});

describe('readCsvRecords: order of records and errors', () => {
  it('passes on the rows before a structural problem, then throws it', async () => {
    const seen: unknown[] = [];
    const error = await (async () => {
      for await (const record of readCsvRecords(fixture('ragged-more.csv'), { columns: userColumns }))
        seen.push(record.fields.ExternalId);
    })().catch((caught: unknown) => caught);
    expect(seen).toEqual(['u-1']);
    expect((error as Error).message).toMatch(/ragged-more\.csv:3: .*\b4 cells/);
  });
});
