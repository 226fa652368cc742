/**
 * Where the store stands (docs/sync.md, "Where the store stands"): the one comparison of the store's head
 * (engine/store/store-head.ts) with the heads a population's runs recorded, and what goes again.
 */
import type { StoreHead } from '../port/integration-api.js';

/** A head a run saw: the store's head, the run, the attempt's or batch's tag (batchTag), whether at its end. */
export type SeenHead = [head: string, run: string, attempt: string, end: boolean];

/** The most heads a population keeps (the oldest go): a store restored to before them all is another's. */
export const KEPT_HEADS = 64;

/** The most batch heads a population keeps: the oldest go, their acknowledgements judged from the head before. */
export const KEPT_BATCH_HEADS = 16;

/** The first batch's tag is the attempt's own (its start head). */
export function batchTag(attempt: string, batch: number): string {
  return batch === 0 ? attempt : `${attempt}.${batch.toString(36)}`;
}

export function attemptOf(tag: string): string {
  return tagParts(tag)[0];
}

function tagParts(tag: string): [attempt: string, batch: number] {
  const dot = tag.indexOf('.');
  return dot < 0 ? [tag, 0] : [tag.slice(0, dot), Number.parseInt(tag.slice(dot + 1), 36)];
}

/** Whether an entry acknowledged under `acked` is undone: a tag undoes its attempt's from its batch on. */
export function undoneBy(undone: Iterable<string>): (acked: string | undefined) => boolean {
  const from = new Map<string, number>();
  for (const tag of undone) {
    const [attempt, batch] = tagParts(tag);
    from.set(attempt, Math.min(from.get(attempt) ?? batch, batch));
  }
  if (from.size === 0) return () => false;
  return (acked) => {
    if (acked === undefined) return false;
    const [attempt, batch] = tagParts(acked);
    const first = from.get(attempt);
    return first !== undefined && batch >= first;
  };
}

/** The heads a population keeps with `seen` recorded: a run's batch heads go once it records its end head. */
export function keptHeads(heads: readonly SeenHead[], seen: SeenHead | undefined): SeenHead[] {
  if (seen === undefined) return [...heads];
  const isBatch = ([, , tag, end]: SeenHead) => !end && tag.includes('.');
  const ended = seen[3] ? seen[1] : undefined;
  let kept = [...heads, seen].filter((one) => !(isBatch(one) && one[1] === ended));
  let excess = kept.filter(isBatch).length - KEPT_BATCH_HEADS;
  if (excess > 0) kept = kept.filter((one) => !(isBatch(one) && excess-- > 0));
  return kept.slice(-KEPT_HEADS);
}

/** docs/sync.md, "Where the store stands", row by row. */
export type Standing =
  /** No head recorded, or a target that cannot say (the platform). */
  | { is: 'unknown' }
  | { is: 'same'; at: SeenHead; undone: ReadonlySet<string>; midRun: boolean }
  /** `changed`: the keys the store changed since `at` (`users:<id>`). */
  | { is: 'ahead'; at: SeenHead; changed: ReadonlySet<string> }
  /** `moved`: written since `at`; `midRun`: `at` is a batch's or a resume's head (part of its run is held). */
  | {
      is: 'behind';
      at: SeenHead;
      undone: ReadonlySet<string>;
      changed: ReadonlySet<string>;
      moved: boolean;
      midRun: boolean;
    }
  /** `instance`: the store's, where it told that alone (memoryStanding). */
  | { is: 'other'; instance?: string };

/**
 * The one decision. `undone`: the tags of the heads from the newest head the store still holds on (but
 * end heads'): what the memory acknowledged after that head (undoneBy), of which the store lost what it
 * did not change since.
 */
export function standing(seen: readonly SeenHead[], store: StoreHead | undefined): Standing {
  const newest = seen.length - 1;
  if (newest < 0 || store === undefined) return { is: 'unknown' };
  const held = seen.findLastIndex(([head]) => head === store.head || store.holds.includes(head));
  if (held < 0) return { is: 'other' };
  const changed = new Set(store.changed);
  if (held === newest && seen[newest]![0] !== store.head) return { is: 'ahead', at: seen[newest]!, changed };
  const undone = new Set(seen.slice(held).flatMap(([, , attempt, end]) => (end ? [] : [attempt])));
  const [head, run, attempt, end] = seen[held]!;
  const midRun =
    !end &&
    (attempt.includes('.') ||
      seen.slice(0, held).some((one) => one[1] === run && attemptOf(one[2]) !== attemptOf(attempt)));
  if (held === newest) return { is: 'same', at: seen[held]!, undone, midRun };
  return { is: 'behind', at: seen[held]!, undone, changed, moved: head !== store.head, midRun };
}

