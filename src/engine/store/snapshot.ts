import { crc32 } from 'node:zlib';
import type { FileHandle } from 'node:fs/promises';
import { StoreDamagedError } from '../../errors.js';
import type { CollectionName } from '../store.js';
import { writeFileAtomic } from './atomic-write.js';
import { RawEntity } from './entity-map.js';
import { isCollectionName } from './journal.js';
import { forEachLineIn } from './line-reader.js';

/**
 * The on-disk format this examctl writes and the newest it reads. 2: snapshot entity lines may
 * carry index hints (`"h"`) and the header names the indexer version (`"hints"`). Format 1 is
 * still read (its lines have the same layout, without hints); the next compaction writes 2.
 */
export const STORE_FORMAT = 2;

export function newerFormatError(file: string, format: number): StoreDamagedError {
  return new StoreDamagedError(
    `${file}: store format ${format} is newer than this examctl supports (${STORE_FORMAT}); upgrade examctl`,
  );
}

/** One entity to write: its value already as JSON text (copied as is for entities never parsed). */
export interface SnapshotEntry {
  collection: CollectionName;
  key: string;
  text: string;
  hints: readonly string[] | undefined;
}

export interface SnapshotHeader {
  format: number;
  /** The indexer version the entity lines' hints were derived with; null if none. */
  hints: string | null;
}

/*
 * Snapshot: NDJSON, one entity a line, so a store of millions of entities streams in and out.
 *   {"examctl":"store-snapshot","format":2,"generation":N,"hints":"<indexer version>"|null}
 *   {"c":"users","k":"u-1","h":["...",...],"v":{...}}   (one per entity; "h" only if hints)
 *   {"end":true,"count":K,"crc":"<8 hex>"}              (crc32 over the entity lines, newlines included;
 *                                                        format 1: chained over each line without its newline)
 * The end line proves the file is whole; the crc catches damage JSON.parse would accept (and,
 * since values are no longer parsed at load, any damage inside a value).
 * The value is the last member on purpose: the loader takes c, k and h from the short prefix
 * before `,"v":` and keeps the value's text unparsed. That marker cannot occur earlier: inside a
 * JSON string every `"` is escaped, so `,"` never appears in c, k or h.
 */
const VALUE_MARKER = ',"v":';
const ENTITY_START = '{"c":';

export function entityLine(entry: SnapshotEntry): string {
  const hints = entry.hints === undefined ? '' : `,"h":${JSON.stringify(entry.hints)}`;
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
    for (const entry of entities) {
      const line = `${entityLine(entry)}\n`;
      crc = crc32(line, crc);
      count += 1;
      await writer.write(line);
    }
    await writer.write(`${JSON.stringify({ end: true, count, crc: hex(crc) })}\n`);
  });
}

function hex(crc: number): string {
  return crc.toString(16).padStart(8, '0');
}

