/**
 * The entries of a zip file (an .xlsx is one), read through its central directory, each inflated
 * with a bound: why, and what it checks: docs/input-formats.md, ".xlsx" (the zip).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInflateRaw, crc32 } from 'node:zlib';

const END_OF_DIRECTORY = 0x06054b50;
const ZIP64_END_LOCATOR = 0x07064b50;
const ZIP64_END_OF_DIRECTORY = 0x06064b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const ZIP64_EXTRA = 0x0001;
/** The end record is 22 bytes plus a comment of at most 65535. */
const END_SEARCH = 22 + 0xffff;
/** A directory larger than this is not a workbook's (an .xlsx has tens of entries). */
const MAX_DIRECTORY_BYTES = 16 << 20;
const READ_CHUNK = 64 * 1024;

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  /** The inflated size the directory declares: inflating past it is refused. */
  size: number;
  crc: number;
  localHeaderOffset: number;
  encrypted: boolean;
}

/** Why a file cannot be read as a zip archive, or an entry of it (the caller names the file). */
export class ZipFormatError extends Error {}

/** No zip directory was found; `head`, the file's first bytes (at most four), say what it is instead. */
export class NoZipDirectoryError extends ZipFormatError {
  constructor(readonly head: Buffer) {
    super('no zip directory (the file is cut short or not a zip archive)');
  }
}

/** An entry inflates to more than it may (declared size or the caller's limit). */
export class ZipEntryTooLargeError extends ZipFormatError {}

function bytes(n: number): string {
  return `${n.toLocaleString('en-US')} bytes`;
}

/** A 64-bit little-endian size or offset, refused beyond what a double holds exactly. */
function readSize64(buffer: Buffer, at: number): number {
  const value = buffer.readBigUInt64LE(at);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new ZipFormatError('a damaged zip64 record (a size beyond 2^53)');
  return Number(value);
}

export class ZipEntries {
  private constructor(
    private readonly path: string,
    private readonly fileSize: number,
    readonly entries: ReadonlyMap<string, ZipEntry>,
    /** fstat and the file's SHA-256: a file saved again (or another) has another. */
    readonly identity: string,
  ) {}

  /** Reads the central directory (zip64 included). Throws ZipFormatError when there is none. */
  static async open(path: string): Promise<ZipEntries> {
    const handle = await open(path, 'r');
    try {
      const { dev, ino, size, mtimeMs, ctimeMs } = await handle.stat();
      const tailLength = Math.min(size, END_SEARCH);
      const tailStart = size - tailLength;
      const tail = Buffer.alloc(tailLength);
      await handle.read(tail, 0, tailLength, tailStart);
      let end = -1;
      for (let i = tailLength - 22; i >= 0; i--) {
        if (tail.readUInt32LE(i) === END_OF_DIRECTORY) {
          end = i;
          break;
        }
      }
      if (end === -1) {
        const head = Buffer.alloc(4);
        const { bytesRead } = await handle.read(head, 0, 4, 0);
        throw new NoZipDirectoryError(head.subarray(0, bytesRead));
      }
      let count = tail.readUInt16LE(end + 10);
      let directorySize = tail.readUInt32LE(end + 12);
      let directoryOffset = tail.readUInt32LE(end + 16);
      if (count === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff) {
        const locatorAt = tailStart + end - 20;
        const locator = Buffer.alloc(20);
        if (locatorAt >= 0) await handle.read(locator, 0, 20, locatorAt);
        if (locatorAt < 0 || locator.readUInt32LE(0) !== ZIP64_END_LOCATOR)
          throw new ZipFormatError('a damaged zip64 archive (no zip64 directory locator)');
        const zip64EndAt = readSize64(locator, 8);
        const zip64End = Buffer.alloc(56);
        if (zip64EndAt + 56 > size)
          throw new ZipFormatError('a damaged zip64 archive (its directory record points past the end of the file)');
        await handle.read(zip64End, 0, 56, zip64EndAt);
        if (zip64End.readUInt32LE(0) !== ZIP64_END_OF_DIRECTORY)
          throw new ZipFormatError('a damaged zip64 archive (no zip64 directory record)');
        count = readSize64(zip64End, 32);
        directorySize = readSize64(zip64End, 40);
        directoryOffset = readSize64(zip64End, 48);
      }
      if (directoryOffset + directorySize > size)
        throw new ZipFormatError('the zip directory points past the end of the file (cut short?)');
      if (directorySize > MAX_DIRECTORY_BYTES)
        throw new ZipFormatError(`a zip directory of ${bytes(directorySize)}, far more than a workbook has`);
      const directory = Buffer.alloc(directorySize);
      await handle.read(directory, 0, directorySize, directoryOffset);
      const hash = createHash('sha256');
      for await (const chunk of handle.createReadStream({ autoClose: false })) hash.update(chunk);
      return new ZipEntries(
        path,
        size,
        parseDirectory(directory, count),
        [dev, ino, size, mtimeMs, ctimeMs, hash.digest('hex')].join(':'),
      );
    } finally {
      await handle.close();
    }
  }

  has(name: string): boolean {
    return this.entries.has(partKey(name));
  }

