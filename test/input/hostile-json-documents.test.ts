/**
 * The other JSON inputs read by the one bounded scanner: a profile's config.json, an id list and a
 * sync memory export, each deep far past the stack or holding a token given by mistake, end in a
 * refusal (exit 2) that names the file and line and quotes nothing of it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configPath, loadConfig } from '../../src/context/config-file.js';
import { readIdList } from '../../src/input/id-list.js';
import { readDocument } from '../../src/sync/memory-document.js';
import { UsageError } from '../../src/system/errors.js';
import { withTempDir } from '../cli/helpers.js';

const TOKEN = 'tok_9fQ2xLm7Vb4Rn8Kd';
const DEEP = `{"a": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`;

async function refusal(run: () => Promise<unknown>): Promise<UsageError> {
  const error = await run().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UsageError);
  expect((error as UsageError).exitCode).toBe(2);
  return error as UsageError;
}

describe('JSON documents beside the records', () => {
  it('config.json: deep, or a token, is refused naming the file, the line and the column', () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_CONFIG_DIR: join(dir, 'config') };
      await mkdir(env.EXAMCTL_CONFIG_DIR, { recursive: true });
      await writeFile(configPath(env), DEEP);
      expect((await refusal(() => loadConfig(env))).message).toBe(`${configPath(env)}:1: nested too deep: objects and arrays nested deeper than 64 levels (column 70); the limit keeps a hostile file from exhausting the stack`);
      await writeFile(configPath(env), `\n${TOKEN}`);
      const leaked = await refusal(() => loadConfig(env));
      expect(leaked.message).toBe(`${configPath(env)}:2: not valid JSON: expected a value at column 1`);
    }));

  it('an id list holding a token names its line, and the token not at all', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'ids.json'), `["inv-1",\n ${TOKEN}]`);
      const error = await refusal(() => readIdList(join(dir, 'ids.json'), { displayName: 'ids.json' }));
      expect(error.message).toBe('ids.json:2: not valid JSON: expected a value at column 2');
      await writeFile(join(dir, 'ids.json'), `["inv-1",\n "inv-2"]`);
      expect((await readIdList(join(dir, 'ids.json'))).map((entry) => [entry.id, entry.source.line])).toEqual([['inv-1', 1], ['inv-2', 2]]);
    }));

  it('a sync memory export nested deep is refused as no memory examctl can use', async () => {
    const error = await refusal(async () => readDocument(DEEP, 'night.json'));
    expect(error.message).toBe('night.json: not a sync memory examctl can use: nested too deep: objects and arrays nested deeper than 64 levels (column 70); the limit keeps a hostile file from exhausting the stack (forged or damaged)');
    expect((await refusal(async () => readDocument(TOKEN, 'night.json'))).message).not.toContain(TOKEN.slice(0, 3));
  });
});
