import {
  COLLECTION_NAMES,
  type Change,
  type CollectionName,
  type Store,
  type StoreIndexer,
  type StoreState,
} from '../../src/engine/store/contract.js';

/**
 * A faithful in-memory Store for engine tests: serial transactions, decide() runs synchronously
 * against the caught-up state, a throwing decide applies nothing, and keyByHint answers by asking
 * the indexer of every value as it is now (own changes, "other processes'", whole reloads): a
 * reference for the file store's persisted hints.
 */
export class MemoryStore implements Store {
  readonly location = 'memory:test';
  private maps = new Map<CollectionName, Map<string, unknown>>();
  private indexer: StoreIndexer | undefined;
  private foreign: Change[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  /** Every committed change batch, in order (what a file store would have appended). */
  readonly commits: Change[][] = [];
  closed = false;

  constructor(initial: Iterable<Change> = []) {
    this.maps = MemoryStore.build(initial);
  }

  private static build(changes: Iterable<Change>): Map<CollectionName, Map<string, unknown>> {
    const maps = new Map(COLLECTION_NAMES.map((name) => [name, new Map<string, unknown>()]));
    for (const change of changes) {
      if (change.value === null || change.value === undefined) maps.get(change.collection)!.delete(change.key);
      else maps.get(change.collection)!.set(change.key, change.value);
    }
    return maps;
  }

  get state(): StoreState {
    return this.maps;
  }

  useIndexer(indexer: StoreIndexer): void {
    this.indexer = indexer;
  }

  keyByHint(collection: CollectionName, hint: string): string | undefined {
    for (const [key, value] of this.maps.get(collection)!)
      if (this.indexer?.hints(collection, key, value)?.includes(hint)) return key;
    return undefined;
  }

  private apply(change: Change): void {
    const map = this.maps.get(change.collection)!;
    if (change.value === null || change.value === undefined) map.delete(change.key);
    else map.set(change.key, structuredClone(change.value));
  }

  private catchUp(): void {
    const pending = this.foreign;
    this.foreign = [];
    for (const change of pending) this.apply(change);
  }

  transact<T>(decide: (state: StoreState) => { result: T; changes: Change[] }): Promise<T> {
    if (this.closed) return Promise.reject(new Error('store closed'));
    const run = this.queue.then(() => {
      this.catchUp();
      const { result, changes } = decide(this.maps);
      // Serialisable like the journal: a value that does not survive JSON is a bug.
      const copies = JSON.parse(JSON.stringify(changes)) as Change[];
      for (const change of copies) this.apply(change);
      if (copies.length > 0) this.commits.push(copies);
      return result;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  async refresh(): Promise<void> {
    this.catchUp();
  }

  /** Transactions commit in order: once the queue has run, everything in memory is "durable". */
  async whenDurable(): Promise<void> {
    await this.queue;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** Another process committed these; they arrive at the next refresh or transaction. */
  commitFromOtherProcess(changes: Change[]): void {
    this.foreign.push(...changes);
  }

  /** Another process compacted: the state is replaced wholesale. */
  reload(changes: Iterable<Change>): void {
    this.maps = MemoryStore.build(changes);
  }
}
