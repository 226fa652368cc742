import { decodeChecksummedLine, encodeChecksummedLine, LINE_PREFIX } from '../../system/checksummed-line.js';
import { COLLECTION_NAMES, type Change, type CollectionName } from './contract.js';

/* A journal line is one checksummed line (system/checksummed-line.ts) whose body is
 * {"p":"<the store's head before it>","ch":[[collection,key,value],...]}; `p` lets a writer read the
 * head at a position from one line (docs/store.md, "Head"); a line of an older examctl has none. */
const collectionNames = new Set<string>(COLLECTION_NAMES);

export function isCollectionName(name: unknown): name is CollectionName {
  return typeof name === 'string' && collectionNames.has(name);
}

/**
 * One transaction's changes as comma-separated `[collection,key,value]` tuples. Throws if a value
 * is not JSON (cycle, BigInt), so a bad transaction fails alone before its batch is written.
 */
export function serializeChanges(changes: readonly Change[]): string {
  return changes.map((c) => JSON.stringify([c.collection, c.key, c.value ?? null])).join(',');
}

/** A batch (the serialized changes of its transactions) after head `before` as one journal line, newline included. */
export function encodeJournalLine(serialized: readonly string[], before: string): string {
  return encodeChecksummedLine(
    `{"p":${JSON.stringify(before)},"ch":[${serialized.filter((part) => part.length > 0).join(',')}]}`,
  );
}

export type DecodedLine = { ok: true; changes: Change[] } | { ok: false; reason: string };

/** Where a line written by encodeJournalLine has its `p` (the checksummed line's prefix, then `{"p":"`). */
const BEFORE_AT = `${LINE_PREFIX}{"p":"`.length;
const HEAD_LENGTH = 22;

/**
 * The head before a journal line (without its newline), read from its place in the line without
 * parsing or checking it (the head the line then gives is what is compared); undefined where the
 * line has none there (an older examctl's, or not a line of this format).
 */
export function headBefore(line: Buffer): string | undefined {
  const end = BEFORE_AT + HEAD_LENGTH;
  if (line.length <= end || line[end] !== 0x22 || line.toString('latin1', BEFORE_AT - 6, BEFORE_AT) !== '{"p":"')
    return undefined;
  return line.toString('latin1', BEFORE_AT, end);
}

/** Checks and parses one journal line (without its newline). Never throws. */
export function decodeJournalLine(bytes: Buffer): DecodedLine {
  const checked = decodeChecksummedLine(bytes);
  if (!checked.ok) return checked;
  const list = (checked.body as { ch?: unknown } | null)?.ch;
  if (!Array.isArray(list)) return { ok: false, reason: 'no change list' };
  const changes: Change[] = [];
  for (const entry of list) {
    if (!Array.isArray(entry) || entry.length !== 3 || typeof entry[1] !== 'string') {
      return { ok: false, reason: 'malformed change' };
    }
    if (!isCollectionName(entry[0])) return { ok: false, reason: `unknown collection ${JSON.stringify(entry[0])}` };
    changes.push({ collection: entry[0], key: entry[1], value: entry[2] as unknown });
  }
  return { ok: true, changes };
}
