import { open, type FileHandle } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { TextDecoder } from 'node:util';
import { InputFileError } from '../system/errors.js';
import { describeSystemError } from '../system/system-error-words.js';
import { firstInvalidOffset, sequenceLength } from '../system/utf8-bytes.js';

/** Bytes per read: a chunk's records (one batch) die young; 64 KiB: ~25% lower peak RSS than 256 KiB, as fast. */
const CHUNK_SIZE = 64 * 1024;
/** The first read is smaller, so the first request waits for ~50 rows, not ~400 (bench/README.md "Issue 37"). */
const FIRST_CHUNK_SIZE = 8 * 1024;

const BINARY = 'not a text file (binary content)';
const WORKBOOK = `${BINARY}: a zip archive, as an .xlsx workbook is: name it .xlsx`;
const NO_BOM = `${BINARY}: UTF-16 without a BOM? save the file as UTF-8 text`;
const INVALID_UTF8 = `${BINARY}: invalid UTF-8; save the file as UTF-8 text`;
/** A later read found another file than the first (docs/input-formats.md). */
export const INPUT_CHANGED = 'the input file changed while the run read it: nothing from here on is read';

/** Whether a file's first bytes read as UTF-16 without a BOM: ASCII text with a NUL beside each character. */
function looksUtf16(bytes: Buffer): boolean {
  return (
    bytes.length >= 4 &&
    ((bytes[0] !== 0 && bytes[1] === 0 && bytes[3] === 0) || (bytes[0] === 0 && bytes[2] === 0 && bytes[1] !== 0))
  );
}

/** Maps an fs error to the `file: cannot read: ...` usage error the CLI reports. */
export function cannotRead(file: string, error: unknown, named = file): InputFileError {
  return new InputFileError(file, undefined, `cannot read: ${cannotReadReason(error)}`, cannotReadCode(error), named);
}

/** A missing file is E2101; any other that cannot be read (a FIFO, a directory, too large, denied) E2102. */
export function cannotReadCode(error: unknown): 'E2101' | 'E2102' {
  return (error as { code?: unknown } | null)?.code === 'ENOENT' ? 'E2101' : 'E2102';
}

/** Why a file could not be read, in the words every input file's message uses (`no such file`). */
export function cannotReadReason(error: unknown): string {
  const { code, kind } = (error ?? {}) as { code?: string; kind?: string };
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'is a directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  const pipe = kind === 'a FIFO' ? ': save it to a file and name that' : '';
  return describeSystemError(error, 'file') + pipe;
}

async function* rawChunks(
  handle: FileHandle,
  file: string,
  check?: (read: Buffer, position: number) => Promise<void>,
): AsyncGenerator<Buffer> {
  // A fresh buffer per read (the CSV reader keeps the head until the header line ends), read one ahead at explicit
  // positions: the next chunk is read while the caller works on this one.
  let position = 0;
  const readAt = (at: number, size = CHUNK_SIZE): Promise<Buffer> => {
    const buffer = Buffer.allocUnsafe(size);
    const read = handle
      .read(buffer, 0, size, at)
      .then(({ bytesRead }) => (bytesRead === size ? buffer : buffer.subarray(0, bytesRead)));
    // Handled when awaited; until then a failed read must not count as an unhandled rejection.
    read.catch(() => undefined);
    return read;
  };
  let ahead: Promise<Buffer> | undefined = readAt(position, FIRST_CHUNK_SIZE);
  try {
    for (;;) {
      let read: Buffer;
      try {
        read = await (ahead as Promise<Buffer>);
      } catch (error) {
        ahead = undefined;
        throw cannotRead(file, error);
      }
      ahead = read.length > 0 ? readAt((position += read.length)) : undefined;
      await check?.(read, position);
      if (read.length === 0) return;
      yield read;
    }
  } finally {
    // The caller may stop early: let the read ahead settle before the handle is closed.
    if (ahead !== undefined) await ahead.catch(() => undefined);
  }
}

/** Where a chunk can be cut so that no UTF-8 sequence is split: the start of an incomplete tail. */
function completeLength(chunk: Buffer): number {
  const end = chunk.length;
  for (let i = end - 1; i >= 0 && i >= end - 4; i--) {
    const byte = chunk[i] as number;
    if ((byte & 0xc0) === 0x80) continue;
    const length = sequenceLength(byte);
    return length > 1 && i + length > end ? i : end;
  }
  return end;
}

/** How a text file is read beyond what its bytes say. */
export interface TextOptions {
  /** A BOM-less file's encoding, a WHATWG label (`--encoding`; undefined: UTF-8); a UTF-8 or UTF-16 BOM wins. */
  encoding?: string;
  /** Told once, before the first chunk, whether the file started with a BOM, and the encoding it is read in. */
  onBom?: (bom: boolean, encoding: string) => void;
  /** A non-UTF-8 file's refusal names `--encoding`; `csv`: unless its head reads as JSON (a sniffed input). */
  encodingFlag?: boolean | 'csv';
  /** The file as the first read found it (fstat, SHA-256): each read checks it at each chunk. */
  same?: { stat?: string; sha256?: string };
}

