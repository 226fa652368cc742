import { createHash, randomBytes } from 'node:crypto';

/**
 * A run id, `20261122T110502.481Z-3f9a`, fixed width so that ids sort by start time as plain
 * strings (docs/runs.md, "Run ids"); the random part separates runs started in the same millisecond.
 */
export function newRunId(now: Date = new Date(), random: () => string = () => randomBytes(2).toString('hex')): string {
  const iso = now.toISOString(); // 2026-11-22T11:05:02.481Z
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}T${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 23)}Z-${random()}`;
}

/**
 * The id examctl gives a create the service would otherwise name (docs/runs.md, "An id examctl
 * chooses"): 16 characters a-z and 0-9 from the run id and the item's position.
 */
export function chosenId(run: string, position: number): string {
  const digest = createHash('sha256').update(`${run}:${position}`).digest();
  let id = '';
  for (let k = 0; k < 16; k++) id += (digest[k]! % 36).toString(36);
  return id;
}
