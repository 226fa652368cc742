import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';

/**
 * Removing a test's tree: retried while Windows still holds a file in it (an antivirus scan, a
 * child's handle closing a moment after it exited): EBUSY, EPERM, ENOTEMPTY.
 */
export const RM_TREE = { recursive: true, force: true, maxRetries: 5, retryDelay: 100 } as const;

/** Runs `run` in a fresh temp directory, removed afterwards whatever happens. */
export async function withTempDir<T>(run: (dir: string) => Promise<T>, prefix = 'examctl-test-'): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  try {
    return await run(dir);
  } finally {
    await rm(dir, RM_TREE);
  }
}

export interface TempStore {
  /** A fresh temp directory. */
  root: string;
  /** `root/store`: where the test's store goes (not created). */
  dir: string;
}

/**
 * Before each test of the calling file: a fresh temp directory, handed to `use` with a store
 * path inside it; removed after each test.
 */
export function useTempStore(prefix: string, use: (made: TempStore) => void): void {
  let root: string | undefined;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), prefix));
    use({ root, dir: join(root, 'store') });
  });
  afterEach(async () => {
    if (root !== undefined) await rm(root, RM_TREE);
    root = undefined;
  });
}
