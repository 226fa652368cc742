/**
 * The entries of a zip file (an .xlsx is one), read through its central directory: each entry
 * is a stream of its own bytes, opened when asked for, in any order. exceljs's own reader walks
 * the zip front to back through unzipper 0.10, whose stream signals its end once the file is
 * read rather than once every entry was handed on; under load it drops the last entries
 * (measured: workbook.xml missing in ~1 read of 60 on a busy machine). Reading by the directory
 * has no such race, and needs no temp file for sheets stored before the shared strings.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { createInflateRaw } from 'node:zlib';

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
/** The end record is 22 bytes plus a comment of at most 65535. */
const END_SEARCH = 22 + 0xffff;

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  localHeaderOffset: number;
  encrypted: boolean;
}

/** Why a file cannot be read as a zip archive (the caller names the file). */
export class ZipFormatError extends Error {}

export class ZipEntries {
  private constructor(
    private readonly path: string,
    readonly entries: ReadonlyMap<string, ZipEntry>,
  ) {}

  /** Reads the central directory. Throws ZipFormatError when there is none. */
  static async open(path: string): Promise<ZipEntries> {
    const handle = await open(path, 'r');
    try {
      const size = (await handle.stat()).size;
      const tailLength = Math.min(size, END_SEARCH);
      const tail = Buffer.alloc(tailLength);
      await handle.read(tail, 0, tailLength, size - tailLength);
      let end = -1;
      for (let i = tailLength - 22; i >= 0; i--) {
        if (tail.readUInt32LE(i) === END_OF_DIRECTORY) {
          end = i;
          break;
        }
      }
      if (end === -1) throw new ZipFormatError('no zip directory (the file is cut short or not a zip archive)');
      const count = tail.readUInt16LE(end + 10);
      const directorySize = tail.readUInt32LE(end + 12);
      const directoryOffset = tail.readUInt32LE(end + 16);
      if (count === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff) {
        throw new ZipFormatError('a zip64 archive (over 4 GB or 65535 entries), which examctl does not read');
      }
      if (directoryOffset + directorySize > size) throw new ZipFormatError('the zip directory points past the end of the file (cut short?)');
      const directory = Buffer.alloc(directorySize);
      await handle.read(directory, 0, directorySize, directoryOffset);
      const entries = new Map<string, ZipEntry>();
      let at = 0;
      for (let n = 0; n < count; n++) {
        if (at + 46 > directory.length || directory.readUInt32LE(at) !== DIRECTORY_ENTRY) throw new ZipFormatError('a damaged zip directory');
        const nameLength = directory.readUInt16LE(at + 28);
        const name = directory.toString('utf8', at + 46, at + 46 + nameLength);
        entries.set(name, {
          name,
          encrypted: (directory.readUInt16LE(at + 8) & 1) === 1,
          method: directory.readUInt16LE(at + 10),
          compressedSize: directory.readUInt32LE(at + 20),
          localHeaderOffset: directory.readUInt32LE(at + 42),
        });
        at += 46 + nameLength + directory.readUInt16LE(at + 30) + directory.readUInt16LE(at + 32);
      }
      return new ZipEntries(path, entries);
    } finally {
      await handle.close();
    }
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /**
   * The entry as UTF-8 text (the XML parts of a workbook): decoded across chunk boundaries, so a
   * character whose bytes two chunks share is read whole, not as two U+FFFD.
   */
  async text(name: string): Promise<Readable> {
    const bytes = await this.stream(name);
    bytes.setEncoding('utf8');
    return bytes;
  }

  /** The entry's uncompressed bytes as a stream. */
  async stream(name: string): Promise<Readable> {
    const entry = this.entries.get(name);
    if (entry === undefined) throw new ZipFormatError(`no ${name} in the archive`);
    if (entry.encrypted) throw new ZipFormatError(`${name} is encrypted`);
    if (entry.method !== 0 && entry.method !== 8) throw new ZipFormatError(`${name} uses zip compression method ${entry.method}, which examctl does not read`);
    const handle = await open(this.path, 'r');
    const header = Buffer.alloc(30);
    try {
      await handle.read(header, 0, 30, entry.localHeaderOffset);
    } finally {
      await handle.close();
    }
    if (header.readUInt32LE(0) !== LOCAL_HEADER) throw new ZipFormatError(`a damaged zip entry (${name})`);
    const start = entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
    if (entry.compressedSize === 0) return Readable.from([]);
    const raw = createReadStream(this.path, { start, end: start + entry.compressedSize - 1 });
    if (entry.method === 0) return raw;
    const inflate = createInflateRaw();
    raw.on('error', (error) => inflate.destroy(error));
    return raw.pipe(inflate);
  }
}
