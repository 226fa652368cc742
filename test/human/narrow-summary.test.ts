import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { renderRunSummaryTable } from '../../src/terminal/run-summary-table.js';
import { utf8Locale } from '../../src/terminal/table-format.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { ROOT } from '../support/cli.js';

describe('the run summary table on a narrow terminal', () => {
  const summary = { total: 1_234_567, ok: 1_200_000, partial: 4_567, failed: 30_000, skipped: 0 };

  it('side by side when wide, with the numbers written as the progress line writes them', () => {
    const wide = renderRunSummaryTable(summary, { width: 100 });
    expect(wide).toContain('1,234,567');
    expect(wide.split('\n').filter((line) => line.includes('total'))).toHaveLength(1);
  });

  it('one count per row below 60 columns, every line fitting', () => {
    const narrow = renderRunSummaryTable(summary, { width: 40, dryRun: true });
    for (const line of narrow.trimEnd().split('\n')) expect(line.length, line).toBeLessThan(40);
    expect(narrow).toMatch(/invalid\s*│\s*30,000/);
    expect(narrow).toMatch(/valid\s*│\s*1,200,000/);
  });
});

describe('the run summary on a terminal whose locale is not UTF-8', () => {
  // As a terminal program judges it: LC_ALL, else LC_CTYPE, else LANG; none set is the C locale.
  it.each([
    [{ LANG: 'C' }, false],
    [{ LC_ALL: 'C', LANG: 'en_GB.UTF-8' }, false],
    [{}, false],
    [{ LANG: 'en_GB.UTF-8' }, true],
    [{ LC_CTYPE: 'UTF-8', LANG: 'C' }, true],
  ])('%o: box drawing %s, else the plain line of a pipe', async (locale, boxes) => {
    await withTempDir(async (dir) => {
      const io = testDeps(dir, { isTTY: true }, { ...locale, EXAMCTL_RUNS_DIR: join(dir, 'runs') });
      expect(
        await runCli(
          ['--store', join(dir, 'store'), 'user', 'sync', '--file', join(ROOT, 'fixtures', 'users.csv'), '--dry-run'],
          io.deps,
        ),
      ).toBe(0);
      expect(io.stderr.text.includes('┌'), io.stderr.text).toBe(boxes);
      expect(/[^\x00-\x7f]/.test(io.stderr.text), io.stderr.text).toBe(boxes);
    });
  });

  it('Windows: the console takes UTF-8 whatever LANG says', () => {
    expect(utf8Locale({ LANG: 'C' }, 'win32')).toBe(true);
  });
});