function lineFeedsIn(bytes: Buffer, end = bytes.length): number {
  let count = 0;
  for (let i = bytes.indexOf(10); i !== -1 && i < end; i = bytes.indexOf(10, i + 1)) count++;
  return count;
}

/** The file's text as UTF-8 chunks, re-read at each call: a BOM dropped, UTF-16 transcoded, binary refused. */
export async function* readUtf8Chunks(
  path: string,
  file: string = path,
  options: TextOptions = {},
): AsyncGenerator<Buffer> {
  // A directory opens where the system allows it: its first read is refused (EISDIR), as `is a directory`.
  const handle = await open(path, 'r').catch((error: unknown) => {
    throw cannotRead(file, error);
  });
  try {
    // UTF-8, UTF-16 (from a BOM), or the label given with --encoding.
    let encoding: string | undefined;
    let decoder: TextDecoder | undefined;
    let head: Buffer = Buffer.alloc(0);
    // Line feeds in what was yielded: a refusal names its line, at `end` of the `bytes` that follow.
    let lineFeeds = 0;
    const refused = (bytes: Buffer, end: number, reason: string): InputFileError =>
      new InputFileError(file, 1 + lineFeeds + lineFeedsIn(bytes, end), reason);
    let carry: Buffer | undefined;
    const same = options.same ?? {};
    const hash = createHash('sha256');
    // The file first read (fstat; SHA-256 once all is read), or no byte from this chunk on is read.
    const sameFile = async (chunk: Buffer, position: number): Promise<void> => {
      const { dev, ino, size, mtimeMs, ctimeMs } = await handle.stat();
      const stat = `${dev}:${ino}:${size}:${mtimeMs}:${ctimeMs}`;
      hash.update(chunk);
      const sha256 = stat === (same.stat ??= stat) && position === size ? hash.copy().digest('hex') : undefined;
      if (stat === same.stat && (sha256 === undefined || sha256 === (same.sha256 ??= sha256))) return;
      throw new InputFileError(file, 1 + lineFeeds, INPUT_CHANGED);
    };

    const flagged = (text: string): boolean =>
      options.encodingFlag === true || (options.encodingFlag === 'csv' && !/^\s*[[{]/.test(text));
    const noBom = (): string => {
      // UTF-16 without a BOM: big-endian when its first byte is NUL.
      const utf16 = head[0] === 0 ? 'utf-16be' : 'utf-16le';
      const named = `${NO_BOM}, or name its encoding with --encoding ${utf16}`;
      return flagged(new TextDecoder(utf16).decode(head)) ? named : NO_BOM;
    };
    const check = (chunk: Buffer, last: boolean): Buffer => {
      // A NUL byte: refused on its own line (a stray one in a text file is found where it is); a zip has no lines.
      const nul = chunk.indexOf(0);
      if (nul !== -1 && head.indexOf('PK\u0003\u0004') === 0) throw new InputFileError(file, undefined, WORKBOOK);
      if (nul !== -1) throw refused(chunk, nul, looksUtf16(head) ? noBom() : BINARY);
      if (encoding !== 'utf-8') return chunk;
      // UTF-8 is checked on whole sequences only: an incomplete tail waits for the next chunk.
      let body = chunk;
      if (carry !== undefined) body = Buffer.concat([carry, chunk]);
      const cut = last ? body.length : completeLength(body);
      const whole = body.subarray(0, cut);
      if (!isUtf8(whole)) {
        // A carried tail is a cut sequence's bytes, never a line feed.
        const flag = flagged(head.toString('latin1'))
          ? ', or name its encoding with --encoding (e.g. --encoding windows-1252 for Excel\'s "CSV (Comma delimited)" on Windows)'
          : '';
        throw refused(whole, firstInvalidOffset(whole), `${INVALID_UTF8}${flag}`);
      }
      carry = cut < body.length ? Buffer.from(body.subarray(cut)) : undefined;
      return chunk;
    };

    // A file read in a single-byte legacy encoding whose bytes are UTF-8 is refused (docs/input-formats.md,
    // "Text encoding"): watched as it streams, said at its end, before any record of it is sent.
    let legacy: { utf8: TextDecoder; first?: { line: number; utf8: string; read: string } } | undefined;
    const watchLegacy = (chunk: Buffer, last: boolean): void => {
      if (legacy === undefined) return;
      try {
        // Its own decoder: a character cut by the chunk's end is checked whole with the next chunk.
        legacy.utf8.decode(chunk, { stream: !last });
      } catch {
        legacy = undefined;
        return;
      }
      const at = legacy.first === undefined ? chunk.findIndex((byte) => byte >= 0x80) : -1;
      if (at !== -1) {
        const word = chunk.subarray(at, at + completeLength(chunk.subarray(at, at + 12)));
        // One byte a character: a line feed of the file is one of its text.
        legacy.first = {
          line: 1 + lineFeeds + lineFeedsIn(chunk, at),
          utf8: word.toString('utf8'),
          read: new TextDecoder(encoding as string).decode(word),
        };
      }
      if (last && legacy.first !== undefined) {
        throw new InputFileError(
          file,
          legacy.first.line,
          `the file is UTF-8 text (these bytes read as UTF-8 are "${legacy.first.utf8}"), but it is read as ${encoding} (--encoding, or the profile's encoding), ` +
            `which makes "${legacy.first.read}" of them: give --encoding utf-8 for this file`,
        );
      }
    };

    /** Sets up the encoding the BOM (or --encoding) says, its decoder and the legacy watch; the bytes after the BOM. */
    const begin = (first: Buffer): Buffer => {
      const bom = bomOf(first);
      encoding =
        bom?.encoding ?? (options.encoding === undefined ? 'utf-8' : new TextDecoder(options.encoding).encoding);
      options.onBom?.(bom !== undefined, encoding);
      const rest = first.subarray(bom?.length ?? 0);
      if (encoding !== 'utf-8') decoder = new TextDecoder(encoding, { fatal: true, ignoreBOM: true });
      // One byte a character (`windows-1252`, `iso-8859-2`...): not UTF-8, UTF-16 or a multi-byte Asian encoding.
      if (!/^(utf-8|utf-16|shift_jis|euc-|iso-2022|gb|big5)/i.test(encoding))
        legacy = { utf8: new TextDecoder('utf-8', { fatal: true }) };
      return rest;
    };

    const decode = (chunk: Buffer, last: boolean): Buffer => {
      watchLegacy(chunk, last);
      if (decoder === undefined) return chunk;
      try {
        return Buffer.from(decoder.decode(chunk, { stream: !last }), 'utf8');
      } catch {
        // Located to the character: the text before the first one a lenient decoder replaces (U+FFFD).
        const label = encoding ?? 'utf-8';
        const lenient = new TextDecoder(label, { ignoreBOM: true }).decode(chunk);
        const before = lenient.slice(0, lenient.indexOf('\ufffd'));
        const what = label.startsWith('utf-16') ? 'invalid UTF-16 (a lone surrogate)' : `bytes that are not ${label}`;
        throw refused(
          Buffer.from(before, 'utf8'),
          Number.POSITIVE_INFINITY,
          `${BINARY}: ${what}; save the file as UTF-8 text`,
        );
      }
    };

    for await (const read of rawChunks(handle, file, options.same && sameFile)) {
      let chunk: Buffer = read;
      if (encoding === undefined) {
        head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
        if (head.length < 3) continue;
        chunk = begin(head);
      }
      const out = check(decode(chunk, false), false);
      if (out.length > 0) {
        yield out;
        lineFeeds += lineFeedsIn(out);
      }
    }
    // A file shorter than a BOM is all its head.
    const tail = check(decode(encoding === undefined ? begin(head) : Buffer.alloc(0), true), true);
    if (tail.length > 0) yield tail;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

export function bomOf(chunk: Buffer): { encoding: string; length: number } | undefined {
  if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (chunk[0] === 0xff && chunk[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (chunk[0] === 0xfe && chunk[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  return undefined;
}

/**
 * The text of a small file read whole, by its BOM (UTF-8 with or without one, UTF-16 LE or BE with one,
 * as PowerShell 5.1 and Notepad write): for an input document, the config, token and map files. Text
 * invalid in its encoding is refused at its line (`notText`: the caller's own refusal of non-UTF-8 bytes).
 */
export function decodeTextDocument(bytes: Buffer, file: string, notText?: () => Error): string {
  const bom = bomOf(bytes);
  if (bom === undefined || bom.encoding === 'utf-8') {
    const body = bytes.subarray(bom?.length ?? 0);
    // A NUL (UTF-16 without a BOM holds one in every ASCII character) is binary, as in a streamed input.
    const nul = body.indexOf(0);
    if (nul !== -1)
      throw notText?.() ?? new InputFileError(file, 1 + lineFeedsIn(body, nul), looksUtf16(body) ? NO_BOM : BINARY);
    if (isUtf8(body)) return body.toString('utf8');
    throw notText?.() ?? new InputFileError(file, 1 + lineFeedsIn(body, firstInvalidOffset(body)), INVALID_UTF8);
  }
  try {
    return new TextDecoder(bom.encoding, { fatal: true, ignoreBOM: true }).decode(bytes.subarray(bom.length));
  } catch {
    throw new InputFileError(
      file,
      undefined,
      `${BINARY}: invalid UTF-16 (a lone surrogate or an odd number of bytes); save the file as UTF-8 text`,
    );
  }
}

/** The first bytes of the file's text (after BOM handling), for format sniffing; all of it with `bytes` infinite. */
export async function readTextHead(
  path: string,
  file: string = path,
  bytes = 4096,
  options: TextOptions = {},
): Promise<string> {
  const parts: Buffer[] = [];
  let length = 0;
  for await (const chunk of readUtf8Chunks(path, file, options)) {
    parts.push(chunk);
    length += chunk.length;
    if (length >= bytes) break;
  }
  return Buffer.concat(parts).subarray(0, bytes).toString('utf8');
}
