import { crc32 } from 'node:zlib';
import { COLLECTION_NAMES } from './contract.js';
import type { Change, CollectionName } from './contract.js';

/*
 * A journal line is one JSON object so the file stays NDJSON, laid out so the checksum can be
 * checked on the exact bytes written without re-serialising:
 *   {"crc":"<8 hex digits>","b":<body>}\n
 * where <body> is {"ch":[[collection,key,value],...]} and the crc32 covers <body>'s UTF-8 bytes.
 */
const PREFIX_OPEN = '{"crc":"';
const PREFIX_CLOSE = '","b":';
const PREFIX_LENGTH = PREFIX_OPEN.length + 8 + PREFIX_CLOSE.length;
const PREFIX_OPEN_BYTES = Buffer.from(PREFIX_OPEN);
const PREFIX_CLOSE_BYTES = Buffer.from(PREFIX_CLOSE);
const CLOSE_BRACE = 0x7d;

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

/** Any JSON text as one checksummed line, newline included (also the run journal's line format). */
export function encodeChecksummedLine(body: string): string {
  const crc = crc32(body).toString(16).padStart(8, '0');
  return `${PREFIX_OPEN}${crc}${PREFIX_CLOSE}${body}}\n`;
}

/** A batch (the serialized changes of its transactions) as one journal line, newline included. */
export function encodeJournalLine(serialized: readonly string[]): string {
  return encodeChecksummedLine(`{"ch":[${serialized.filter((part) => part.length > 0).join(',')}]}`);
}

export type CheckedLine = { ok: true; body: unknown } | { ok: false; reason: string };

/** Checks one checksummed line (without its newline) and parses its body. Never throws. */
export function decodeChecksummedLine(bytes: Buffer): CheckedLine {
  if (
    bytes.length < PREFIX_LENGTH + 2 ||
    !bytes.subarray(0, PREFIX_OPEN_BYTES.length).equals(PREFIX_OPEN_BYTES) ||
    !bytes.subarray(PREFIX_LENGTH - PREFIX_CLOSE_BYTES.length, PREFIX_LENGTH).equals(PREFIX_CLOSE_BYTES) ||
    bytes[bytes.length - 1] !== CLOSE_BRACE
  ) {
    return { ok: false, reason: 'not a journal line' };
  }
  const expected = bytes.toString('latin1', PREFIX_OPEN.length, PREFIX_OPEN.length + 8);
  if (!/^[0-9a-f]{8}$/.test(expected)) return { ok: false, reason: 'not a journal line' };
  const body = bytes.subarray(PREFIX_LENGTH, bytes.length - 1);
  if (crc32(body).toString(16).padStart(8, '0') !== expected) return { ok: false, reason: 'checksum mismatch' };
  try {
    return { ok: true, body: JSON.parse(body.toString('utf8')) as unknown };
  } catch {
    return { ok: false, reason: 'invalid JSON' };
  }
}

export type DecodedLine = { ok: true; changes: Change[] } | { ok: false; reason: string };

/** Checks and parses one journal line (without its newline). Never throws. */
export function decodeJournalLine(bytes: Buffer): DecodedLine {
  const checked = decodeChecksummedLine(bytes);
  if (!checked.ok) return checked;
  const parsed = checked.body;
  const list = (parsed as { ch?: unknown } | null)?.ch;
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
