import { readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { memoryFile } from '../../src/sync/memory-files.js';
import { SyncMemory } from '../../src/sync/sync-memory.js';

// A deciding run compacts at its end through compactIdle (the memory read again under the lock it
// takes at once after releasing its own), as a feeding run does: the file it grew is one line per id.
const target = { kind: 'remote', baseUrl: 'https://exam.example.test/' } as const;
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-deciding-close-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('a deciding run that grew the memory past the threshold itself leaves it at one line per id, its last entries kept', async () => {
  const decider = await SyncMemory.open(dir, target, 'users', { lock: true, lockTimeoutMs: 1_000, readOnly: false });
  for (let i = 0; i < 12_000; i++) decider.record(`u${i % 3}`, { digest: `d${i}`, run: 'r1' });
  decider.recordPopulation('', 'r1', true);
  await decider.close();
  const file = memoryFile(dir, target, 'users');
  // The header, three entries, the population line.
  expect(readFileSync(file, 'utf8').trimEnd().split('\n')).toHaveLength(5);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const reread = await SyncMemory.open(dir, target, 'users', { lock: false, lockTimeoutMs: 0, readOnly: true });
  expect([0, 1, 2].map((n) => reread.entries.get(`u${n}`)?.digest)).toEqual(['d11997', 'd11998', 'd11999']);
  expect(reread.populations().get('')).toMatchObject({ run: 'r1', ended: true, count: 3 });
  await reread.close();
  // Its lock was released before the compaction took one for a moment, and that one too.
  const next = await SyncMemory.open(dir, target, 'users', { lock: true, lockTimeoutMs: 0, readOnly: false });
  await next.close();
});
