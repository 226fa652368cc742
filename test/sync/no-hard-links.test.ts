import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * A file system without hard links (a FAT stick, some network shares): link(2) fails with EPERM.
 * The sync memory is then made empty with O_EXCL and its header written first (memory-access.ts,
 * createBorn's fallback).
 */
vi.mock('node:fs/promises', async (original) => {
  const real = await original<typeof import('node:fs/promises')>();
  const link = vi.fn(async () => {
    throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
  });
  return { ...real, link, default: { ...real, link } };
});

const { memoryFile } = await import('../../src/sync/memory-files.js');
const { SyncMemory } = await import('../../src/sync/sync-memory.js');
const { link } = await import('node:fs/promises');

let dir: string;
const target = { kind: 'remote', baseUrl: 'https://exam.example.test/' } as const;
const plain = { lock: false, lockTimeoutMs: 0, readOnly: false };

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-nolinks-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a sync memory where the file system has no hard links', () => {
  it("is made with its one header, keeps every run's lines, and leaves no temporary file", async () => {
    const first = await SyncMemory.open(dir, target, 'users', plain);
    expect(vi.mocked(link)).toHaveBeenCalled();
    first.record('u-1', { digest: 'd1', run: 'R1' });
    await first.close();
    const second = await SyncMemory.open(dir, target, 'users', plain);
    second.record('u-2', { digest: 'd2', run: 'R2' });
    await second.close();
    const file = memoryFile(dir, target, 'users');
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines.filter((line) => line.includes('"t":"sync-memory"'))).toHaveLength(1);
    expect(lines[0]).toContain('"t":"sync-memory"');
    const read = await SyncMemory.open(dir, target, 'users', { ...plain, readOnly: true });
    expect([read.entries.get('u-1')?.digest, read.entries.get('u-2')?.digest]).toEqual(['d1', 'd2']);
    await read.close();
    expect(readdirSync(dirname(file)).filter((name) => name.endsWith('.new'))).toEqual([]);
  });
});
