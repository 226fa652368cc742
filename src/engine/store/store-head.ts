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
import { storeFileUnreadable, systemErrorCode } from '../../system/system-error-words.js';
import type { StoreHead } from '../../port/integration-api.js';

export { isHead } from '../../port/integration-api.js';

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

/** The head, and which of `asked` the history holds (`current`: the generation's heads, in order). */
export async function standingOf(
  dir: string,
  generation: number,
  current: ReadonlySet<string>,
  head: string,
  asked: readonly string[] = [],
): Promise<StoreHead> {
  const missing = asked.filter((one) => !current.has(one));
  const earlier = missing.length === 0 ? new Set<string>() : new Set(await readEarlierHeads(dir, generation));
  return { head, holds: asked.filter((one) => current.has(one) || earlier.has(one)) };
}
