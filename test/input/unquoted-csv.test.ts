// Lines without quotes are split directly (src/input/unquoted-csv.ts) instead of going through
// csv-parse: the rows, their lines, the dialect and every refusal must be what csv-parse gives,
// whatever the text (line ends mixed, quotes late in the file, whitespace of every kind, chunk
// boundaries inside a line or a UTF-8 sequence). Each text is read both ways and compared.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { csvRows, MAX_RECORD_BYTES } from '../../src/input/csv-reader.js';
import { UnquotedCsvLines } from '../../src/input/unquoted-csv.js';
import { mulberry32 } from '../../src/system/seeded-random.js';

const dir = mkdtempSync(join(tmpdir(), 'examctl-unquoted-csv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;

/** Everything a read hands on, and how it ends. */
async function readWith(path: string, tokenizer: 'auto' | 'csv-parse'): Promise<unknown[]> {
  const seen: unknown[] = [];
  const sink = {
    header: (cells: string[], line: number, dialect: unknown) => seen.push(['header', cells.slice(), line, dialect]),
    row: (cells: string[], line: number) => seen.push(['row', cells.slice(), line]),
  };
  try {
    for await (const _ of csvRows(path, 'in.csv', sink, undefined, tokenizer)) seen.push('chunk');
  } catch (error) {
    const { line, reason, message } = error as { line?: number; reason?: string; message: string };
    seen.push(['error', line, reason ?? message]);
  }
  return seen;
}

async function expectSameReads(text: string | Buffer): Promise<unknown[]> {
  const path = join(dir, `${files++}.csv`);
  writeFileSync(path, text);
  const direct = await readWith(path, 'auto');
  expect(direct).toEqual(await readWith(path, 'csv-parse'));
  return direct;
}

describe('CSV lines without quotes', () => {
  it.each([
    ['LF', 'ExternalId,FirstName\nu-1,Ann\nu-2,Bob\n'],
    ['CRLF', 'ExternalId,FirstName\r\nu-1,Ann\r\nu-2,Bob\r\n'],
    ['no final line end', 'ExternalId,FirstName\nu-1,Ann\nu-2,Bob'],
    ['CRLF, no final line end', 'ExternalId,FirstName\r\nu-1,Ann\r\nu-2,Bob'],
    ['blank lines and blank cells', '\n\nExternalId,FirstName,,\n\nu-1,Ann,,\n ,  ,\t,\nu-2,Bob\n\n'],
    [
      'whitespace of every kind around cells',
      'ExternalId,FirstName\n \tu-1\u00a0,\u2003Ann\u3000\n\ufeffu-2\u2028, B\u000bo\u000cb \n',
    ],
    ['semicolons', 'ExternalId;FirstName\nu-1;Ann, A.\n'],
    ['tabs', 'ExternalId\tFirstName\nu-1\t Ann \t\n'],
    ['an Excel sep line', 'sep=;\r\nExternalId;FirstName\r\nu-1;Ann\r\n'],
    ['an Excel sep line naming another delimiter', 'sep=|\nExternalId|FirstName\nu-1|Ann\n'],
    ['a second byte order mark', '\ufeff\ufeffExternalId,FirstName\nu-1,Ann\n'],
    ['mixed line ends, LF first', 'ExternalId,FirstName\nu-1,Ann\r\nu-2,Bob\n'],
    ['mixed line ends, CRLF first', 'ExternalId,FirstName\r\nu-1,Ann\nu-2,Bob\r\n'],
    ['CR line ends', 'ExternalId,FirstName\ru-1,Ann\ru-2,Bob\r'],
    ['a CR inside a CRLF line', 'ExternalId,FirstName\r\nu-1,A\rnn\r\n'],
    ['a lone CR at the end', 'ExternalId,FirstName\r\nu-1,Ann\r'],
    ['quotes after unquoted lines', 'ExternalId,FirstName\nu-1,Ann\n"u-2","B, b"\nu-3,Cy\n'],
    ['a quote inside an unquoted cell', 'ExternalId,FirstName\nu-1,A"nn\n'],
    ['a row too wide', 'ExternalId,FirstName\nu-1,Ann,x\n'],
    ['a value under an unnamed column', 'ExternalId,FirstName,\nu-1,Ann,x\n'],
    ['the header repeated', 'ExternalId,FirstName\r\nu-1,Ann\r\nexternal id, first_name\r\n'],
    ['only a header', 'ExternalId,FirstName'],
    ['nothing but blanks', '\n \n\t\n'],
  ])('%s', async (_name, text) => {
    await expectSameReads(text);
  });

  it('reads a long unquoted line no differently, up to and past the record size limit', async () => {
    for (const length of [MAX_RECORD_BYTES / 3 - 20, MAX_RECORD_BYTES / 3 + 20, MAX_RECORD_BYTES + 10]) {
      await expectSameReads(`ExternalId,FirstName\nu-1,${'a'.repeat(length)}\nu-2,Bob\n`);
      await expectSameReads(`ExternalId,FirstName\nu-1,${'é'.repeat(length / 2)}\n`);
    }
  });

  it('reads files of many chunks alike, whatever falls on a chunk boundary', async () => {
    const random = mulberry32(51);
    const pieces = [
      'a',
      'b',
      'é',
      '€',
      '😀',
      ' ',
      '\t',
      '\u00a0',
      '\ufeff',
      ',',
      ',',
      ';',
      '\n',
      '\n',
      '\r\n',
      '\r',
      '"',
      '""',
      '\u2028',
    ];
    for (let round = 0; round < 60; round++) {
      const lineEnd = round % 2 === 0 ? '\n' : '\r\n';
      const rows = ['ExternalId,FirstName,LastName'];
      // Long runs of plain rows, so the odd piece lands in a later chunk (8 KiB, then 64 KiB).
      const count = 100 + Math.floor(random() * 3000);
      const oddAt = Math.floor(random() * count);
      for (let i = 0; i < count; i++) {
        let row = `u-${i},First ${i % 7},Last é${i % 3}`;
        if (i === oddAt || random() < 0.002) {
          const at = Math.floor(random() * row.length);
          let odd = '';
          for (let k = 1 + Math.floor(random() * 3); k > 0; k--) odd += pieces[Math.floor(random() * pieces.length)];
          row = row.slice(0, at) + odd + row.slice(at);
        }
        rows.push(row);
      }
      await expectSameReads(rows.join(lineEnd) + (random() < 0.5 ? lineEnd : ''));
    }
  });

  it('splits a users export of plain lines without csv-parse', () => {
    const records: string[][] = [];
    const lines = new UnquotedCsvLines(',', (cells) => records.push(cells), MAX_RECORD_BYTES);
    expect(lines.write(Buffer.from('ExternalId,FirstName\r\nu-1,Ann\r\nu-2,B'))).toBe(true);
    expect(lines.write(Buffer.from('ob\r\n'))).toBe(true);
    expect(lines.end()).toBe(true);
    expect(records).toEqual([
      ['ExternalId', 'FirstName'],
      ['u-1', 'Ann'],
      ['u-2', 'Bob'],
    ]);
  });

  it('hands a chunk with a quote to csv-parse whole, from the unfinished line on, with the line end found', () => {
    const records: string[][] = [];
    const lines = new UnquotedCsvLines(',', (cells) => records.push(cells), MAX_RECORD_BYTES);
    expect(lines.write(Buffer.from('ExternalId,FirstName\r\nu-1,A'))).toBe(true);
    expect(lines.write(Buffer.from('nn\r\n"u-2",Bob\r\n'))).toBe(false);
    expect(records).toEqual([['ExternalId', 'FirstName']]);
    const from = lines.handOver();
    expect(from).toEqual({ bytes: Buffer.from('u-1,Ann\r\n"u-2",Bob\r\n'), recordDelimiter: '\r\n', atStart: false });
  });
});
