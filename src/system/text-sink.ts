import { open, rm, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { makePrivateTempDir } from './private-temp.js';

/** Where text goes: `write` may return a promise, so a producer waits for a slow pipe instead of buffering. */
export interface TextSink {
  write(text: string): void | Promise<void>;
}

const CHUNK_CHARS = 64 * 1024;

/** Gathers small writes into chunks of about CHUNK_CHARS characters; `flush` must be called at the end. */
export class BufferedSink implements TextSink {
  private parts: string[] = [];
  private size = 0;

  constructor(private readonly target: TextSink) {}

  write(text: string): void | Promise<void> {
    this.parts.push(text);
    this.size += text.length;
    if (this.size >= CHUNK_CHARS) return this.flush();
  }

  flush(): void | Promise<void> {
    if (this.parts.length === 0) return;
    const chunk = this.parts.join('');
    this.parts = [];
    this.size = 0;
    return this.target.write(chunk);
  }
}

/** Characters a SpoolSink keeps in memory before it spills to a temp file. */
const SPOOL_MEMORY = 8 * 1024 * 1024;

/**
 * Holds a document back until it is complete: `commit` copies it to the target, `discard`
 * drops it. So a run that ends on a structural error late in the file leaves nothing on stdout
 * instead of half a JSON document. Past `memoryLimit` characters the text goes to a temp file
 * (docs/security.md, "Temporary files"), unlinked at once where the OS allows.
 */
export class SpoolSink implements TextSink {
  private parts: string[] = [];
  private size = 0;
  private file: { handle: FileHandle; path: string; unlinked: boolean; length: number } | undefined;
  private done = false;

  constructor(
    private readonly target: TextSink,
    private readonly memoryLimit = SPOOL_MEMORY,
  ) {}

  write(text: string): void | Promise<void> {
    if (this.done) throw new Error('SpoolSink: write after commit or discard');
    this.parts.push(text);
    this.size += text.length;
    if (this.size >= this.memoryLimit) return this.spill();
  }

  private async spill(): Promise<void> {
    if (this.file === undefined) {
      const path = join(await makePrivateTempDir('spool'), 'spool');
      const handle = await open(path, 'wx+', 0o600);
      // Removed while open: the data stays readable through the handle and vanishes with it.
      const unlinked = await rm(dirname(path), { recursive: true }).then(
        () => true,
        () => false,
      );
      this.file = { handle, path, unlinked, length: 0 };
    }
    const data = Buffer.from(this.parts.join(''), 'utf8');
    this.parts = [];
    this.size = 0;
    await this.file.handle.write(data, 0, data.length, this.file.length);
    this.file.length += data.length;
  }

  /** Writes everything held back to the target, in order, then releases the temp file. */
  async commit(): Promise<void> {
    this.done = true;
    const file = this.file;
    try {
      if (file !== undefined) {
        // Through the handle (the name is gone), 1 MiB at a time, a character cut by a chunk's end decoded whole.
        const chunks = file.handle.createReadStream({
          start: 0,
          end: file.length - 1,
          encoding: 'utf8',
          highWaterMark: 1 << 20,
          autoClose: false,
        });
        for await (const text of chunks) await this.target.write(text as string);
      }
      if (this.parts.length > 0) await this.target.write(this.parts.join(''));
    } finally {
      this.parts = [];
      await this.release();
    }
  }

  async discard(): Promise<void> {
    this.done = true;
    this.parts = [];
    await this.release();
  }

  private async release(): Promise<void> {
    const file = this.file;
    this.file = undefined;
    if (file === undefined) return;
    await file.handle.close().catch(() => undefined);
    if (!file.unlinked) await rm(dirname(file.path), { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Hands on each line written to it, whole, without its newline, however the text was cut. */
export class LineSplitter implements TextSink {
  private rest = '';
  constructor(private readonly line: (text: string) => Promise<void>) {}
  async write(text: string): Promise<void> {
    const lines = (this.rest + text).split('\n');
    this.rest = lines.pop() as string;
    for (const line of lines) await this.line(line);
  }
}
