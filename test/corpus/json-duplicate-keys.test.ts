import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputFileError } from '../../src/system/errors.js';
import { readJsonRecords } from '../../src/input/json-reader.js';
import { keyLines } from '../../src/system/json-scan.js';

const duplicateOf = (text: string) => keyLines(text, { depth: 64 }).duplicate?.path.at(-1);

// A key given twice in one JSON object is refused (JSON.parse would keep the last silently).
// In-process against the reader: nested objects, arrays, escapes, and elements that span chunks.

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-dupkeys-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function read(name: string, text: string): Promise<{ count: number; error?: InputFileError }> {
  const file = join(dir, name);
  await writeFile(file, text);
  let count = 0;
  try {
    for await (const _ of readJsonRecords(file, name)) count++;
    return { count };
  } catch (error) {
    if (error instanceof InputFileError) return { count, error };
    throw error;
  }
}

describe('duplicate keys in JSON records', () => {
  it.each([
    ['top level', '{"a":1,"b":2,"a":3}', 'a'],
    ['nested object', '{"H":[{"ExternalId":"x","ExternalId":"y"}]}', 'ExternalId'],
    ['escaped spelling of the same key', '{"ExternalId":1,"Ext\\u0065rnalId":2}', 'ExternalId'],
    ['after strings holding commas, quotes and braces', '{"a":"x,\\"y\\"}{","b":["a","a"],"a":0}', 'a'],
  ])('%s: refused naming the key', async (_name, text, key) => {
    const { error } = await read('dup.json', `${text}\n`);
    expect(error?.message).toContain(`the key "${key}" appears twice`);
    expect(duplicateOf(text)).toBe(key);
  });

  it.each([
    ['same key in sibling objects', '{"x":[{"a":1,"b":2},{"a":1,"b":2}],"y":{"a":1}}'],
    ['same text as key and value', '{"a":"a","b":["a",{"a":"b"}]}'],
    ['a __proto__ key', '{"__proto__":{"a":1},"a":1}'],
    ['empty containers', '{"a":{},"b":[],"c":[{}],"d":[[]]}'],
  ])('%s: accepted', async (_name, text) => {
    const { count, error } = await read('ok.ndjson', `${text}\n${text}\n`);
    expect(error).toBeUndefined();
    expect(count).toBe(2);
    expect(duplicateOf(text)).toBeUndefined();
  });

  it('names the line of the repetition, also for an element longer than a read chunk', async () => {
    const big = 'x'.repeat(300_000);
    const text = `[\n{"a":1},\n{"ExternalId":"u-1",\n"Note":"${big}",\n"Other":"${big}",\n"ExternalId":"u-2"}\n]\n`;
    const { count, error } = await read('big.json', text);
    expect(count).toBe(1);
    expect(error?.line).toBe(6);
    expect(error?.message).toMatch(/\bline 3\b/);
  });
});
