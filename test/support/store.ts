import type { Change, StoreObserver, StoreState } from '../../src/engine/store/contract.js';

/** A transaction that writes `changes` and decides nothing. */
export const put =
  (...changes: Change[]) =>
  (_state: StoreState) => ({ result: undefined, changes });

/** An observer that watches nothing (to register an indexer alone). */
export const noop: Pick<StoreObserver, 'change' | 'reset'> = { change: () => undefined, reset: () => undefined };
