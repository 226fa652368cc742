/** How a list cell is split into entries; no imports, so the CSV reader takes it alone. */

/** What separates a list cell's entries (docs/input-formats.md, "CSV"): `|`, or a line break (Alt+Enter). */
const LIST_SEPARATORS = /\||\r\n|\r|\n/;

/** A cell starting with `[`: a Hierarchies cell's JSON array of memberships, which may span lines. */
const JSON_ARRAY_CELL = /^\s*\[/;

/** Whether a cell's line breaks are inside one JSON array: only a cell that starts with `[` and is one. */
function jsonArrayCell(cell: string): boolean {
  if (!JSON_ARRAY_CELL.test(cell)) return false;
  try {
    return Array.isArray(JSON.parse(cell));
  } catch {
    return false;
  }
}

/**
 * The entries of a list cell, split on `|` or a line break, trimmed, empty ones dropped (`a | b||` is
 * `["a","b"]`); a JSON array cell is split on `|` alone, so one written over several lines stays whole.
 */
export function listCellEntries(cell: string): string[] {
  const items: string[] = [];
  // Most cells have no line break: split natively on `|` (the pattern only where one is).
  const parts = cell.includes('\n') || cell.includes('\r') ? listCellParts(cell) : cell.split('|');
  for (let i = 0; i < parts.length; i++) {
    const item = (parts[i] as string).trim();
    if (item !== '') items.push(item);
  }
  return items;
}

/** A list cell's text split as it is written, its entries untrimmed (the field's rule checks each). */
export function listCellParts(text: string): string[] {
  return text.split(jsonArrayCell(text) ? '|' : LIST_SEPARATORS);
}
