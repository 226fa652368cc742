import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorsSection, renderErrorBlocks } from '../../scripts/doc-tables.js';
import { runCli } from '../../src/cli/run-cli.js';
import { ERROR_CODES } from '../../src/system/error-codes.js';
import { ROOT } from '../support/cli.js';
import { testDeps, withTempDir } from './helpers.js';

/** `examctl explain CODE` prints an entry of src/system/error-codes.ts; docs/errors.md is made from the same table. */
describe('examctl explain', () => {
  it('prints the code, its exit, its cause and its fix; any case', () =>
    withTempDir(async (dir) => {
      const io = testDeps(dir);
      expect(await runCli(['explain', 'e3020'], io.deps)).toBe(0);
      expect(io.stdout.text).toContain('E3020:');
      expect(io.stdout.text).toContain('(exit 3)');
      expect(io.stdout.text).toContain(`Cause: ${ERROR_CODES.E3020.cause}`);
      expect(io.stdout.text).toContain(`Fix: ${ERROR_CODES.E3020.fix}`);
    }));

  it('--json: the entry as one document', () =>
    withTempDir(async (dir) => {
      const io = testDeps(dir);
      expect(await runCli(['explain', 'E2101', '--json'], io.deps)).toBe(0);
      expect(JSON.parse(io.stdout.text)).toEqual({ code: 'E2101', ...ERROR_CODES.E2101 });
    }));

  it('an unknown code: exit 2 with its own code, E2004, in the text and in --json', () =>
    withTempDir(async (dir) => {
      const io = testDeps(dir);
      expect(await runCli(['explain', 'E2999'], io.deps)).toBe(2);
      expect(io.stderr.text).toMatch(/^examctl: E2004: .*"E2999"/);
      const json = testDeps(dir);
      expect(await runCli(['explain', 'nope', '--json'], json.deps)).toBe(2);
      expect(JSON.parse(json.stdout.text).error).toMatchObject({ code: 'E2004', exitCode: 2 });
    }));
});

describe('the table of codes', () => {
  it("each code is E and four digits, led by its exit status's digits", () => {
    for (const [code, entry] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^E\d{4}$/);
      expect(code.slice(1).startsWith(String(entry.exit)), code).toBe(true);
      expect(entry.cause.length, code).toBeGreaterThan(20);
      expect(entry.fix.length, code).toBeGreaterThan(10);
    }
  });

  it('docs/errors.md holds every entry, as npm run docs:flags writes it', () => {
    const doc = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8');
    const { blocks } = renderErrorBlocks(doc);
    expect(blocks).toEqual([{ marker: 'codes', upToDate: true }]);
    for (const code of Object.keys(ERROR_CODES)) expect(errorsSection('codes')).toContain(`### ${code}\n`);
  });
});
