import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCsvRecords } from '../../src/input/csv-reader.js';
import { readJsonRecords } from '../../src/input/json-reader.js';
import { collect, expectInputFileError, userColumns } from './helpers.js';

/** The reader's read size: content is placed around multiples of it to cross chunk borders. */
const CHUNK = 256 * 1024;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-input-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Pads with a filler row until `text` is `offset` bytes long (the filler may be cut anywhere else). */
function padTo(lines: string[], offset: number, makeRow: (index: number) => string): void {
  let length = Buffer.byteLength(lines.join(''));
  let index = 0;
  while (length < offset) {
    let row = makeRow(index++);
    if (length + Buffer.byteLength(row) > offset) row = `${'x'.repeat(Math.max(1, offset - length - 1))}\n`;
    lines.push(row);
    length += Buffer.byteLength(row);
  }
}

describe('streaming across read chunks', () => {
  it('CSV: keeps records, values and start lines right when chunk borders cut quotes, lines and UTF-8', async () => {
    const parts = ['ExternalId,FirstName,LastName\n'];
    let line = 2;
    const expected: [number, string][] = [];
    let row = 0;
    // Records with multi-byte text, embedded quotes and line breaks, repeated past three chunks.
    let length = Buffer.byteLength(parts[0] as string);
    while (length < 3 * CHUNK + 5000) {
      const id = `u-${row}`;
      if (row % 7 === 3) {
        parts.push(`${id},"Zoë ""Z""","line one\r\nline two\nline three"\n`);
        expected.push([line, id]);
        line += 3;
      } else {
        parts.push(`${id},Łukasz,Ødegård\n`);
        expected.push([line, id]);
        line += 1;
      }
      length += Buffer.byteLength(parts[parts.length - 1] as string);
      row++;
    }
    const path = join(dir, 'big.csv');
    await writeFile(path, parts.join(''));
    const records = await collect(readCsvRecords(path, { columns: userColumns }));
    expect(records.map((record) => [record.source.line, record.fields.ExternalId])).toEqual(expected);
    const quoted = records.filter((record) => record.fields.FirstName === 'Zoë "Z"');
    expect(quoted.length).toBe(Math.floor((row - 4) / 7) + 1);
    expect(quoted.every((record) => record.fields.LastName === 'line one\r\nline two\nline three')).toBe(true);
    expect(records.filter((record) => record.fields.FirstName === 'Łukasz').length).toBe(row - quoted.length);
  });

  it('CSV: refuses invalid UTF-8 far into the file with its line', async () => {
    const lines = ['ExternalId,FirstName\n'];
    padTo(lines, CHUNK + 100, (index) => `u-${index},Name${index}\n`);
    const lineNumber = lines.join('').split('\n').length;
    const path = join(dir, 'late-latin1.csv');
    await writeFile(
      path,
      Buffer.concat([Buffer.from(lines.join('')), Buffer.from('u-last,Ren'), Buffer.from([0xe9, 0x0a])]),
    );
    await expectInputFileError(collect(readCsvRecords(path, { columns: userColumns })), {
      line: lineNumber,
      reason: /invalid UTF-8/,
    });
  });

  it('JSON: an escape or a multi-byte character on a chunk border does not break the scan', async () => {
    for (const border of ['\\"', 'é', '\\\\']) {
      const head = '[\n';
      const filler: string[] = [];
      let length = Buffer.byteLength(head);
      let index = 0;
      while (length < CHUNK - 200) {
        const element = `  {"ExternalId": "u-${index}"},\n`;
        filler.push(element);
        length += Buffer.byteLength(element);
        index++;
      }
      // Put the first byte of `border` exactly on the last byte of the first chunk.
      const prefix = '  {"ExternalId": "edge", "Note": "';
      const pad = 'p'.repeat(CHUNK - 1 - length - Buffer.byteLength(prefix));
      const text = `${head}${filler.join('')}${prefix}${pad}${border}end"},\n  {"ExternalId": "after"}\n]\n`;
      expect(
        Buffer.from(text)
          .subarray(CHUNK - 1, CHUNK - 1 + Buffer.byteLength(border))
          .toString(),
      ).toBe(border);
      const path = join(dir, 'border.json');
      await writeFile(path, text);
      const records = await collect(readJsonRecords(path));
      expect(records).toHaveLength(index + 2);
      const edge = records[index];
      expect(edge?.fields.Note).toBe(`${pad}${JSON.parse(`"${border}"`)}end`);
      expect(edge?.source.line).toBe(index + 2);
      expect(records[index + 1]?.source.line).toBe(index + 3);
    }
  });

  it('JSON: an element larger than a chunk is read whole', async () => {
    const big = 'y'.repeat(CHUNK * 2);
    const path = join(dir, 'large-element.ndjson');
    await writeFile(path, `{"ExternalId": "u-1"}\n{"ExternalId": "u-2", "Note": "${big}"}\n{"ExternalId": "u-3"}\n`);
    const records = await collect(readJsonRecords(path));
    expect(records.map((record) => [record.source.line, (record.fields.Note as string | undefined)?.length])).toEqual([
      [1, undefined],
      [2, CHUNK * 2],
      [3, undefined],
    ]);
  });

  it('UTF-16: characters split across chunks (surrogate pairs included) decode intact', async () => {
    const rows = ['ExternalId,FirstName\r\n'];
    for (let i = 0; i < 12000; i++) rows.push(`u-${i},Zoë😀${i}\r\n`);
    const path = join(dir, 'big-utf16.csv');
    await writeFile(path, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(rows.join(''), 'utf16le')]));
    const records = await collect(readCsvRecords(path, { columns: userColumns }));
    expect(records).toHaveLength(12000);
    expect(records.every((record, i) => record.fields.FirstName === `Zoë😀${i}` && record.source.line === i + 2)).toBe(
      true,
    );
  });

  it('stops reading when the consumer stops, and the file can be read again', async () => {
    const rows = ['ExternalId\n'];
    for (let i = 0; i < 50000; i++) rows.push(`u-${i}\n`);
    const path = join(dir, 'stop.csv');
    await writeFile(path, rows.join(''));
    const records = readCsvRecords(path, { columns: userColumns });
    const firstFew: unknown[] = [];
    for await (const record of records) {
      firstFew.push(record.fields.ExternalId);
      if (firstFew.length === 3) break;
    }
    expect(firstFew).toEqual(['u-0', 'u-1', 'u-2']);
    let count = 0;
    for await (const _ of records) count++;
    expect(count).toBe(50000);
  });
});

