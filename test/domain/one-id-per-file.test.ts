import { describe, expect, it } from 'vitest';
import { COLLECTION_ID_RULE, IdsOfOneInput, USER_ID_RULE } from '../../src/domain/one-id-per-file.js';

// docs/interpretations.md, "One file, one id": the rule's messages, through the compact id table
// (ids as bytes in one array, found by an open-addressing table that grows: issue 37).

const at = (line: number, file = 'users.csv') => ({ file, line });

/** A table that already holds `fill` other ids: past the first 65,536 (kept in a Map), ids go to the compact table. */
function filled(rule: typeof USER_ID_RULE, fill: number): IdsOfOneInput {
  const ids = new IdsOfOneInput(rule);
  for (let i = 0; i < fill; i++) ids.repeated(`fill-${i}`, at(100_000 + i, 'other.csv'));
  return ids;
}

describe('IdsOfOneInput', () => {
  it.each([0, 70_000])(
    'names the earlier line, and the first spelling when only the case differs (user ids; %i ids before)',
    (fill) => {
      const ids = filled(USER_ID_RULE, fill);
      expect(ids.repeated('u-1', at(2))).toBeUndefined();
      expect(ids.repeated('u-2', at(3))).toBeUndefined();
      expect(ids.repeated('u-1', at(4))?.message).toBe(
        'ExternalId u-1 is also on line 2; an id appears once in one file',
      );
      expect(ids.repeated('U-1', at(5))?.message).toBe(
        'ExternalId U-1 is also on line 2 (as u-1); an id appears once in one file',
      );
      expect(ids.repeated('STU-9', at(6))).toBeUndefined();
      expect(ids.repeated('stu-9', at(7))?.message).toBe(
        'ExternalId stu-9 is also on line 6 (as STU-9); an id appears once in one file',
      );
      expect(ids.repeated(null, at(8))).toBeUndefined();
      expect(ids.repeated(null, at(9))).toBeUndefined();
    },
  );

  it.each([0, 70_000])('collection ids keep their case: PHYS1 and phys1 are two ids (%i ids before)', (fill) => {
    const ids = filled(COLLECTION_ID_RULE, fill);
    expect(ids.repeated('phys1', at(1))).toBeUndefined();
    expect(ids.repeated('PHYS1', at(2))).toBeUndefined();
    expect(ids.repeated('phys1', at(3))?.message).toBe(
      'ExternalId phys1 is also on line 1; an id appears once in one file',
    );
  });

  it.each([0, 70_000])(
    'non-ASCII ids fold as toLowerCase does, also onto an ASCII id (the Kelvin sign folds to k; %i ids before)',
    (fill) => {
      const ids = filled(USER_ID_RULE, fill);
      expect(ids.repeated('Ünal-1', at(2))).toBeUndefined();
      expect(ids.repeated('ünal-1', at(3))?.message).toBe(
        'ExternalId ünal-1 is also on line 2 (as Ünal-1); an id appears once in one file',
      );
      expect(ids.repeated('\u212A7', at(4))).toBeUndefined();
      expect(ids.repeated('K7', at(5))?.message).toBe(
        'ExternalId K7 is also on line 4 (as \u212A7); an id appears once in one file',
      );
      expect(ids.repeated('k8', at(6))).toBeUndefined();
      expect(ids.repeated('\u212A8', at(7))?.message).toBe(
        'ExternalId \u212A8 is also on line 6 (as k8); an id appears once in one file',
      );
    },
  );

  it.each([0, 70_000])('a very long id is compared whole, like any other (%i ids before)', (fill) => {
    const ids = filled(USER_ID_RULE, fill);
    const long = 'x'.repeat(5000);
    expect(ids.repeated(long, at(2))).toBeUndefined();
    expect(ids.repeated(`${long}y`, at(3))).toBeUndefined();
    const repeat = ids.repeated(long.toUpperCase(), at(4))?.message;
    expect(repeat).toContain('line 2');
    expect(repeat).toContain(`(as ${long})`);
  });

  it('holds 300,000 ids through its growth: each repeat names its own first line, in another file too', () => {
    const ids = new IdsOfOneInput(USER_ID_RULE);
    const n = 300_000;
    let repeats = 0;
    for (let i = 0; i < n; i++) if (ids.repeated(`u-${i}`, at(i + 2)) !== undefined) repeats += 1;
    expect(repeats).toBe(0);
    for (let i = 0; i < n; i += 997) {
      expect(ids.repeated(`U-${i}`, at(n + 2 + i, 'more.csv'))?.message).toBe(
        `ExternalId U-${i} is also on users.csv line ${i + 2} (as u-${i}); an id appears once in one file`,
      );
    }
    expect(ids.repeated(`u-${n}`, at(1))).toBeUndefined();
    expect(ids.repeated('', at(1))).toBeUndefined();
    expect(ids.repeated('', at(2))?.message).toBe('ExternalId  is also on line 1; an id appears once in one file');
  });
});
