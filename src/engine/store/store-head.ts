/**
 * Where a store stands (docs/store.md, "Head"): a hash chain over its commits. A new store's
 * head is random; each journal line's head is a digest of the head before it and the line's
 * bytes. A commit's serial is its place in that chain. A compaction keeps the head, writes the
 * earlier ones to `heads-<generation>.ndjson`, and the serial of the commit that last changed each
 * user and schedule (a deletion too) to `serials-<generation>.ndjson`: what changed after any held
 * head is known exactly. A restore by any means brings back the old head with the old data.
 */
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { FileHandle } from 'node:fs/promises';
import { writeFileAtomic } from '../../system/atomic-file.js';
import { openRegularFile, type RegularOpenOptions } from '../../system/regular-file.js';
import { streamLines } from '../../system/file-lines.js';
import { decodeJournalLine } from './journal.js';
import { storeFileUnreadable, systemErrorCode } from '../../system/system-error-words.js';
import type { StoreHead } from '../../port/integration-api.js';
import { StoreDamagedError } from '../../system/errors.js';

/** A new store's first head: its history is its own. */
export const firstHead = (): string => randomBytes(16).toString('base64url');

/** The head after a journal line (its bytes without the newline). */
export function nextHead(head: string, line: Uint8Array): string {
  return createHash('sha256').update(head).update(line).digest().subarray(0, 16).toString('base64url');
}

/** The first head of a generation whose CURRENT names none (an older examctl wrote it last). */
export const unrecordedHead = (generation: number, instance: string | undefined): string =>
  nextHead('', Buffer.from(`examctl store ${instance ?? ''} ${generation}`));

export const headsFileName = (generation: number): string => `heads-${generation}.ndjson`;
export const serialsFileName = (generation: number): string => `serials-${generation}.ndjson`;

/** A store's file, regular files only; undefined where it is not there and `absent` allows that, else unreadable. */
export async function openStoreFile(path: string, options: RegularOpenOptions = {}, absent = true) {
  return openRegularFile(path, options).catch((error: unknown) => {
    if (absent && systemErrorCode(error) === 'ENOENT') return undefined;
    throw storeFileUnreadable(path, error);
  });
}

/**
 * Each line of a store's JSON-lines file, parsed (a bad one: StoreDamagedError at its line); none if `optional`
 * and absent.
 */
async function eachJsonLine(path: string, optional: boolean, each: (value: unknown) => unknown): Promise<void> {
  const handle = await openStoreFile(path, {}, optional);
  if (handle === undefined) return;
  try {
    await streamLines(handle, (line) => {
      let value: unknown;
      try {
        value = JSON.parse(line.bytes.toString('utf8'));
      } catch {
        throw new StoreDamagedError(`${path}:${line.lineNo}: invalid JSON`);
      }
      return each(value);
    });
  } finally {
    await handle.close();
  }
}

/**
 * The serials file's last line: the head its generation begins at, the serial of the heads file's first line, its
 * deletions.
 */
interface SerialsEnd {
  end: true;
  head: string;
  from: number;
  tombstones: number;
}

/**
 * A generation's history: its kept heads with their serials, and its serials file's end. Without
 * a serials file for its first head (an older examctl compacted it last), only that head answers.
 */
async function readHistory(
  dir: string,
  generation: number,
  first: string,
): Promise<{ heads: string[]; end: SerialsEnd | undefined; from: number }> {
  // Every head the store kept from before `generation` began, its first head last (none: never compacted).
  const heads: string[] = [];
  await eachJsonLine(join(dir, headsFileName(generation)), true, (head) => heads.push(head as string));
  const end = heads.length === 0 ? undefined : await readSerialsEnd(join(dir, serialsFileName(generation)));
  return end?.head === first
    ? { heads, end, from: end.from }
    : { heads: [first], end: undefined, from: Math.max(heads.length - 1, 0) };
}

/** The end line of a serials file (its last 4 KiB read); none: no such file, or not one. */
async function readSerialsEnd(path: string): Promise<SerialsEnd | undefined> {
  const handle = await openStoreFile(path);
  if (handle === undefined) return undefined;
  try {
    const { size } = await handle.stat();
    const tail = Buffer.alloc(Math.min(size, 4096));
    await handle.read(tail, 0, tail.length, size - tail.length);
    const text = tail.toString('utf8').trimEnd();
    const parsed = JSON.parse(text.slice(text.lastIndexOf('\n') + 1)) as Partial<SerialsEnd>;
    return parsed.end === true && typeof parsed.head === 'string' ? (parsed as SerialsEnd) : undefined;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw storeFileUnreadable(path, error);
  } finally {
    await handle.close();
  }
}

