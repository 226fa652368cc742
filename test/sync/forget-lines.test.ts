import { describe, expect, it } from 'vitest';
import { encodeChecksummedLine } from '../../src/system/checksummed-line.js';
import { UsageError } from '../../src/system/errors.js';
import { memoryOfText } from '../../src/sync/memory-files.js';

/**
 * The memory's forget line (docs/sync.md, "Format": a refused joiner's `gone`): it outdates the
 * id's line until a later line for it, is left out of the count and of every listing, and a
 * forget line that names no id is damage, exit 2 naming the line.
 */
const target = { kind: 'local' as const, store: '/tmp/store' };
const line = (body: object): string => encodeChecksummedLine(JSON.stringify(body));
const header = line({ t: 'sync-memory', v: 2, kind: 'users', target });
const entry = (id: string, run: string) => line({ id, d: 'D'.repeat(43), r: run });
const gone = (id: unknown) => line({ gone: true, id, d: '', r: 'R2', t: true });
const read = (...lines: string[]) =>
  memoryOfText(Buffer.from([header, ...lines].join('')), 'users.ndjson', 'users', target);

describe('forget lines', () => {
  it('outdate the id: not given, not counted, not listed; the other ids stay', () => {
    const { entries } = read(entry('u-1', 'R1'), entry('u-2', 'R1'), gone('u-1'));
    expect(entries.get('u-1')).toBeUndefined();
    expect(entries.peek('u-1')).toBeUndefined();
    expect(entries.rawState('u-1')).toBe('absent');
    expect(entries.size).toBe(1);
    expect([...entries].map(([id]) => id)).toEqual(['u-2']);
    expect(entries.lines().next().value).toContain('"u-2"');
  });

  it('a later line for the id wins over its forget line; a forget of an id never remembered changes nothing', () => {
    const { entries } = read(entry('u-1', 'R1'), gone('u-1'), entry('u-1', 'R3'), gone('u-9'));
    expect(entries.get('u-1')).toMatchObject({ run: 'R3' });
    expect(entries.size).toBe(1);
  });

  it('set after forget counts the id once again', () => {
    const { entries } = read(entry('u-1', 'R1'));
    expect(entries.forget('u-1')).toBe(true);
    expect(entries.forget('u-1')).toBe(false);
    expect(entries.size).toBe(0);
    entries.set('u-1', { digest: 'x', run: 'R4' });
    expect(entries.size).toBe(1);
    expect(entries.get('u-1')).toMatchObject({ run: 'R4' });
  });

  it('a forget line without an id is damage naming the line', () => {
    expect(() => read(entry('u-1', 'R1'), gone(''))).toThrow(UsageError);
    expect(() => read(entry('u-1', 'R1'), gone(7))).toThrow(
      /users\.ndjson:3: sync memory damaged: a forgotten id that is not one/,
    );
  });
});
