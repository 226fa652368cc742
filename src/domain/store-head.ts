/** A head as a store writes and answers it (docs/store.md, "Head"): 16 bytes, base64url. */
export const isHead = (value: unknown): value is string =>
  typeof value === 'string' && /^[A-Za-z0-9_-]{22}$/.test(value);
