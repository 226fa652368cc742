import { describe, expect, it } from 'vitest';
import { JournalWriteMode } from '../../src/engine/store/journal-write-mode.js';

/** The policy over a scripted clock: which lines go synchronously as the disk's speed changes. */
function scripted() {
  let clock = 0;
  const mode = new JournalWriteMode({ maxSyncMs: 1, probeEveryMs: 2_000 }, () => clock);
  return { mode, advance: (ms: number) => (clock += ms) };
}

describe('journal write mode', () => {
  it('writes synchronously from the first line while the disk stays fast, a lone hiccup included', () => {
    const { mode, advance } = scripted();
    for (let i = 0; i < 50; i++) {
      expect(mode.syncNext()).toBe(true);
      mode.recordSync(i === 25 ? 2.5 : 0.12);
      advance(1);
    }
    // Its average is under maxSyncMs: the next line too (no probe is due a millisecond later).
    expect(mode.syncNext()).toBe(true);
  });

  it('goes through the thread pool once synchronous writes are slow, probing once per period, and comes back when a probe is fast', () => {
    for (const [next, fast] of [
      [9.05, true],
      [9.15, false],
    ] as const)
      slowThenFastProbe(next, fast);
  });
});

/**
 * The average after the fast probe is 0.1 (within 0.006): a write of `next` then moves it to
 * 0.9 * 0.1 + 0.1 * next, under maxSyncMs (1) for 9.05 and over it for 9.15.
 */
function slowThenFastProbe(next: number, fast: boolean): void {
  const { mode, advance } = scripted();
  mode.recordSync(0.1);
  mode.recordSync(8);
  mode.recordSync(8);
  expect(mode.syncNext()).toBe(false);
  advance(1_999);
  expect(mode.syncNext()).toBe(false);
  advance(1);
  // The probe: still slow, so the thread pool again for another period.
  expect(mode.syncNext()).toBe(true);
  mode.recordSync(12);
  expect(mode.syncNext()).toBe(false);
  advance(2_000);
  expect(mode.syncNext()).toBe(true);
  mode.recordSync(0.1);
  // One fast probe is enough: the average restarts from it.
  expect(mode.syncNext()).toBe(true);
  mode.recordSync(next);
  expect(mode.syncNext()).toBe(fast);
}
