/**
 * Where the store stands against what the memory saw (docs/sync.md, "Where the store stands"):
 * the one comparison of the store's head (src/engine/store/store-head.ts) with the heads a
 * population's runs recorded, and what it makes the memory send again.
 */
import type { StoreHead } from '../port/integration-api.js';

/**
 * A head a run saw: the store's head, the run, the attempt's tag (each start of a run, a resume's
 * too, has its own; an entry it acknowledged carries it: MemoryEntry.acked), and whether at its end.
 */
export type SeenHead = [head: string, run: string, attempt: string, end: boolean];

/** The most heads a population keeps (the oldest go): a store restored to before them all is another's. */
export const KEPT_HEADS = 64;

export type Standing =
  /** No head recorded (a first night, an older examctl's memory), or a target that cannot say (the platform). */
  | { is: 'unknown' }
  /** The store's head is the memory's newest. */
  | { is: 'same'; undone: ReadonlySet<string> }
  /**
   * The store holds the memory's newest head (`at`) and more after it: others wrote since, the run
   * that recorded it was killed, or the memory is older (restored, or lost then fed by an older
   * export). `changed`: the keys the store changed since (`users:<id>`).
   */
  | { is: 'ahead'; at: SeenHead; changed: ReadonlySet<string> }
  /**
   * The store holds only an older head the memory saw (`at`): restored, or cut back; `changed` since, as for `ahead`;
   * `partway`: it holds part of what came after where `at`'s run began or ended (its head is later than `at`,
   * or `at` is where a resume of that run began).
   */
  | {
      is: 'behind';
      at: SeenHead;
      undone: ReadonlySet<string>;
      changed: ReadonlySet<string>;
      partway: boolean;
    }
  /** The store holds none of them: another store, or one restored to before them all (everything goes again). */
  | { is: 'other' };

/**
 * The one decision. `undone`: the attempts whose acknowledgements came after the newest head the
 * store still holds (each run start's attempt from there on, that head's own if it is a start):
 * exactly what the store lost of what the memory calls acknowledged.
 */
export function standing(seen: readonly SeenHead[], store: StoreHead | undefined): Standing {
  const newest = seen.length - 1;
  if (newest < 0 || store === undefined) return { is: 'unknown' };
  const held = seen.findLastIndex(([head]) => head === store.head || store.holds.includes(head));
  if (held < 0) return { is: 'other' };
  const changed = new Set(store.changed);
  if (held === newest && seen[newest]![0] !== store.head) return { is: 'ahead', at: seen[newest]!, changed };
  const undone = new Set(seen.slice(held).flatMap(([, , attempt, end]) => (end ? [] : [attempt])));
  if (held === newest) return { is: 'same', undone };
  const [head, run, attempt, end] = seen[held]!;
  const resumed = !end && seen.slice(0, held).some((one) => one[1] === run && one[2] !== attempt);
  return { is: 'behind', at: seen[held]!, undone, changed, partway: head !== store.head || resumed };
}

/**
 * Which entries of a memory of `collection` go again (their digests cleared), by id and the
 * attempt that acknowledged them; none: all stand. Another store: all. Restored: those the attempts
 * it undid acknowledged, but those of the attempt that began at the head it still holds that it
 * changed since (the copy was taken during that attempt: they are in it). Ahead: those the store
 * changed since the memory's newest head, but by that head's own attempt when it is a start (a run
 * killed after it): what the memory misses of the store.
 */
export function sentAgain(
  found: Standing,
  collection: string,
): ((id: string, acked: string | undefined) => boolean) | undefined {
  if (found.is === 'other') return () => true;
  if (found.is === 'unknown' || (found.is !== 'ahead' && found.undone.size === 0)) return undefined;
  if (found.is === 'same') return (_, acked) => acked !== undefined && found.undone.has(acked);
  const [, , attempt, end] = found.at;
  const own = (acked: string | undefined) => !end && acked === attempt;
  if (found.is === 'behind')
    return (id, acked) =>
      acked !== undefined && found.undone.has(acked) && !(own(acked) && found.changed.has(`${collection}:${id}`));
  if (found.changed.size === 0) return undefined;
  return (id, acked) => !own(acked) && found.changed.has(`${collection}:${id}`);
}

/** The heads to ask the store about: each once, newest first, as many as one question takes. */
export function headsToAsk(seen: readonly SeenHead[]): string[] {
  return [...new Set(seen.map(([head]) => head).reverse())].slice(0, KEPT_HEADS);
}

/**
 * What a night or `doctor` says of a standing, if anything: a store restored, or another one. A store
 * at the head an attempt began at, where `entries` hold nothing that attempt acknowledged, lost
 * nothing: that attempt was killed before its first commit, and no restore is said.
 */
export function standingWords(
  found: Standing,
  store: string,
  entries: Iterable<{ acked?: string | undefined }>,
): string | undefined {
  if (found.is === 'other')
    return `the ${store} store holds none of the store heads this memory saw (another store, or one restored to before them all): this memory is not used (everything is sent, as with none)`;
  const at = found.is === 'behind' ? found.at : undefined;
  if (at === undefined && (found.is !== 'same' || !ackedByAny(entries, found.undone))) return undefined;
  const where =
    at === undefined
      ? 'where the newest run found it'
      : found.is === 'behind' && found.partway
        ? `a point after run ${at[1]} ${at[3] ? 'ended, with only part of what was written since' : 'began, with only part of what it sent'}`
        : `where run ${at[1]} ${at[3] ? 'left' : 'found'} it`;
  return `the ${store} store is back at ${where} (restored, or cut back): what the memory records as acknowledged since is sent again`;
}

/** Whether an entry was acknowledged by one of `attempts`. */
function ackedByAny(entries: Iterable<{ acked?: string | undefined }>, attempts: ReadonlySet<string>): boolean {
  if (attempts.size === 0) return false;
  for (const { acked } of entries) if (acked !== undefined && attempts.has(acked)) return true;
  return false;
}
