/**
 * The one way examctl replaces a file: readers see the old file or the new one, never a mix; its
 * steps, and why not write-file-atomic: docs/store.md (top). Deliberately no in-place fallback.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, open, readdir, rm, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { processAlive } from './process-liveness.js';
import { openTemps } from './open-temp-files.js';
import { NODE_REPLACE_OPS, retryWhileBusy, RM_RETRY, type BusyRetryOptions, type ReplaceOps } from './busy-retry.js';
import { describeSystemError } from './system-error-words.js';

/** Prefix of every temp file an atomic write leaves behind if it is killed (the store removes them). */
export const ATOMIC_TEMP_PREFIX = '.atomic-';

/**
 * Removes the temp files that writers of `path` killed mid-write (kill -9, power loss) left
 * beside it: `.atomic-<pid>-<random>-<name>` whose pid no longer lives on this machine. A live
 * writer's temp file is left alone. Best effort: a failure to list or remove is not an error.
 */
export async function removeStaleTemps(path: string): Promise<void> {
  const suffix = `-${basename(path)}`;
  for (const name of await readdir(dirname(path)).catch((): string[] => [])) {
    if (!name.startsWith(ATOMIC_TEMP_PREFIX) || !name.endsWith(suffix)) continue;
    const pid = Number.parseInt(name.slice(ATOMIC_TEMP_PREFIX.length), 10);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || processAlive(pid)) continue;
    await unlink(join(dirname(path), name)).catch(() => undefined);
  }
}

/** Errors of a platform that cannot open or sync a directory (Windows): the rename still happened. */
const DIRECTORY_SYNC_UNSUPPORTED = new Set(['EISDIR', 'EPERM', 'EINVAL', 'ENOTSUP']);

/** Makes a rename or unlink in `dir` durable: else a crash can bring the old entry back. */
export async function fsyncDirectory(dir: string): Promise<void> {
  const unsupported = (error: NodeJS.ErrnoException): undefined => {
    if (DIRECTORY_SYNC_UNSUPPORTED.has(error.code ?? '')) return undefined;
    throw error;
  };
  const handle = await open(dir, 'r').catch(unsupported);
  await handle
    ?.sync()
    .catch(unsupported)
    .finally(() => handle.close());
}

const FLUSH_AT = 1 << 20;

/** Collects small strings (and byte runs) into large writes: one syscall per ~1 MiB instead of one per entity. */
class BufferedWriter {
  private pending: Array<string | Buffer> = [];
  private pendingLength = 0;
  private position = 0;
  /** Sees every flushed run of bytes (e.g. to checksum them without encoding each string twice). */
  onFlush: ((bytes: Buffer) => void) | undefined;

  constructor(private readonly handle: FileHandle) {}

