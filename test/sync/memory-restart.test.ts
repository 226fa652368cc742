import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { memoryFile, readMemory, SyncMemory } from '../../src/sync/sync-memory.js';
import { useTempStore } from '../support/temp-dir.js';
import { holdFileCall } from './held-file-call.js';

/**
 * Feeders that open at once a memory of a store replaced since (docs/sync.md, "The sync memory")
 * begin it anew once, and no line one of them appended is lost: the steps are driven in the
 * order that broke it, a feeder held right after it read the old file (no timing).
 */

let dir: string;
const target = { kind: 'local', store: '/tmp/replaced-store' } as const;
const fed = (instance: string) => ({ lock: false, lockTimeoutMs: 5_000, readOnly: false, instance });

useTempStore('examctl-memory-restart-', (made) => (dir = made.root));
afterEach(() => {
  vi.restoreAllMocks();
});

describe('a memory of another store instance, fed by two runs at once', () => {
  it('is begun anew once: the lines of the feeder that began it stay, one header, the old entries gone', async () => {
    const old = await SyncMemory.open(dir, target, 'users', fed('old-store'));
    old.record('o1', { digest: 'd0', run: 'R0' });
    await old.close();
    // Held right after it read the old file: that feeder has read it, nothing more.
    const { reached, release } = await holdFileCall(dir, 'readFile', (bytes) =>
      (bytes as Buffer).includes('old-store'),
    );
    // A reads the old file and is held there; B reads it too, begins it anew and appends.
    const opening = SyncMemory.open(dir, target, 'users', fed('new-store'));
    await reached;
    const b = await SyncMemory.open(dir, target, 'users', fed('new-store'));
    b.record('b1', { digest: 'd1', run: 'RB' });
    await b.durable();
    release();
    const a = await opening;
    a.record('a1', { digest: 'd2', run: 'RA' });
    b.record('b2', { digest: 'd3', run: 'RB' });
    await a.close();
    await b.close();
    const file = memoryFile(dir, target, 'users');
    const memory = await readMemory(file, 'users', target);
    expect(memory.instance).toBe('new-store');
    expect([...memory.entries].map(([id]) => id).sort()).toEqual(['a1', 'b1', 'b2']);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines.filter((line) => line.includes('sync-memory'))).toHaveLength(1);
    expect(lines[0]).toContain('sync-memory');
  });
});
