import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeDefined, withoutUndefined } from '../../src/engine/decision.js';

/** The form mergeDefined replaces in decideUser: a rest copy, then spreads, then undefined dropped. */
function spreadForm(
  base: object | undefined,
  over: Record<string, unknown>,
  omit: ReadonlySet<string>,
  last: Record<string, unknown>,
): Record<string, unknown> {
  const kept = Object.fromEntries(Object.entries(over).filter(([key]) => !omit.has(key)));
  return withoutUndefined({ ...(base ?? {}), ...withoutUndefined(kept), ...last });
}

const KEYS = [
  'ExternalId',
  'FirstName',
  'LastName',
  'UserName',
  'Role',
  'Password',
  'PasswordHash',
  'Hierarchies',
  'Labels',
  'Photo',
];
const value = fc.oneof(
  fc.constant(undefined),
  fc.string({ maxLength: 3 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);
const layer = fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 8 });

describe('mergeDefined', () => {
  it('gives the spread form exactly: the same keys, in the same order, with the same values', () => {
    fc.assert(
      fc.property(
        fc.option(layer, { nil: undefined }),
        layer,
        fc.subarray(KEYS),
        layer,
        (base, over, omitted, last) => {
          const omit = new Set(omitted);
          const merged = mergeDefined(base, over, omit, last);
          const expected = spreadForm(base, over, omit, last);
          expect(Object.keys(merged)).toEqual(Object.keys(expected));
          expect(merged).toEqual(expected);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('keeps a base value the request leaves unset, and lets the last layer clear one', () => {
    const merged = mergeDefined(
      { ExternalId: 'u1', FirstName: 'Ann', ReasonableAdjustmentPercentage: 25, PasswordHash: 'h' },
      { ExternalId: 'u1', FirstName: undefined, LastName: 'Lee', Password: 'secret' },
      new Set(['Password']),
      { PasswordHash: 'h', ReasonableAdjustmentPercentage: undefined },
    );
    expect(merged).toEqual({ ExternalId: 'u1', FirstName: 'Ann', PasswordHash: 'h', LastName: 'Lee' });
    expect(Object.keys(merged)).toEqual(['ExternalId', 'FirstName', 'PasswordHash', 'LastName']);
    expect(merged).not.toHaveProperty('Password');
  });
});
