/**
 * Where the store stands against what the memory saw (docs/sync.md, "Where the store stands"):
 * the one comparison of the store's head (src/engine/store/store-head.ts) with the heads a
 * population's runs recorded, and what it makes the memory send again.
 */
import type { StoreHead } from '../port/integration-api.js';

/**
 * A head a run saw: the store's head, the run, a tag, and whether at its end. Each start of a run (a
 * resume's too) is an attempt with a tag of its own (8 characters); each batch of acknowledgements an
 * attempt recorded gets the next tag of that attempt (`<attempt>.<n>`, batchTag), recorded with a head the
 * store had once every acknowledgement before it was written. An entry carries the tag it was
 * acknowledged under (MemoryEntry.acked): what came after a head the store holds is known per batch.
 */
export type SeenHead = [head: string, run: string, attempt: string, end: boolean];

/** The most heads a population keeps (the oldest go): a store restored to before them all is another's. */
export const KEPT_HEADS = 64;

/**
 * The most batch heads a population keeps (a run not ended, `keptHeads`): the oldest go, their acknowledgements judged
 * from the head before.
 */
export const KEPT_BATCH_HEADS = 16;

/**
 * Batch `batch` of `attempt`'s tag: the attempt's own for its first (its start head), else `<attempt>.<batch in base
 * 36>`.
 */
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

/**
 * Whether an entry acknowledged under `acked` is among `undone`: a tag there undoes what its attempt
 * acknowledged from its batch on (a batch's head dropped, or never written before a kill, is judged
 * with the one before it).
 */
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

/**
 * The heads a population keeps with `seen` recorded: a run's batch heads go once it records its end
 * head (that head and what the store changed after its start answer a restore to a copy taken during
 * it), at most KEPT_BATCH_HEADS of them (the oldest go first), and at most KEPT_HEADS in all.
 */
export function keptHeads(heads: readonly SeenHead[], seen: SeenHead | undefined): SeenHead[] {
  if (seen === undefined) return [...heads];
  const isBatch = ([, , tag, end]: SeenHead) => !end && tag.includes('.');
  const ended = seen[3] ? seen[1] : undefined;
  let kept = [...heads, seen].filter((one) => !(isBatch(one) && one[1] === ended));
  let excess = kept.filter(isBatch).length - KEPT_BATCH_HEADS;
  if (excess > 0) kept = kept.filter((one) => !(isBatch(one) && excess-- > 0));
  return kept.slice(-KEPT_HEADS);
}

export type Standing =
  /** No head recorded (a first night, an older examctl's memory), or a target that cannot say (the platform). */
  | { is: 'unknown' }
  /** The store's head is the memory's newest (`at`); `midRun`: as for `behind`. */
  | { is: 'same'; at: SeenHead; undone: ReadonlySet<string>; midRun: boolean }
  /**
   * The store holds the memory's newest head (`at`) and more after it: others wrote since, the run
   * that recorded it was killed (at its start or a batch's head: what it acknowledged after is in the
   * store only where the store changed it since), or the memory is older (restored, or lost then fed by
   * an older export). `changed`: the keys the store changed since (`users:<id>`).
   */
  | { is: 'ahead'; at: SeenHead; changed: ReadonlySet<string> }
  /**
   * The store holds only an older head the memory saw (`at`, a run's start, a batch's or an end head): restored,
   * or cut back; `changed` since, as for `ahead`; `moved`: its head is later than `at` (written since: by
   * that run before a copy was taken, or by others after the restore); `midRun`: `at` is a batch's head or
   * where a resume began, so the store holds part of what its run sent.
   */
  | {
      is: 'behind';
      at: SeenHead;
      undone: ReadonlySet<string>;
      changed: ReadonlySet<string>;
      moved: boolean;
      midRun: boolean;
    }
  /**
   * The store holds none of them: another store, or one restored to before them all (everything goes again);
   * `instance`: the store's, where it told that alone (memoryStanding).
   */
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

/**
 * Where the store stands against a memory, for every command (a night, `doctor`, `synced show`, `synced
 * import`): by the heads its runs saw (`seen`); with none (an older examctl's memory) by the store
 * instance its header records (`recorded`): another than the store's own (`instance`) is another store.
 */
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

/**
 * Which entries of a memory of `collection` go again (their digests cleared), by id and the tag they
 * were acknowledged under; none: all stand (docs/sync.md, "Where the store stands", says which, row by
 * row). An acknowledgement in flight as its batch's head was read is sent again: safe, and at most the
 * requests in flight then.
 */
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
 * What a night or `doctor` says of a standing, if anything: a store restored, or another one. A store
 * at the head an attempt began at, where `entries` (of `collection`, by id) hold nothing that attempt
 * acknowledged, lost nothing: that attempt was killed before its first commit, and no restore is said. A
 * store past a run's start or end head holds part of what was sent after it only where it changed what the
 * memory acknowledged after that head (else others wrote it after the restore: a user sync before a schedule push).
 */
export function standingWords(
  found: Standing,
  store: string,
  entries: Iterable<[id: string, entry: { acked?: string | undefined }]>,
  collection: string,
): string | undefined {
  if (found.is === 'other' && found.instance !== undefined)
    return `the ${store} store is another than the one this sync memory names (an older examctl wrote it, no store head; this store's instance is ${found.instance}): this memory is not used (everything is sent, as with none)`;
  if (found.is === 'other')
    return `the ${store} store holds none of the store heads this memory saw (another store, or one restored to before them all): this memory is not used (everything is sent, as with none)`;
  if (found.is !== 'same' && found.is !== 'behind') return undefined;
  const undone = undoneBy(found.undone);
  if (found.is === 'same' && !ackedAny(entries, (_, acked) => undone(acked))) return undefined;
  const [, run, , end] = found.at;
  const partway =
    found.midRun ||
    (found.is === 'behind' &&
      found.moved &&
      ackedAny(entries, (id, acked) => undone(acked) && found.changed.has(`${collection}:${id}`)));
  const where = partway
    ? `a point after run ${run} ${end ? 'ended, with only part of what was written since' : 'began, with only part of what it sent'}`
    : `where run ${run} ${end ? 'left' : 'found'} it`;
  return `the ${store} store is back at ${where} (restored, or cut back): what the memory records as acknowledged since is sent again`;
}

function ackedAny(
  entries: Iterable<[string, { acked?: string | undefined }]>,
  which: (id: string, acked: string | undefined) => boolean,
): boolean {
  for (const [id, { acked }] of entries) if (which(id, acked)) return true;
  return false;
}