  /**
   * The entry's uncompressed bytes, chunk by chunk: refused (ZipEntryTooLargeError) past `limit` or its declared
   * size; a stream short of that size or with another CRC-32 is a damaged entry.
   */
  async *chunks(name: string, limit: number): AsyncGenerator<Buffer> {
    const entry = this.entries.get(partKey(name));
    if (entry === undefined) throw new ZipFormatError(`no ${name} in the archive`);
    if (entry.encrypted) throw new ZipFormatError(`${name} is encrypted`);
    if (entry.method !== 0 && entry.method !== 8)
      throw new ZipFormatError(`${name} uses zip compression method ${entry.method}, which examctl does not read`);
    if (entry.size > limit)
      throw new ZipEntryTooLargeError(
        `${name} declares ${bytes(entry.size)} inflated, over the limit of ${bytes(limit)}`,
      );
    const start = await this.dataStart(entry);
    if (start + entry.compressedSize > this.fileSize)
      throw new ZipFormatError(`${name} runs past the end of the file (cut short?)`);
    if (entry.compressedSize === 0) {
      if (entry.size !== 0)
        throw new ZipFormatError(`a damaged zip entry (${name} holds no data but declares ${bytes(entry.size)})`);
      return;
    }
    const raw = createReadStream(this.path, {
      start,
      end: start + entry.compressedSize - 1,
      highWaterMark: READ_CHUNK,
    });
    const source = entry.method === 0 ? raw : raw.pipe(createInflateRaw({ chunkSize: READ_CHUNK }));
    if (source !== raw) raw.on('error', (error) => source.destroy(error));
    let total = 0;
    let crc = 0;
    try {
      for await (const chunk of source as AsyncIterable<Buffer>) {
        total += chunk.length;
        if (total > entry.size) {
          throw new ZipEntryTooLargeError(
            `${name} inflates to more than the ${bytes(entry.size)} its zip directory declares (a damaged file, or one built to exhaust memory)`,
          );
        }
        crc = crc32(chunk, crc);
        yield chunk;
      }
    } catch (error) {
      if (error instanceof ZipFormatError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (typeof code === 'string' && code.startsWith('Z_'))
        throw new ZipFormatError(`a damaged zip entry (${name}: ${(error as Error).message})`);
      throw error;
    } finally {
      raw.destroy();
      if (source !== raw) source.destroy();
    }
    if (total !== entry.size)
      throw new ZipFormatError(
        `a damaged zip entry (${name} inflates to ${bytes(total)}, its directory declares ${bytes(entry.size)})`,
      );
    if (crc >>> 0 !== entry.crc) throw new ZipFormatError(`a damaged zip entry (${name} fails its CRC-32 check)`);
  }

  /** Where an entry's data starts: after its local header (name and extra lengths may differ from the directory's). */
  private async dataStart(entry: ZipEntry): Promise<number> {
    const handle = await open(this.path, 'r');
    const header = Buffer.alloc(30);
    try {
      const { bytesRead } = await handle.read(header, 0, 30, entry.localHeaderOffset);
      if (bytesRead < 30 || header.readUInt32LE(0) !== LOCAL_HEADER)
        throw new ZipFormatError(`a damaged zip entry (${entry.name})`);
    } finally {
      await handle.close();
    }
    return entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  }
}

/** An entry's lookup key: part names are case-insensitive (ECMA-376 Part 2, 9.1.1.4), `\\` read as `/`. */
function partKey(name: string): string {
  return name.replace(/\\/g, '/').replace(/^\/+/, '').toLowerCase();
}

function parseDirectory(directory: Buffer, count: number): Map<string, ZipEntry> {
  const entries = new Map<string, ZipEntry>();
  let at = 0;
  for (let n = 0; n < count; n++) {
    if (at + 46 > directory.length || directory.readUInt32LE(at) !== DIRECTORY_ENTRY)
      throw new ZipFormatError('a damaged zip directory');
    const nameLength = directory.readUInt16LE(at + 28);
    const extraLength = directory.readUInt16LE(at + 30);
    const commentLength = directory.readUInt16LE(at + 32);
    if (at + 46 + nameLength + extraLength > directory.length) throw new ZipFormatError('a damaged zip directory');
    const name = directory.toString('utf8', at + 46, at + 46 + nameLength);
    let compressedSize = directory.readUInt32LE(at + 20);
    let size = directory.readUInt32LE(at + 24);
    let localHeaderOffset = directory.readUInt32LE(at + 42);
    if (compressedSize === 0xffffffff || size === 0xffffffff || localHeaderOffset === 0xffffffff) {
      // zip64: the fields set to 0xffffffff are in the extra field 0x0001, in this order.
      const extra = zip64Extra(directory.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength));
      let next = 0;
      const take = (): number => {
        if (extra === undefined || next + 8 > extra.length)
          throw new ZipFormatError(`a damaged zip64 directory entry (${name})`);
        const value = readSize64(extra, next);
        next += 8;
        return value;
      };
      if (size === 0xffffffff) size = take();
      if (compressedSize === 0xffffffff) compressedSize = take();
      if (localHeaderOffset === 0xffffffff) localHeaderOffset = take();
    }
    // The first of two names that differ only in case or separator is kept (a package holds one).
    const key = partKey(name);
    if (!entries.has(key))
      entries.set(key, {
        name,
        encrypted: (directory.readUInt16LE(at + 8) & 1) === 1,
        method: directory.readUInt16LE(at + 10),
        crc: directory.readUInt32LE(at + 16),
        compressedSize,
        size,
        localHeaderOffset,
      });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function zip64Extra(extra: Buffer): Buffer | undefined {
  for (let at = 0; at + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(at);
    const length = extra.readUInt16LE(at + 2);
    if (id === ZIP64_EXTRA) return extra.subarray(at + 4, Math.min(extra.length, at + 4 + length));
    at += 4 + length;
  }
  return undefined;
}
