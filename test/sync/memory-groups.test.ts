import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { encodeChecksummedLine } from '../../src/system/checksummed-line.js';
import { UsageError } from '../../src/system/errors.js';
import { memoryFile, memoryOfText } from '../../src/sync/memory-files.js';
import { entryBody, headerLine, type MemoryEntry } from '../../src/sync/memory-lines.js';
import { SyncMemory } from '../../src/sync/sync-memory.js';
import { useTempStore } from '../support/temp-dir.js';

/**
 * Format 5 (docs/sync.md, "Format"): a group's entries are one line, all or nothing. Read back, an entry in a group
 * is the entry a line of its own gave; a kill at any byte of a group line loses that group whole and nothing before
 * it; a format 4 file is read, appended to by a feeder in its own format, and rewritten as 5 by a run holding the lock.
 */

let dir: string;
const target = { kind: 'local', store: '/tmp/groups-store' } as const;
const FILE = '/sync/users.ndjson';
const plain = { lock: false, lockTimeoutMs: 5_000, readOnly: false };
const locked = { ...plain, lock: true };
const RUN = '20261129T010000.000Z-0001';
const LATER = '20261129T020000.000Z-0002';

useTempStore('examctl-memory-groups-', (made) => (dir = made.root));

const acknowledged = (n: number, run = RUN): MemoryEntry => ({
  digest: `${'d'.repeat(42)}${n % 10}`,
  run,
  raw: `${'w'.repeat(21)}${n % 10}`,
  firstName: `Ann ${n}`,
  lastName: 'Lee\tTab',
  ...(n % 3 === 0 && { disabled: true }),
  ...(n % 2 === 0 && { population: 'night' }),
  sent: { Role: 'Student', Notes: 'a "quoted" word, a tab\t, a line\nend' },
  links: [['H-A', ['coordinator']]],
});
const ids = ['u-1', 'Zoë-ümlaut', 'u-3', 'u-4'];
const header = headerLine('users', target);
const read = (text: string) => memoryOfText(Buffer.from(text, 'utf8'), FILE, 'users', target);
/** What --changed-only and --disable-missing read of an entry: off the bytes, and parsed. */
const views = (text: string, id: string) => {
  const { entries } = read(text);
  const peeked = entries.peek(id);
  const raw = entries.rawMatch(id, `${'w'.repeat(21)}${id.length % 10}`);
  const populations = entries.populationsOfEntries();
  return { peeked, state: entries.rawState(id), raw, populations, parsed: entries.get(id) };
};

async function written(records: [string, MemoryEntry][]): Promise<string> {
  const memory = await SyncMemory.open(dir, target, 'users', plain);
  for (const [id, entry] of records) memory.record(id, entry);
  await memory.close();
  return readFileSync(memoryFile(dir, target, 'users'), 'utf8');
}

