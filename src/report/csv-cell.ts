/**
 * CSV output that a spreadsheet cannot turn into a formula: each cell neutralised as the
 * report CSV contract says (report-csv-contract.ts), then quoted RFC 4180 style where needed.
 */
import { neutraliseCell } from './report-csv-contract.js';

export { neutraliseCell };

const NEEDS_QUOTES = /[",\r\n;]/;

export function csvCell(value: string): string {
  const safe = neutraliseCell(value);
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvLine(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}
