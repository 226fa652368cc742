/** Two JSON values alike: arrays in order, objects by their defined keys in any order (an undefined key is absent). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, index) => sameValue(item, other[index]));
  }
  const left = definedEntries(a as Record<string, unknown>);
  const right = definedEntries(b as Record<string, unknown>);
  if (left.length !== right.length) return false;
  const rightMap = new Map(right);
  return left.every(([key, value]) => rightMap.has(key) && sameValue(value, rightMap.get(key)));
}

function definedEntries(object: Record<string, unknown>): [string, unknown][] {
  return Object.entries(object).filter(([, value]) => value !== undefined);
}
