// A CSV reader's structure pass (a real run's first read) keeps the rows it tokenized when the
// file is small enough (csv-reader.ts, KEEP_ROWS_MAX_CHARS); the reads after it replay them
// instead of parsing the file again. The replay must give exactly what a parse gives, every
// time it is read, and only what the structure pass checked.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KEEP_ROWS_MAX_CHARS, readCsvRecords } from '../../src/input/csv-reader.js';
import type { InputRecord } from '../../src/input/record.js';
import { collect, fixture, userColumns } from './helpers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'examctl-kept-rows-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** What a reader hands on, as plain data (no identity). */
const asData = (records: readonly InputRecord[]) => JSON.parse(JSON.stringify(records)) as unknown;

async function batchesOf(
  path: string,
  counted: boolean,
  options: { displayName?: string; ignoreUnknownColumns?: boolean } = {},
) {
  const reader = readCsvRecords(path, { columns: userColumns, ...options });
  if (counted) await reader.countRecords!(false);
  const batches: (readonly InputRecord[])[] = [];
  for await (const batch of reader.batches()) batches.push(batch);
  return { reader, batches };
}

describe('a CSV read after the structure pass', () => {
  it.each([
    'users-basic.csv',
    'users-bom-crlf.csv',
    'users-semicolon.csv',
    'quoted-newlines.csv',
    'blank-lines.csv',
    'sep-directive.csv',
    'utf16le.csv',
    'report-as-input.csv',
  ])('gives the records a parse gives (%s): fields, lines, header, dialect, warnings', async (name) => {
    const path = fixture(name);
    const options = { displayName: name, ignoreUnknownColumns: true };
    const parsed = (await batchesOf(path, false, options)).batches.flat();
    const replayed = (await batchesOf(path, true, options)).batches.flat();
    expect(replayed.length).toBeGreaterThan(0);
    expect(asData(replayed)).toEqual(asData(parsed));
  });

  it('sends what the structure pass checked: a file changed after it is not read again', async () => {
    const path = join(dir, 'users.csv');
    writeFileSync(path, 'ExternalId,FirstName,LastName\nu-1,Ann,Lee\nu-2,Bob,Marley\n');
    const reader = readCsvRecords(path, { columns: userColumns });
    expect(await reader.countRecords!(false)).toBe(2);
    // Edited between the passes: a third row, and a row that would fail the structure check.
    writeFileSync(path, 'ExternalId,FirstName,LastName\nu-1,Ann,Leeds\nu-2,Bob\nu-3,Cy,Young\n');
    const records = await collect(reader);
    expect(records.map((record) => record.fields)).toEqual([
      { ExternalId: 'u-1', FirstName: 'Ann', LastName: 'Lee' },
      { ExternalId: 'u-2', FirstName: 'Bob', LastName: 'Marley' },
    ]);
    // And again, the same (a second read: `runs show`, a refused run's report).
    expect((await collect(reader)).map((record) => record.source.line)).toEqual([2, 3]);
  });

  it("restores a report's neutralised cells once per read, not once more each replay", async () => {
    const path = join(dir, 'report.csv');
    writeFileSync(
      path,
      "ExternalId,FirstName,LastName,status,error_codes,error_messages\nu-1,''=cmd,Lee,failed,209,x\n",
    );
    const reader = readCsvRecords(path, { columns: userColumns, ignoreUnknownColumns: true });
    await reader.countRecords!(true);
    for (let read = 0; read < 3; read++) {
      const [record] = await collect(reader);
      // The value was `'=cmd`, neutralised as `''=cmd` in the report: one quote comes off, once.
      expect(record?.fields['FirstName']).toBe("'=cmd");
      expect(record?.raw?.cells[1]).toBe("'=cmd");
    }
  });

  it.each(['users-basic.csv', 'users-semicolon.csv', 'quoted-newlines.csv', 'blank-lines.csv'])(
    "gives one field's records of the kept rows as the records of a read (%s): the field's value, the line, the header",
    async (name) => {
      const reader = readCsvRecords(fixture(name), {
        columns: userColumns,
        displayName: name,
        ignoreUnknownColumns: true,
      });
      expect(reader.keptRecords!('ExternalId')).toBeUndefined();
      await reader.countRecords!(false);
      const records = await collect(reader);
      for (const field of ['ExternalId', 'FirstName', 'LastName']) {
        const kept = [...reader.keptRecords!(field)!].flatMap((batch) => [...batch]);
        expect(kept.map(({ source, fields }) => [source.file, source.line, fields[field]])).toEqual(
          records.map(({ source, fields }) => [source.file, source.line, fields[field]]),
        );
        expect(kept.map((record) => [record.raw?.header, record.raw?.names])).toEqual(
          records.map((record) => [record.raw?.header, record.raw?.names]),
        );
      }
    },
  );

  it("gives a cell as written, a quote and all; none of a run report fed back (its records' cells are restored) or of a field with no column", async () => {
    const path = join(dir, 'users.csv');
    writeFileSync(path, "FirstName,ExternalId,LastName\nAnn,'-u-1,Lee\nBob,,Lee\n");
    const reader = readCsvRecords(path, { columns: userColumns });
    await reader.countRecords!(false);
    const kept = [...reader.keptRecords!('ExternalId')!].flatMap((batch) => [...batch]);
    expect(kept.map((record) => record.fields)).toEqual([{ ExternalId: "'-u-1" }, {}]);
    expect(kept.map((record) => record.fields)).toEqual(
      (await collect(reader))
        .map((record) => ({ ExternalId: record.fields['ExternalId'] }))
        .map((f) => (f.ExternalId === undefined ? {} : f)),
    );
    expect(reader.keptRecords!('Email')).toBeUndefined();
    const report = readCsvRecords(fixture('report-as-input.csv'), { columns: userColumns, ignoreUnknownColumns: true });
    await report.countRecords!(true);
    expect(report.keptRecords!('ExternalId')).toBeUndefined();
  });

  it('first hands on a small batch, so the first request waits for few rows', async () => {
    const path = join(dir, 'many.csv');
    writeFileSync(
      path,
      `ExternalId,FirstName,LastName\n${Array.from({ length: 2000 }, (_, i) => `u-${i},A,B`).join('\n')}\n`,
    );
    const { batches } = await batchesOf(path, true);
    expect(batches[0]!.length).toBeLessThanOrEqual(64);
    expect(batches.flat().map((record) => record.source.line)).toEqual(Array.from({ length: 2000 }, (_, i) => i + 2));
    expect(batches.length).toBeGreaterThan(2);
  });

  it('parses a file too large to keep again (memory stays bounded): changed since, it is refused, not read as it is then', async () => {
    const path = join(dir, 'large.csv');
    const row = `,${'x'.repeat(200)},Lee`;
    const rows = Math.ceil(KEEP_ROWS_MAX_CHARS / row.length) + 10;
    writeFileSync(
      path,
      `ExternalId,FirstName,LastName\n${Array.from({ length: rows }, (_, i) => `u-${i}${row}`).join('\n')}\n`,
    );
    const reader = readCsvRecords(path, { columns: userColumns });
    expect(await reader.countRecords!(false)).toBe(rows);
    // Changed after the structure pass: a large file is read from disk again, which finds it is another.
    copyFileSync(fixture('users-basic.csv'), path);
    await expect(collect(reader)).rejects.toThrow(/large\.csv:1: the input file changed while the run read it/);
  });
});
