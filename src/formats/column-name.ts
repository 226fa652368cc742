const NON_ASCII = /[^\x00-\x7f]/;

/**
 * The key a value table's word and a cell's word are compared by (docs/input-formats.md, "Map
 * files"): a hyphen, an underscore or a space between two characters matters, so `Year 1-2` (a
 * mixed group) is never sent as `Year 12`'s value.
 */
export function valueWordKey(word: string): string {
  const composed = NON_ASCII.test(word) ? word.normalize('NFC') : word;
  return composed.trim().replace(/\s+/g, ' ').toLowerCase();
}
