import { describe, expect, it } from 'vitest';
import { inOrderAhead } from '../../src/system/in-order-ahead.js';
import { LineSplitter } from '../../src/system/text-sink.js';

/** A promise settled by hand: the test decides the order answers come in. */
function deferred<T>(): { promise: Promise<T>; resolve(value: T): void; reject(error: Error): void } {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((yes, no) => ((resolve = yes), (reject = no)));
  return { promise, resolve, reject };
}

describe('inOrderAhead (review-session show reads sessions with it)', () => {
  it("yields in the keys' order whatever order the reads end in, never more than the limit read ahead, a repeat within the window read once", async () => {
    const reads = new Map<string, ReturnType<typeof deferred<string>>>();
    const started: string[] = [];
    const ahead = inOrderAhead(['a', 'b', 'b', 'c'], 2, (key) => {
      started.push(key);
      const read = deferred<string>();
      reads.set(key, read);
      return read.promise;
    });
    const first = ahead.next();
    // Window of 2: a and b started, nothing else.
    expect(started).toEqual(['a', 'b']);
    reads.get('b')!.resolve('B');
    reads.get('a')!.resolve('A');
    expect((await first).value).toBe('A');
    // a's turn came: the next key (b again, its read still in the window) shares that read.
    expect(started).toEqual(['a', 'b']);
    expect((await ahead.next()).value).toBe('B');
    expect(started).toEqual(['a', 'b', 'c']);
    expect((await ahead.next()).value).toBe('B');
    reads.get('c')!.resolve('C');
    expect((await ahead.next()).value).toBe('C');
    expect((await ahead.next()).done).toBe(true);
  });

  it('a read that fails is thrown at its turn, after the ones before it, never as an unhandled rejection', async () => {
    const later = deferred<string>();
    const failed = deferred<string>();
    const ahead = inOrderAhead([1, 2], 2, (key) => (key === 1 ? later.promise : failed.promise));
    const first = ahead.next();
    failed.reject(new Error('token refused'));
    await Promise.resolve();
    later.resolve('one');
    expect((await first).value).toBe('one');
    await expect(ahead.next()).rejects.toThrow('token refused');
  });
});

describe('LineSplitter', () => {
  it('hands on whole lines however the text was cut, without their newline', async () => {
    const lines: string[] = [];
    const splitter = new LineSplitter(async (line) => {
      lines.push(line);
    });
    for (const part of ['{"a":', '1}\n{"b"', ':2}\n', '\n{"c":3}\n']) await splitter.write(part);
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '', '{"c":3}']);
  });
});
