import type { StateServer } from './state-server.js';

/**
 * A run's end store on a state service (docs/sync.md, "A state service", "Stored as deltas"): a
 * delta beside the document, or the memory whole when a delta would outweigh half of it. A night
 * of a few users writes its end whole (its population lines carry the store's heads), so a test of
 * the delta form needs more users than that.
 */

/** Enough users (`<prefix>-0` ...) that a night's end is under half the memory: stored as a delta. */
export function deltaEndIds(prefix: string): string[] {
  return Array.from({ length: 12 }, (_, i) => `${prefix}-${i}`);
}

/**
 * The night's end store, whichever form it takes (a delta or the memory whole), answered `status`
 * and not stored, sent twice (the run's read-back sends it once more): the POST after the night's
 * one batch of intents, which goes through.
 */
export function dropEndStore(server: Pick<StateServer, 'fail'>, status = 200): void {
  server.fail('POST', status, 2, '', 1);
}

/** The night's end delta (`<address>-delta-<n>`) answered 200 and not stored, sent twice. */
export function dropEndDelta(server: Pick<StateServer, 'fail'>): void {
  server.fail('POST -delta-', 200, 2, '');
}
