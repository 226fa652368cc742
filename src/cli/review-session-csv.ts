/** A review session's results as a table (`examctl review-session show -o csv` and `-o xlsx`). */
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

/**
 * A cell's text. With `decimalComma` (the `;` dialect, which Excel uses where the decimal
 * separator is a comma) a fractional number is written `87,5`: German Excel reads `87.5` there
 * as text or a date, never as the number. Integers and texts are the same in both dialects.
 */
function csvValue(value: unknown, decimalComma = false): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return decimalComma ? String(value).replace('.', ',') : String(value);
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) return value.map((entry) => (typeof entry === 'string' ? entry : csvValue(entry, decimalComma))).join('|');
  return JSON.stringify(value);
}

/**
 * The Results as a header and rows of text cells: the spec's result fields first, then any
 * extra field a server sent, in first-seen order. Lists are joined with `|` (the CLI's list
 * syntax).
 */
export function reviewSessionResultsTable(session: ReviewSession, decimalComma = false): { header: string[]; rows: string[][] } {
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
  const rows = results.map((result) => {
    const record = result as Record<string, unknown>;
    return columns.map((column) => csvValue(record[column], decimalComma));
  });
  return { header: columns, rows };
}

/**
 * The Results as CSV (RFC 4180, CRLF, header row; `--delimiter` `;` or tab for Excel in other locales); cells a spreadsheet would run as a formula
 * are neutralised by the shared cell writer. With `;` decimals take a comma (docs/input-formats.md,
 * "CSV dialects"); with `,` and tab a point.
 */
export function reviewSessionResultsCsv(session: ReviewSession, delimiter = ','): string {
  const { header, rows } = reviewSessionResultsTable(session, delimiter === ';');
  return [header, ...rows].map((cells) => csvLine(cells, delimiter)).join('');
}
