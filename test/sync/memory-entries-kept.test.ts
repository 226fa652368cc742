import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryOfText } from '../../src/sync/memory-files.js';
import type { MemoryEntries } from '../../src/sync/memory-entries.js';
import { entryBody, entryLine, entryOfBody, headerLine, type MemoryEntry } from '../../src/sync/memory-lines.js';

const target = { kind: 'remote', baseUrl: 'https://exam.example.test' } as const;
const ids = ['u1', 'u2', 'u3', 'u4', 'Ünï', 'u"q'];
const digest = fc.constantFrom(
  '',
  'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  'BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB',
);

/** An entry as a line reads it back (no `false` flag, no empty list): what a memory holds either way. */
const entry: fc.Arbitrary<MemoryEntry> = fc
  .record(
    {
      digest,
      run: fc.constantFrom('20261128T010000Z-aaaaaaaa', '20261129T010000Z-bbbbbbbb'),
      raw: fc.constantFrom('rawrawrawrawrawrawrawrawrawrawrawrawrawrawr', 'w\u00e9'),
      firstName: fc.string({ maxLength: 6 }),
      email: fc.constantFrom('a@example.test', 'b"\\@example.test'),
      sent: fc.dictionary(fc.constantFrom('UserName', 'Role', 'Labels'), fc.string({ maxLength: 4 })),
      disabled: fc.constant(true),
      tentative: fc.constant(true),
      population: fc.constantFrom('staff', 'students'),
      acked: fc.constantFrom('abcdefgh', 'abcdefgh.1', 'ABCDEFGH.z'),
    },
    { requiredKeys: ['digest', 'run'] },
  )
  .map((made) => {
    const read = entryOfBody(JSON.parse(entryBody('x', made)));
    if (typeof read === 'string') throw new Error(read);
    return read.entry;
  });

type Step = { op: 'set'; id: string; entry: MemoryEntry } | { op: 'forget'; id: string };
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('set' as const), id: fc.constantFrom(...ids), entry }),
  fc.record({ op: fc.constant('forget' as const), id: fc.constantFrom(...ids) }),
);

/** A memory over lines of `file`, then the steps applied: with each set's body (as SyncMemory.record gives it) or without. */
function applied(file: [string, MemoryEntry][], steps: Step[], withBodies: boolean): MemoryEntries {
  const text = headerLine('users', target) + file.map(([id, made]) => entryLine(id, made)).join('');
  const { entries } = memoryOfText(Buffer.from(text), 'users.jsonl', 'users', target);
  for (const made of steps)
    if (made.op === 'forget') entries.forget(made.id);
    else entries.set(made.id, made.entry, withBodies ? entryBody(made.id, made.entry) : undefined);
  return entries;
}

/** Every answer a memory gives, for each id. */
function answers(entries: MemoryEntries) {
  return {
    size: entries.size,
    all: [...entries].sort(([a], [b]) => (a < b ? -1 : 1)),
    populations: [...entries.populationsOfEntries()].sort(),
    others: [...entries.populationsOfEntries('20261128T010000Z-aaaaaaaa')].sort(),
    lines: [...entries.lines()].sort(),
    byId: ids.map((id) => [
      entries.get(id),
      entries.peek(id),
      entries.rawState(id),
      entries.rawMatch(id, 'rawrawrawrawrawrawrawrawrawrawrawrawrawrawr'),
    ]),
  };
}

describe('entries acknowledged this run are kept as their lines', () => {
  it('every lookup answers as from the entries themselves, over a file or none, through forgets and sets again', () =>
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...ids), entry), { maxLength: 4 }),
        fc.array(step, { maxLength: 12 }),
        (file, steps) => {
          expect(answers(applied(file, steps, true))).toEqual(answers(applied(file, steps, false)));
        },
      ),
      { numRuns: 300 },
    ));

  it('an acknowledged entry is read back from its body, an intent (no digest) is the object set', () => {
    const acknowledged: MemoryEntry = {
      digest: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      run: 'r1',
      population: 'staff',
    };
    const intent: MemoryEntry = { digest: '', run: 'r1', tentative: true };
    const entries = applied([], [], true);
    entries.set('u1', acknowledged, entryBody('u1', acknowledged));
    entries.set('u2', intent, entryBody('u2', intent));
    expect(entries.get('u1')).toEqual(acknowledged);
    expect(entries.get('u1')).not.toBe(acknowledged);
    expect(entries.get('u2')).toBe(intent);
    expect(entries.populationsOfEntries().get('staff')).toEqual({ run: 'r1', count: 1 });
  });
});
