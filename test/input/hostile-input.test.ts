import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRecords } from '../../src/input/format.js';
import { MAX_RECORD_BYTES as MAX_RECORD_CHARS } from '../../src/input/csv-reader.js';
import { MAX_JSON_RECORD_CHARS } from '../../src/input/json-reader.js';
import { INPUT_LIMITS, MAX_JSON_DEPTH } from '../../src/system/json-scan.js';
import { parseJsonDocument } from '../../src/input/json-document.js';
// @ts-expect-error: a plain .mjs generator shared with the measuring script
import { generateHostile } from '../../fixtures/hostile/generate.mjs';
import { collect, expectInputFileError, userColumns } from './helpers.js';

const MAX_KEYS = INPUT_LIMITS.keys as number;

// Sizes are kept small enough for a test run yet past every limit; test/input/measure-hostile.mjs
// runs the same generators at full size (100-200 MB) and reports time and peak RSS.
let dir: string;
let files: Record<string, string>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'examctl-hostile-test-'));
  files = (await generateHostile(dir, {
    'no-line-break.csv': { size: 4 * 1024 * 1024 },
    'stray-quote-header.csv': { rows: 100_000 },
    'huge-line.ndjson': { size: MAX_JSON_RECORD_CHARS + 1024 * 1024 },
    'huge-row-no-quote.csv': { size: MAX_RECORD_CHARS + 10 },
    'key-flood.ndjson': { count: MAX_KEYS + 100 },
  })) as Record<string, string>;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const read = (name: string) => collect(readRecords(files[name] as string, { columns: userColumns, displayName: name }));

describe('hostile input files end with exit 2, the file and line, and a precise reason', () => {
  it('JSON nested 10,000 levels inside a record', async () => {
    const error = await expectInputFileError(read('deep-nesting.json'), {
      file: 'deep-nesting.json',
      line: 3,
      reason: new RegExp(`nested too deep: .*${MAX_JSON_DEPTH} levels .*record starting on line 3`),
    });
    expect(error.message.length).toBeLessThan(300);
  });

  it('a deeply nested whole document (world, config) reports its line instead of overflowing the stack', () => {
    const text = `{\n"a": ${'['.repeat(100_000)}1${']'.repeat(99_999)}}`;
    expect(() => parseJsonDocument(text, 'deep.json')).toThrow(
      /^deep\.json:2: nested too deep: objects and arrays nested deeper than 64 levels \(column 69\)/,
    );
  });

  it('a whole document (a --schedule file, a world) holds at most 16,384 keys in one object, as a record does', () => {
    const keys = (count: number): string => Array.from({ length: count }, (_, i) => `"k${i}":1`).join(',');
    expect(Object.keys(parseJsonDocument(`{${keys(MAX_KEYS)}}`, 'ok.json') as object)).toHaveLength(MAX_KEYS);
    expect(() => parseJsonDocument(`{"Schedule":\n{${keys(MAX_KEYS + 1)}}}`, 'flood.json')).toThrow(
      /^flood\.json:2: too many entries: more than 16,384 keys in one object \(column \d+\)$/,
    );
  });

  it('UTF-16 with a BOM holding a lone surrogate names the file and the line of the bad character', async () => {
    await expectInputFileError(read('lone-surrogate-utf16.csv'), {
      file: 'lone-surrogate-utf16.csv',
      line: 4,
      reason: /invalid UTF-16 \(a lone surrogate\)/,
    });
  });

  it('a first line without a line break is refused as a header too large', async () => {
    await expectInputFileError(read('no-line-break.csv'), {
      line: 1,
      reason: new RegExp(`^header too large: the header has over ${MAX_RECORD_CHARS.toLocaleString('en-US')} bytes`),
    });
  });

  it('a stray quote in the header of a large file names the header and the column of the quote', async () => {
    const error = await expectInputFileError(read('stray-quote-header.csv'), {
      line: 1,
      reason: /^header too large: the quoted field in column 2 of the header is not closed within 128,000 bytes/,
    });
    expect(error.reason).toMatch(/stray or unclosed quote/);
  });

  it('one NDJSON line over the record limit is refused with its line', async () => {
    await expectInputFileError(read('huge-line.ndjson'), {
      line: 2,
      reason: /^record too large: the object starting on this line is over 33,554,432 characters long/,
    });
  });

  it('an object of more keys than a sheet has columns is refused at its line before it is parsed', async () => {
    const records: unknown[] = [];
    const error = await expectInputFileError(
      (async () => {
        for await (const batch of readRecords(files['key-flood.ndjson'] as string, {
          columns: userColumns,
          displayName: 'flood.ndjson',
        }).batches())
          records.push(...batch);
      })(),
      {
        file: 'flood.ndjson',
        line: 2,
        reason: /^too many entries: more than 16,384 keys in one object \(column \d+\) \(record starting on line 2\)$/,
      },
    );
    expect(MAX_KEYS).toBe(16_384);
    expect(records).toHaveLength(1);
    expect(error.message.length).toBeLessThan(200);
  });

  it('a long row without any quote is called a line too large, and no quote is blamed', async () => {
    const error = await expectInputFileError(read('huge-row-no-quote.csv'), {
      line: 3,
      reason: /^line too large: the record starting on this line has over 128,000 bytes/,
    });
    expect(error.reason).not.toMatch(/quote/);
  });

  it('a long quoted cell that is never closed is called a cell too large, with its column', async () => {
    const { writeFileSync } = await import('node:fs');
    const file = join(dir, 'open-cell.csv');
    writeFileSync(file, `ExternalId,FirstName,LastName\nu1,"Ann\n${'z,'.repeat(MAX_RECORD_CHARS)}\n`);
    await expectInputFileError(collect(readRecords(file, { columns: userColumns })), {
      line: 2,
      reason:
        /^cell too large: the quoted field in column 2 of the record starting on this line is not closed within 128,000 bytes/,
    });
  });

  it('10,000 unknown columns make one short line with a count, and a near miss gets a suggestion', async () => {
    const error = await expectInputFileError(read('many-unknown-columns.csv'), {
      line: 1,
      reason:
        /^unknown columns: "Emial" \(did you mean "Email"\?\), "Extra0", .*"Extra8", … and 9,990 more; use --map "Column=Field" to read a column as an API field, or --ignore-unknown-columns/,
    });
    expect(error.message.length).toBeLessThan(400);
  });
});
