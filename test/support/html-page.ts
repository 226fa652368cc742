import { HtmlReportWriter } from '../../src/report/html-report-writer.js';
import { RunReportBuilder } from '../../src/report/report-writers.js';
import type { ReportHeader, ReportItem, SourceRow } from '../../src/report/run-report.js';
import { StringSink } from './string-sink.js';

/** A plan's page (html-report-writer.ts) for `items`, as the run's report builder writes it. */
export async function htmlPage(items: readonly ReportItem[], header: ReportHeader): Promise<string> {
  const sink = new StringSink();
  const builder = new RunReportBuilder(
    [new HtmlReportWriter(sink, header, () => new Date('2026-11-21T10:00:00Z'))],
    header.dryRun,
  );
  for (const item of items) {
    const rows = PLAN_ROWS[item.id ?? ''];
    await builder.add(rows === undefined ? { item: { ...item } } : { item: { ...item }, rows });
  }
  await builder.finish();
  return sink.text;
}

export const DRY_RUN: ReportHeader = {
  command: 'user sync',
  target: { kind: 'local', store: '/srv/district/store' },
  dryRun: true,
  plans: true,
};

const row = (line: number) => ({ file: 'users.csv', line });

const HEADER = ['ExternalId', 'FirstName', 'LastName', 'Email', 'Password'];
/** The rows some items were read from: the page shows their values, a password's never. */
const PLAN_ROWS: Readonly<Record<string, readonly SourceRow[]>> = {
  'stu-1': [{ line: 2, header: HEADER, cells: ['stu-1', 'Amira', 'Haddad-Jones', 'amira@example.test', 'new-secret'] }],
  'stu-3': [{ line: 4, header: HEADER, cells: ['stu-3', '<script>alert("x")</script>', 'Ng', '', ''] }],
};

/**
 * One item of each kind a night's plan holds: an update with each field's before and after, a
 * mover, a leaver, a create, a name holding markup, an invalid row, unchanged users.
 */
export const PLAN_ITEMS: readonly ReportItem[] = [
  {
    source: row(2),
    id: 'stu-1',
    status: 'ok',
    errors: [],
    action: 'updated',
    changedFields: ['LastName', 'Password'],
    changes: [
      { field: 'LastName', known: true, before: 'Haddad', after: 'Haddad-Jones' },
      { field: 'Password', known: true, before: 'old-secret', after: 'new-secret' },
    ],
  },
  {
    source: row(3),
    id: 'stu-2',
    status: 'ok',
    errors: [],
    action: 'updated',
    // A mover as a live run reports it: its memberships' change, which its move says link by link.
    changes: [{ field: 'Hierarchies', known: true, before: 'H-NORTH:coordinator', after: 'H-SOUTH' }],
    removed: ['H-NORTH', 'H-NORTH:coordinator'],
    joined: ['H-SOUTH'],
    moved: 'Hierarchies',
  },
  { source: { file: 'sync memory', line: 0 }, id: 'stu-9', status: 'ok', errors: [], action: 'disabled' },
  {
    source: row(4),
    id: 'stu-3',
    status: 'ok',
    errors: [],
    action: 'created',
    changes: [{ field: 'FirstName', known: true, after: '<script>alert("x")</script>' }],
  },
  {
    source: row(5),
    id: 'stu-4',
    status: 'ok',
    errors: [],
    action: 'updated',
    changes: [
      { field: 'Email', known: false, after: 'ben@example.test' },
      { field: 'Hierarchies', known: true, after: 'H-NORTH' },
    ],
    // A row the file did not change, sent again after a store restore: the plan says why (docs/sync.md, "The plan").
    note: 'sent again: run 20261128-0102-ab12 acknowledged it, and the store was restored to before that',
  },
  {
    source: row(6),
    id: 'stu-5</script><img src=x>',
    status: 'failed',
    errors: [{ field: 'Email', code: 209, message: 'Email is not a valid address' }],
  },
  ...Array.from(
    { length: 3 },
    (_, i): ReportItem => ({
      source: row(7 + i),
      id: `stu-${10 + i}`,
      status: 'ok',
      errors: [],
      action: 'unchanged',
    }),
  ),
];
