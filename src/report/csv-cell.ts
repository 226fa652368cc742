/**
 * CSV output that a spreadsheet cannot turn into a formula (cli-contract.md, "Run report"):
 * a cell starting with = + - @ tab or CR gets a leading single quote, then every cell that
 * needs it is quoted RFC 4180 style. A cell that already starts with quotes before such a
 * character gets one more, so reading a report back (which drops one quote from `'+...`,
 * src/input/csv-reader.ts) gives every value exactly as it was.
 */
const FORMULA_START = /^'*[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n;]/;

export function neutraliseCell(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

export function csvCell(value: string): string {
  const safe = neutraliseCell(value);
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvLine(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}
