/**
 * A short, bounded retry of a rename or remove that another program briefly blocks (docs/windows.md,
 * "Briefly held files"). Short, so that a file that stays held (a report open in Excel) fails soon
 * with its real error instead of hanging the run.
 */
import { rename, unlink } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/** The codes a briefly held file gives on rename or unlink. */
const BUSY_CODES: ReadonlySet<string> = new Set(['EPERM', 'EACCES', 'EBUSY']);

/** Waits between attempts (ms): about 2 s in all before the last attempt. */
const BUSY_RETRY_DELAYS_MS: readonly number[] = [10, 20, 40, 80, 160, 320, 500, 500, 500];

export function isBusyError(error: unknown): boolean {
  return BUSY_CODES.has((error as NodeJS.ErrnoException | undefined)?.code ?? '');
}

export interface BusyRetryOptions {
  delaysMs?: readonly number[];
  wait?: (ms: number) => Promise<unknown>;
}

/** Runs `op`, again after each delay while it fails with a busy code; the last failure propagates. */
export async function retryWhileBusy<T>(op: () => Promise<T>, options: BusyRetryOptions = {}): Promise<T> {
  const delays = options.delaysMs ?? BUSY_RETRY_DELAYS_MS;
  const wait = options.wait ?? sleep;
  for (let attempt = 0; ; attempt++) {
    try {
      return await op();
    } catch (error) {
      if (!isBusyError(error) || attempt >= delays.length) throw error;
      await wait(delays[attempt]!);
    }
  }
}

/** The file operations that are retried; tests inject ones that fail with EPERM/EBUSY n times. */
export interface ReplaceOps {
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
}

export const NODE_REPLACE_OPS: ReplaceOps = { rename, unlink };

/** fs.rm's own retry of EBUSY, EPERM, ENOTEMPTY... for a tree: linear backoff, about 1.5 s in all. */
export const RM_RETRY = { maxRetries: 5, retryDelay: 100 } as const;