  async write(text: string | Buffer): Promise<void> {
    this.pending.push(text);
    this.pendingLength += text.length;
    if (this.pendingLength >= FLUSH_AT) await this.flush();
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

export interface AtomicFileOptions {
  /**
   * Permission bits of the new file (the umask applies). Default 0o600: the store, the config
   * and token files are the owner's alone. Run reports pass 0o666, as any file a tool writes.
   */
  mode?: number;
  /** When the final rename fails, keep the finished content beside the target (ReplaceFailedError). */
  keepOnFailedReplace?: boolean;
  /** The rename and unlink to use (tests inject failing ones). */
  ops?: ReplaceOps;
  /** The busy retry's delays (tests pass short ones). */
  retry?: BusyRetryOptions;
}

/** The finished content could not replace the target (Windows: Excel holds it open); kept at `keptAt`. */
export class ReplaceFailedError extends Error {
  readonly code: string | undefined;

  constructor(
    readonly target: string,
    readonly keptAt: string,
    cause: unknown,
    /** Another user's entry now at the name (trusted-place.ts), when that is why. */
    readonly planted?: string,
  ) {
    super(`cannot replace ${target} (${describeSystemError(cause)}); the finished file is kept at ${keptAt}`, {
      cause,
    });
    this.name = 'ReplaceFailedError';
    this.code = (cause as NodeJS.ErrnoException).code;
  }

  /** Why, in words: another user's entry now at the name, else a program holding the file. */
  get reason(): string {
    if (this.planted !== undefined) return `the entry at that name changed during the run: ${this.planted}`;
    return `another program holds the file open${this.code === undefined ? '' : ` (${this.code})`}: close it in Excel`;
  }
}

/** `report.csv` -> `report.examctl-20261123-071500.csv`: same extension, so it opens the same way. */
export function keptNameFor(target: string, now: Date = new Date()): string {
  const ext = extname(target);
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${target.slice(0, target.length - ext.length)}.examctl-${stamp}${ext}`;
}

/** A file being written in place of `path`; nothing is visible at `path` until `commit`. */
export class ReplacementFile {
  readonly writer: BufferedWriter;
  private state: 'open' | 'committed' | 'discarded' = 'open';

  private constructor(
    readonly path: string,
    private readonly temp: string,
    private readonly handle: FileHandle,
    private readonly options: AtomicFileOptions,
  ) {
    this.writer = new BufferedWriter(handle);
  }

  /** Creates the temp file at once, so an unwritable location fails before any work is done. */
  static async open(path: string, options: AtomicFileOptions = {}): Promise<ReplacementFile> {
    const temp = join(
      dirname(path),
      `${ATOMIC_TEMP_PREFIX}${process.pid}-${randomBytes(6).toString('hex')}-${basename(path)}`,
    );
    const handle = await open(temp, 'wx', options.mode ?? 0o600);
    openTemps.add(temp);
    return new ReplacementFile(path, temp, handle, options);
  }

  /** Flushes, fsyncs and renames the temp file over `path`, then makes the rename durable. */
  async commit(): Promise<void> {
    if (this.state === 'committed') return;
    if (this.state === 'discarded') throw new Error(`${this.path}: the replacement was discarded, nothing to commit`);
    this.state = 'committed';
    const ops = this.options.ops ?? NODE_REPLACE_OPS;
    let renamed = false;
    let finished = false;
    try {
      await this.writer.flush();
      await this.handle.sync();
      await this.handle.close();
      finished = true;
      await retryWhileBusy(() => ops.rename(this.temp, this.path), this.options.retry);
      renamed = true;
      openTemps.delete(this.temp);
      await fsyncDirectory(dirname(this.path));
    } catch (error) {
      await this.handle.close().catch(() => undefined);
      if (!renamed && finished && this.options.keepOnFailedReplace) throw await this.keep(error, ops);
      if (!renamed) await retryWhileBusy(() => ops.unlink(this.temp), this.options.retry).catch(() => undefined);
      openTemps.delete(this.temp);
      throw error;
    }
  }

  /** Moves the finished temp file to a visible name (it stays at its temp name if even that fails). */
  private async keep(error: unknown, ops: ReplaceOps): Promise<ReplaceFailedError> {
    let keptAt = this.temp;
    const visible = keptNameFor(this.path);
    try {
      await retryWhileBusy(() => ops.rename(this.temp, visible), this.options.retry);
      keptAt = visible;
    } catch {
      // The temp name still holds the data; say that one.
    }
    openTemps.delete(this.temp);
    const planted = await (await import('./trusted-place.js')).plantedEntryProblem(this.path).catch(() => undefined);
    return new ReplaceFailedError(this.path, keptAt, error, planted);
  }

  /** Drops what was written; `path` is left as it was. */
  async discard(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'discarded';
    await this.handle.close().catch(() => undefined);
    const ops = this.options.ops ?? NODE_REPLACE_OPS;
    await retryWhileBusy(() => ops.unlink(this.temp), this.options.retry).catch(() => undefined);
    openTemps.delete(this.temp);
  }
}

/** Replaces `path` with what `produce` writes, atomically (see the top of this file). */
export async function writeFileAtomic(
  path: string,
  produce: (writer: BufferedWriter) => Promise<void>,
  options: AtomicFileOptions = {},
): Promise<void> {
  const file = await ReplacementFile.open(path, options);
  try {
    await produce(file.writer);
  } catch (error) {
    await file.discard();
    throw error;
  }
  await file.commit();
}

/** Whether a folder can be made at `start`, probed in its nearest existing folder (`place`). */
export async function probeMakeDir(start: string): Promise<{ place: string; error?: unknown }> {
  let place = start;
  while (!existsSync(place)) place = dirname(place);
  return mkdtemp(join(place, '.examctl-probe-'))
    .then((made) => rm(made, { recursive: true, ...RM_RETRY }))
    .then(
      () => ({ place }),
      (error: unknown) => ({ place, error }),
    );
}
