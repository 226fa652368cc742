import { describe, expect, it } from 'vitest';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { lineBatcher } from '../../src/server/log-lines.js';

describe('lineBatcher', () => {
  it("writes the lines of one turn as one write, in order, and the next turn's as another", async () => {
    const writes: string[] = [];
    const lines = lineBatcher((text) => writes.push(text));
    lines.log('a');
    lines.log('b');
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toEqual(['a\nb\n']);
    lines.log('c');
    await nextTurn();
    expect(writes).toEqual(['a\nb\n', 'c\n']);
  });

  it('flush writes what is pending at once, and the scheduled write then has nothing to add', async () => {
    const writes: string[] = [];
    const lines = lineBatcher((text) => writes.push(text));
    lines.log('first');
    lines.flush();
    expect(writes).toEqual(['first\n']);
    await nextTurn();
    expect(writes).toEqual(['first\n']);
    lines.flush();
    expect(writes).toEqual(['first\n']);
  });
});
