// A CSV file read after its structure pass (countRecords: the rows it kept, replayed) gives
// exactly what a read of the file alone gives: the same records (fields, cells, lines, warnings),
// in the same order; a file the read refuses, the structure pass refuses the same way (file,
// line, reason), and the read hands on the same records before the refusal whichever comes first.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCsvRecords } from '../../src/input/csv-reader.js';
import { InputFileError } from '../../src/system/errors.js';
import { userColumns } from './helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-replayed-rows-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** An error's parts, as plain data. */
function parts(caught: unknown): unknown {
  return caught instanceof InputFileError
    ? { input: true, file: caught.file, line: caught.line, reason: caught.reason }
    : String(caught);
}

/** Everything a read hands on, and how it ended: records as plain data, the error's parts; `counted`: after a structure pass. */
async function readAll(
  path: string,
  counted: boolean,
  encoding?: string,
): Promise<{ records: unknown[]; error: unknown; countError?: unknown }> {
  const records: unknown[] = [];
  let error: unknown;
  let countError: unknown;
  const read = readCsvRecords(path, { columns: userColumns, ...(encoding === undefined ? {} : { encoding }) });
  if (counted) await read.countRecords!(false).catch((caught: unknown) => (countError = parts(caught)));
  try {
    for await (const batch of read.batches())
      for (const record of batch) records.push(JSON.parse(JSON.stringify(record)));
  } catch (caught) {
    error = parts(caught);
  }
  return { records, error, countError };
}

/** A deterministic row generator: plain, quoted with commas, quoted line breaks (LF and CRLF), spaces around quotes, lists. */
function row(i: number, eol: string): string {
  const id = `u-${i}`;
  switch (i % 7) {
    case 0:
      return `${id},"Ann, ""Jr""",Lee,${id}@x.test,Acme,a|b,yes${eol}`;
    case 1:
      return `${id},"two${eol}lines",Lee,${id}@x.test,Acme,,no${eol}`;
    case 2:
      return `${id}, "spaced" ,Lee,${id}@x.test,Acme,"a, b",${eol}`;
    case 3:
      return `${id},Zoë,Ünal,${id}@x.test,"multi\nline\r\ncell",lab,no${eol}`;
    default:
      return `${id},Ann,Lee,${id}@x.test,Acme,lab,no${eol}`;
  }
}

const HEADER = 'ExternalId,FirstName,LastName,Email,Company,Labels,SpecialNeeds';

/** A file of `rows` generated rows (several 64 KiB chunks), with `damage` applied to the text. */
async function file(
  name: string,
  rows: number,
  eol: string,
  damage: (lines: string[]) => void = () => undefined,
  prefix = '',
): Promise<string> {
  const lines = [`${HEADER}${eol}`];
  for (let i = 1; i <= rows; i++) lines.push(row(i, eol));
  damage(lines);
  const path = join(dir, name);
  await writeFile(path, prefix + lines.join(''));
  return path;
}

async function expectSame(path: string, encoding?: string): Promise<{ records: unknown[]; error: unknown }> {
  const alone = await readAll(path, false, encoding);
  const replayed = await readAll(path, true, encoding);
  expect(replayed.countError).toEqual(alone.error);
  expect(replayed.error).toEqual(alone.error);
  expect(replayed.records.length).toBe(alone.records.length);
  expect(replayed.records).toEqual(alone.records);
  return alone;
}

describe('CSV rows replayed after the structure pass', () => {
  it('gives the same records and lines as a read alone: quoted line breaks across chunk borders, LF and CRLF, a BOM', async () => {
    for (const eol of ['\n', '\r\n']) {
      const { records, error } = await expectSame(
        await file(`ok-${eol.length}.csv`, 6000, eol, () => undefined, '\uFEFF'),
      );
      expect(error).toBeUndefined();
      expect(records).toHaveLength(6000);
      // Lines count the line breaks inside quoted cells: the last record's line proves it.
      expect((records.at(-1) as { source: { line: number } }).source.line).toBeGreaterThan(6001);
    }
  });

  it('ends with the same error after the same records: a ragged row late in the file', async () => {
    const { records, error } = await expectSame(
      await file('ragged.csv', 5000, '\n', (lines) => lines.splice(4000, 0, 'u-x,only,three\n')),
    );
    expect(records.length).toBeGreaterThan(3000);
    expect(error).toMatchObject({ input: true, reason: expect.stringMatching(/row has 3 cells/) });
  });

  it('ends with the same error: a quote never closed, a repeated header, invalid UTF-8, an unknown column', async () => {
    const unclosed = await expectSame(
      await file('unclosed.csv', 5000, '\n', (lines) => lines.splice(4500, 0, 'u-y,"open,Lee,a@x.test,Acme,,no\n')),
    );
    expect(unclosed.error).toMatchObject({ reason: expect.stringMatching(/quote/) });
    const repeated = await expectSame(
      await file('repeated.csv', 5000, '\r\n', (lines) => lines.splice(3000, 0, `${HEADER}\r\n`)),
    );
    expect(repeated.error).toMatchObject({ reason: expect.stringMatching(/header row is repeated/) });
    const binary = join(dir, 'binary.csv');
    await writeFile(
      binary,
      Buffer.concat([
        Buffer.from(`${HEADER}\n${Array.from({ length: 4000 }, (_, i) => row(i + 1, '\n')).join('')}`),
        Buffer.from([0xff, 0xfe, 0x41, 0x0a]),
      ]),
    );
    expect((await expectSame(binary)).error).toMatchObject({ reason: expect.stringMatching(/invalid UTF-8/) });
    const unknown = await expectSame(await file('unknown.csv', 100, '\n', (lines) => (lines[0] = `${HEADER},Shoe\n`)));
    expect(unknown.error).toMatchObject({ line: 1, reason: expect.stringMatching(/unknown column/) });
  });

  it('reads a legacy code page and a sep= line the same way', async () => {
    const legacy = join(dir, 'legacy.csv');
    await writeFile(
      legacy,
      Buffer.from(
        `sep=;\n${HEADER.replaceAll(',', ';')}\n${Array.from({ length: 3000 }, (_, i) => `u-${i};Zo\xeb;L;u${i}@x.test;A;l;no\n`).join('')}`,
        'latin1',
      ),
    );
    const { records } = await expectSame(legacy, 'windows-1252');
    expect(records).toHaveLength(3000);
  });

  it('an empty file and a missing file fail the same way', async () => {
    const empty = join(dir, 'empty.csv');
    await writeFile(empty, '');
    expect((await expectSame(empty)).error).toMatchObject({ reason: expect.stringMatching(/no header row/) });
    expect((await expectSame(join(dir, 'missing.csv'))).error).toMatchObject({ reason: 'cannot read: no such file' });
  });
});
