import { describe, expect, it } from 'vitest';
import type { ReportTarget } from '../../src/report/run-report.js';
import { openPlacedMemory, readPlacedMemories } from '../../src/sync/memory-place.js';
import { stateServerPerTest } from '../support/state-server.js';

/**
 * A state service's memory is worked on through a private copy whose new lines go up as a delta
 * (docs/sync.md, "Stored as deltas"). A copy compacted during the run (src/sync/memory-files.ts,
 * `compact`) and grown past where it was last stored is stored whole: its offsets no longer hold,
 * as the copy knows from its count of rewrites, never from the file's identity.
 */
const server = stateServerPerTest();
const target: ReportTarget = { kind: 'remote', baseUrl: 'https://exam.example.test' };

describe('a copy of the service memory compacted during a run', () => {
  it('is stored whole: the service holds every id and the newest entry of each', async () => {
    const place = { kind: 'service', address: server.address('m') } as const;
    const options = { lock: false, lockTimeoutMs: 0, readOnly: false, operation: 'test', env: {} };
    const first = await openPlacedMemory(place, target, 'users', options);
    for (let i = 0; i < 200; i++) first.memory.record(`u${i}`, { digest: `d${i}`, run: 'r1' });
    await first.close();
    // Superseded lines enough for the close to compact the copy, and five new ids: the compacted
    // file is longer than the one stored, so a delta past the old length would begin mid-line.
    const second = await openPlacedMemory(place, target, 'users', options);
    for (let n = 0; n < 10_400; n++) second.memory.record('u0', { digest: `again-${n}`, run: 'r2' });
    for (let i = 200; i < 205; i++) second.memory.record(`u${i}`, { digest: `d${i}`, run: 'r2' });
    await second.close();
    const { memories } = await readPlacedMemories(place, target, {});
    const users = memories.get('users')!;
    expect(users.entries.size).toBe(205);
    expect(users.entries.get('u0')?.digest).toBe('again-10399');
    expect(users.entries.get('u204')?.digest).toBe('d204');
    expect(users.lines).toBe(205 + 1);
  });
});
