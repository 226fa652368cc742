import { readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/*
 * A run journal's lines read in bounded memory: streamed (system/file-lines.ts), decoded at once
 * and never kept, and read back at their offsets through a small block cache.
 */

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