describe('errors far into a file', () => {
  const bigCsv = (tail: string): string => {
    const rows = ['ExternalId,FirstName,LastName\n'];
    for (let i = 0; i < 30000; i++) rows.push(i % 5 === 0 ? `u-${i},"Multi\nLine",Lee\n` : `u-${i},Ann,Lee\n`);
    return rows.join('') + tail;
  };
  // 30000 rows, every fifth spanning two lines: the tail starts on line 1 + 30000 + 6000 + 1.
  const tailLine = 36002;

  it('names the start line of an unclosed quote after many chunks', async () => {
    const path = join(dir, 'late-quote.csv');
    await writeFile(path, bigCsv('u-x,"Bob,Lee\nu-y,Cy,Doe\n'));
    await expectInputFileError(collect(readCsvRecords(path, { columns: userColumns })), {
      line: tailLine,
      reason: /quote not closed/,
    });
  });

  it('names the line of a ragged row after many chunks, with a hint for swallowed line breaks', async () => {
    const path = join(dir, 'late-ragged.csv');
    await writeFile(path, bigCsv('u-x,Bob\r\n'));
    await expectInputFileError(collect(readCsvRecords(path, { columns: userColumns })), {
      line: tailLine,
      reason: /row has 2 cells/,
    });
    const mixed = join(dir, 'mixed-endings.csv');
    await writeFile(mixed, 'ExternalId,FirstName\r\nu-1,Ann\r\nu-2,Bob\nu-3,Cy\r\n');
    await expectInputFileError(collect(readCsvRecords(mixed, { columns: userColumns })), {
      line: 3,
      reason: /row has 3 cells .*lines 3-4.*mixed CRLF and LF/,
    });
  });
});
