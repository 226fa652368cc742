import { normalizeColumnName } from '../domain/field-names.js';

/** Helpers for messages naming what the user wrote: the likely meant name, long lists cut with a count. */

/**
 * Edit distance between `a` and `b` (insertions, deletions, substitutions, swaps of neighbours: `Emial`),
 * giving up (`limit + 1`) as soon as it must exceed `limit`.
 */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const width = b.length + 1;
  let beforePrevious = new Array<number>(width).fill(0);
  let previous = new Array<number>(width);
  let current = new Array<number>(width);
  for (let j = 0; j < width; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j < width; j++) {
      const cb = b.charCodeAt(j - 1);
      let value = Math.min(
        (previous[j - 1] as number) + (ca === cb ? 0 : 1),
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
      );
      if (i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb) {
        value = Math.min(value, (beforePrevious[j - 2] as number) + 1);
      }
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return limit + 1;
    [beforePrevious, previous, current] = [previous, current, beforePrevious];
  }
  return previous[b.length] as number;
}

/**
 * The candidate `name` most likely stands for, compared as column names are (normalizeColumnName): at most one
 * edit per three characters, ties to the earlier; none when too far (a wrong guess is worse than none).
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  const wanted = normalizeColumnName(name);
  if (wanted.length === 0) return undefined;
  const limit = Math.max(1, Math.floor(wanted.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    const distance = editDistance(wanted, normalizeColumnName(candidate), bestDistance - 1);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Names shown in one message before the rest are only counted. */
export const NAMES_SHOWN = 10;

/** `items` joined with ", ", cut after NAMES_SHOWN with "… and N more", so 10,000 unknown columns make one line. */
export function listWithCount(
  items: readonly string[],
  separator = ', ',
  show: (item: string) => string = (item) => item,
): string {
  const shown = items.slice(0, NAMES_SHOWN).map(show).join(separator);
  if (items.length <= NAMES_SHOWN) return shown;
  return `${shown}${separator}… and ${(items.length - NAMES_SHOWN).toLocaleString('en-US')} more`;
}
