/**
 * CSV output a spreadsheet cannot turn into a formula: text cells neutralised (report-csv-contract.ts), then
 * quoted RFC 4180 style where needed; a number is written as the number.
 */
import { neutraliseCell } from './report-csv-contract.js';

const NEEDS_QUOTES = /[",\r\n;]/;

/** How a CSV file is written, taken from the input it answers (docs/cli.md, "Run report"). */
export interface CsvDialect {
  /** `,`, `;` or a tab. */
  delimiter: string;
  /** Starts with a UTF-8 BOM (the input had a BOM, UTF-8 or UTF-16). */
  bom: boolean;
  /** Starts with Excel's `sep=;` line naming the delimiter. */
  sepLine: boolean;
  /** The line end of the file's first line: CRLF (Excel, and the default) or LF. */
  lineEnd: '\r\n' | '\n';
}

export const PLAIN_CSV: CsvDialect = { delimiter: ',', bom: false, sepLine: false, lineEnd: '\r\n' };

/**
 * A cell's text, or `{ number }`, a number in the file's decimal separator (`-5`, `87,5`): neutralised, `-5`
 * would be `'-5`, text Excel leaves out of its sums; a number is no formula.
 */
export type CsvCell = string | { readonly number: string };

export function csvCell(value: CsvCell, delimiter = ','): string {
  const safe = typeof value === 'string' ? neutraliseCell(value) : value.number;
  return NEEDS_QUOTES.test(safe) || (delimiter === '\t' && safe.includes('\t'))
    ? `"${safe.replace(/"/g, '""')}"`
    : safe;
}

export function csvLine(cells: readonly CsvCell[], delimiter = ',', lineEnd: CsvDialect['lineEnd'] = '\r\n'): string {
  return `${cells.map((cell) => csvCell(cell, delimiter)).join(delimiter)}${lineEnd}`;
}

/** The UTF-8 BOM Excel's own "CSV UTF-8" starts with: without it Excel on Windows reads UTF-8 as the ANSI code page. */
export function withUtf8Bom(text: string, bom: boolean): string {
  return bom ? `\uFEFF${text}` : text;
}

/** What a file of that dialect starts with before its header: the BOM and the `sep=` line. */
export function csvPreamble(dialect: CsvDialect): string {
  return `${dialect.bom ? '\uFEFF' : ''}${dialect.sepLine ? `sep=${dialect.delimiter}${dialect.lineEnd}` : ''}`;
}
