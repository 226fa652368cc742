import { join } from 'node:path';
import { expect } from 'vitest';
import { ROOT, type Finished } from '../support/cli.js';
import { withTempDir } from '../support/temp-dir.js';
import { expectOnlyErrorDocument } from '../support/error-document.js';

export { BIN, ROOT, examctl } from '../support/cli.js';
export { parseCsv } from '../support/csv.js';

export const CORPUS = join(ROOT, 'fixtures/corpus');
export const corpus = (name: string): string => join(CORPUS, name);

export type Run = Finished;

/** The run report as the contract shows it (only the parts these tests read). */
export interface Report {
  command: string;
  target: { kind: string; store?: string };
  dryRun: boolean;
  summary: { total: number; ok: number; partial: number; failed: number; skipped: number };
  items: {
    source: { file: string; line: number; index?: number };
    id: string | null;
    status: 'ok' | 'partial' | 'failed' | 'skipped';
    errors: { line?: number; field: string | null; code: number | null; message: string }[];
    warnings?: { field: string; code: number; message: string }[];
    action?: string;
  }[];
}

export function inTempDir<T>(run: (dir: string) => Promise<T>): Promise<T> {
  return withTempDir(run, 'examctl-corpus-');
}

/** Stack frames never reach a user without --debug. */
export function expectNoStack(run: Run): void {
  expect(run.stderr).not.toMatch(/^\s+at .+\(.*:\d+:\d+\)$/m);
  expect(run.stderr).not.toMatch(/internal error/);
}

/** With --json: stdout is exactly one JSON document (and parses). */
export function parseReport(run: Run): Report {
  expectNoStack(run);
  const text = run.stdout.trim();
  expect(text.startsWith('{') && text.endsWith('}')).toBe(true);
  return JSON.parse(text) as Report;
}

/**
 * A structural refusal: exit 2, one `examctl: E2100: file:line: reason` line, and no report on stdout
 * (nothing, or with --json the one error document).
 */
export function expectRefused(run: Run, file: string, line: number, reason: RegExp): void {
  expectNoStack(run);
  expect(run.code).toBe(2);
  if (run.stdout !== '') expectOnlyErrorDocument(run.stdout, 2);
  expect(run.stderr).toMatch(/^examctl: E21\d\d: /m);
  expect(run.stderr).toContain(`${file}:${line}: `);
  expect(run.stderr).toMatch(reason);
}

/** `[line, id, status, [field, code]...]` per item that is not ok: compact to compare in tables. */
export function problems(report: Report): [number, string | null, string, ...[string | null, number | null][]][] {
  return report.items
    .filter((item) => item.status !== 'ok')
    .map((item) => [
      item.source.line,
      item.id,
      item.status,
      ...item.errors.map((e) => [e.field, e.code] as [string | null, number | null]),
    ]);
}
