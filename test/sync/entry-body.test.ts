import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { entryBody, entryOfBody, type MemoryEntry } from '../../src/sync/memory-lines.js';

/**
 * An entry line's keys, in the order memories were always written (`w` right after `r`, where
 * MemoryEntries.peek reads it): entryBody builds each line from its entry shape's template, and the
 * bytes must be those of the table walked in full.
 */
const LINE_ORDER: readonly (readonly [keyof MemoryEntry, string])[] = [
  ['raw', 'w'],
  ['firstName', 'f'],
  ['lastName', 'l'],
  ['email', 'm'],
  ['sent', 'v'],
  ['disabled', 'x'],
  ['links', 'h'],
  ['pruned', 'k'],
  ['tentative', 't'],
  ['joined', 'j'],
  ['joinedByRetry', 'y'],
  ['candidates', 'c'],
  ['population', 'p'],
  ['fields', 's'],
  ['acked', 'a'],
];

/** The line as the full walk of the table wrote it (an empty list and `false` are not written). */
function reference(id: string, entry: MemoryEntry): string {
  const body: Record<string, unknown> = { id, d: entry.digest, r: entry.run };
  for (const [field, key] of LINE_ORDER) {
    const value = entry[field];
    if (value !== undefined && value !== false && !(Array.isArray(value) && value.length === 0)) body[key] = value;
  }
  return JSON.stringify(body);
}

const text = fc.string({ maxLength: 6 });
const optional: Record<string, fc.Arbitrary<unknown>> = {
  raw: text,
  firstName: text,
  lastName: text,
  email: text,
  sent: fc.dictionary(fc.constantFrom('Role', 'Labels', 'City'), fc.oneof(text, fc.boolean(), fc.array(text))),
  disabled: fc.constantFrom(true, false, undefined),
  links: fc.array(fc.tuple(text, fc.array(fc.constantFrom('coordinator', 'reviewer'))), { maxLength: 2 }),
  pruned: fc.array(fc.tuple(text, fc.constant([])), { maxLength: 1 }),
  tentative: fc.constantFrom(true, undefined),
  joined: text,
  joinedByRetry: fc.boolean(),
  candidates: fc.array(text, { maxLength: 2 }),
  population: fc.constantFrom('a', 'night'),
  fields: fc.dictionary(fc.constantFrom('Title', 'Kind'), text),
  acked: fc.constant('LY5GFytn'),
};

/** An entry of any subset of the optional fields, its keys in any order. */
const entries = fc
  .tuple(
    fc.record(optional, { requiredKeys: [] }),
    fc.string({ maxLength: 8 }),
    fc.string({ maxLength: 8 }),
    fc.array(fc.nat(), { minLength: 16, maxLength: 16 }),
  )
  .map(([fields, digest, run, order]) => {
    const keys = ['digest', 'run', ...Object.keys(fields)];
    const values: Record<string, unknown> = { ...fields, digest, run };
    const shuffled = keys.map((key, i) => [order[i % order.length]!, key] as const).sort((a, b) => a[0] - b[0]);
    return Object.fromEntries(shuffled.map(([, key]) => [key, values[key]])) as unknown as MemoryEntry;
  });

describe('an entry line from its shape', () => {
  it('is the byte-for-byte line of the table walked in full, whatever the entry shapes before it', () => {
    fc.assert(
      fc.property(fc.array(entries, { minLength: 1, maxLength: 20 }), (list) => {
        for (const entry of list) expect(entryBody('u-1', entry)).toBe(reference('u-1', entry));
      }),
      { numRuns: 300 },
    );
  });

  it('reads back as the entry it was written from', () => {
    const entry: MemoryEntry = {
      acked: 'LY5GFytn',
      digest: 'NLwHbM6c',
      run: '20261128T141129.794Z-ad69',
      sent: { Role: 'Candidate', Labels: ['bench'] },
      raw: '0E5c4mYx',
      firstName: 'Ben',
      joined: '20261128T141129.794Z-ad69',
    };
    const line = entryBody('r-1', entry);
    expect(line).toBe(
      '{"id":"r-1","d":"NLwHbM6c","r":"20261128T141129.794Z-ad69","w":"0E5c4mYx","f":"Ben",' +
        '"v":{"Role":"Candidate","Labels":["bench"]},"j":"20261128T141129.794Z-ad69","a":"LY5GFytn"}',
    );
    expect(entryOfBody(JSON.parse(line))).toEqual({ id: 'r-1', entry });
  });
});
