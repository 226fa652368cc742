import { describe, expect, it } from 'vitest';
import { renderRunSummaryTable } from '../../src/terminal/run-summary-table.js';

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
