import type { FileHandle } from 'node:fs/promises';

export interface RawLine {
  /** The line's bytes without the newline: a view into a read buffer that is never reused, so keeping it is safe (it keeps the whole buffer alive). */
  bytes: Buffer;
  /** 1-based line number within the file. */
  lineNo: number;
  /** Byte offset of the line's first byte. */
  start: number;
  /** Byte offset just past the newline (or past the last byte for an unterminated tail). */
  end: number;
  /** False for a last line with no newline: a write that never finished. */
  terminated: boolean;
}

/** Catch-up reads are usually a few lines: start small, grow for a big journal. */
const FIRST_CHUNK_SIZE = 64 * 1024;
const MAX_CHUNK_SIZE = 1 << 20;

/**
 * Streams a file's lines from `startOffset` through a chunked splitter, so that a file of any
 * size loads without ever becoming one string (V8 strings stop near 512 MB).
 * `onLine` may throw to stop. Reads up to the size the file has when the read reaches it.
 */
export async function forEachLine(
  handle: FileHandle,
  startOffset: number,
  firstLineNo: number,
  onLine: (line: RawLine) => void,
): Promise<void> {
  let position = startOffset;
  let lineNo = firstLineNo;
  let carry: Buffer | undefined;
  let carryStart = startOffset;
  let chunkSize = FIRST_CHUNK_SIZE;
  for (;;) {
    const chunk = Buffer.allocUnsafe(chunkSize);
    const { bytesRead } = await handle.read(chunk, 0, chunkSize, position);
    chunkSize = Math.min(chunkSize * 2, MAX_CHUNK_SIZE);
    if (bytesRead === 0) break;
    let from = 0;
    for (;;) {
      const newline = chunk.indexOf(10, from);
      if (newline === -1 || newline >= bytesRead) break;
      const end = position + newline + 1;
      if (carry) {
        const bytes = Buffer.concat([carry, chunk.subarray(0, newline)]);
        carry = undefined;
        onLine({ bytes, lineNo, start: carryStart, end, terminated: true });
      } else {
        onLine({ bytes: chunk.subarray(from, newline), lineNo, start: position + from, end, terminated: true });
      }
      lineNo += 1;
      from = newline + 1;
    }
    if (from < bytesRead) {
      const rest = Buffer.from(chunk.subarray(from, bytesRead));
      if (carry) {
        carry = Buffer.concat([carry, rest]);
      } else {
        carry = rest;
        carryStart = position + from;
      }
    }
    position += bytesRead;
  }
  if (carry) onLine({ bytes: carry, lineNo, start: carryStart, end: position, terminated: false });
}
