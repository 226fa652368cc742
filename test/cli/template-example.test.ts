import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps } from './helpers.js';
import { withTempDir } from '../support/temp-dir.js';

const fixture = (name: string) => readFile(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8');

/** `template --example`: the README's files for whoever has only the one-file executable (issue 62). */
describe('template --example', () => {
  it('prints the shipped sittings, users and collection files byte for byte', async () => {
    await withTempDir(async (dir) => {
      for (const [kind, name] of [
        ['sittings', 'sittings.csv'],
        ['users', 'users.csv'],
        ['collection', 'collection.json'],
      ]) {
        const io = testDeps(dir);
        expect(await runCli(['template', kind!, '--example'], io.deps)).toBe(0);
        expect(io.stdout.text).toBe(await fixture(name!));
      }
    });
  });

  it('writes --out, and the README main job then runs on it', async () => {
    await withTempDir(async (dir) => {
      expect(await runCli(['template', 'sittings', '--example', '--out', 'sittings.csv'], testDeps(dir).deps)).toBe(0);
      expect(await readFile(join(dir, 'sittings.csv'), 'utf8')).toBe(await fixture('sittings.csv'));
      const push = testDeps(dir);
      expect(await runCli(['schedule', 'push', '--file', 'sittings.csv'], push.deps)).toBe(0);
      expect(push.stderr.text).toContain('2 ok: 2 created');
    });
  });

  it('refuses a kind without an example, an -o other than its format, and --map-example beside it (exit 2)', async () => {
    await withTempDir(async (dir) => {
      for (const [argv, said] of [
        [['template', 'candidates', '--example'], 'candidates has no example file; one of users, sittings, collection'],
        [['template', 'users', '--example', '-o', 'xlsx'], 'leave out -o xlsx'],
        // A typed -o csv is not the default: the collection example ships as JSON.
        [['template', 'collection', '--example', '-o', 'csv'], 'leave out -o csv'],
        [['template', 'users', '--example', '--map-example'], 'give one'],
      ] as const) {
        const io = testDeps(dir);
        expect(await runCli([...argv], io.deps)).toBe(2);
        expect(io.stderr.text).toContain(said);
        expect(io.stdout.text).toBe('');
      }
    });
  });

  it('refuses --out naming another format than the example ships as (exit 2, no file): JSON under a .csv name reads as CSV', async () => {
    await withTempDir(async (dir) => {
      const io = testDeps(dir);
      expect(await runCli(['template', 'collection', '--example', '--out', 'c.csv'], io.deps)).toBe(2);
      expect(io.stderr.text).toContain('E2000');
      expect(io.stderr.text).toContain('collection.json');
      expect(io.stderr.text).toContain('c.csv');
      await expect(readFile(join(dir, 'c.csv'))).rejects.toThrow('ENOENT');
    });
  });
});
