import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { integerRule, wireOf } from '../../src/domain/field-rules.js';
import { coerceCell } from '../../src/domain/coercion.js';
import { ErrorCode } from '../../src/domain/codes.js';
import { reasonableAdjustmentRule } from '../../src/domain/common-rules.js';
import type { Problem } from '../../src/domain/problem.js';

// A whole-number field with a code of its own (any numbered code will do: the rule must carry
// the caller's code, never 249, which belongs to ReasonableAdjustmentPercentage).
const CODE = ErrorCode.CompanyTooLong;
const seat = integerRule('SeatNumber', { min: 1, max: 9999, code: CODE });
const message = 'SeatNumber must be a whole number from 1 to 9999';

function check(value: unknown): { wire: unknown; problems: Problem[] } {
  const problems: Problem[] = [];
  return { wire: seat.check(value, 'SeatNumber', problems), problems };
}

describe('integerRule', () => {
  it('takes a whole number in range, bounds included', () => {
    for (const n of [1, 42, 9999]) expect(check(n)).toEqual({ wire: n, problems: [] });
  });

  it('leaves unset values out without a problem', () => {
    for (const v of [undefined, null, '']) expect(check(v)).toEqual({ wire: undefined, problems: [] });
  });

  it('refuses out of range, fractions and non-numbers with the caller\'s code', () => {
    for (const v of [0, 10000, 1.5, '12', true]) {
      expect(check(v)).toEqual({ wire: undefined, problems: [{ field: 'SeatNumber', code: CODE, message }] });
    }
  });

  it('a code null rule reports code null', () => {
    const problems: Problem[] = [];
    integerRule('Row', { min: 0, max: 3, code: null }).check(7, 'Row', problems);
    expect(problems).toEqual([{ field: 'Row', code: null, message: 'Row must be a whole number from 0 to 3' }]);
  });

  it('its wire schema says the range and the code', () => {
    const wire = wireOf(z, seat);
    expect(wire.safeParse(9999).success).toBe(true);
    expect(wire.safeParse(0).success).toBe(false);
    expect(wire.safeParse(2.5).success).toBe(false);
    expect(wire.description).toBe(`A whole number 1..9999 (code ${CODE}).`);
  });
});

describe('a whole-number CSV cell', () => {
  function cell(text: string): { value: unknown; problems: Problem[] } {
    const problems: Problem[] = [];
    return { value: coerceCell('SeatNumber', seat.cell, text, problems), problems };
  }

  it('reads signs and surrounding spaces', () => {
    expect(cell(' 12 ')).toEqual({ value: 12, problems: [] });
    expect(cell('+7')).toEqual({ value: 7, problems: [] });
  });

  it('reads a blank cell as unset', () => {
    expect(cell('  ')).toEqual({ value: undefined, problems: [] });
  });

  it('keeps a text that is no whole number, with the field\'s own code (not 249)', () => {
    expect(cell('12a')).toEqual({ value: '12a', problems: [{ field: 'SeatNumber', code: CODE, message }] });
    expect(cell('1.5').problems[0]?.code).toBe(CODE);
  });

  it('ReasonableAdjustmentPercentage keeps code 249 and its message', () => {
    const problems: Problem[] = [];
    coerceCell('ReasonableAdjustmentPercentage', reasonableAdjustmentRule.cell, 'ten', problems);
    expect(problems).toEqual([
      { field: 'ReasonableAdjustmentPercentage', code: 249, message: 'ReasonableAdjustmentPercentage must be a whole number from 0 to 999' },
    ]);
  });
});
