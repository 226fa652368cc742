import { describe, it, expect } from 'vitest';
import { validateInvigilatorRemoval } from '../../src/domain/invigilators.js';

describe('validateInvigilatorRemoval', () => {
  it('accepts a schedule id and user ids, in order', () => {
    expect(validateInvigilatorRemoval('S-1', ['inv-1', 'inv-2'])).toEqual({
      ok: true,
      value: { scheduleExtId: 'S-1', userExtIds: ['inv-1', 'inv-2'] },
    });
  });

  const cases: [string, unknown, unknown, string, number | null][] = [
    ['100 body null', 'S-1', null, 'UserExtIds', 100],
    ['100 body missing', 'S-1', undefined, 'UserExtIds', 100],
    ['100 body empty', 'S-1', [], 'UserExtIds', 100],
    ['200 only empty ids', 'S-1', ['', '  '], 'UserExtIds', 200],
    ['200 only non-strings', 'S-1', [1, null, {}], 'UserExtIds', 200],
    ['300 schedule id empty', '', ['inv-1'], 'ScheduleExtId', 300],
    ['300 schedule id missing', undefined, ['inv-1'], 'ScheduleExtId', 300],
    ['body not an array', 'S-1', 'inv-1', 'UserExtIds', null],
    ['one bad id among good ones', 'S-1', ['inv-1', 7], 'UserExtIds[1]', null],
  ];
  for (const [name, scheduleId, ids, field, code] of cases) {
    it(name, () => {
      const result = validateInvigilatorRemoval(scheduleId, ids);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.problems).toContainEqual(expect.objectContaining({ field, code }));
    });
  }

  it('reports 300 and 100 together', () => {
    const result = validateInvigilatorRemoval(' ', []);
    expect(result.ok ? [] : result.problems.map((p) => p.code).sort()).toEqual([100, 300]);
  });
});
