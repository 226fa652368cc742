/**
 * Where a store stands (docs/store.md, "Head"): a hash chain over its commits. A new store's
 * head is random; each journal line's head is a digest of the head before it and the line's
 * bytes; a compaction keeps the head and writes every earlier one to `heads-<generation>.ndjson`.
 * A restore by any means brings back the old head with the old data; no two histories share one.
 */
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../../system/atomic-file.js';
import { openRegularFile } from '../../system/regular-file.js';
import { streamLines } from '../../system/file-lines.js';
import { decodeJournalLine } from './journal.js';
import { storeFileUnreadable, systemErrorCode } from '../../system/system-error-words.js';
import type { StoreHead } from '../../port/integration-api.js';

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

/** Every head the store had before `generation` began (none: a store never compacted since it had heads). */
export async function readEarlierHeads(dir: string, generation: number): Promise<string[]> {
  const path = join(dir, headsFileName(generation));
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return [];
    throw storeFileUnreadable(path, error);
  }
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as string);
}

/** Writes the heads before `generation` (a compaction's, before CURRENT switches to it). */
export async function writeEarlierHeads(dir: string, generation: number, heads: Iterable<string>): Promise<void> {
  await writeFileAtomic(join(dir, headsFileName(generation)), async (writer) => {
    for (const head of heads) await writer.write(`"${head}"\n`);
  });
}

/**
 * The head, which of `asked` the history holds (`current`: the generation's heads, in order), and
 * what the journal (`journal`) changed after the first of them it holds, where it has the lines after it.
 */
export async function standingOf(
  dir: string,
  generation: number,
  current: ReadonlySet<string>,
  head: string,
  asked: readonly string[] = [],
  journal = '',
): Promise<StoreHead> {
  const missing = asked.filter((one) => !current.has(one));
  const earlier = missing.length === 0 ? new Set<string>() : new Set(await readEarlierHeads(dir, generation));
  const holds = asked.filter((one) => current.has(one) || earlier.has(one));
  const after = holds[0] === undefined ? -1 : [...current].indexOf(holds[0]);
  const changed = after < 0 || journal === '' ? undefined : await changedAfter(journal, after, current.size - 1);
  return { head, holds, ...(changed && { changed }) };
}

/** The `users` and `schedules` keys (`users:<id>`) journal lines `after`+1 to `last` changed (none: compacted meanwhile). */
async function changedAfter(journal: string, after: number, last: number): Promise<string[] | undefined> {
  const changed = new Set<string>();
  if (after === last) return [];
  const handle = await openRegularFile(journal).catch((error: unknown) => {
    if (systemErrorCode(error) === 'ENOENT') return undefined;
    throw storeFileUnreadable(journal, error);
  });
  if (handle === undefined) return undefined;
  try {
    await streamLines(handle, (line) => {
      if (line.lineNo <= after || line.lineNo > last || !line.terminated) return;
      const decoded = decodeJournalLine(line.bytes);
      if (!decoded.ok) return;
      for (const { collection, key } of decoded.changes)
        if (collection === 'users' || collection === 'schedules') changed.add(`${collection}:${key}`);
    });
  } finally {
    await handle.close();
  }
  return [...changed];
}
