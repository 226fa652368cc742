import { describe, expect, it } from 'vitest';
import { readJsonRecords } from '../../src/input/json-reader.js';
import { collect, expectInputFileError, fixture } from './helpers.js';

const read = (name: string) => collect(readJsonRecords(fixture(name), name));

describe('readJsonRecords: good files', () => {
  it('gives each array element the line of its opening brace and its index', async () => {
    const records = await read('users-array.json');
    expect(records.map((record) => record.source)).toEqual([
      { file: 'users-array.json', line: 2, index: 0 },
      { file: 'users-array.json', line: 6, index: 1 },
      { file: 'users-array.json', line: 8, index: 2 },
    ]);
    expect(records[0]?.fields).toEqual({ ExternalId: 'u-1', Labels: ['a', 'b'] });
    expect(records[1]?.fields.Note).toBe('brace } and bracket ] and "quote" in a string');
    expect(records[2]?.fields).toEqual({ ExternalId: 'u-3', Hierarchies: [{ ExternalId: 'H-1' }] });
    expect(records.every((record) => record.raw === undefined)).toBe(true);
  });

  it('reads NDJSON, skipping blank lines, with the line of each object', async () => {
    const records = await read('users.ndjson');
    expect(records.map((record) => [record.source.line, record.source.index, record.fields.ExternalId])).toEqual([
      [1, 0, 'u-1'],
      [3, 1, 'u-2'],
      [5, 2, 'u-3'],
    ]);
    expect(records[1]?.fields.Labels).toEqual(['x']);
  });

  it('reads a single object (with a BOM) as one record', async () => {
    const records = await read('single-object.json');
    expect(records).toHaveLength(1);
    expect(records[0]?.source).toEqual({ file: 'single-object.json', line: 1, index: 0 });
    expect(records[0]?.fields).toEqual({ Schedule: { AssessmentExtId: 'A-1' }, Candidates: [] });
  });

  it('yields nothing for an empty array', async () => {
    expect(await read('empty-array.json')).toEqual([]);
  });
});

describe('readJsonRecords: broken files', () => {
  it('names the line of malformed JSON inside an element', async () => {
    const error = await expectInputFileError(read('malformed.json'), {
      file: 'malformed.json',
      line: 4,
      reason: /^malformed JSON: /,
    });
    expect(error.message).toMatch(/^malformed\.json:4: malformed JSON/);
  });

  it('refuses array elements that are not objects', async () => {
    await expectInputFileError(read('array-non-object.json'), {
      line: 3,
      reason: /array element 1 is not an object \(found a string\)/,
    });
  });

  it('refuses trailing garbage after the value', async () => {
    await expectInputFileError(read('trailing-garbage.json'), { line: 2, reason: /expected a JSON object/ });
  });

  it('refuses an array that is never closed, a trailing comma and a missing comma', async () => {
    await expectInputFileError(read('unclosed-array.json'), {
      line: 1,
      reason: /array opened on this line is not closed/,
    });
    await expectInputFileError(read('trailing-comma.json'), {
      line: 3,
      reason: /trailing comma after array element 0/,
    });
    await expectInputFileError(read('missing-comma.json'), {
      line: 3,
      reason: /expected "," or "\]" after array element 0/,
    });
  });

  it('refuses a non-object NDJSON line and an unclosed string', async () => {
    await expectInputFileError(read('ndjson-non-object.ndjson'), { line: 2, reason: /expected a JSON object/ });
    await expectInputFileError(read('unclosed-string.ndjson'), { line: 2, reason: /line break inside a string/ });
  });

  it('refuses an empty file and a CSV given as JSON', async () => {
    await expectInputFileError(read('empty.json'), { line: 1, reason: /no JSON content/ });
    await expectInputFileError(read('users-bom-crlf.csv'), {
      line: 1,
      reason: /expected a JSON object, an array of objects/,
    });
  });

  it('refuses binary content and reports a missing file', async () => {
    await expectInputFileError(read('binary.csv'), { line: 3, reason: /^not a text file \(binary content\)/ });
    await expectInputFileError(read('missing.json'), { line: undefined, reason: /^cannot read: no such file$/ });
  });

  it('stops on the first bad element after yielding the good ones before it', async () => {
    const seen: string[] = [];
    const error = await (async () => {
      for await (const record of readJsonRecords(fixture('array-non-object.json')))
        seen.push(String(record.fields.ExternalId));
    })().catch((caught: unknown) => caught);
    expect(seen).toEqual(['u-1']);
    expect(error).toBeInstanceOf(Error);
  });
});
