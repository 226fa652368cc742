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
const message = (shown: string) => `SeatNumber must be a whole number from 1 to 9999, not ${shown}`;

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

  it("refuses out of range, fractions and non-numbers with the caller's code, quoting the value", () => {
    for (const [v, shown] of [
      [0, '0'],
      [10000, '10000'],
      [1.5, '1.5'],
      ['12', '"12"'],
      [true, 'true'],
    ] as const) {
      expect(check(v)).toEqual({
        wire: undefined,
        problems: [{ field: 'SeatNumber', code: CODE, message: message(shown) }],
      });
    }
  });

  it("JSON's 1e400 (read as Infinity) is said as a number out of range, never null (trial23 f09)", () => {
    for (const v of [Infinity, -Infinity]) expect(check(v).problems[0]?.message).toBe(message('a number out of range'));
  });

  it('a code null rule reports code null', () => {
    const problems: Problem[] = [];
    integerRule('Row', { min: 0, max: 3, code: null }).check(7, 'Row', problems);
    expect(problems).toEqual([{ field: 'Row', code: null, message: 'Row must be a whole number from 0 to 3, not 7' }]);
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

  it("keeps a text that is no whole number, with the field's own code (not 249)", () => {
    expect(cell('12a')).toEqual({
      value: '12a',
      problems: [{ field: 'SeatNumber', code: CODE, message: message('"12a"') }],
    });
    // Only a percentage's cell may end in %.
    expect(cell('12%').problems[0]?.message).toBe(message('"12%"'));
    expect(cell('1.5').problems[0]?.code).toBe(CODE);
  });

  it('ReasonableAdjustmentPercentage keeps code 249 and its message, quoting the cell', () => {
    const problems: Problem[] = [];
    coerceCell('ReasonableAdjustmentPercentage', reasonableAdjustmentRule.cell, '25,0', problems);
    expect(problems).toEqual([
      {
        field: 'ReasonableAdjustmentPercentage',
        code: 249,
        message: 'ReasonableAdjustmentPercentage must be a whole number from 0 to 999, not "25,0"',
      },
    ]);
  });

  it('ReasonableAdjustmentPercentage, a percentage, reads a cell as a spreadsheet shows one: 25% is 25', () => {
    const problems: Problem[] = [];
    expect(
      ['25%', ' 100 % ', '0%'].map((text) =>
        coerceCell('ReasonableAdjustmentPercentage', reasonableAdjustmentRule.cell, text, problems),
      ),
    ).toEqual([25, 100, 0]);
    expect(coerceCell('ReasonableAdjustmentPercentage', reasonableAdjustmentRule.cell, '12.5%', problems)).toBe(
      '12.5%',
    );
    expect(problems.map((problem) => problem.message)).toEqual([
      'ReasonableAdjustmentPercentage must be a whole number from 0 to 999, not "12.5%"',
    ]);
  });
});
