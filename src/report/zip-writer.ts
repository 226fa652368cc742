/**
 * A zip archive written front to back onto a stream (an .xlsx is one): small entries deflated
 * at once, a large one (a sheet) deflated piece by piece as its text comes (node:zlib), with
 * its CRC-32 and sizes in a data descriptor after it (APPNOTE 4.3.9), so no entry is ever held
 * whole in memory. Every write waits when the stream is full (back-pressure), so
 * a producer that awaits the returned promise runs at the pace of the disk or the pipe.
 *
 * Sizes and offsets past 4 GiB, or more than 65,535 entries, get zip64 records in the central
 * directory (which readers, examctl's own included (zip-entries.ts), go by); the data descriptor
 * then has 8-byte sizes. The reader side is src/input/zip-entries.ts.
 */
import type { Writable } from 'node:stream';
import { constants, crc32, deflateRawSync } from 'node:zlib';

const LOCAL_HEADER = 0x04034b50;
const DATA_DESCRIPTOR = 0x08074b50;
const DIRECTORY_ENTRY = 0x02014b50;
const END_OF_DIRECTORY = 0x06054b50;
const ZIP64_END_OF_DIRECTORY = 0x06064b50;
const ZIP64_END_LOCATOR = 0x07064b50;
const FLAG_DATA_DESCRIPTOR = 0x0008;
const FLAG_UTF8 = 0x0800;
const DEFLATE = 8;
const VERSION = 20;
const VERSION_ZIP64 = 45;
const MAX32 = 0xffffffff;
const MAX16 = 0xffff;
/**
 * zlib level 3: on a report's sheet XML, 35% less CPU than zlib's default (6) for a file 8%
 * larger, still smaller than exceljs's (bench/README.md, "The run report as .xlsx").
 */
const LEVEL = 3;
/** Bytes of an entry deflated at a time: one deflate call per 256 KiB, not one per row. */
const PIECE = 256 * 1024;
/** Room past PIECE for the text that crosses it (a row); longer text is cut to fit. */
const PIECE_SLACK = 64 * 1024;

interface Written {
  name: Buffer;
  flags: number;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
  time: number;
  date: number;
}

/** MS-DOS time and date of `when` (local time, as zip tools write it; two-second resolution). */
function dosDateTime(when: Date): { time: number; date: number } {
  const year = Math.min(Math.max(when.getFullYear(), 1980), 2107);
  return {
    time: (when.getHours() << 11) | (when.getMinutes() << 5) | Math.floor(when.getSeconds() / 2),
    date: ((year - 1980) << 9) | ((when.getMonth() + 1) << 5) | when.getDate(),
  };
}

/** Resolves when `stream` takes writes again, or rejects when it failed or closed first. */
function drained(stream: Writable): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = (error?: unknown): void => {
      stream.off('drain', onDrain);
      stream.off('close', onClose);
      stream.off('error', done);
      if (error === undefined) resolve();
      else reject(error instanceof Error ? error : new Error(String(error)));
    };
    const onDrain = (): void => done();
    const onClose = (): void => done(stream.errored ?? new Error('the output closed before the workbook was complete'));
    stream.on('drain', onDrain);
    stream.on('close', onClose);
    stream.on('error', done);
  });
}

export class ZipWriter {
  private offset = 0;
  private readonly written: Written[] = [];
  private readonly stamp: { time: number; date: number };
  private open: ZipEntryStream | undefined;

  constructor(
    private readonly out: Writable,
    options: { modified?: Date } = {},
  ) {
    this.stamp = dosDateTime(options.modified ?? new Date());
  }

  /** Writes bytes to the stream; resolves at once unless the stream asks to wait. */
  async write(bytes: Buffer): Promise<void> {
    if (this.out.destroyed) throw this.out.errored ?? new Error('the output closed before the workbook was complete');
    this.offset += bytes.length;
    if (!this.out.write(bytes)) await drained(this.out);
  }

  /** A whole entry known at once (a small part: styles, the workbook, relationships). */
  async add(name: string, content: string | Buffer): Promise<void> {
    this.assertNoOpenEntry();
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    const body = deflateRawSync(data, { level: LEVEL });
    const entry = this.entry(name, 0, crc32(data), body.length, data.length);
    await this.write(this.localHeader(entry));
    await this.write(body);
  }

  /** An entry written piece by piece; `end()` it before the next entry or `finish`. */
  async stream(name: string): Promise<ZipEntryStream> {
    this.assertNoOpenEntry();
    const entry = this.entry(name, FLAG_DATA_DESCRIPTOR, 0, 0, 0);
    await this.write(this.localHeader(entry));
    this.open = new ZipEntryStream(this, entry, () => {
      this.open = undefined;
    });
    return this.open;
  }

