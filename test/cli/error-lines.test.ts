import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';

/**
 * docs/cli.md ("Exit status"): an error on stderr is `examctl: <code>: <message>` on its first line; a
 * list of problems (a world file's) follows, one per line indented two spaces, at most 20 shown.
 */
describe('the shape of an error on stderr', () => {
  it('local init --seed with a bad world file: the first line says what, the problems follow indented', async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'bad.json'), JSON.stringify({ version: 1, users: [] }));
      const io = testDeps(dir);
      expect(await runCli(['local', 'init', '--seed', 'bad.json', '--store', join(dir, 'store')], io.deps)).toBe(2);
      const [first, ...rest] = io.stderr.text.trimEnd().split('\n');
      expectCoded(first!, 'E2100', 'bad.json: ');
      expect(first).toMatch(/:$/);
      expect(rest.length).toBeGreaterThan(1);
      expect(rest.length).toBeLessThanOrEqual(21);
      for (const line of rest) expect(line).toMatch(/^ {2}\S/);
    });
  });

  it('an error without a list is one line', async () => {
    await withTempDir(async (dir) => {
      const io = testDeps(dir);
      expect(await runCli(['local', 'init', '--seed', 'missing.json', '--store', join(dir, 'store')], io.deps)).toBe(2);
      expect(io.stderr.text).toMatch(/^examctl: E2\d{3}: [^\n]+\n$/);
    });
  });
});
