import { crc32 } from 'node:zlib';
import { constants as bufferConstants } from 'node:buffer';
import type { FileHandle } from 'node:fs/promises';
import { StoreDamagedError } from '../../system/errors.js';
import type { CollectionName } from './contract.js';
import { writeFileAtomic } from '../../system/atomic-file.js';
import { isCollectionName } from './journal.js';
import { BACKSLASH, CollectionTable, CollectionTableBuilder, NO_HINTS, QUOTE } from './snapshot-table.js';
import { FNV_OFFSET, FNV_PRIME } from '../../domain/hash-slots.js';

/**
 * The on-disk format this examctl writes and the newest it reads; what 2 adds (`"h"`, `"hints"`)
 * and how 1 is still read: docs/store.md, "Files".
 */
export const STORE_FORMAT = 2;

export function newerFormatError(file: string, format: number): StoreDamagedError {
  return new StoreDamagedError(
    `${file}: store format ${format} is newer than this examctl supports (${STORE_FORMAT}); upgrade examctl`,
  );
}

/** One entity to write: its value and hints already as JSON text (copied as is for entities never parsed). */
export interface SnapshotEntry {
  collection: CollectionName;
  key: string;
  text: string;
  /** The hints as a JSON array of strings; undefined writes no hints member. */
  hintsJson: string | undefined;
  /** Or whole lines (newlines included) to copy as they are: unchanged entities of a snapshot this writer wrote. */
  lines?: Buffer;
  lineCount?: number;
}

interface SnapshotHeader {
  format: number;
  /** The indexer version the entity lines' hints were derived with; null if none. */
  hints: string | null;
}

/* A snapshot's lines, as docs/store.md ("Snapshot") shows; the value last, so a load leaves it unparsed. */
const VALUE_MARKER = ',"v":';
const ENTITY_START = '{"c":';

function entityLine(entry: SnapshotEntry): string {
  const hints = entry.hintsJson === undefined ? '' : `,"h":${entry.hintsJson}`;
  return `{"c":${JSON.stringify(entry.collection)},"k":${JSON.stringify(entry.key)}${hints}${VALUE_MARKER}${entry.text}}`;
}

export async function writeSnapshot(
  path: string,
  generation: number,
  entities: Iterable<SnapshotEntry>,
  hintsVersion: string | null,
): Promise<void> {
  await writeFileAtomic(path, async (writer) => {
    await writer.write(
      `${JSON.stringify({ examctl: 'store-snapshot', format: STORE_FORMAT, generation, hints: hintsVersion })}\n`,
    );
    let count = 0;
    let crc = 0;
    // The crc covers exactly the entity lines: the header is flushed before, the end line after.
    await writer.flush();
    writer.onFlush = (bytes) => {
      crc = crc32(bytes, crc);
    };
    for (const entry of entities) {
      if (entry.lines !== undefined) {
        count += entry.lineCount ?? 0;
        await writer.write(entry.lines);
      } else {
        count += 1;
        await writer.write(`${entityLine(entry)}\n`);
      }
    }
    await writer.flush();
    writer.onFlush = undefined;
    await writer.write(`${JSON.stringify({ end: true, count, crc: hex(crc) })}\n`);
  });
}

function hex(crc: number): string {
  return crc.toString(16).padStart(8, '0');
}

const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const NEWLINE = 0x0a;
const KEY_MEMBER = Buffer.from(',"k":"');
const HINTS_MEMBER = Buffer.from(',"h":[');
const VALUE_MARKER_BYTES = Buffer.from(VALUE_MARKER);
const ENTITY_START_BYTES = Buffer.from(ENTITY_START);

function matches(buffer: Buffer, at: number, expected: Buffer): boolean {
  if (at + expected.length > buffer.length) return false;
  for (let i = 0; i < expected.length; i += 1) if (buffer[at + i] !== expected[i]) return false;
  return true;
}

/** The snapshot's header and, per collection that has entities, its table. */
export interface LoadedSnapshot {
  header: SnapshotHeader;
  tables: Map<CollectionName, CollectionTable>;
}

