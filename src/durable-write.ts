import { constants } from 'node:fs';

/**
 * How the store's journal and the run journal make an append durable: opened with O_DSYNC, a
 * write is durable when it returns, one thread-pool round trip instead of a write then an
 * fdatasync (each submission costs the main thread time on a busy machine). Where the platform
 * has no O_DSYNC the flag is 0 and the writer calls fdatasync after each write itself.
 */
export const DSYNC_FLAG: number = constants.O_DSYNC ?? 0;
export const NEEDS_DATASYNC = DSYNC_FLAG === 0;