/** Where the store stands against a memory: by its heads; with none (an older examctl's), by the store instance. */
export function memoryStanding(
  seen: readonly SeenHead[],
  recorded: string | undefined,
  store: StoreHead | undefined,
  instance: string | undefined,
): Standing {
  const ofOther =
    seen.length === 0 && store !== undefined && instance !== undefined && (recorded ?? instance) !== instance;
  return ofOther ? { is: 'other', instance } : standing(seen, store);
}

/** Which entries go again, by id and acknowledging tag (none: all stand); one in flight at a batch head goes: safe. */
export function sentAgain(
  found: Standing,
  collection: string,
): ((id: string, acked: string | undefined) => boolean) | undefined {
  if (found.is === 'other') return () => true;
  if (found.is === 'unknown') return undefined;
  if (found.is === 'same') {
    const undone = undoneBy(found.undone);
    return found.undone.size === 0 ? undefined : (_, acked) => undone(acked);
  }
  const [, , tag, end] = found.at;
  const own = end ? () => false : undoneBy([tag]);
  const changed = (id: string) => found.changed.has(`${collection}:${id}`);
  if (found.is === 'behind') {
    const undone = undoneBy(found.undone);
    return found.undone.size === 0 && found.changed.size === 0
      ? undefined
      : (id, acked) => undone(acked) || changed(id);
  }
  if (found.changed.size === 0 && end) return undefined;
  return (id, acked) => own(acked) || changed(id);
}

/** The heads to ask the store about: each once, newest first, as many as one question takes. */
export function headsToAsk(seen: readonly SeenHead[]): string[] {
  return [...new Set(seen.map(([head]) => head).reverse())].slice(0, KEPT_HEADS);
}

/**
 * What a night or `doctor` says of a standing: a store restored, or another. At an attempt's start head with nothing
 * it acknowledged, nothing was lost (killed before its first commit). Past a head, the store holds part of what was
 * sent after it only where it changed what the memory acknowledged (else others wrote after the restore).
 */
export function standingWords(
  found: Standing,
  store: string,
  entries: Iterable<[id: string, entry: { acked?: string | undefined }]>,
  collection: string,
  // What becomes of another store's memory: a run refused for it (--require-memory) leaves it as it is.
  unused = 'this memory is not used (everything is sent, as with none)',
): string | undefined {
  if (found.is === 'other' && found.instance !== undefined)
    return `the ${store} store is another than the one this sync memory names (an older examctl wrote it, no store head; this store's instance is ${found.instance}): ${unused}`;
  if (found.is === 'other')
    return `the ${store} store holds none of the store heads this memory saw (another store, or one restored to before them all): ${unused}`;
  if (found.is !== 'same' && found.is !== 'behind') return undefined;
  const undone = undoneBy(found.undone);
  if (found.is === 'same' && !anyOf(entries, ([, { acked }]) => undone(acked))) return undefined;
  const [, run, , end] = found.at;
  const partway =
    found.midRun ||
    (found.is === 'behind' &&
      found.moved &&
      anyOf(entries, ([id, { acked }]) => undone(acked) && found.changed.has(`${collection}:${id}`)));
  const where = partway
    ? `a point after run ${run} ${end ? 'ended, with only part of what was written since' : 'began, with only part of what it sent'}`
    : `where run ${run} ${end ? 'left' : 'found'} it`;
  return `the ${store} store is back at ${where} (restored, or cut back): what the memory records as acknowledged since is sent again`;
}

/** Whether any of `items` is `which`'s (a memory's entries, read one by one, no copy made). */
export function anyOf<T>(items: Iterable<T>, which: (item: T) => boolean): boolean {
  for (const item of items) if (which(item)) return true;
  return false;
}
