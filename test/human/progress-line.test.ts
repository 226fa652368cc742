import { describe, expect, it } from 'vitest';
import { formatCount, formatDuration, formatRate, plainProgressLine, PlainProgressTicker, type IntervalTimers } from '../../src/cli/progress-line.js';

describe('plain progress line', () => {
  it('reads as the CI line: done/total, ok, failed, rate, ETA', () => {
    const counts = { done: 12_000, ok: 11_990, failed: 10, partial: 0, skipped: 0 };
    expect(plainProgressLine(counts, { total: 50_000, elapsedMs: 5_000 })).toBe('12,000/50,000 ok 11,990 failed 10, 2,400/s, ETA 16 s');
    expect(plainProgressLine(counts, { total: 50_000, elapsedMs: 5_000, label: 'user sync' })).toBe(
      'user sync: 12,000/50,000 ok 11,990 failed 10, 2,400/s, ETA 16 s',
    );
  });
  it('shows partial and skipped once they are not zero; without a total, no ETA', () => {
    const counts = { done: 30, ok: 20, failed: 4, partial: 3, skipped: 3 };
    expect(plainProgressLine(counts, { elapsedMs: 60_000 })).toBe('30 done ok 20 partial 3 failed 4 skipped 3, 0.5/s');
    expect(plainProgressLine({ ...counts, done: 0 }, { total: 10, elapsedMs: 0 })).toBe('0/10 ok 20 partial 3 failed 4 skipped 3, 0/s, ETA unknown');
  });
  it('formats numbers one way for progress and summary', () => {
    expect(formatCount(1_234_567)).toBe('1,234,567');
    expect(formatCount(999)).toBe('999');
    expect(formatRate(2399.6)).toBe('2,400/s');
    expect(formatRate(4.25)).toBe('4.3/s');
    expect(formatDuration(15.2)).toBe('16 s');
    expect(formatDuration(245)).toBe('4 min 5 s');
    expect(formatDuration(7380)).toBe('2 h 3 min');
  });
});

function fakeTimers(): IntervalTimers & { callback?: () => void; cleared: boolean } {
  const timers = {
    cleared: false,
    callback: undefined as (() => void) | undefined,
    setInterval(callback: () => void) {
      timers.callback = callback;
      return 1;
    },
    clearInterval() {
      timers.cleared = true;
    },
  };
  return timers;
}

describe('PlainProgressTicker', () => {
  it('is quiet for the first 10 s, then writes a line every 10 s, driven by the timer', () => {
    let clock = 0;
    const lines: string[] = [];
    const timers = fakeTimers();
    const ticker = new PlainProgressTicker({ write: (line) => lines.push(line), total: 100, label: 'user sync', now: () => clock, timers });
    for (let i = 0; i < 40; i++) ticker.tick(i % 10 === 0 ? 'failed' : 'ok');
    clock = 9_999;
    timers.callback!();
    expect(lines).toEqual([]);
    clock = 10_000;
    timers.callback!();
    expect(lines).toEqual(['user sync: 40/100 ok 36 failed 4, 4.0/s, ETA 15 s\n']);
    clock = 15_000;
    expect(ticker.poll()).toBe(false);
    clock = 20_000;
    expect(ticker.poll()).toBe(true);
    expect(lines).toHaveLength(2);
    ticker.stop();
    clock = 60_000;
    expect(ticker.poll()).toBe(false);
    expect(timers.cleared).toBe(true);
  });

  it('a failing write never fails the run', () => {
    let clock = 0;
    const ticker = new PlainProgressTicker({
      write: () => {
        throw new Error('EPIPE');
      },
      now: () => clock,
      timers: fakeTimers(),
    });
    clock = 10_000;
    expect(() => ticker.poll()).not.toThrow();
  });
});
