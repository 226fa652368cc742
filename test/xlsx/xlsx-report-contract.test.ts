/**
 * ReportSink's contract (run-report.ts): a promise `item` gives back is waited for before the next
 * item. The workbook writer keeps no queue of its own for a caller that breaks it: such a caller
 * fails loudly (a second sheet cannot open over the first), never writes a report silently wrong.
 */
import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { XlsxReportWriter } from '../../src/report/xlsx-report-writer.js';
import type { ReportEntry } from '../../src/report/run-report.js';

const entry = (line: number): ReportEntry => ({
  item: { source: { file: 'u.csv', line }, id: `u-${line}`, status: 'ok', errors: [] },
  rows: [{ line, header: ['ExternalId'], cells: [`u-${line}`] }],
});

describe('the .xlsx report writer and an item not waited for', () => {
  it('a second item given before the first is written fails loudly', async () => {
    const stream = new Writable({ write: (_chunk, _encoding, done) => done() });
    const writer = new XlsxReportWriter(stream);
    const first = writer.item(entry(2));
    const second = writer.item(entry(3));
    const outcomes = await Promise.allSettled(
      [first, second].map((p) => Promise.resolve(p).then(() => writer.finish())),
    );
    expect(outcomes.some((o) => o.status === 'rejected')).toBe(true);
  });
});