  /** The central directory and the end records; then the stream is ended. */
  async finish(): Promise<void> {
    this.assertNoOpenEntry();
    const directoryOffset = this.offset;
    for (const entry of this.written) await this.write(this.directoryEntry(entry));
    const directorySize = this.offset - directoryOffset;
    const count = this.written.length;
    if (count > MAX16 || directoryOffset > MAX32 || directorySize > MAX32) {
      const record = Buffer.alloc(56);
      record.writeUInt32LE(ZIP64_END_OF_DIRECTORY, 0);
      record.writeBigUInt64LE(44n, 4);
      record.writeUInt16LE(VERSION_ZIP64, 12);
      record.writeUInt16LE(VERSION_ZIP64, 14);
      record.writeBigUInt64LE(BigInt(count), 24);
      record.writeBigUInt64LE(BigInt(count), 32);
      record.writeBigUInt64LE(BigInt(directorySize), 40);
      record.writeBigUInt64LE(BigInt(directoryOffset), 48);
      const locator = Buffer.alloc(20);
      locator.writeUInt32LE(ZIP64_END_LOCATOR, 0);
      locator.writeBigUInt64LE(BigInt(this.offset), 8);
      locator.writeUInt32LE(1, 16);
      await this.write(Buffer.concat([record, locator]));
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(END_OF_DIRECTORY, 0);
    end.writeUInt16LE(Math.min(count, MAX16), 8);
    end.writeUInt16LE(Math.min(count, MAX16), 10);
    end.writeUInt32LE(Math.min(directorySize, MAX32), 12);
    end.writeUInt32LE(Math.min(directoryOffset, MAX32), 16);
    await this.write(end);
    await new Promise<void>((resolve, reject) => {
      this.out.end((error?: Error | null) => (error ? reject(error) : resolve()));
    });
  }

  private assertNoOpenEntry(): void {
    if (this.open !== undefined) throw new Error('a zip entry is still being written');
  }

  private entry(name: string, flags: number, crc: number, compressedSize: number, size: number): Written {
    const entry: Written = { name: Buffer.from(name, 'utf8'), flags: flags | FLAG_UTF8, crc, compressedSize, size, offset: this.offset, ...this.stamp };
    this.written.push(entry);
    return entry;
  }

  private localHeader(entry: Written): Buffer {
    const header = Buffer.alloc(30 + entry.name.length);
    header.writeUInt32LE(LOCAL_HEADER, 0);
    header.writeUInt16LE(VERSION, 4);
    header.writeUInt16LE(entry.flags, 6);
    header.writeUInt16LE(DEFLATE, 8);
    header.writeUInt16LE(entry.time, 10);
    header.writeUInt16LE(entry.date, 12);
    // With a data descriptor these three are zero here and given after the data.
    header.writeUInt32LE(entry.crc, 14);
    header.writeUInt32LE(entry.compressedSize, 18);
    header.writeUInt32LE(entry.size, 22);
    header.writeUInt16LE(entry.name.length, 26);
    entry.name.copy(header, 30);
    return header;
  }

  private directoryEntry(entry: Written): Buffer {
    const big = [entry.size, entry.compressedSize, entry.offset].map((value) => value > MAX32);
    const extraValues = [entry.size, entry.compressedSize, entry.offset].filter((_, i) => big[i]);
    const extraLength = extraValues.length === 0 ? 0 : 4 + 8 * extraValues.length;
    const record = Buffer.alloc(46 + entry.name.length + extraLength);
    const zip64 = extraLength > 0;
    record.writeUInt32LE(DIRECTORY_ENTRY, 0);
    record.writeUInt16LE(zip64 ? VERSION_ZIP64 : VERSION, 4);
    record.writeUInt16LE(zip64 ? VERSION_ZIP64 : VERSION, 6);
    record.writeUInt16LE(entry.flags, 8);
    record.writeUInt16LE(DEFLATE, 10);
    record.writeUInt16LE(entry.time, 12);
    record.writeUInt16LE(entry.date, 14);
    record.writeUInt32LE(entry.crc, 16);
    record.writeUInt32LE(big[1] ? MAX32 : entry.compressedSize, 20);
    record.writeUInt32LE(big[0] ? MAX32 : entry.size, 24);
    record.writeUInt16LE(entry.name.length, 28);
    record.writeUInt16LE(extraLength, 30);
    record.writeUInt32LE(big[2] ? MAX32 : entry.offset, 42);
    entry.name.copy(record, 46);
    if (zip64) {
      // APPNOTE 4.5.3: only the fields whose 32-bit slot holds 0xFFFFFFFF, in this order.
      let at = 46 + entry.name.length;
      record.writeUInt16LE(0x0001, at);
      record.writeUInt16LE(8 * extraValues.length, at + 2);
      at += 4;
      for (const value of extraValues) {
        record.writeBigUInt64LE(BigInt(value), at);
        at += 8;
      }
    }
    return record;
  }

  /** @internal The data descriptor of a streamed entry, once its data is out. */
  async closeEntry(entry: Written): Promise<void> {
    const wide = entry.size > MAX32 || entry.compressedSize > MAX32;
    const descriptor = Buffer.alloc(wide ? 24 : 16);
    descriptor.writeUInt32LE(DATA_DESCRIPTOR, 0);
    descriptor.writeUInt32LE(entry.crc, 4);
    if (wide) {
      descriptor.writeBigUInt64LE(BigInt(entry.compressedSize), 8);
      descriptor.writeBigUInt64LE(BigInt(entry.size), 16);
    } else {
      descriptor.writeUInt32LE(entry.compressedSize, 8);
      descriptor.writeUInt32LE(entry.size, 12);
    }
    await this.write(descriptor);
  }
}

/**
 * One entry's text as it comes, encoded into one reused buffer; each 256 KiB of it goes through
 * the CRC and is deflated at once (synchronously, so the buffer is free again when `write`
 * returns) into deflate blocks that end on a sync flush and are not final: the blocks of the
 * pieces, one after the other, and an empty final block at the end are one valid deflate
 * stream (RFC 1951, 3.2.3). Each piece starts with an empty window, which costs under 1% of
 * the size. Nothing of the entry stays in memory but the one buffer; `write` returns a promise
 * only when a piece went out and the archive's stream asked to wait.
 */
export class ZipEntryStream {
  private readonly buffer = Buffer.allocUnsafe(PIECE + PIECE_SLACK);
  private used = 0;
  private ended = false;

