/**
 * The one decision of src/sync/store-standing.ts, from the heads alone. Histories of nights, kills,
 * store copies and restores, compactions and resumes over the real commands: nights-property.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { type SeenHead, standing } from '../../src/sync/store-standing.js';

describe('where the store stands (docs/sync.md, "Where the store stands")', () => {
  it('decides from the heads alone: same, ahead, behind (what each later attempt acknowledged goes again), other', () => {
    const seen: SeenHead[] = [
      ['A'.repeat(22), 'r1', 'attemptA', false],
      ['B'.repeat(22), 'r1', 'attemptA', true],
      ['B'.repeat(22), 'r2', 'attemptB', false],
      ['C'.repeat(22), 'r2', 'attemptB', true],
    ];
    const at = (head: string, holds: string[]) => standing(seen, { head, holds });
    expect(at('C'.repeat(22), [])).toEqual({ is: 'same', undone: new Set() });
    expect(at('D'.repeat(22), ['C'.repeat(22)])).toEqual({ is: 'ahead' });
    expect(at('A'.repeat(22), [])).toEqual({ is: 'behind', at: seen[0], undone: new Set(['attemptA', 'attemptB']) });
    expect(at('E'.repeat(22), ['A'.repeat(22), 'B'.repeat(22)])).toMatchObject({ is: 'behind', at: seen[2] });
    expect(at('E'.repeat(22), [])).toEqual({ is: 'other' });
    expect(standing([], { head: 'E'.repeat(22), holds: [] })).toEqual({ is: 'unknown' });
    expect(standing(seen, undefined)).toEqual({ is: 'unknown' });
  });
});
