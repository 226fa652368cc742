/**
 * The known column an unknown header most resembles (`Emial` -> `Email`), for the "unknown
 * column" message: a typo costs one rerun instead of a search through the docs. Compared on the
 * normalised names (case, spaces and separators ignored, as the header mapping does), by edit
 * distance with transpositions; a name further than about a third of its length from every
 * column suggests nothing.
 */
export function closestColumn(unknown: string, known: ReadonlyArray<{ key: string; name: string }>): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const column of known) {
    const distance = editDistance(unknown, column.key);
    if (best === undefined || distance < best.distance) best = { name: column.name, distance };
  }
  if (best === undefined || best.distance === 0) return undefined;
  return best.distance <= Math.max(1, Math.floor(unknown.length / 3)) ? best.name : undefined;
}

/** Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = value;
    }
  }
  return rows[a.length]![b.length]!;
}
