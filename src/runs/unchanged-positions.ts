import type { UnchangedLine } from './journal-lines.js';

/**
 * The units a `--changed-only` run judged unchanged and did not send, as its journal's
 * `unchanged` lines record them (docs/runs.md, "The journal"): runs of consecutive positions,
 * each with the run whose acknowledged request they matched in the sync memory. A position's
 * own later line (sent, outcome) takes it over; a later `unchanged` line takes over the position
 * from its earlier lines. Memory and lookups cost per run of positions, not
 * per unit.
 */
export class UnchangedPositions {
  /** Sorted, disjoint: first position, count, the run it matched. */
  private starts: number[] = [];
  private counts: number[] = [];
  private sinces: string[] = [];
  /** Units in all runs. */
  count = 0;

  /** Adds the runs of one journal line; positions already covered are taken over by it. */
  addLine(line: UnchangedLine): void {
    const { r, since } = line;
    for (let k = 0; k + 2 < r.length; k += 3) {
      const from = r[k]!;
      const count = r[k + 1]!;
      const run = since[r[k + 2]!];
      if (run !== undefined) this.add(from, count, run);
    }
  }

  private add(from: number, count: number, since: string): void {
    this.remove(from, count);
    const at = this.firstEndingAfter(from);
    // Joined to the run before when it continues it with the same `since` (one attempt's groups).
    const before = at - 1;
    if (before >= 0 && this.starts[before]! + this.counts[before]! === from && this.sinces[before] === since) this.counts[before]! += count;
    else {
      this.starts.splice(at, 0, from);
      this.counts.splice(at, 0, count);
      this.sinces.splice(at, 0, since);
    }
    this.count += count;
  }

  /** Positions `from` .. `from + count - 1` no longer unchanged (a later line of their own). */
  remove(from: number, count = 1): void {
    if (this.starts.length === 0) return;
    const end = from + count;
    let k = this.firstEndingAfter(from);
    while (k < this.starts.length && this.starts[k]! < end) {
      const start = this.starts[k]!;
      const stop = start + this.counts[k]!;
      const cutFrom = Math.max(start, from);
      const cutTo = Math.min(stop, end);
      this.count -= cutTo - cutFrom;
      const head = cutFrom - start;
      const tail = stop - cutTo;
      if (head > 0 && tail > 0) {
        this.counts[k] = head;
        this.starts.splice(k + 1, 0, cutTo);
        this.counts.splice(k + 1, 0, tail);
        this.sinces.splice(k + 1, 0, this.sinces[k]!);
        return;
      }
      if (head > 0) this.counts[k++] = head;
      else if (tail > 0) {
        this.starts[k] = cutTo;
        this.counts[k] = tail;
        k += 1;
      } else {
        this.starts.splice(k, 1);
        this.counts.splice(k, 1);
        this.sinces.splice(k, 1);
      }
    }
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

  /** Every position, in order, with its run. */
  *positions(): Iterable<{ n: number; since: string }> {
    for (let k = 0; k < this.starts.length; k++) {
      for (let n = this.starts[k]!; n < this.starts[k]! + this.counts[k]!; n++) yield { n, since: this.sinces[k]! };
    }
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
