import type { UnchangedLine } from './journal-lines.js';

/**
 * The units a `--changed-only` run did not send, as its journal's `unchanged` lines record them
 * (docs/runs.md, "The journal"): memory and lookups cost per run of positions, not per unit.
 */
export class UnchangedPositions {
  /** Sorted, disjoint: first position, count, the run it matched. */
  private starts: number[] = [];
  private counts: number[] = [];
  private sinces: string[] = [];
  /** Units in all runs. */
  count = 0;

  /** Adds the runs of one journal line; false when a position of it is in a run already. */
  addLine(line: UnchangedLine): boolean {
    const { r, since } = line;
    for (let k = 0; k + 2 < r.length; k += 3) {
      const from = r[k]!;
      const count = r[k + 1]!;
      const run = since[r[k + 2]!];
      if (run === undefined) continue;
      const at = this.firstEndingAfter(from);
      if (at < this.starts.length && this.starts[at]! < from + count) return false;
      // Joined to the run before when it continues it with the same `since` (one attempt's groups).
      const before = at - 1;
      if (before >= 0 && this.starts[before]! + this.counts[before]! === from && this.sinces[before] === run) this.counts[before]! += count;
      else {
        this.starts.splice(at, 0, from);
        this.counts.splice(at, 0, count);
        this.sinces.splice(at, 0, run);
      }
      this.count += count;
    }
    return true;
  }

  /** The run a position matched, or undefined when it is not one of these. */
  since(n: number): string | undefined {
    const k = this.firstEndingAfter(n);
    return k < this.starts.length && this.starts[k]! <= n ? this.sinces[k] : undefined;
  }

  /** Units at positions below `total`. */
  countBelow(total: number): number {
    let below = 0;
    for (let k = 0; k < this.starts.length && this.starts[k]! < total; k++) below += Math.min(this.counts[k]!, total - this.starts[k]!);
    return below;
  }

  /** Index of the first run whose last position is at or after `n`. */
  private firstEndingAfter(n: number): number {
    let low = 0;
    let high = this.starts.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.starts[mid]! + this.counts[mid]! <= n) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
