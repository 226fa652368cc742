import { crc32 } from 'node:zlib';
import type { FileHandle } from 'node:fs/promises';
import { StoreDamagedError } from '../../errors.js';
import type { CollectionName } from '../store.js';
import { writeFileAtomic } from './atomic-write.js';
import { isCollectionName } from './journal.js';
import { forEachLine } from './line-reader.js';

/** The on-disk format this examctl writes and the newest it reads. */
export const STORE_FORMAT = 1;

export function newerFormatError(file: string, format: number): StoreDamagedError {
  return new StoreDamagedError(
    `${file}: store format ${format} is newer than this examctl supports (${STORE_FORMAT}); upgrade examctl`,
  );
}

/**
 * Snapshot: NDJSON, one entity a line, so a store of millions of entities streams in and out.
 *   {"examctl":"store-snapshot","format":1,"generation":N}
 *   {"c":"users","k":"u-1","v":{...}}            (one per entity)
 *   {"end":true,"count":K,"crc":"<8 hex>"}       (crc32 chained over the entity lines' bytes)
 * The end line proves the file is whole; the crc catches damage JSON.parse would accept.
 */
export async function writeSnapshot(
  path: string,
  generation: number,
  entities: Iterable<readonly [CollectionName, string, unknown]>,
): Promise<void> {
  await writeFileAtomic(path, async (writer) => {
    await writer.write(`${JSON.stringify({ examctl: 'store-snapshot', format: STORE_FORMAT, generation })}\n`);
    let count = 0;
    let crc = 0;
    for (const [c, k, v] of entities) {
      const line = JSON.stringify({ c, k, v });
      crc = crc32(line, crc);
      count += 1;
      await writer.write(`${line}\n`);
    }
    await writer.write(`${JSON.stringify({ end: true, count, crc: hex(crc) })}\n`);
  });
}

function hex(crc: number): string {
  return crc.toString(16).padStart(8, '0');
}

/** Streams a snapshot's entities into `onEntity`; throws StoreDamagedError naming file:line. */
export async function readSnapshot(
  handle: FileHandle,
  file: string,
  expectedGeneration: number,
  onEntity: (collection: CollectionName, key: string, value: unknown) => void,
): Promise<void> {
  let sawHeader = false;
  let ended = false;
  let count = 0;
  let crc = 0;
  const damaged = (lineNo: number, reason: string) => new StoreDamagedError(`${file}:${lineNo}: ${reason}`);
  await forEachLine(handle, 0, 1, (line) => {
    if (!line.terminated) throw damaged(line.lineNo, 'incomplete last line (snapshot is truncated)');
    if (ended) throw damaged(line.lineNo, 'content after the end line');
    let parsed: Record<string, unknown>;
    try {
      const value: unknown = JSON.parse(line.bytes.toString('utf8'));
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
      parsed = value as Record<string, unknown>;
    } catch {
      throw damaged(line.lineNo, 'invalid JSON');
    }
    if (!sawHeader) {
      if (parsed.examctl !== 'store-snapshot' || typeof parsed.format !== 'number') {
        throw damaged(line.lineNo, 'not an examctl store snapshot header');
      }
      if (parsed.format > STORE_FORMAT) throw newerFormatError(file, parsed.format);
      if (parsed.generation !== expectedGeneration) {
        throw damaged(line.lineNo, `snapshot is generation ${String(parsed.generation)}, CURRENT names ${expectedGeneration}`);
      }
      sawHeader = true;
      return;
    }
    if (parsed.end === true) {
      if (parsed.count !== count) throw damaged(line.lineNo, `end line counts ${String(parsed.count)} entities, file has ${count}`);
      if (parsed.crc !== hex(crc)) throw damaged(line.lineNo, 'checksum mismatch (an entity line was altered)');
      ended = true;
      return;
    }
    const { c, k, v } = parsed;
    if (!isCollectionName(c) || typeof k !== 'string' || !('v' in parsed)) {
      throw damaged(line.lineNo, 'not an entity line');
    }
    crc = crc32(line.bytes, crc);
    count += 1;
    onEntity(c, k, v);
  });
  if (!sawHeader) throw damaged(1, 'empty snapshot');
  if (!ended) throw damaged(count + 2, 'no end line (snapshot is truncated)');
}