function isHints(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

interface EntityPrefix {
  c: string;
  k: string;
  /** Parsed hints (slow path only). */
  h: string[] | undefined;
  /** Fast path: the hint strings' bytes (`"a","b"`), or -1 if none. */
  hintsFrom: number;
  hintsTo: number;
  valueStart: number;
}

/** Index just past the JSON string starting at `at` (a `"`), or -1 if it has an escape or no end before `to`. */
function plainStringEnd(buffer: Buffer, at: number, to: number): number {
  if (buffer[at] !== 0x22) return -1;
  for (let i = at + 1; i < to; i += 1) {
    const byte = buffer[i];
    if (byte === 0x22) return i + 1;
    if (byte === 0x5c) return -1;
  }
  return -1;
}

function matches(buffer: Buffer, at: number, expected: Buffer): boolean {
  if (at + expected.length > buffer.length) return false;
  for (let i = 0; i < expected.length; i += 1) if (buffer[at + i] !== expected[i]) return false;
  return true;
}

const KEY_MEMBER = Buffer.from(',"k":');
const HINTS_MEMBER = Buffer.from(',"h":[');

/**
 * Reads c, k and h of an entity line straight from its bytes, for the common case (no escape
 * sequence, exactly the layout entityLine writes): decoding and JSON.parse-ing a million short
 * prefixes was most of what a lazy load still spent. Anything else returns undefined and goes
 * through JSON.parse.
 */
function scanEntity(buffer: Buffer, from: number, to: number): EntityPrefix | undefined {
  let at = from + ENTITY_START.length;
  let end = plainStringEnd(buffer, at, to);
  if (end === -1) return undefined;
  const c = buffer.toString('latin1', at + 1, end - 1);
  if (!matches(buffer, end, KEY_MEMBER)) return undefined;
  at = end + KEY_MEMBER.length;
  end = plainStringEnd(buffer, at, to);
  if (end === -1) return undefined;
  const k = buffer.toString('utf8', at + 1, end - 1);
  at = end;
  let hintsFrom = -1;
  let hintsTo = -1;
  if (matches(buffer, at, HINTS_MEMBER)) {
    at += HINTS_MEMBER.length;
    hintsFrom = at;
    hintsTo = at;
    if (buffer[at] === 0x5d) at += 1;
    else {
      for (;;) {
        end = plainStringEnd(buffer, at, to);
        if (end === -1) return undefined;
        hintsTo = end;
        at = end + 1;
        if (buffer[end] === 0x5d) break;
        if (buffer[end] !== 0x2c) return undefined;
      }
    }
  }
  if (!matches(buffer, at, VALUE_MARKER_BYTES)) return undefined;
  return { c, k, h: undefined, hintsFrom, hintsTo, valueStart: at + VALUE_MARKER_BYTES.length };
}

const VALUE_MARKER_BYTES = Buffer.from(VALUE_MARKER);
const ENTITY_START_BYTES = Buffer.from(ENTITY_START);

/** Byte by byte: a subarray().equals() per line was a measurable share of a million-line load. */
function startsWithEntity(buffer: Buffer, from: number, to: number): boolean {
  if (to - from < ENTITY_START_BYTES.length) return false;
  for (let i = 0; i < ENTITY_START_BYTES.length; i += 1) if (buffer[from + i] !== ENTITY_START_BYTES[i]) return false;
  return true;
}

const NEWLINE = Buffer.from('\n');

/**
 * Streams a snapshot's entities into `onEntity`, each value's JSON unparsed (a RawEntity over
 * the read buffer, which is never reused). Throws StoreDamagedError naming file:line. Resolves
 * with the header.
 */
export async function readSnapshot(
  handle: FileHandle,
  file: string,
  expectedGeneration: number,
  onEntity: (collection: CollectionName, key: string, raw: RawEntity) => void,
): Promise<SnapshotHeader> {
  let header: SnapshotHeader | undefined;
  let ended = false;
  let count = 0;
  let crc = 0;
  // Format 2 chains the crc over entity lines with their newlines, so consecutive lines of one
  // read chunk are checked in one call (a run); format 1 chained it over each line alone.
  let runBuffer: Buffer | undefined;
  let runFrom = 0;
  let runTo = 0;
  const flushRun = (): void => {
    if (runBuffer !== undefined && runTo > runFrom) crc = crc32(runBuffer.subarray(runFrom, runTo), crc);
    runBuffer = undefined;
  };
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
  await forEachLineIn(handle, 0, 1, (buffer, from, to, lineNo, _start, _end, terminated) => {
    if (!terminated) throw damaged(lineNo, 'incomplete last line (snapshot is truncated)');
    if (ended) throw damaged(lineNo, 'content after the end line');
    if (header !== undefined && startsWithEntity(buffer, from, to)) {
      // Fast path: only c, k and h are decoded; the value stays bytes until first read.
      if (buffer[to - 1] !== 0x7d) throw damaged(lineNo, 'invalid JSON');
      let members = scanEntity(buffer, from, to);
      if (members === undefined) {
        const marker = buffer.indexOf(VALUE_MARKER_BYTES, from);
        if (marker === -1 || marker >= to) throw damaged(lineNo, 'invalid JSON');
        const { c, k, h, ...rest } = parseObject(`${buffer.toString('utf8', from, marker)}}`, lineNo);
        if (!isCollectionName(c) || typeof k !== 'string' || (h !== undefined && !isHints(h)) || Object.keys(rest).length > 0) {
          throw damaged(lineNo, 'not an entity line');
        }
        members = { c, k, h, hintsFrom: -1, hintsTo: -1, valueStart: marker + VALUE_MARKER_BYTES.length };
      }
      const { c, k, h, hintsFrom, hintsTo, valueStart } = members;
      if (!isCollectionName(c)) throw damaged(lineNo, 'not an entity line');
      if (valueStart >= to - 1) throw damaged(lineNo, 'invalid JSON');
      if (header.format === 1) {
        crc = crc32(buffer.subarray(from, to), crc);
      } else if (to < buffer.length && buffer[to] === 0x0a) {
        if (runBuffer === buffer && runTo === from) runTo = to + 1;
        else {
          flushRun();
          runBuffer = buffer;
          runFrom = from;
          runTo = to + 1;
        }
      } else {
        // A line joined from two chunks: its newline is not in its buffer.
        flushRun();
        crc = crc32(NEWLINE, crc32(buffer.subarray(from, to), crc));
      }
      count += 1;
      onEntity(
        c,
        k,
        hintsFrom >= 0 ? new RawEntity(buffer, valueStart, to - 1, undefined, hintsFrom, hintsTo) : new RawEntity(buffer, valueStart, to - 1, h),
      );
      return;
    }
    flushRun();
    const text = buffer.toString('utf8', from, to);
    const parsed = parseObject(text, lineNo);
    if (header === undefined) {
      if (parsed.examctl !== 'store-snapshot' || typeof parsed.format !== 'number') {
        throw damaged(lineNo, 'not an examctl store snapshot header');
      }
      if (parsed.format > STORE_FORMAT) throw newerFormatError(file, parsed.format);
      if (parsed.generation !== expectedGeneration) {
        throw damaged(lineNo, `snapshot is generation ${String(parsed.generation)}, CURRENT names ${expectedGeneration}`);
      }
      header = { format: parsed.format, hints: typeof parsed.hints === 'string' ? parsed.hints : null };
      return;
    }
    if (parsed.end === true) {
      if (parsed.count !== count) throw damaged(lineNo, `end line counts ${String(parsed.count)} entities, file has ${count}`);
      if (parsed.crc !== hex(crc)) throw damaged(lineNo, 'checksum mismatch (an entity line was altered)');
      ended = true;
      return;
    }
    throw damaged(lineNo, 'not an entity line');
  });
  if (header === undefined) throw damaged(1, 'empty snapshot');
  if (!ended) throw damaged(count + 2, 'no end line (snapshot is truncated)');
  return header;
}
