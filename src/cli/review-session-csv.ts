/** A review session's results as CSV (`examctl review-session show -o csv`). */
import type { ReviewSession } from '../domain/types.js';
import { csvLine } from '../report/csv-cell.js';

/** The result fields of integration-api.md, in the spec's order: the CSV export's first columns. */
export const RESULT_COLUMNS: readonly string[] = [
  'CandidateExtId',
  'ScheduleExtId',
  'ScheduleTitle',
  'ScheduleGroupName',
  'FirstName',
  'LastName',
  'UserName',
  'Email',
  'DateOfBirth',
  'SpecialNeeds',
  'Labels',
  'LastSatDate',
  'PassedStatus',
  'Score',
  'PublishedDate',
  'IsVisited',
  'VisitedDate',
  'HasConflicts',
  'Keycode',
  'Grade',
];

function csvValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) return value.map((entry) => (typeof entry === 'string' ? entry : csvValue(entry))).join('|');
  return JSON.stringify(value);
}

/**
 * The Results rows as CSV (RFC 4180, CRLF, header row): the spec's result fields first, then any
 * extra field a server sent, in first-seen order. Lists are joined with `|` (the CLI's list
 * syntax); cells a spreadsheet would run as a formula are neutralised by the shared cell writer.
 */
export function reviewSessionResultsCsv(session: ReviewSession): string {
  const results = Array.isArray(session.Results) ? session.Results : [];
  const columns = [...RESULT_COLUMNS];
  const known = new Set(columns);
  for (const result of results) {
    for (const key of Object.keys(result)) {
      if (!known.has(key)) {
        known.add(key);
        columns.push(key);
      }
    }
  }
  const lines = [csvLine(columns)];
  for (const result of results) {
    const record = result as Record<string, unknown>;
    lines.push(csvLine(columns.map((column) => csvValue(record[column]))));
  }
  return lines.join('');
}
