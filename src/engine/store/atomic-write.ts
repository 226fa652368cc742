import { open, rename, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** Prefix of every temp file an atomic write leaves behind if it is killed; only the lock holder writes them. */
export const ATOMIC_TEMP_PREFIX = '.atomic-';

/**
 * Makes a rename or unlink in `dir` durable: without it a crash can bring back the old
 * directory entry even though the file contents were fsynced.
 */
export async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Collects small strings (and byte runs) into large writes: one syscall per ~1 MiB instead of one per entity. */
export class BufferedWriter {
  private pending: Array<string | Buffer> = [];
  private pendingLength = 0;
  private position = 0;
  /** Sees every flushed run of bytes (e.g. to checksum them without encoding each string twice). */
  onFlush: ((bytes: Buffer) => void) | undefined;

  constructor(
    private readonly handle: FileHandle,
    private readonly flushAt = 1 << 20,
  ) {}

  async write(text: string | Buffer): Promise<void> {
    this.pending.push(text);
    this.pendingLength += text.length;
    if (this.pendingLength >= this.flushAt) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    // Runs of strings are joined and encoded once; byte runs are copied as they are.
    const parts: Buffer[] = [];
    let strings: string[] = [];
    for (const part of this.pending) {
      if (typeof part === 'string') {
        strings.push(part);
        continue;
      }
      if (strings.length > 0) parts.push(Buffer.from(strings.join(''), 'utf8'));
      strings = [];
      parts.push(part);
    }
    if (strings.length > 0) parts.push(Buffer.from(strings.join(''), 'utf8'));
    const buffer = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    this.pending = [];
    this.pendingLength = 0;
    this.onFlush?.(buffer);
    let offset = 0;
    while (offset < buffer.length) {
      const { bytesWritten } = await this.handle.write(buffer, offset, buffer.length - offset, this.position);
      offset += bytesWritten;
      this.position += bytesWritten;
    }
  }
}

/**
 * Replaces `path` atomically: the content goes to a temp file beside it, is fsynced, renamed
 * over the target and the directory is fsynced. Readers see the old file or the new one, never
 * a mix, and after a crash the target is one of the two. There is deliberately no fallback to a
 * plain in-place write: if any step fails the temp file is removed and the error propagates.
 */
export async function writeFileAtomic(
  path: string,
  produce: (writer: BufferedWriter) => Promise<void>,
): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `${ATOMIC_TEMP_PREFIX}${process.pid}-${randomBytes(6).toString('hex')}-${basename(path)}`);
  const handle = await open(temp, 'wx', 0o600);
  let renamed = false;
  try {
    const writer = new BufferedWriter(handle);
    await produce(writer);
    await writer.flush();
    await handle.sync();
    await handle.close();
    await rename(temp, path);
    renamed = true;
    await fsyncDirectory(dir);
  } catch (error) {
    await handle.close().catch(() => undefined);
    if (!renamed) await unlink(temp).catch(() => undefined);
    throw error;
  }
}
