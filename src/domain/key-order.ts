/** Entries (`[key, value]`) in their keys' code-unit order, not the locale's: the same on every machine. */
export function byKey([a]: readonly [string, ...unknown[]], [b]: readonly [string, ...unknown[]]): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
