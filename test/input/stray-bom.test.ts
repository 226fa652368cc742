import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRecords } from '../../src/input/format.js';
import { USER_COLUMNS } from '../../src/domain/columns.js';
import { withTempDir } from '../support/temp-dir.js';

/** A byte order mark inside JSON or NDJSON (files joined, an editor) is named by its code point, never printed as `""`. */
async function errorOf(dir: string, name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  try {
    for await (const _record of readRecords(path, { columns: USER_COLUMNS, displayName: name })) void _record;
  } catch (error) {
    return (error as Error).message;
  }
  return 'no error';
}

const user = (id: string) => `{"ExternalId":"${id}","FirstName":"A","LastName":"B"}`;

describe('a stray BOM inside JSON and NDJSON', () => {
  it.each([
    [
      'users.json',
      `[${user('u-1')},\uFEFF${user('u-2')}]`,
      /users\.json:1: array element 1 is not an object \(found a stray byte order mark U\+FEFF\)/,
    ],
    [
      'users.ndjson',
      `${user('u-1')}\n\uFEFF${user('u-2')}\n`,
      /users\.ndjson:2: expected a JSON object \(one per line\); found a stray byte order mark U\+FEFF/,
    ],
    [
      'inside.ndjson',
      `${user('u-1')}\n{"ExternalId":"u-2",\uFEFF"FirstName":"A","LastName":"B"}\n`,
      /inside\.ndjson:2: malformed JSON: found a stray byte order mark U\+FEFF/,
    ],
    [
      'control.ndjson',
      `${user('u-1')}\n\u0007${user('u-2')}\n`,
      /control\.ndjson:2: .*found an invisible character \(U\+0007\)/,
    ],
  ])('%s', async (name, text, message) => {
    await withTempDir(async (dir) => {
      const error = await errorOf(dir, name, text);
      expect(error).toMatch(message);
      expect(error).not.toContain('""');
      expect(error).not.toContain('\uFEFF');
    });
  });

  it('a BOM at the start of the file is still just the encoding mark', async () => {
    await withTempDir(async (dir) => {
      expect(await errorOf(dir, 'lead.ndjson', `\uFEFF${user('u-1')}\n`)).toBe('no error');
    });
  });
});
