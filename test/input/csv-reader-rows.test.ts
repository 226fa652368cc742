import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCsvRecords } from '../../src/input/csv-reader.js';
import { collect, expectInputFileError, userColumns } from './helpers.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-csv-rows-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let files = 0;
/** Writes `text` to a fresh file; returns the reader over it (named `name` in messages). */
async function csv(text: string, name = 'in.csv', ignoreUnknownColumns?: boolean) {
  const path = join(dir, `${files++}.csv`);
  await writeFile(path, text);
  return readCsvRecords(path, { columns: userColumns, displayName: name, ignoreUnknownColumns });
}

/** The full read and the structure pass (a real run's first pass) must refuse at the same line. */
async function expectBothRefuse(text: string, line: number, reason: RegExp): Promise<void> {
  const reader = await csv(text);
  await expectInputFileError(collect(reader), { file: 'in.csv', line, reason });
  await expectInputFileError((reader.countRecords as (notOkOnly: boolean) => Promise<number>)(false), {
    file: 'in.csv',
    line,
    reason,
  });
}

describe('CSV reader: unnamed columns at the end of the header', () => {
  it('ignores them while empty, also on rows that stop before them', async () => {
    const reader = await csv('ExternalId,FirstName,,,\r\nu-1,Ann,,,\r\nu-2,Bob\r\n\r\nu-3,Cy,,\r\n');
    const records = await collect(reader);
    expect(records.map((record) => [record.source.line, record.fields])).toEqual([
      [2, { ExternalId: 'u-1', FirstName: 'Ann' }],
      [3, { ExternalId: 'u-2', FirstName: 'Bob' }],
      [5, { ExternalId: 'u-3', FirstName: 'Cy' }],
    ]);
    expect(await (reader.countRecords as (notOkOnly: boolean) => Promise<number>)(false)).toBe(3);
  });

  it('refuses a value under one, naming the line and the column', async () => {
    await expectBothRefuse(
      'ExternalId,FirstName,,\nu-1,Ann,,\nu-2,Bob,,x\n',
      3,
      /^a value in column 4, which has no name in the header \(line 1\)$/,
    );
  });

  it('still refuses a row with fewer cells than the named columns, or more than the header', async () => {
    await expectBothRefuse('ExternalId,FirstName,,\nu-1\n', 2, /row has 1 cell but the header has 4 columns/);
    await expectBothRefuse('ExternalId,FirstName,,\nu-1,a,,,\n', 2, /row has 5 cells but the header has 4 columns/);
  });

  it('still refuses an unnamed column before a named one', async () => {
    await expectBothRefuse(
      'ExternalId,,FirstName,\nu-1,,Ann,\n',
      1,
      /^header column 2 has no name \(only empty columns at the end/,
    );
  });
});

describe('CSV reader: the header row repeated mid-file', () => {
  it('is refused at its line by the read and the structure pass, BOM and spelling variants included', async () => {
    await expectBothRefuse(
      'ExternalId,FirstName\nu-1,Ann\n\ufeffExternalId,FirstName\nu-2,Bob\n',
      3,
      /^the header row is repeated here \(files concatenated\?\)$/,
    );
    await expectBothRefuse(
      'External Id,first_name\r\nu-1,Ann\r\n"EXTERNAL-ID", FirstName\r\n',
      3,
      /header row is repeated/,
    );
    await expectBothRefuse('ExternalId,FirstName,,\nu-1,Ann,,\n_externalid,firstname,,\n', 3, /header row is repeated/);
  });

  it('leaves rows alone that match only some column names', async () => {
    const records = await collect(await csv('ExternalId,FirstName\nExternalId,Ann\nu-2,FirstName\n'));
    expect(records.map((record) => record.fields)).toEqual([
      { ExternalId: 'ExternalId', FirstName: 'Ann' },
      { ExternalId: 'u-2', FirstName: 'FirstName' },
    ]);
  });
});

describe('CSV reader: blanks around quoted fields', () => {
  it('drops them and reads the quoted value', async () => {
    const records = await collect(await csv('ExternalId,FirstName,LastName\n"u-1",A,"B"\n"u-2", "A, a" \t,B\n'));
    expect(records.map((record) => record.fields)).toEqual([
      { ExternalId: 'u-1', FirstName: 'A', LastName: 'B' },
      { ExternalId: 'u-2', FirstName: 'A, a', LastName: 'B' },
    ]);
  });
});

describe('CSV reader: a run report as input', () => {
  const header = 'ExternalId,FirstName,LastName,Company,Labels,status,error_codes,error_messages\n';

  it("reads a neutralised cell without its ' (one quote only), so a retry sends the original value", async () => {
    const records = await collect(
      await csv(`${header}u-1,'+1,'-2,'@x,'=a|'-b,failed,,\nu-2,''=x,'plain,'	tab,,failed,,\n`),
    );
    expect(records.map((record) => record.fields)).toEqual([
      { ExternalId: 'u-1', FirstName: '+1', LastName: '-2', Company: '@x', Labels: ['=a', "'-b"] },
      { ExternalId: 'u-2', FirstName: "'=x", LastName: "'plain", Company: 'tab' },
    ]);
    // raw too: the next report writes (and neutralises) the original value again.
    expect(records[0]?.raw?.cells[1]).toBe('+1');
  });

  it("keeps the ' in a file that is not a run report (its status column is its own, passed over)", async () => {
    const records = await collect(await csv("ExternalId,FirstName,status\nu-1,'+1,failed\n"));
    expect(records[0]?.fields.FirstName).toBe("'+1");
  });
});

describe('CSV reader: a refusal met on the last row, which csv-parse completes only at the end of the input', () => {
  it('names the last line, with no line break after it, in the full read and the structure pass', async () => {
    await expectBothRefuse('ExternalId,FirstName\nu-1,Ann\nu-2', 3, /row has 1 cell but the header has 2 columns/);
    await expectBothRefuse(
      'ExternalId,FirstName\nu-1,Ann\nExternalId,FirstName',
      3,
      /^the header row is repeated here/,
    );
    await expectBothRefuse('ExternalId,FirstName\nu-1,Ann\n"u-2,Bob', 3, /quote not closed/);
  });

  it('passes on the records before it, then the refusal', async () => {
    const reader = await csv('ExternalId,FirstName\nu-1,Ann\nu-2,Bob\nu-3');
    const seen: number[] = [];
    await expectInputFileError(
      (async () => {
        for await (const record of reader) seen.push(record.source.line);
      })(),
      { file: 'in.csv', line: 4, reason: /row has 1 cell/ },
    );
    expect(seen).toEqual([2, 3]);
  });
});
