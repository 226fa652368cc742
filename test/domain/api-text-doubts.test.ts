import { describe, expect, it } from 'vitest';
import { collectionTextDoubts, scheduleTextDoubts } from '../../src/domain/api-text-doubts.js';
import { validateCollection, validateScheduleRequest } from '../../src/domain/index.js';

/**
 * Where examctl reads the API text wider than its words (docs/domain-rules.md, "Where the API
 * text and examctl differ"): valid, with a warning quoting the text; narrower: accepted.
 */
const schedule = { AssessmentExtId: 'A-1', StartDateTime: '2026-12-01T09:00:00Z', GroupExtId: 'G-1', GroupName: 'Group' };
const scheduleOf = (fields: Record<string, unknown>) => {
  const result = validateScheduleRequest({ Schedule: { ...schedule, ...fields }, Candidates: [] });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.value.Schedule;
};

describe('the API text and examctl', () => {
  it('a collection ExternalId with upper case is valid, with a warning quoting "a-z and 0-9" and code 802', () => {
    const result = validateCollection({ ExternalId: 'Maths2026', Title: 'Maths' });
    expect(result.ok).toBe(true);
    const warnings = result.ok ? collectionTextDoubts(result.value) : [];
    expect(warnings).toEqual([{ field: 'ExternalId', code: 9007, message: expect.stringContaining('"Alphanumeric, a-z and 0-9"') }]);
    expect(warnings[0]?.message).toContain('code 802');
    const lower = validateCollection({ ExternalId: 'maths2026', Title: 'Maths' });
    expect(lower.ok && collectionTextDoubts(lower.value)).toEqual([]);
  });

  it('a proctoring template id with a dash is valid, with a warning quoting "Alphanumeric"', () => {
    const warnings = scheduleTextDoubts(scheduleOf({ ProctoringServiceTemplateExternalId: 'PT-STD' }));
    expect(warnings).toEqual([{ field: 'Schedule.ProctoringServiceTemplateExternalId', code: 9007, message: expect.stringContaining('the API text says "Alphanumeric"') }]);
    expect(scheduleTextDoubts(scheduleOf({ ProctoringServiceTemplateExternalId: 'PTSTD' }))).toEqual([]);
  });

  it.each(['123', '12a4', 'abcd', '1'])('PIN %s: string(4) is accepted, with a warning that never quotes it', (pin) => {
    const warnings = scheduleTextDoubts(scheduleOf({ PIN: pin }));
    expect(warnings).toEqual([{ field: 'Schedule.PIN', code: 9007, message: expect.stringContaining('string(4)') }]);
    expect(warnings[0]?.message).not.toContain(pin);
  });

  it('four digits: no warning; five characters: still refused (string(4))', () => {
    expect(scheduleTextDoubts(scheduleOf({ PIN: '0420' }))).toEqual([]);
    expect(validateScheduleRequest({ Schedule: { ...schedule, PIN: '12345' }, Candidates: [] }).ok).toBe(false);
  });
});
