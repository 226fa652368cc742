import { describe, expect, it } from 'vitest';
import { paint } from '../../src/terminal/table-format.js';
import { renderRunSummaryTable } from '../../src/terminal/run-summary-table.js';

describe('paint', () => {
  it('wraps a cell in the ANSI codes of its colour, whatever stream node sees, and not at all when off', () => {
    expect(
      ['green', 'red', 'yellow', 'gray', 'cyan', 'bold'].map((colour) => paint('x', colour as never, true)),
    ).toEqual([
      '\u001b[32mx\u001b[39m',
      '\u001b[31mx\u001b[39m',
      '\u001b[33mx\u001b[39m',
      '\u001b[90mx\u001b[39m',
      '\u001b[36mx\u001b[39m',
      '\u001b[1mx\u001b[22m',
    ]);
    expect(paint('x', 'green', false)).toBe('x');
  });

  it('colours the run summary only where a count is not zero', () => {
    const text = renderRunSummaryTable({ total: 3, ok: 2, partial: 0, failed: 1, skipped: 0 } as never, {
      color: true,
    });
    expect(text).toContain('\u001b[32m2\u001b[39m');
    expect(text).toContain('\u001b[31m1\u001b[39m');
    expect(text).not.toContain('\u001b[33m');
  });
});