  constructor(
    private readonly zip: ZipWriter,
    private readonly entry: Written,
    private readonly closed: () => void,
  ) {}

  /** Adds text (UTF-8). */
  write(text: string): void | Promise<void> {
    if (this.ended) throw new Error('the zip entry is ended');
    // UTF-8 takes at most 3 bytes per UTF-16 unit: a text that might not fit is cut (between
    // whole surrogate pairs) and written in parts.
    if (text.length * 3 > this.buffer.length - this.used) return this.writeLong(text);
    this.used += this.buffer.write(text, this.used, 'utf8');
    if (this.used >= PIECE) return this.deflatePiece(false);
  }

  /**
   * Adds `length` bytes of `bytes` (a row the caller encoded into a buffer of its own), copied
   * now: the caller may reuse its buffer at once, also when a promise (wait) is returned.
   */
  writeBytes(bytes: Uint8Array, length: number): void | Promise<void> {
    if (this.ended) throw new Error('the zip entry is ended');
    let wait: void | Promise<void> = undefined;
    for (let at = 0; at < length; ) {
      const n = Math.min(length - at, this.buffer.length - this.used);
      this.buffer.set(bytes.subarray(at, at + n), this.used);
      this.used += n;
      at += n;
      // Deflated synchronously: the buffer is free again, whether or not the stream asks to wait.
      if (this.used >= PIECE) wait = this.deflatePiece(false) ?? wait;
    }
    return wait;
  }

  private async writeLong(text: string): Promise<void> {
    let at = 0;
    while (at < text.length) {
      if (this.used >= PIECE) await this.deflatePiece(false);
      let end = Math.min(text.length, at + Math.floor((this.buffer.length - this.used) / 3));
      // Never between the two halves of a surrogate pair.
      const last = text.charCodeAt(end - 1);
      if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
      this.used += this.buffer.write(text.slice(at, end), this.used, 'utf8');
      at = end;
    }
    if (this.used >= PIECE) await this.deflatePiece(false);
  }

  private deflatePiece(final: boolean): void | Promise<void> {
    const piece = this.buffer.subarray(0, this.used);
    this.entry.crc = crc32(piece, this.entry.crc);
    this.entry.size += piece.length;
    const body = deflateRawSync(piece, { level: LEVEL, finishFlush: final ? constants.Z_FINISH : constants.Z_SYNC_FLUSH });
    this.used = 0;
    this.entry.compressedSize += body.length;
    return this.zip.write(body);
  }

  /** Deflates the rest with the final block, writes the data descriptor. */
  async end(): Promise<void> {
    this.ended = true;
    await this.deflatePiece(true);
    this.closed();
    await this.zip.closeEntry(this.entry);
  }
}
