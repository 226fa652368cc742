import { crc32 } from 'node:zlib';
import { MAX_JSON_DEPTH, parseJson } from './json-scan.js';

/*
 * A checksummed line is one JSON object so the file stays NDJSON, laid out so the checksum can be
 * checked on the exact bytes written without re-serialising:
 *   {"crc":"<8 hex digits>","b":<body>}\n
 * where <body> is any JSON text (the store journal's {"ch":[...]}, a run journal's or the sync
 * memory's entry) and the crc32 covers <body>'s UTF-8 bytes.
 */

/** A line's start, its checksum's digits as zeros: the fields after it are found by its length. */
export const LINE_PREFIX = '{"crc":"00000000","b":';
/** Where a line's 8 checksum digits begin. */
export const CRC_AT = '{"crc":"'.length;
const PREFIX = Buffer.from(LINE_PREFIX);
const CLOSE_BRACE = 0x7d;

/** Any JSON text as one checksummed line, newline included. */
export function encodeChecksummedLine(body: string): string {
  const crc = crc32(body).toString(16).padStart(8, '0');
  return `{"crc":"${crc}","b":${body}}\n`;
}

/** Whether the checksum of the line at `bytes[start..end)` (without its newline) holds on its body, not parsed. */
export function checksumHolds(bytes: Buffer, start: number, end: number): boolean {
  if (end - start < PREFIX.length + 2 || bytes[end - 1] !== CLOSE_BRACE) return false;
  const expected = Number.parseInt(bytes.toString('latin1', start + CRC_AT, start + CRC_AT + 8), 16);
  return crc32(bytes.subarray(start + PREFIX.length, end - 1)) === expected;
}

type CheckedLine = { ok: true; body: unknown } | { ok: false; reason: string };

/** Checks one checksummed line (without its newline) and parses its body. Never throws. */
export function decodeChecksummedLine(bytes: Buffer): CheckedLine {
  let framed = bytes.length >= PREFIX.length + 2 && bytes[bytes.length - 1] === CLOSE_BRACE;
  for (let k = 0; k < PREFIX.length && framed; k++) framed = (k >= CRC_AT && k < CRC_AT + 8) || bytes[k] === PREFIX[k];
  if (!framed || !/^[0-9a-f]{8}$/.test(bytes.toString('latin1', CRC_AT, CRC_AT + 8)))
    return { ok: false, reason: 'not a journal line' };
  if (!checksumHolds(bytes, 0, bytes.length)) return { ok: false, reason: 'checksum mismatch' };
  const body = bytes.toString('utf8', PREFIX.length, bytes.length - 1);
  try {
    return { ok: true, body: parseJson(body, { depth: MAX_JSON_DEPTH }) };
  } catch {
    return { ok: false, reason: 'invalid JSON' };
  }
}