/** Reads the whole file into one Buffer (a snapshot is written once and never changes). */
async function readWhole(handle: FileHandle, file: string): Promise<Buffer> {
  const size = (await handle.stat()).size;
  if (size > bufferConstants.MAX_LENGTH) {
    throw new StoreDamagedError(
      `${file}: ${size} bytes, more than one process can load (${bufferConstants.MAX_LENGTH})`,
    );
  }
  const buffer = Buffer.allocUnsafe(size);
  let read = 0;
  while (read < size) {
    const { bytesRead } = await handle.read(buffer, read, Math.min(size - read, 1 << 30), read);
    if (bytesRead === 0) break;
    read += bytesRead;
  }
  return read === size ? buffer : buffer.subarray(0, read);
}

/**
 * Loads a snapshot: every line's shape, the count and the checksum checked (damage anywhere is
 * found now), each entity line read in entityLine's one layout. Throws StoreDamagedError (file:line).
 */
export async function readSnapshot(
  handle: FileHandle,
  file: string,
  expectedGeneration: number,
): Promise<LoadedSnapshot> {
  const buffer = await readWhole(handle, file);
  const builders = new Map<CollectionName, CollectionTableBuilder>();
  let header: SnapshotHeader | undefined;
  let ended = false;
  let count = 0;
  let crc = 0;
  let entitiesFrom = 0;
  // The collection of the previous entity line, as its quoted name: lines come grouped by collection.
  let current: CollectionTableBuilder | undefined;
  let currentName = Buffer.alloc(0);
  const damaged = (lineNo: number, reason: string) => new StoreDamagedError(`${file}:${lineNo}: ${reason}`);
  const parseObject = (text: string, lineNo: number): Record<string, unknown> => {
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
      return value as Record<string, unknown>;
    } catch {
      throw damaged(lineNo, 'invalid JSON');
    }
  };
  const builderFor = (collection: CollectionName): CollectionTableBuilder => {
    let builder = builders.get(collection);
    if (builder === undefined) {
      builder = new CollectionTableBuilder(collection, buffer);
      builders.set(collection, builder);
    }
    return builder;
  };

  /** An entity line in entityLine's layout, recorded from its bytes; false if it is not one. */
  const scanEntity = (from: number, to: number, lineNo: number): boolean => {
    let at = from + ENTITY_START_BYTES.length;
    let builder: CollectionTableBuilder;
    if (current !== undefined && matches(buffer, at, currentName)) {
      builder = current;
      at += currentName.length;
    } else {
      if (buffer[at] !== QUOTE) return false;
      const end = buffer.indexOf(QUOTE, at + 1);
      if (end === -1 || end >= to) return false;
      const name = buffer.toString('latin1', at + 1, end);
      if (!isCollectionName(name)) return false;
      builder = builderFor(name);
      current = builder;
      currentName = Buffer.from(buffer.subarray(at, end + 1));
      at = end + 1;
    }
    if (!matches(buffer, at, KEY_MEMBER)) return false;
    at += KEY_MEMBER.length;
    const keyStart = at;
    let hash = FNV_OFFSET;
    let ascii = true;
    let escaped = false;
    for (;;) {
      if (at >= to) return false;
      const byte = buffer[at]!;
      if (byte === QUOTE) break;
      if (byte === BACKSLASH) {
        // The escaped character may be a quote: skip it (a \uXXXX's digits hold none).
        escaped = true;
        at += 2;
        continue;
      }
      if (byte >= 0x80) ascii = false;
      hash = Math.imul(hash ^ byte, FNV_PRIME);
      at += 1;
    }
    const keyEnd = at;
    at += 1;
    let hintsFrom = NO_HINTS;
    let hintsTo = 0;
    let marker: number;
    if (matches(buffer, at, HINTS_MEMBER)) {
      hintsFrom = at + HINTS_MEMBER.length;
      // `,"v":` cannot occur inside a JSON string (its quote would be escaped): the first one ends the hints.
      marker = buffer.indexOf(VALUE_MARKER_BYTES, hintsFrom);
      if (marker === -1 || marker >= to || buffer[marker - 1] !== CLOSE_BRACKET) return false;
      hintsTo = marker - 1;
    } else if (matches(buffer, at, VALUE_MARKER_BYTES)) {
      marker = at;
    } else {
      return false;
    }
    const valueStart = marker + VALUE_MARKER_BYTES.length;
    if (valueStart >= to - 1) throw damaged(lineNo, 'invalid JSON');
    if (ascii && !escaped) builder.keys.add(keyStart, keyEnd, hash >>> 0);
    else builder.keys.addText(escaped ? parseKey(keyStart, keyEnd, lineNo) : buffer.toString('utf8', keyStart, keyEnd));
    builder.lineStart.push(from);
    builder.valueStart.push(valueStart);
    builder.valueEnd.push(to - 1);
    builder.hintsFrom.push(hintsFrom);
    builder.hintsTo.push(hintsTo);
    builder.lineNo.push(lineNo);
    return true;
  };

  const parseKey = (keyStart: number, keyEnd: number, lineNo: number): string => {
    try {
      return JSON.parse(buffer.toString('utf8', keyStart - 1, keyEnd + 1)) as string;
    } catch {
      throw damaged(lineNo, 'invalid JSON');
    }
  };

  let position = 0;
  let lineNo = 0;
  while (position < buffer.length) {
    lineNo += 1;
    const from = position;
    const to = buffer.indexOf(NEWLINE, from);
    if (to === -1) throw damaged(lineNo, 'incomplete last line (snapshot is truncated)');
    position = to + 1;
    if (ended) throw damaged(lineNo, 'content after the end line');
    if (header !== undefined && matches(buffer, from, ENTITY_START_BYTES) && to - from > ENTITY_START_BYTES.length) {
      if (buffer[to - 1] !== CLOSE_BRACE) throw damaged(lineNo, 'invalid JSON');
      if (!scanEntity(from, to, lineNo)) {
        parseObject(buffer.toString('utf8', from, to), lineNo);
        throw damaged(lineNo, 'not an entity line');
      }
      // Format 2 chains the crc over the entity lines with their newlines (one call at the end
      // line); format 1 chained it over each line without its newline.
      if (header.format === 1) crc = crc32(buffer.subarray(from, to), crc);
      count += 1;
      continue;
    }
    const parsed = parseObject(buffer.toString('utf8', from, to), lineNo);
    if (header === undefined) {
      if (parsed.examctl !== 'store-snapshot' || typeof parsed.format !== 'number') {
        throw damaged(lineNo, 'not an examctl store snapshot header');
      }
      if (parsed.format > STORE_FORMAT) throw newerFormatError(file, parsed.format);
      if (parsed.generation !== expectedGeneration) {
        throw damaged(
          lineNo,
          `snapshot is generation ${String(parsed.generation)}, CURRENT names ${expectedGeneration}`,
        );
      }
      header = { format: parsed.format, hints: typeof parsed.hints === 'string' ? parsed.hints : null };
      entitiesFrom = position;
      continue;
    }
    if (parsed.end === true) {
      if (header.format !== 1) crc = crc32(buffer.subarray(entitiesFrom, from));
      if (parsed.count !== count)
        throw damaged(lineNo, `end line counts ${String(parsed.count)} entities, file has ${count}`);
      if (parsed.crc !== hex(crc)) throw damaged(lineNo, 'checksum mismatch (an entity line was altered)');
      ended = true;
      continue;
    }
    throw damaged(lineNo, 'not an entity line');
  }
  if (header === undefined) throw damaged(1, 'empty snapshot');
  if (!ended) throw damaged(count + 2, 'no end line (snapshot is truncated)');
  const tables = new Map<CollectionName, CollectionTable>();
  for (const [collection, builder] of builders) tables.set(collection, new CollectionTable(buffer, file, builder));
  return { header, tables };
}
