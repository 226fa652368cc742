/**
 * A zip archive written front to back onto a stream (an .xlsx is one): small entries deflated
 * at once, a large one (a sheet) streamed through node:zlib's deflater as its text comes, with
 * its CRC-32 and sizes in a data descriptor after it (APPNOTE 4.3.9), so no entry is ever held
 * whole in memory. Every write waits when the stream or the deflater is full (back-pressure), so
 * a producer that awaits the returned promise runs at the pace of the disk or the pipe.
 *
 * Sizes and offsets past 4 GiB, or more than 65,535 entries, get zip64 records in the central
 * directory (which readers, examctl's own included (zip-entries.ts), go by); the data descriptor
 * then has 8-byte sizes. The reader side is src/input/zip-entries.ts.
 */
import type { Writable } from 'node:stream';
import { constants, crc32, createDeflateRaw, deflateRawSync, type DeflateRaw } from 'node:zlib';

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
 * zlib level 6 (its default) compresses a sheet's repetitive XML about 15:1; the lower levels
 * save little time here (the XML is built slower than it deflates) and give larger files.
 */
const LEVEL = constants.Z_DEFAULT_COMPRESSION;
/** Text gathered before it goes to the deflater: one write per 64 KiB, not one per row. */
const GATHER = 64 * 1024;

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
 * One entry's text as it comes: gathered into 64 KiB pieces, each through the CRC and the
 * deflater, whose output goes to the archive's stream as it is made. `write` returns a promise
 * only when the caller must wait (a piece went out and the deflater or the stream is full).
 */
export class ZipEntryStream {
  private readonly deflater: DeflateRaw;
  private gathered: string[] = [];
  private gatheredLength = 0;
  private failure: Error | undefined;
  /** The deflater's output not yet taken by the archive's stream (a chain keeps it in order). */
  private output: Promise<void> = Promise.resolve();
  private paused = false;

  constructor(
    private readonly zip: ZipWriter,
    private readonly entry: Written,
    private readonly closed: () => void,
  ) {
    this.deflater = createDeflateRaw({ level: LEVEL, chunkSize: GATHER });
    this.deflater.on('data', (chunk: Buffer) => {
      this.entry.compressedSize += chunk.length;
      // Paused until the archive's stream took the chunk: the deflater's buffer then fills and
      // its write() says so, which is what the producer waits on.
      this.deflater.pause();
      this.paused = true;
      this.output = this.output
        .then(() => this.zip.write(chunk))
        .then(
          () => {
            this.paused = false;
            this.deflater.resume();
          },
          (error: unknown) => {
            this.failure ??= error instanceof Error ? error : new Error(String(error));
            this.deflater.destroy(this.failure);
          },
        );
    });
    this.deflater.on('error', (error) => {
      this.failure ??= error;
    });
  }

  /** Adds text (UTF-8); waits only when a gathered piece could not be taken at once. */
  write(text: string): void | Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    this.gathered.push(text);
    this.gatheredLength += text.length;
    if (this.gatheredLength >= GATHER) return this.push();
  }

  private push(): void | Promise<void> {
    const piece = Buffer.from(this.gathered.join(''), 'utf8');
    this.gathered = [];
    this.gatheredLength = 0;
    this.entry.crc = crc32(piece, this.entry.crc);
    this.entry.size += piece.length;
    if (!this.deflater.write(piece) || this.paused) return this.drained();
  }

  private drained(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const done = (): void => {
        this.deflater.off('drain', done);
        this.deflater.off('close', done);
        if (this.failure !== undefined) reject(this.failure);
        else resolve();
      };
      if (this.deflater.writableNeedDrain) {
        this.deflater.on('drain', done);
        this.deflater.on('close', done);
      } else {
        // Not full, but its last chunk is still on its way out: wait for that alone.
        void this.output.then(done, done);
      }
    });
  }

  /** Flushes the rest, waits until every byte is out, writes the data descriptor. */
  async end(): Promise<void> {
    if (this.gatheredLength > 0) await this.push();
    await new Promise<void>((resolve, reject) => {
      this.deflater.on('end', resolve);
      this.deflater.on('close', () => (this.failure !== undefined ? reject(this.failure) : resolve()));
      this.deflater.end();
    });
    await this.output;
    if (this.failure !== undefined) throw this.failure;
    this.closed();
    await this.zip.closeEntry(this.entry);
  }
}
