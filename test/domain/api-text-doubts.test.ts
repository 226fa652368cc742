import { describe, expect, it } from 'vitest';
import { collectionForSending, scheduleTextDoubts } from '../../src/domain/api-text-doubts.js';
import { coerceAndValidateCollection } from '../../src/domain/coercion.js';
import { validateCollection } from '../../src/domain/collection.js';
import { validateScheduleRequest } from '../../src/domain/schedule.js';

/**
 * Where examctl's client is wider than the API text's words, or warns within them
 * (docs/domain-rules.md, "Where the API text and examctl differ"): valid, with a warning quoting the text.
 */
const schedule = {
  AssessmentExtId: 'A-1',
  StartDateTime: '2026-12-01T09:00:00Z',
  GroupExtId: 'G-1',
  GroupName: 'Group',
};
const scheduleOf = (fields: Record<string, unknown>) => {
  const result = validateScheduleRequest({ Schedule: { ...schedule, ...fields }, Candidates: [] });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.value.Schedule;
};

describe('the API text and examctl', () => {
  it('a collection ExternalId with upper case: refused by the rule (802), sent as given by the client, with a warning quoting "a-z and 0-9"', () => {
    expect(validateCollection({ ExternalId: 'Maths2026', Title: 'Maths' }).ok).toBe(false);
    const { prepared, warnings } = collectionForSending(
      { ExternalId: 'Maths2026', Title: 'Maths' },
      validateCollection,
    );
    expect(prepared).toEqual({ ok: true, value: { ExternalId: 'Maths2026', Title: 'Maths' } });
    expect(warnings).toEqual([
      { field: 'ExternalId', code: 9007, message: expect.stringContaining('"Alphanumeric, a-z and 0-9"') },
    ]);
    expect(warnings[0]?.message).toContain('code 802');
    expect(collectionForSending({ ExternalId: 'maths2026', Title: 'Maths' }, validateCollection).warnings).toEqual([]);
  });

  it('the client still refuses what the text refuses beside the case: a dash is 802, with no warning', () => {
    const { prepared, warnings } = collectionForSending(
      { ExternalId: 'Maths-2026', Title: 'Maths' },
      coerceAndValidateCollection,
    );
    expect(prepared.ok ? [] : prepared.problems).toEqual([
      { field: 'ExternalId', code: 802, message: 'ExternalId must be alphanumeric (a-z, 0-9)' },
    ]);
    expect(warnings).toEqual([]);
  });

  it('a proctoring template id follows "Alphanumeric": a dash is refused, the message shows the id without it', () => {
    const result = validateScheduleRequest({
      Schedule: { ...schedule, ProctoringServiceTemplateExternalId: 'PT-STD' },
      Candidates: [],
    });
    expect(result.ok ? [] : result.problems).toEqual([
      {
        field: 'Schedule.ProctoringServiceTemplateExternalId',
        code: null,
        message: expect.stringMatching(
          /may contain only letters and digits: the API text says "Alphanumeric".*did you mean "PTSTD"\?/,
        ),
      },
    ]);
    const spaced = validateScheduleRequest({
      Schedule: { ...schedule, ProctoringServiceTemplateExternalId: 'PT STD' },
      Candidates: [],
    });
    expect(spaced.ok ? '' : spaced.problems[0]?.message).toBe(
      'ProctoringServiceTemplateExternalId may contain only letters and digits: the API text says "Alphanumeric"',
    );
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
