import { constants, fdatasync, fdatasyncSync, write, writeSync } from 'node:fs';
import { promisify } from 'node:util';

/**
 * How the store's journal, the run journal and the sync memory make an append durable (docs/store.md, "Writing:
 * durability and concurrency"): opened with O_DSYNC, one thread-pool round trip a write instead
 * of a write then an fdatasync (each submission costs the main thread time on a busy machine).
 */

/**
 * The open flag that makes a write durable on `platform`, 0 where the writer calls fdatasync
 * after each write itself: without O_DSYNC (Windows), and on macOS (why: docs/windows.md, "macOS").
 */
export function dsyncFlagFor(platform: NodeJS.Platform, oDsync: number | undefined): number {
  if (platform === 'darwin') return 0;
  return oDsync ?? 0;
}
export const DSYNC_FLAG: number = dsyncFlagFor(process.platform, constants.O_DSYNC);
export const NEEDS_DATASYNC = DSYNC_FLAG === 0;

/** appendDurably on the calling thread: durable when it returns (see journal-write-mode.ts for when). */
export function appendDurablySync(fd: number, bytes: Buffer, position: number): void {
  let written = 0;
  while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written, position + written);
  if (NEEDS_DATASYNC) fdatasyncSync(fd);
}

const writeAt = promisify(write);
const datasyncOf = promisify(fdatasync);

/** Writes all of `bytes` at `position` (null: O_APPEND's end) of a DSYNC_FLAG file; durable when it resolves. */
export async function appendDurably(fd: number, bytes: Buffer, position: number | null): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    const at = position === null ? null : position + written;
    written += (await writeAt(fd, bytes, written, bytes.length - written, at)).bytesWritten;
  }
  if (NEEDS_DATASYNC) await datasyncOf(fd);
}
