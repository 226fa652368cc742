/** The key two header names are compared by: case, spaces, `_` and `-` do not matter. */
export function normalizeColumnName(name: string): string {
  return name.replace(/[\s_-]+/g, '').toLowerCase();
}
