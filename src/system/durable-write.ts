import { constants, fdatasync, fdatasyncSync, write, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import type { FileHandle } from 'node:fs/promises';

/**
 * How the store's journal and the run journal make an append durable (docs/store.md, "Writing:
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

/**
 * Writes all of `bytes` at `position` of a file opened with DSYNC_FLAG (null: at the end of a
 * file opened O_APPEND, the sync memory's way); durable when it resolves.
 */
export async function appendDurably(handle: FileHandle, bytes: Buffer, position: number | null): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    const { bytesWritten } = await handle.write(
      bytes,
      written,
      bytes.length - written,
      position === null ? null : position + written,
    );
    written += bytesWritten;
  }
  if (NEEDS_DATASYNC) await handle.datasync();
}

/** appendDurably on the calling thread: durable when it returns (see journal-write-mode.ts for when). */
export function appendDurablySync(fd: number, bytes: Buffer, position: number): void {
  let written = 0;
  while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written, position + written);
  if (NEEDS_DATASYNC) fdatasyncSync(fd);
}

const writeAt = promisify(write);
const datasyncOf = promisify(fdatasync);

/** appendDurably through the thread pool on a descriptor (a store journal opened on the event loop). */
export async function appendDurablyTo(fd: number, bytes: Buffer, position: number): Promise<void> {
  let written = 0;
  while (written < bytes.length)
    written += (await writeAt(fd, bytes, written, bytes.length - written, position + written)).bytesWritten;
  if (NEEDS_DATASYNC) await datasyncOf(fd);
}
