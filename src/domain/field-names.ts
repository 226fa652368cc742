const NON_ASCII = /[^\x00-\x7f]/;

/** The key two header (and field) names are compared by (docs/input-formats.md, "Map files": what does not matter). */
export function normalizeColumnName(name: string): string {
  const composed = NON_ASCII.test(name) ? name.normalize('NFC') : name;
  return composed.replace(/[\s_-]+/g, '').toLowerCase();
}

/** Fields whose values are secrets (docs/cli-contract.md, "Run report"): never quoted in a problem or a warning. */
export const SECRET_FIELDS: ReadonlySet<string> = new Set(['Password', 'PIN']);

/** Whether a field name (as typed: any case, spaces, `_`, `-`) names a secret field. */
export function isSecretField(name: string): boolean {
  return [...SECRET_FIELDS].some((field) => normalizeColumnName(field) === normalizeColumnName(name));
}