describe('a group line', () => {
  it('holds a write’s entries in one line; each reads as the same entry on a line of its own', async () => {
    const text = await written(ids.map((id, n) => [id, acknowledged(n)]));
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^\{"crc":"[0-9a-f]{8}","b":\{"g":\[\t\{"id":"u-1",/);
    const single = header + ids.map((id, n) => encodeChecksummedLine(entryBody(id, acknowledged(n)))).join('');
    for (const [n, id] of ids.entries()) {
      const grouped = views(text, id);
      expect(grouped).toEqual(views(single, id));
      expect(grouped.parsed).toEqual(acknowledged(n));
    }
    expect(read(text).lines).toBe(1 + ids.length);
    // Rewritten (compacted) from a group: the same entries, the bodies copied as read.
    const rewritten = await SyncMemory.open(dir, target, 'users', locked);
    await rewritten.close();
    const again = read(readFileSync(memoryFile(dir, target, 'users'), 'utf8'));
    for (const [n, id] of ids.entries()) expect(again.entries.get(id)).toEqual(acknowledged(n));
  });

  it('a kill at any byte of the last group loses that group whole, never part of it, and the earlier ones stay', async () => {
    const first = await written(ids.map((id, n) => [id, acknowledged(n)]));
    const last = await written([
      ['u-1', acknowledged(7, LATER)],
      ['u-new', acknowledged(8, LATER)],
      ['Zoë-ümlaut', acknowledged(9, LATER)],
    ]);
    const group = Buffer.from(last.slice(first.length), 'utf8');
    const whole = Buffer.from(first, 'utf8');
    expect(group.subarray(0, -1).includes(10)).toBe(false);
    for (let cut = 0; cut < group.length; cut++) {
      const contents = memoryOfText(Buffer.concat([whole, group.subarray(0, cut)]), FILE, 'users', target);
      expect([contents.validLength, contents.entries.size, contents.lines]).toEqual([whole.length, 4, 5]);
      expect(contents.entries.get('u-1')).toEqual(acknowledged(0));
      expect(contents.entries.get('Zoë-ümlaut')?.run).toBe(RUN);
      expect(contents.entries.get('u-new')).toBeUndefined();
    }
    const contents = memoryOfText(Buffer.concat([whole, group]), FILE, 'users', target);
    expect([contents.entries.size, contents.entries.get('u-1')?.run]).toEqual([5, LATER]);
    // Cut by the next run alone on the memory, which then appends whole groups after the earlier ones.
    for (const cut of [1, Math.floor(group.length / 2), group.length - 1]) {
      writeFileSync(memoryFile(dir, target, 'users'), Buffer.concat([whole, group.subarray(0, cut)]));
      const next = await SyncMemory.open(dir, target, 'users', plain);
      next.record('u-after', acknowledged(2, LATER));
      await next.close();
      const after = read(readFileSync(memoryFile(dir, target, 'users'), 'utf8'));
      expect([...after.entries].map(([id]) => id).sort()).toEqual([...ids, 'u-after'].sort());
      expect(after.entries.get('u-1')).toEqual(acknowledged(0));
    }
  });

  it('a group of another layout (edited by hand, its checksum made again) is read in full; a wrong entry is damage', () => {
    const body = (entries: unknown[]) => encodeChecksummedLine(JSON.stringify({ g: entries }));
    const spaced = encodeChecksummedLine(
      `{ "g": [${entryBody('u-1', acknowledged(1))}, ${entryBody('u"2', acknowledged(2))}] }`,
    );
    const contents = read(header + spaced + body([{ id: 'u-3', d: 'x', r: RUN }]));
    expect(contents.entries.get('u-1')).toEqual(acknowledged(1));
    expect(contents.entries.get('u"2')).toEqual(acknowledged(2));
    expect(contents.entries.peek('u-3')).toEqual({ digest: 'x', run: RUN });
    expect([contents.entries.size, contents.lines]).toEqual([3, 4]);
    for (const [wrong, reason] of [
      [{ id: 'u-4', d: 'x', r: RUN, f: 5 }, 'its names are not text'],
      ['u-4', 'not a memory entry'],
    ] as const) {
      let refused: unknown;
      try {
        read(header + spaced + body([{ id: 'u-3', d: 'x', r: RUN }, wrong]));
      } catch (error) {
        refused = error;
      }
      expect(refused).toBeInstanceOf(UsageError);
      expect((refused as UsageError).message).toContain(`${FILE}:3: sync memory damaged: ${reason}`);
    }
  });
});

describe('a format 4 memory (an older examctl wrote it)', () => {
  const older = (...lines: string[]) =>
    encodeChecksummedLine(JSON.stringify({ t: 'sync-memory', v: 4, kind: 'users', target })) + lines.join('');
  const entryLine = (id: string, entry: MemoryEntry) => encodeChecksummedLine(entryBody(id, entry));

  it('is read; a feeder appends to it in its format; a run holding the lock rewrites it as 5, in groups', async () => {
    const file = memoryFile(dir, target, 'users');
    const feeder = await SyncMemory.open(dir, target, 'users', plain);
    await feeder.close();
    writeFileSync(file, older(entryLine('u-1', acknowledged(1)), entryLine('u-2', acknowledged(2))));
    const feeding = await SyncMemory.open(dir, target, 'users', plain);
    expect(feeding.entries.get('u-2')).toEqual(acknowledged(2));
    feeding.record('u-3', acknowledged(3));
    feeding.record('u-4', acknowledged(4));
    await feeding.close();
    const fed = readFileSync(file, 'utf8');
    expect(fed.startsWith(older())).toBe(true);
    expect(fed).not.toContain('"g":[');
    expect(fed.trimEnd().split('\n')).toHaveLength(5);
    const deciding = await SyncMemory.open(dir, target, 'users', locked);
    deciding.record('u-5', acknowledged(5));
    await deciding.close();
    const rewritten = readFileSync(file, 'utf8');
    expect(JSON.parse(rewritten.split('\n')[0]!).b.v).toBe(5);
    // The header, the four ids' group (no population recorded), u-5's group.
    expect(rewritten.trimEnd().split('\n')).toHaveLength(3);
    const contents = read(rewritten);
    expect(contents.format).toBe(5);
    for (const n of [1, 2, 3, 4, 5]) expect(contents.entries.get(`u-${n}`)).toEqual(acknowledged(n));
  });
});
