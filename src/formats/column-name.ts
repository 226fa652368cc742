const NON_ASCII = /[^\x00-\x7f]/;

/**
 * The key two header names (and a value table's words) are compared by: case, spaces, `_` and `-`
 * do not matter, nor how an accent is encoded (`é` as one code point, as a Windows export
 * decodes, or `e` and a combining accent, as some editors save a map file).
 */
export function normalizeColumnName(name: string): string {
  const composed = NON_ASCII.test(name) ? name.normalize('NFC') : name;
  return composed.replace(/[\s_-]+/g, '').toLowerCase();
}
