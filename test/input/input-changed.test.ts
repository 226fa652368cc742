// A file rewritten after the read that checked it (docs/input-formats.md, "Re-reading and hostile
// files"): every later read of the same reader checks, after each chunk and before any record of
// it is handed on, that the file is still the one first read (its handle's fstat, then the SHA-256
// of its bytes), and refuses the rest, naming the line from which nothing was read.
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEEP_ROWS_MAX_CHARS, readCsvRecords } from '../../src/input/csv-reader.js';
import { readJsonRecords } from '../../src/input/json-reader.js';
import { readXlsxRecords } from '../../src/input/xlsx-reader.js';
import type { BatchedRecords } from '../../src/input/batches.js';
import type { InputRecord } from '../../src/input/record.js';
import { InputFileError } from '../../src/system/errors.js';
import { INPUT_CHANGED } from '../../src/input/text-source.js';
import { userColumns } from './helpers.js';
import { writeWorkbook } from '../xlsx/helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-input-changed-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const HEADER = 'ExternalId,FirstName,LastName,Email,Company,Labels,SpecialNeeds';

/** A CSV over the keep-rows limit (so a read after the structure pass parses the file again), first names starting with `name`. */
function bigCsv(name: string, extra = 0): string {
  const rows = [HEADER];
  for (let i = 0, chars = 0; chars <= KEEP_ROWS_MAX_CHARS; i += 1) {
    rows.push(`u-${i},${name}${i},Lee,u${i}@x.test,Acme,lab,no`);
    chars += rows[rows.length - 1]!.length;
  }
  return `${rows.join('\n')}${'\n'.repeat(1 + extra)}`;
}

/** Reads every batch of `read`, calling `between` after the first; the records it gave and how it ended. */
async function readAll(
  read: BatchedRecords,
  between?: () => Promise<void>,
): Promise<{ records: InputRecord[]; error: unknown }> {
  const records: InputRecord[] = [];
  try {
    for await (const batch of read.batches()) {
      if (records.length === 0) await between?.();
      records.push(...batch);
    }
  } catch (error) {
    return { records, error };
  }
  return { records, error: undefined };
}

function changedAt(error: unknown, file: string): number {
  expect(error).toBeInstanceOf(InputFileError);
  const { file: named, line, reason } = error as InputFileError;
  expect(named).toBe(file);
  expect(reason).toBe(INPUT_CHANGED);
  return line as number;
}

describe('a file rewritten in place after the read that checked it', () => {
  it('an unchanged file reads again as it was checked', async () => {
    const path = join(dir, 'same.csv');
    await writeFile(path, bigCsv('Ann'));
    const read = readCsvRecords(path, { columns: userColumns, displayName: 'same.csv' });
    const count = await read.countRecords!(false);
    const { records, error } = await readAll(read);
    expect(error).toBeUndefined();
    expect(records).toHaveLength(count);
  });

  it('is refused from its first line when it changed between the passes (CSV over the keep-rows limit)', async () => {
    const path = join(dir, 'between.csv');
    await writeFile(path, bigCsv('Ann'));
    const read = readCsvRecords(path, { columns: userColumns, displayName: 'between.csv' });
    await read.countRecords!(false);
    await writeFile(path, bigCsv('Zed', 1));
    const { records, error } = await readAll(read);
    expect(records).toEqual([]);
    expect(changedAt(error, 'between.csv')).toBe(1);
  });

  it('is refused from the chunk that follows a change made while it is read again: no record of the new content', async () => {
    const path = join(dir, 'during.csv');
    await writeFile(path, bigCsv('Ann'));
    const read = readCsvRecords(path, { columns: userColumns, displayName: 'during.csv' });
    const count = await read.countRecords!(false);
    const { records, error } = await readAll(read, () => writeFile(path, bigCsv('Zed', 1)));
    const line = changedAt(error, 'during.csv');
    expect(records.length).toBeGreaterThan(0);
    expect(records.length).toBeLessThan(count);
    expect(records.every((record) => String(record.fields.FirstName).startsWith('Ann'))).toBe(true);
    // Every record handed on starts before the line named; nothing from it on was read.
    expect(Math.max(...records.map((record) => record.source.line))).toBeLessThan(line);
  });

  it('a path that names another file since (a replace by rename) is refused too: the read would not be of the file checked', async () => {
    const path = join(dir, 'renamed.csv');
    await writeFile(path, bigCsv('Ann'));
    const read = readCsvRecords(path, { columns: userColumns, displayName: 'renamed.csv' });
    await read.countRecords!(false);
    await writeFile(join(dir, 'next.csv'), bigCsv('Ann'));
    await rename(join(dir, 'next.csv'), path);
    expect(changedAt((await readAll(read)).error, 'renamed.csv')).toBe(1);
  });

  it('a JSON file (read again by every pass, whatever its size) is refused the same way', async () => {
    const path = join(dir, 'users.ndjson');
    const lines = (name: string): string =>
      Array.from({ length: 3000 }, (_, i) => JSON.stringify({ ExternalId: `u-${i}`, FirstName: `${name}${i}` })).join(
        '\n',
      );
    await writeFile(path, lines('Ann'));
    const read = readJsonRecords(path, 'users.ndjson');
    expect((await readAll(read)).records).toHaveLength(3000);
    const { records, error } = await readAll(read, () => writeFile(path, lines('Zedd')));
    expect(changedAt(error, 'users.ndjson')).toBeGreaterThan(1);
    expect(records.every((record) => String(record.fields.FirstName).startsWith('Ann'))).toBe(true);
  });

  it('a file that changes while its first read checks it is refused by that read', async () => {
    const path = join(dir, 'first.csv');
    await writeFile(path, bigCsv('Ann'));
    const read = readCsvRecords(path, { columns: userColumns, displayName: 'first.csv' });
    const { error } = await readAll(read, () => writeFile(path, bigCsv('Zed', 1)));
    expect(changedAt(error, 'first.csv')).toBeGreaterThan(1);
  });

  it('an .xlsx workbook saved again between the passes (Excel saves by rename) is refused before any record of it', async () => {
    const path = join(dir, 'users.xlsx');
    const sheet = (name: string, count: number) => [
      {
        name: 'Users',
        rows: [['ExternalId', 'FirstName'], ...Array.from({ length: count }, (_, i) => [`u-${i}`, `${name}${i}`])],
      },
    ];
    await writeWorkbook(path, sheet('Ann', 50));
    const read = readXlsxRecords(path, { columns: userColumns, displayName: 'users.xlsx' });
    expect((await readAll(read)).records).toHaveLength(50);
    await writeWorkbook(join(dir, 'saved.xlsx'), sheet('Zedd', 2));
    await rename(join(dir, 'saved.xlsx'), path);
    const { records, error } = await readAll(read);
    expect(records).toEqual([]);
    expect(error).toBeInstanceOf(InputFileError);
    expect(error).toMatchObject({
      file: 'users.xlsx',
      reason: 'the input file changed while the run read it: nothing from here on is read',
    });
  });
});
