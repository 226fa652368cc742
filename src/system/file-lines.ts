import type { FileHandle } from 'node:fs/promises';

/** One line of a file as `streamLines` gives it. */
interface RawLine {
  /** The line's bytes without the newline: valid only during the call (the buffer is reused). */
  bytes: Buffer;
  /** 1-based line number within the file. */
  lineNo: number;
  /** Byte offset of its first byte. */
  start: number;
  /** Byte offset just past its newline (past its last byte for an unterminated tail). */
  end: number;
  /** False for a last line with no newline: a write that never finished. */
  terminated: boolean;
}

/** Catch-up reads of a store's journal are usually a few lines: start small, grow for a big file. */
const FIRST_BUFFER = 64 * 1024;
const MOST_BUFFER = 1 << 20;

/**
 * Calls `onLine` for each line of the file from `at`, the last without a newline too (`terminated` false),
 * through one reused buffer: any size in bounded memory, never one string (V8 strings stop near 512 MB).
 * `onLine` may throw to stop, or return a promise to be awaited before the next line. Reads up to the size
 * the file has when the read reaches it.
 */
export async function streamLines(
  handle: FileHandle,
  onLine: (line: RawLine) => unknown,
  at = { offset: 0, lineNo: 1 },
): Promise<void> {
  let buffer = Buffer.allocUnsafe(FIRST_BUFFER);
  let filled = 0;
  let bufferStart = at.offset;
  let lineNo = at.lineNo;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, bufferStart + filled);
    if (bytesRead === 0) break;
    const full = filled + bytesRead === buffer.length;
    filled += bytesRead;
    const view = buffer.subarray(0, filled);
    let from = 0;
    for (let newline = view.indexOf(10, from); newline !== -1; newline = view.indexOf(10, from)) {
      const pending = onLine({
        bytes: view.subarray(from, newline),
        lineNo,
        start: bufferStart + from,
        end: bufferStart + newline + 1,
        terminated: true,
      });
      if (pending instanceof Promise) await pending;
      lineNo += 1;
      from = newline + 1;
    }
    // The unfinished line moves to the front; the rest of the buffer is read into.
    buffer.copy(buffer, 0, from, filled);
    filled -= from;
    bufferStart += from;
    // Grown while reads fill it (a big file), and for a line longer than it (a header with long recorded options).
    if ((full && buffer.length < MOST_BUFFER) || filled === buffer.length) {
      const bigger = Buffer.allocUnsafe(buffer.length * 2);
      buffer.copy(bigger, 0, 0, filled);
      buffer = bigger;
    }
  }
  if (filled > 0)
    await onLine({
      bytes: buffer.subarray(0, filled),
      lineNo,
      start: bufferStart,
      end: bufferStart + filled,
      terminated: false,
    });
}
