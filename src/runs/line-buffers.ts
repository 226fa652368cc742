import { readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/*
 * A run journal's lines read in bounded memory, into buffers that are reused: the lines are
 * decoded at once and never kept, so a journal of any size costs one buffer (as long as its
 * longest line) to stream, and a small block cache to read lines back at their offsets.
 */

export interface JournalRawLine {
  /** The line's bytes without the newline: valid only during the call (the buffer is reused). */
  bytes: Buffer;
  /** 1-based line number. */
  lineNo: number;
  /** Byte offset of its first byte. */
  start: number;
  /** Byte offset just past its newline (past its last byte for an unterminated tail). */
  end: number;
  /** False for a last line with no newline: a write that never finished. */
  terminated: boolean;
}

const STREAM_BUFFER = 1 << 20;

/** Calls `onLine` for each line of the file, in order; the last line without a newline too (`terminated` false). */
export async function streamLines(handle: FileHandle, onLine: (line: JournalRawLine) => void): Promise<void> {
  let buffer = Buffer.allocUnsafe(STREAM_BUFFER);
  let filled = 0;
  let bufferStart = 0;
  let lineNo = 1;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, bufferStart + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
    const view = buffer.subarray(0, filled);
    let from = 0;
    for (let newline = view.indexOf(10, from); newline !== -1; newline = view.indexOf(10, from)) {
      onLine({ bytes: view.subarray(from, newline), lineNo, start: bufferStart + from, end: bufferStart + newline + 1, terminated: true });
      lineNo += 1;
      from = newline + 1;
    }
    if (from > 0) {
      // The unfinished line moves to the front; the rest of the buffer is read into.
      buffer.copy(buffer, 0, from, filled);
      filled -= from;
      bufferStart += from;
    } else if (filled === buffer.length) {
      // A line longer than the buffer (a header with long recorded options): grown for it.
      const bigger = Buffer.allocUnsafe(buffer.length * 2);
      buffer.copy(bigger, 0, 0, filled);
      buffer = bigger;
    }
  }
  if (filled > 0) onLine({ bytes: buffer.subarray(0, filled), lineNo, start: bufferStart, end: bufferStart + filled, terminated: false });
}

/** 64 KiB blocks, at most 16 kept (1 MiB): a few interleaved attempts of a resumed run still read each block about once. */
const BLOCK_SIZE = 64 * 1024;
const MAX_BLOCKS = 16;

/**
 * Reads whole lines at byte offsets through a small cache of aligned blocks: offsets that
 * mostly ascend (a journal shown in input order) read the file about once, in order. Only
 * bytes below `limit` (the end of the journal's last whole line) are read. Synchronously: a
 * resume decides each unit as the dispatcher reaches it, in the same turn (resume-plan.ts), and
 * the file is a regular file opened by `openRegularFile` (never a FIFO that could block).
 */
export class LineReader {
  private readonly blocks = new Map<number, Buffer>();

  constructor(
    private readonly handle: FileHandle,
    private readonly limit: number,
  ) {}

  /** The line starting at `offset`, without its newline; undefined when no newline ends it below the limit. */
  lineAt(offset: number): Buffer | undefined {
    const parts: Buffer[] = [];
    for (let position = offset; position < this.limit; ) {
      const index = Math.floor(position / BLOCK_SIZE);
      const block = this.block(index);
      const from = position - index * BLOCK_SIZE;
      if (from >= block.length) return undefined;
      const newline = block.indexOf(10, from);
      if (newline >= 0) {
        parts.push(block.subarray(from, newline));
        return parts.length === 1 ? parts[0] : Buffer.concat(parts);
      }
      // Copied: reading the next block may reuse this one's memory.
      parts.push(Buffer.from(block.subarray(from)));
      position = (index + 1) * BLOCK_SIZE;
    }
    return undefined;
  }

  private block(index: number): Buffer {
    const cached = this.blocks.get(index);
    if (cached !== undefined) {
      // Most recently used last: the first key is the one to drop.
      this.blocks.delete(index);
      this.blocks.set(index, cached);
      return cached;
    }
    const start = index * BLOCK_SIZE;
    // The dropped block's memory is reused (a line is decoded before the next read): blocks left
    // to the collector would pile up far past the cache's size between its passes.
    const dropped = this.blocks.size >= MAX_BLOCKS ? (this.blocks.keys().next().value as number) : undefined;
    const reused = dropped === undefined ? undefined : this.spare(dropped);
    const block = (reused ?? Buffer.allocUnsafe(BLOCK_SIZE)).subarray(0, Math.max(0, Math.min(BLOCK_SIZE, this.limit - start)));
    let filled = 0;
    while (filled < block.length) {
      const bytesRead = readSync(this.handle.fd, block, filled, block.length - filled, start + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const read = block.subarray(0, filled);
    this.blocks.set(index, read);
    return read;
  }

  /** Drops a cached block and gives its whole buffer back. */
  private spare(index: number): Buffer {
    const block = this.blocks.get(index) as Buffer;
    this.blocks.delete(index);
    return Buffer.from(block.buffer, block.byteOffset, BLOCK_SIZE);
  }
}
