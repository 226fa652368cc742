import { beforeAll, describe, it, expect, vi } from 'vitest';
import { Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { isCiEnvironment } from '../../src/terminal/prompt-state.js';
import { colorEnabled } from '../../src/terminal/table-format.js';
import {
  createProgress,
  createRunProgress,
  plainProgressLine,
  PlainProgressTicker,
  progressEnabled,
  progressText,
} from '../../src/terminal/progress.js';
import { formatCount, formatDuration, formatMilliseconds, formatRate } from '../../src/formats/number-format.js';

class Capture extends Writable {
  text = '';
  writes = 0;
  isTTY = true;
  columns = 120;
  // The cursor controls of a tty.WriteStream, which ora needs to redraw its line.
  cursorTo(_x: number, _y?: number | (() => void), callback?: () => void): boolean {
    (typeof _y === 'function' ? _y : callback)?.();
    return true;
  }
  clearLine(_direction: number, callback?: () => void): boolean {
    callback?.();
    return true;
  }
  moveCursor(_dx: number, _dy: number, callback?: () => void): boolean {
    callback?.();
    return true;
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    this.writes += 1;
    callback();
  }
}

/**
 * ora's own timers are vitest's fake ones (docs/architecture.md, "Something that happens after a time"):
 * fake time moves past the delay until `control`, a spinner left running, has drawn. What
 * another spinner has not drawn by then it was never going to draw: no wall time is waited for.
 */
// Loaded before any test: a spinner's own import of it then waits on no disk.
beforeAll(() => import('ora'));

async function untilDrawn(control: Capture): Promise<void> {
  for (let step = 0; step < 300 && control.writes === 0; step += 1) await vi.advanceTimersByTimeAsync(10);
  expect(control.writes).toBeGreaterThan(0);
}

/** `test` under fake timers, with a drawing control spinner (delay `delayMs`) it may pass to untilDrawn. */
async function withControl(delayMs: number | undefined, test: (control: Capture) => Promise<void>): Promise<void> {
  vi.useFakeTimers();
  const control = new Capture();
  const running = createProgress({ stream: control, total: 1, delayMs });
  try {
    await test(control);
  } finally {
    running.stop();
    vi.useRealTimers();
  }
}

describe('progressEnabled', () => {
  it('is on only for a TTY without --json outside CI', () => {
    expect(progressEnabled({ isTTY: true, json: false, env: {} })).toBe(true);
    expect(progressEnabled({ isTTY: false, json: false, env: {} })).toBe(false);
    expect(progressEnabled({ isTTY: undefined, json: false, env: {} })).toBe(false);
    expect(progressEnabled({ isTTY: true, json: true, env: {} })).toBe(false);
    expect(progressEnabled({ isTTY: true, json: false, env: { CI: 'true' } })).toBe(false);
    expect(progressEnabled({ isTTY: true, json: false, env: { CI: '1' } })).toBe(false);
    expect(progressEnabled({ isTTY: true, json: false, env: { CI: 'false' } })).toBe(true);
    // A dumb terminal has no cursor controls: the plain periodic line instead.
    expect(progressEnabled({ isTTY: true, json: false, env: { TERM: 'dumb' } })).toBe(false);
  });

  it('reads CI the way CI systems set it', () => {
    expect(isCiEnvironment({ CI: 'true' })).toBe(true);
    expect(isCiEnvironment({ CI: 'TRUE' })).toBe(true);
    expect(isCiEnvironment({ CI: '' })).toBe(false);
    expect(isCiEnvironment({ CI: '0' })).toBe(false);
    expect(isCiEnvironment({})).toBe(false);
  });
});

describe('createProgress', () => {
  it('writes nothing to a stream that is not a terminal', () =>
    withControl(0, async (control) => {
      const plain = new Writable({ write: (_chunk, _encoding, callback) => callback() });
      let writes = 0;
      const original = plain.write.bind(plain);
      plain.write = ((...args: Parameters<typeof original>) => {
        writes += 1;
        return original(...args);
      }) as typeof plain.write;
      const progress = createProgress({ stream: plain, total: 1, delayMs: 0 });
      progress.tick('ok');
      await untilDrawn(control);
      progress.stop();
      expect(writes).toBe(0);
    }));

  it('writes nothing to a terminal that reports no width (ora would loop erasing lines)', () =>
    withControl(0, async (control) => {
      const stream = new Capture();
      stream.columns = 0;
      const progress = createProgress({ stream, total: 1, delayMs: 0 });
      progress.tick('ok');
      await untilDrawn(control);
      progress.stop();
      expect(stream.writes).toBe(0);
    }));

  it('keeps the line within a narrow terminal', () =>
    withControl(0, async () => {
      const stream = new Capture();
      stream.columns = 30;
      const progress = createProgress({ stream, total: 10, delayMs: 0, label: 'users' });
      progress.tick('ok');
      await untilDrawn(stream);
      progress.stop();
      const drawn = stripVTControlCharacters(stream.text)
        .split(/[\r\n]/)
        .filter((line) => line.includes('users 1/10'));
      expect(drawn.length).toBeGreaterThan(0);
      for (const line of drawn) expect(line.length).toBeLessThanOrEqual(30);
    }));

  it("is coloured by the tables' rule on its terminal: NO_COLOR as no-color.org says (any non-empty value), FORCE_COLOR=0 off", () => {
    const spinner = (env: Record<string, string>) => colorEnabled({ isTTY: true, env });
    expect(spinner({ NO_COLOR: '1' })).toBe(false);
    expect(spinner({ NO_COLOR: '' })).toBe(true);
    expect(spinner({})).toBe(true);
    expect(spinner({ FORCE_COLOR: '0' })).toBe(false);
  });

  it('writes nothing for a run that ends before the delay', () =>
    // The control has the same (default) delay: once it drew, a stopped line that was going to draw had.
    withControl(undefined, async (control) => {
      const stream = new Capture();
      const progress = createProgress({ stream, total: 2 });
      progress.tick('ok');
      progress.tick('ok');
      progress.stop();
      await untilDrawn(control);
      expect(stream.writes).toBe(0);
    }));

  it('shows the counts once the delay has passed and clears the line on stop', async () => {
    // The spinner's own timers (ora's) are vitest's fake ones: time is moved by hand, never waited for.
    vi.useFakeTimers();
    try {
      const stream = new Capture();
      const progress = createProgress({ stream, total: 10, delayMs: 1000, label: 'users' });
      for (let index = 0; index < 3; index += 1) progress.tick('ok');
      progress.tick('failed');
      await vi.advanceTimersByTimeAsync(999);
      expect(stream.writes).toBe(0);
      await vi.advanceTimersByTimeAsync(1000);
      const shown = stripVTControlCharacters(stream.text);
      expect(shown).toContain('users 4/10 (40%) · ok 3 · failed 1');
      progress.stop();
      progress.stop();
      const after = stream.writes;
      // Many redraw periods: a live spinner would have drawn again.
      await vi.advanceTimersByTimeAsync(10_000);
      expect(stream.writes).toBe(after);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('progressText', () => {
  const counts = { done: 1200, ok: 1190, failed: 10, partial: 0, skipped: 0 };

  it('gives done/total, percentage, ok/failed, rate and ETA', () => {
    expect(progressText(counts, { total: 5000, label: 'users', elapsedMs: 2000 })).toBe(
      'users 1,200/5,000 (24%) · ok 1,190 · failed 10 · 600/s · ETA 7 s',
    );
  });

  it('drops the percentage and ETA without a total and shows partial/skipped when there are any', () => {
    expect(progressText({ ...counts, partial: 2, skipped: 5 }, { elapsedMs: 4000 })).toBe(
      '1,200 done · ok 1,190 · failed 10 · partial 2 · skipped 5 · 300/s',
    );
  });

  it('formats long ETAs in minutes and hours, as the plain line does, and copes with no elapsed time', () => {
    expect(progressText({ ...counts, done: 100 }, { total: 100_100, elapsedMs: 1000 })).toContain('ETA 16 min 40 s');
    expect(progressText({ ...counts, done: 10 }, { total: 100_010, elapsedMs: 1000 })).toContain('ETA 2 h 46 min');
    expect(progressText(counts, { total: 5000, elapsedMs: 0 })).toContain('ETA unknown');
    // One duration format for both forms of the line.
    const plain = plainProgressLine({ ...counts, done: 100 }, { total: 100_100, elapsedMs: 1000 });
    expect(plain).toContain(`ETA ${formatDuration(1000)}`);
    expect(progressText({ ...counts, done: 100 }, { total: 100_100, elapsedMs: 1000 })).toContain(
      `ETA ${formatDuration(1000)}`,
    );
  });
  it('writes a slow rate with a decimal, as the plain line does', () => {
    expect(progressText({ ...counts, done: 3 }, { elapsedMs: 6000 })).toContain(' · 0.5/s');
  });
});

describe('plain progress line', () => {
  it('reads as the CI line: done/total, ok, failed, rate, ETA', () => {
    const counts = { done: 12_000, ok: 11_990, failed: 10, partial: 0, skipped: 0 };
    expect(plainProgressLine(counts, { total: 50_000, elapsedMs: 5_000 })).toBe(
      '12,000/50,000 ok 11,990 failed 10, 2,400/s, ETA 16 s',
    );
    expect(plainProgressLine(counts, { total: 50_000, elapsedMs: 5_000, label: 'user sync' })).toBe(
      'user sync: 12,000/50,000 ok 11,990 failed 10, 2,400/s, ETA 16 s',
    );
  });
  it('shows partial and skipped once they are not zero; without a total, no ETA', () => {
    const counts = { done: 30, ok: 20, failed: 4, partial: 3, skipped: 3 };
    expect(plainProgressLine(counts, { elapsedMs: 60_000 })).toBe('30 done ok 20 partial 3 failed 4 skipped 3, 0.5/s');
    expect(plainProgressLine({ ...counts, done: 0 }, { total: 10, elapsedMs: 0 })).toBe(
      '0/10 ok 20 partial 3 failed 4 skipped 3, 0/s, ETA unknown',
    );
  });
  it('formats numbers one way for progress and summary', () => {
    expect(formatCount(1_234_567)).toBe('1,234,567');
    expect(formatCount(999)).toBe('999');
    expect(formatRate(2399.6)).toBe('2,400/s');
    expect(formatRate(4.25)).toBe('4.3/s');
    expect(formatDuration(15.2)).toBe('16 s');
    expect(formatDuration(245)).toBe('4 min 5 s');
    expect(formatDuration(7380)).toBe('2 h 3 min');
    // Waits and timeouts the remote client names, in the same words; below a second in ms.
    expect(formatMilliseconds(500)).toBe('500 ms');
    expect(formatMilliseconds(10_000)).toBe('10 s');
    expect(formatMilliseconds(1_500)).toBe('1.5 s');
    expect(formatMilliseconds(59_990)).toBe('59.9 s');
    expect(formatMilliseconds(60_000)).toBe('1 min 0 s');
    expect(formatMilliseconds(245_000)).toBe('4 min 5 s');
  });
});

describe('PlainProgressTicker', () => {
  it('is quiet for the first 10 s, then writes a line every 10 s, driven by the timer', () => {
    // Its clock and its timer are vitest's fake ones: time is moved by hand, never waited for.
    vi.useFakeTimers();
    try {
      const lines: string[] = [];
      const ticker = new PlainProgressTicker({ write: (line) => lines.push(line), total: 100, label: 'user sync' });
      for (let i = 0; i < 40; i++) ticker.tick(i % 10 === 0 ? 'failed' : 'ok');
      // Nothing is written but by the timer, whose period is 10 s: the first line comes at 10 s.
      vi.advanceTimersByTime(9_999);
      expect(lines).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(lines).toEqual(['user sync: 40/100 ok 36 failed 4, 4.0/s, ETA 15 s\n']);
      vi.advanceTimersByTime(10_000);
      expect(lines).toHaveLength(2);
      ticker.stop();
      vi.advanceTimersByTime(40_000);
      expect(lines).toHaveLength(2);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a failing write never fails the run', () => {
    const ticker = new PlainProgressTicker({
      write: () => {
        throw new Error('EPIPE');
      },
    });
    expect(() => ticker.write()).not.toThrow();
    ticker.stop();
  });
});

describe('createRunProgress', () => {
  it('writes the plain line, not the spinner, where no terminal is', () => {
    const stream = new Capture();
    const lines: string[] = [];
    const progress = createRunProgress({
      terminal: false,
      stream,
      write: (line) => lines.push(line),
      total: 10,
      label: 'user sync',
    });
    expect(progress).toBeInstanceOf(PlainProgressTicker);
    progress.stop();
    expect(stream.text).toBe('');
  });
  it('draws nothing plain on a terminal (the spinner does it)', () => {
    const stream = new Capture();
    const progress = createRunProgress({
      terminal: true,
      stream,
      write: () => {
        throw new Error('no plain line on a terminal');
      },
      total: 10,
    });
    expect(progress).not.toBeInstanceOf(PlainProgressTicker);
    progress.stop();
  });
});
