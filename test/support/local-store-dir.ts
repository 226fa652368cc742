import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { examctlStep } from './in-process.js';

/**
 * Each test of the file in a fresh directory holding a local store made by `local init --store
 * store`, with the runs (and so the sync memory) under `state/`: what a spawned night needs. The
 * returned object is filled before each test.
 */
export function localStoreDirs(prefix: string): { dir: string; env: Record<string, string> } {
  const current = { dir: '', env: {} as Record<string, string> };
  beforeEach(async () => {
    current.dir = await mkdtemp(join(tmpdir(), `examctl-${prefix}-`));
    current.env = { EXAMCTL_RUNS_DIR: join(current.dir, 'state', 'runs') };
    expect((await examctlStep(['local', 'init', '--store', 'store'], current.dir, current.env)).code).toBe(0);
  });
  afterEach(async () => {
    await rm(current.dir, { recursive: true, force: true });
  });
  return current;
}
