/**
 * Excel's escape for characters XML cannot hold (ECMA-376 ST_Xstring): `_x000D_` is a CR, and
 * `_x005F_` an underscore, so that text which itself looks like an escape survives
 * (`_x005F_x0041_` is the text `_x0041_`). Readers of workbooks (Excel, LibreOffice, openpyxl,
 * examctl's own) decode it; a writer that does not encode loses those characters: XML turns a
 * CR into LF, and exceljs drops the other controls and DEL. Pure.
 */

/** Excel's most characters in a cell: a writer cuts to it, a reader names it. */
export const EXCEL_CELL_CHARS = 32_767;

/**
 * What a cell's text cannot carry as itself: C0 controls but tab and LF, DEL (exceljs drops
 * it), U+FFFE and U+FFFF (not XML characters), a surrogate without its partner (not encodable
 * in UTF-8), and an underscore that starts something escape-like.
 */
const NEEDS_ESCAPE =
  /[\u0000-\u0008\u000b-\u001f\u007f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|_(?=x[0-9A-Fa-f]{4}_)/g;

const hex4 = (char: string): string => `_x${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`;

/** Text as a workbook cell holds it, so that every reader gives back exactly `text`. */
export function encodeXstring(text: string): string {
  // replace() gives the same string back when nothing matches: one scan either way.
  return text.replace(NEEDS_ESCAPE, hex4);
}

/**
 * A cell's text as written: escapes decoded left to right in one pass, as Excel does; a
 * character beyond the BMP comes as its two surrogates, each escaped.
 */
export function decodeXstring(text: string): string {
  if (text.indexOf('_x') === -1) return text;
  return text.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}
