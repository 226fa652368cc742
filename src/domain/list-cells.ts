/**
 * How a list cell (Labels, Hierarchies, AllowedIpAddresses...) is split into its entries, for the
 * readers and the coercion alike. A module of its own, without imports: the CSV reader, loaded by
 * its row workers too, takes it without loading the rule tables.
 */

/**
 * What separates the entries of a list cell (docs/input-formats.md, "CSV"): `|`, and a line break
 * (Alt+Enter in a spreadsheet cell), since a sheet shows such a cell as one entry a line.
 */
const LIST_SEPARATORS = /\||\r\n|\r|\n/;

/** A cell starting with `[`: a Hierarchies cell's JSON array of memberships, which may span lines. */
const JSON_ARRAY_CELL = /^\s*\[/;

/**
 * Whether a cell's line breaks are inside one JSON array (a Hierarchies cell written over several
 * lines): only a cell that starts with `[` and is one, so `[SEN]` above `[EAL]` in a Labels cell
 * is two labels.
 */
function jsonArrayCell(cell: string): boolean {
  if (!JSON_ARRAY_CELL.test(cell)) return false;
  try {
    return Array.isArray(JSON.parse(cell));
  } catch {
    return false;
  }
}

/**
 * The entries of a list cell: separated by `|` or a line break, each trimmed, empty ones dropped
 * (`a | b||` and `a` above `b` are both `["a","b"]`). A cell that is a JSON array is split on `|`
 * alone: written over several lines, it stays whole.
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