/** Calls `each` with every `[serial, "users:<id>"]` of a generation's serials file, in serial order. */
function eachSerial(dir: string, generation: number, each: (serial: number, key: string) => unknown): Promise<void> {
  return eachJsonLine(join(dir, serialsFileName(generation)), false, (entry) =>
    Array.isArray(entry) ? each(entry[0] as number, entry[1] as string) : undefined,
  );
}

/** The `users` and `schedules` keys (`users:<id>`) that lines `after`+1 to `last` changed, each with its last line. */
async function journalChanges(journal: FileHandle, after: number, last: number): Promise<Map<string, number>> {
  const changed = new Map<string, number>();
  if (after === last) return changed;
  await streamLines(journal, (line) => {
    if (line.lineNo <= after || line.lineNo > last || !line.terminated) return;
    const decoded = decodeJournalLine(line.bytes);
    if (!decoded.ok) return;
    for (const { collection, key } of decoded.changes)
      if (collection === 'users' || collection === 'schedules') {
        changed.delete(`${collection}:${key}`);
        changed.set(`${collection}:${key}`, line.lineNo);
      }
  });
  return changed;
}

/**
 * The head, which of `asked` the history holds, and the keys it changed after the first of them it
 * holds (`current`: the generation's heads in order; `journal`: its lines, `current.size - 1` of them).
 */
export async function standingOf(
  dir: string,
  generation: number,
  current: ReadonlySet<string>,
  asked: readonly string[],
  journal: FileHandle,
): Promise<StoreHead> {
  const heads = [...current];
  const head = heads.at(-1)!;
  const missing = asked.some((one) => !current.has(one));
  const history = missing ? await readHistory(dir, generation, heads[0]!) : undefined;
  const serialOf = new Map((history?.heads ?? []).map((one, at) => [one, history!.from + at]));
  const holds = asked.filter((one) => current.has(one) || serialOf.has(one));
  if (holds[0] === undefined) return { head, holds, changed: [] };
  const at = heads.indexOf(holds[0]);
  const changed = new Set((await journalChanges(journal, Math.max(at, 0), heads.length - 1)).keys());
  if (at < 0) {
    const after = serialOf.get(holds[0])!;
    await eachSerial(dir, generation, (serial, key) => {
      if (serial > after) changed.add(key);
    });
  }
  return { head, holds, changed: [...changed] };
}

/**
 * Writes what a compaction of `generation` (`first`: its first head; `current`: its heads; `journal`:
 * its lines) keeps for the next: the serial of the commit that last changed each user and schedule,
 * and the heads from the oldest it can still answer for. A deletion's serial is kept while the
 * store holds no more deletions than records (`live`); past that the oldest go, and the heads before them.
 */
export async function writeHistory(
  dir: string,
  generation: number,
  current: ReadonlySet<string>,
  journal: FileHandle,
  isLive: (key: string) => boolean,
  live: number,
): Promise<void> {
  const heads = [...current];
  const history = await readHistory(dir, generation, heads[0]!);
  const base = history.from + history.heads.length - 1;
  const changed = await journalChanges(journal, 0, heads.length - 1);
  let excess = (history.end?.tombstones ?? 0) + [...changed.keys()].filter((key) => !isLive(key)).length - live;
  let from = history.from;
  let tombstones = 0;
  await writeFileAtomic(join(dir, serialsFileName(generation + 1)), async (writer) => {
    if (history.end)
      await eachSerial(dir, generation, async (serial, key) => {
        if (changed.has(key)) return;
        if (!isLive(key)) {
          if (excess-- > 0) {
            from = Math.max(from, serial);
            return;
          }
          tombstones += 1;
        }
        await writer.write(`${JSON.stringify([serial, key])}\n`);
      });
    for (const [key, line] of changed) {
      if (!isLive(key)) tombstones += 1;
      await writer.write(`${JSON.stringify([base + line, key])}\n`);
    }
    await writer.write(`${JSON.stringify({ end: true, head: heads.at(-1), from, tombstones })}\n`);
  });
  const kept = [...history.heads.slice(from - history.from, -1), ...heads];
  await writeFileAtomic(join(dir, headsFileName(generation + 1)), async (writer) => {
    for (const one of kept) await writer.write(`"${one}"\n`);
  });
}
