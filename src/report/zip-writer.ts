/**
 * A zip archive written front to back onto a stream by yazl, text gathered into 256 KiB pieces for the
 * deflater; a piece waits while the output is full, so a producer runs at the pace of the disk or pipe.
 */
import { once } from 'node:events';
import { PassThrough, type Writable } from 'node:stream';
import { ZipFile } from 'yazl';

/** On sheet XML 35% less CPU than level 6, 8% more bytes (bench/README.md, "The run report as .xlsx"). */
const LEVEL = 3;
/** Bytes handed to the deflater at a time, and room past them for the row that crosses the line. */
const PIECE = 256 * 1024;
const PIECE_SLACK = 64 * 1024;

const CLOSED_EARLY = 'the output closed before the workbook was complete';

export class ZipWriter {
  private readonly zip = new ZipFile();
  private readonly options = { mtime: new Date(), compressionLevel: LEVEL, forceDosTimestamp: true };
  private open: ZipEntryStream | undefined;
  /** Why the output failed (an error, or closed before the archive's end). */
  private failure: Error | undefined;
  private readonly written: Promise<void>;

  constructor(out: Writable) {
    this.written = new Promise<void>((resolve, reject) => {
      const fail = (error: Error): void => {
        this.failure ??= error;
        // A piece waiting for room fails now, not never.
        this.open?.body.destroy(this.failure);
        reject(this.failure);
      };
      out.on('finish', () => resolve());
      out.on('error', fail);
      this.zip.on('error', fail);
      out.on('close', () => fail(out.errored ?? new Error(CLOSED_EARLY)));
    });
    this.written.catch(() => undefined);
    this.zip.outputStream.pipe(out);
  }

  /** A whole entry known at once (a small part: styles, the workbook, relationships). */
  async add(name: string, content: string | Buffer): Promise<void> {
    this.assertWritable();
    this.zip.addBuffer(typeof content === 'string' ? Buffer.from(content, 'utf8') : content, name, this.options);
  }

  /** An entry written piece by piece; `end()` it before the next entry or `finish`. */
  async stream(name: string): Promise<ZipEntryStream> {
    this.assertWritable();
    // Its error is the output's: said by the write that waits, the next write, or `finish`.
    const body = new PassThrough().on('error', () => undefined);
    this.zip.addReadStream(body, name, this.options);
    this.open = new ZipEntryStream(body, () => {
      this.open = undefined;
    });
    return this.open;
  }

  /** The central directory and the end records; resolves once the stream took them all. */
  async finish(): Promise<void> {
    this.assertWritable();
    this.zip.end();
    await this.written;
  }

  private assertWritable(): void {
    if (this.open !== undefined) throw new Error('a zip entry is still being written');
    if (this.failure !== undefined) throw this.failure;
  }
}

/** One entry's text as it comes, encoded into pieces of PIECE bytes for the deflater. */
export class ZipEntryStream {
  private buffer = Buffer.allocUnsafe(PIECE + PIECE_SLACK);
  private used = 0;
  private ended = false;

  constructor(
    readonly body: PassThrough,
    private readonly closed: () => void,
  ) {}

  /** Adds text, encoded in place when it surely fits (UTF-8: at most 3 bytes per UTF-16 unit). */
  write(text: string): void | Promise<void> {
    if (this.ended || text.length * 3 > this.buffer.length - this.used) {
      const bytes = Buffer.from(text, 'utf8');
      return this.writeBytes(bytes, bytes.length);
    }
    this.used += this.buffer.write(text, this.used, 'utf8');
    if (this.used >= PIECE) return this.flush();
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
      if (this.used >= PIECE) wait = this.flush() ?? wait;
    }
    return wait;
  }

  /** Hands the piece on: a promise when the deflater asks to wait (a failed output rejects it). */
  private flush(): Promise<void> | undefined {
    const piece = this.buffer.subarray(0, this.used);
    this.buffer = Buffer.allocUnsafe(PIECE + PIECE_SLACK);
    this.used = 0;
    if (this.body.destroyed) throw this.body.errored ?? new Error(CLOSED_EARLY);
    return this.body.write(piece) ? undefined : once(this.body, 'drain').then(() => undefined);
  }

  async end(): Promise<void> {
    this.ended = true;
    if (this.used > 0) await this.flush();
    this.body.end();
    this.closed();
  }
}
