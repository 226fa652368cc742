/*
 * What `runs show` and `runs list` keep of a journal per item (read-run.ts, `scanRun`), its line
 * read again when shown: docs/runs.md, "Memory does not follow the run's size".
 */

/** The item has a line in the journal. */
export const KNOWN = 1;
/** It has an outcome line (its offset is the latest one's). */
export const HAS_OUTCOME = 2;
/** Sent after its latest outcome, or never answered. */
export const IN_FLIGHT = 4;
/** `IN_FLIGHT` as it was before its latest sent line is kept (an unsent line restores it). */
export const BEFORE_SENT = 8;
export const BEFORE_IN_FLIGHT = 16;
/** Its latest outcome is transient (network, 429, 5xx after retries). */
export const TRANSIENT = 32;
const STATUS_SHIFT = 6;
export const OUTCOME_STATUSES = ['ok', 'partial', 'failed'] as const;
type OutcomeStatus = (typeof OUTCOME_STATUSES)[number];

export function withStatus(flags: number, status: OutcomeStatus): number {
  return (flags & ((1 << STATUS_SHIFT) - 1)) | (OUTCOME_STATUSES.indexOf(status) << STATUS_SHIFT);
}

export function statusIn(flags: number): OutcomeStatus {
  return OUTCOME_STATUSES[flags >>> STATUS_SHIFT] ?? 'failed';
}

/** Pages of 256 items, made as items appear: a sparse journal costs a page per item at most, not a long array. */
const PAGE_BITS = 8;
const PAGE_SIZE = 1 << PAGE_BITS;

interface Page {
  flags: Uint8Array;
  offsets: Float64Array;
}

export class ItemStates {
  private readonly pages = new Map<number, Page>();
  /** Items with a line. */
  size = 0;

  flags(n: number): number {
    return this.pages.get(n >>> PAGE_BITS)?.flags[n & (PAGE_SIZE - 1)] ?? 0;
  }

  offset(n: number): number {
    return this.pages.get(n >>> PAGE_BITS)?.offsets[n & (PAGE_SIZE - 1)] ?? -1;
  }

  set(n: number, flags: number, offset?: number): void {
    const key = n >>> PAGE_BITS;
    let page = this.pages.get(key);
    if (page === undefined) {
      if (flags === 0) return;
      page = { flags: new Uint8Array(PAGE_SIZE), offsets: new Float64Array(PAGE_SIZE) };
      this.pages.set(key, page);
    }
    const slot = n & (PAGE_SIZE - 1);
    // 0 forgets the item (an `unchanged` line took it over from its earlier lines).
    this.size += Number(flags !== 0) - Number(page.flags[slot] !== 0);
    page.flags[slot] = flags;
    if (offset !== undefined) page.offsets[slot] = offset;
  }

  *numbers(from = 0): Generator<number> {
    const keys = [...this.pages.keys()].filter((key) => key >= from >>> PAGE_BITS).sort((a, b) => a - b);
    for (const key of keys) {
      const flags = (this.pages.get(key) as Page).flags;
      for (let slot = 0; slot < PAGE_SIZE; slot++) {
        const n = key * PAGE_SIZE + slot;
        if (n >= from && (flags[slot] as number) !== 0) yield n;
      }
    }
  }
}
