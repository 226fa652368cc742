import { describe, it, expect } from 'vitest';
import { Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { createProgress, isCiEnvironment, progressColor, progressEnabled, progressText } from '../../src/cli/progress.js';

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

const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 10));

async function until(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 500 && !condition(); attempt += 1) await nextTurn();
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
  it('writes nothing at all when disabled', async () => {
    const stream = new Capture();
    const progress = createProgress({ enabled: false, stream, total: 3, delayMs: 0 });
    progress.tick('ok');
    progress.tick('failed');
    await nextTurn();
    progress.stop();
    expect(stream.writes).toBe(0);
  });

  it('writes nothing to a stream that is not a terminal, even when enabled', async () => {
    const plain = new Writable({ write: (_chunk, _encoding, callback) => callback() });
    let writes = 0;
    const original = plain.write.bind(plain);
    plain.write = ((...args: Parameters<typeof original>) => {
      writes += 1;
      return original(...args);
    }) as typeof plain.write;
    const progress = createProgress({ enabled: true, stream: plain, total: 1, delayMs: 0 });
    progress.tick('ok');
    await nextTurn();
    await nextTurn();
    progress.stop();
    expect(writes).toBe(0);
  });

  it('writes nothing to a terminal that reports no width (ora would loop erasing lines)', async () => {
    const stream = new Capture();
    stream.columns = 0;
    const progress = createProgress({ enabled: true, stream, total: 1, delayMs: 0 });
    progress.tick('ok');
    await nextTurn();
    await nextTurn();
    progress.stop();
    expect(stream.writes).toBe(0);
  });

  it('keeps the line within a narrow terminal', async () => {
    const stream = new Capture();
    stream.columns = 30;
    const progress = createProgress({ enabled: true, stream, total: 10, delayMs: 0, label: 'users' });
    progress.tick('ok');
    await until(() => stripVTControlCharacters(stream.text).includes('users 1/10'));
    progress.stop();
    const drawn = stripVTControlCharacters(stream.text).split(/[\r\n]/).filter((line) => line.includes('users'));
    expect(drawn.length).toBeGreaterThan(0);
    for (const line of drawn) expect(line.length).toBeLessThanOrEqual(30);
  });

  it('reads NO_COLOR as no-color.org says: any non-empty value', () => {
    expect(progressColor({ NO_COLOR: '1' })).toBe(false);
    expect(progressColor({ NO_COLOR: '' })).toBe(true);
    expect(progressColor({})).toBe(true);
  });

  it('writes nothing for a run that ends before the delay', async () => {
    const stream = new Capture();
    const progress = createProgress({ enabled: true, stream, total: 2 });
    progress.tick('ok');
    progress.tick('ok');
    progress.stop();
    await nextTurn();
    expect(stream.writes).toBe(0);
  });

  it('shows the counts once the delay has passed and clears the line on stop', async () => {
    const stream = new Capture();
    const progress = createProgress({ enabled: true, stream, total: 10, delayMs: 0, label: 'users' });
    for (let index = 0; index < 3; index += 1) progress.tick('ok');
    progress.tick('failed');
    await until(() => stripVTControlCharacters(stream.text).includes('users 4/10 (40%)'));
    const shown = stripVTControlCharacters(stream.text);
    expect(shown).toContain('users 4/10 (40%) · ok 3 · failed 1');
    progress.stop();
    progress.stop();
    const after = stream.writes;
    // Longer than several redraw periods: a live spinner would have drawn again by then.
    await new Promise<void>((resolve) => setTimeout(resolve, 350));
    expect(stream.writes).toBe(after);
  });
});

describe('progressText', () => {
  const counts = { done: 1200, ok: 1190, failed: 10, partial: 0, skipped: 0 };

  it('gives done/total, percentage, ok/failed, rate and ETA', () => {
    expect(progressText(counts, { total: 5000, label: 'users', elapsedMs: 2000 })).toBe(
      'users 1,200/5,000 (24%) · ok 1,190 · failed 10 · 600/s · ETA 7s',
    );
  });

  it('drops the percentage and ETA without a total and shows partial/skipped when there are any', () => {
    expect(progressText({ ...counts, partial: 2, skipped: 5 }, { elapsedMs: 4000 })).toBe(
      '1,200 done · ok 1,190 · failed 10 · partial 2 · skipped 5 · 300/s',
    );
  });

  it('formats long ETAs in minutes and hours and copes with no elapsed time', () => {
    expect(progressText({ ...counts, done: 100 }, { total: 100_100, elapsedMs: 1000 })).toContain('ETA 16m 40s');
    expect(progressText({ ...counts, done: 10 }, { total: 100_010, elapsedMs: 1000 })).toContain('ETA 2h 46m');
    expect(progressText(counts, { total: 5000, elapsedMs: 0 })).toContain('ETA ?');
  });
});
