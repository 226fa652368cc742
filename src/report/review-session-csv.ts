/** A review session's results as a table (`examctl review-session show -o csv` and `-o xlsx`). */
import { answerFieldNames, RESULT_FIELDS } from '../domain/answer-fields.js';
import type { ReviewSession } from '../domain/types.js';
import { csvLine } from '../formats/csv-cell.js';

/** The Results entry's fields in the API text's order (domain answer-fields.ts): the CSV export's first columns. */
export const RESULT_COLUMNS: readonly string[] = answerFieldNames(RESULT_FIELDS);

export interface PinColumn {
  /** `--show-pin`: a last column `Pin` with the session's Pin as sent (empty when it has none). */
  pinColumn?: boolean;
}

/** The API's name of the review session's PIN, as the CSV and workbook column. */
const SESSION_PIN_COLUMN = 'Pin';

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
export function reviewSessionResultsTable(session: ReviewSession, options: PinColumn & { decimalComma?: boolean } = {}): { header: string[]; rows: string[][] } {
  const results = Array.isArray(session.Results) ? session.Results : [];
  const columns = [...RESULT_COLUMNS];
  const known = new Set(columns);
  // --show-pin: the session's Pin on every row (what each candidate types), unless the rows carry their own.
  const sessionPin = options.pinColumn === true && !results.some((result) => Object.hasOwn(result, SESSION_PIN_COLUMN));
  for (const result of results) {
    for (const key of Object.keys(result)) {
      if (!known.has(key)) {
        known.add(key);
        columns.push(key);
      }
    }
  }
  if (sessionPin) columns.push(SESSION_PIN_COLUMN);
  const rows = results.map((result) => {
    const record: Record<string, unknown> = sessionPin ? { ...result, [SESSION_PIN_COLUMN]: session.Pin } : result;
    return columns.map((column) => csvValue(record[column], options.decimalComma === true));
  });
  return { header: columns, rows };
}

/**
 * The Results as CSV (RFC 4180, CRLF, header row; `--delimiter` `;` or tab for Excel in other locales); cells a spreadsheet would run as a formula
 * are neutralised by the shared cell writer. With `;` decimals take a comma (docs/cli.md,
 * "review-session show -o csv"); with `,` and tab a point.
 */
export function reviewSessionResultsCsv(session: ReviewSession, options: PinColumn = {}, delimiter = ','): string {
  const { header, rows } = reviewSessionResultsTable(session, { ...options, decimalComma: delimiter === ';' });
  return [header, ...rows].map((cells) => csvLine(cells, delimiter)).join('');
}
