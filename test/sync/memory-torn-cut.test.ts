import { appendFileSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { memoryFile, readMemory } from '../../src/sync/memory-files.js';
import { SyncMemory } from '../../src/sync/sync-memory.js';
import { useTempStore } from '../support/temp-dir.js';
import { holdFileCall } from './held-file-call.js';

/**
 * A torn last line (a kill mid-write) is cut by a feeder alone on the memory (docs/sync.md, "The
 * sync memory"), and a feeder that starts meanwhile loses no line: the steps are driven in the
 * order that broke it, the cutting feeder held right before its cut (no timing).
 */

let dir: string;
const target = { kind: 'local', store: '/tmp/torn-store' } as const;

useTempStore('examctl-memory-torn-', (made) => (dir = made.root));
afterEach(() => {
  vi.restoreAllMocks();
});

describe('a torn last line, cut while another feeder starts', () => {
  it('keeps the line the other feeder appended, and the memory reads clean', async () => {
    const first = await SyncMemory.open(dir, target, 'users', { lock: false, lockTimeoutMs: 5_000, readOnly: false });
    first.record('o1', { digest: 'd0', run: 'R0' });
    await first.close();
    const file = memoryFile(dir, target, 'users');
    appendFileSync(file, '{"c":"torn by a kill');
    // Held right before its first truncate: that feeder has decided to cut, nothing more.
    const { reached, release } = await holdFileCall(dir, 'truncate', () => true, true);
    // A finds the torn line alone and is held right before its cut; B starts meanwhile.
    const opening = SyncMemory.open(dir, target, 'users', { lock: false, lockTimeoutMs: 5_000, readOnly: false });
    await reached;
    let waited!: () => void;
    const waiting = new Promise<'waited'>((resolve) => (waited = () => resolve('waited')));
    const feeding = (async () => {
      const b = await SyncMemory.open(dir, target, 'users', {
        lock: false,
        lockTimeoutMs: 5_000,
        readOnly: false,
        onWait: () => waited(),
      });
      b.record('b1', { digest: 'd1', run: 'RB' });
      await b.durable();
      return b;
    })();
    // B appends, or waits while A holds LOCK for its cut: A is released either way, B's line is kept.
    await Promise.race([feeding, waiting]);
    release();
    const a = await opening;
    const b = await feeding;
    a.record('a1', { digest: 'd2', run: 'RA' });
    b.record('b2', { digest: 'd3', run: 'RB' });
    await a.close();
    await b.close();
    const memory = await readMemory(file, 'users', target);
    expect([...memory.entries].map(([id]) => id).sort()).toEqual(['a1', 'b1', 'b2', 'o1']);
    expect(readFileSync(file, 'utf8')).not.toContain('torn by a kill');
    expect(readFileSync(file, 'utf8').endsWith('\n')).toBe(true);
  });
});
