import { crc32 } from 'node:zlib';
import { MAX_JSON_DEPTH, parseJson } from './json-scan.js';

/*
 * A checksummed line is one JSON object so the file stays NDJSON, laid out so the checksum can be
 * checked on the exact bytes written without re-serialising:
 *   {"crc":"<8 hex digits>","b":<body>}\n
 * where <body> is any JSON text (the store journal's {"ch":[...]}, a run journal's or the sync
 * memory's entry) and the crc32 covers <body>'s UTF-8 bytes.
 */
const PREFIX_OPEN = '{"crc":"';
const PREFIX_CLOSE = '","b":';
const PREFIX_LENGTH = PREFIX_OPEN.length + 8 + PREFIX_CLOSE.length;
const PREFIX_OPEN_BYTES = Buffer.from(PREFIX_OPEN);
const PREFIX_CLOSE_BYTES = Buffer.from(PREFIX_CLOSE);
const CLOSE_BRACE = 0x7d;

/** Any JSON text as one checksummed line, newline included. */
export function encodeChecksummedLine(body: string): string {
  const crc = crc32(body).toString(16).padStart(8, '0');
  return `${PREFIX_OPEN}${crc}${PREFIX_CLOSE}${body}}\n`;
}

type CheckedLine = { ok: true; body: unknown } | { ok: false; reason: string };

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
    return { ok: true, body: parseJson(body.toString('utf8'), { depth: MAX_JSON_DEPTH }) };
  } catch {
    return { ok: false, reason: 'invalid JSON' };
  }
}
