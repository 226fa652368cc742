import { describe, it, expect } from 'vitest';
import { validateCandidate, validateScheduleRequest } from '../../src/domain/schedule.js';
import type { Problem } from '../../src/domain/problem.js';

const schedule = {
  AssessmentExtId: 'A-MATH-1',
  StartDateTime: '2026-03-01T09:00:00Z',
  GroupExtId: 'H-NORTH',
  GroupName: 'North campus',
};
const candidate = { CandidateExtId: 'c-1', FirstName: 'Ann', LastName: 'Lee', Email: 'ann@example.com' };

function problemsOf(input: unknown): Problem[] {
  const result = validateScheduleRequest(input);
  if (result.ok) throw new Error(`expected problems, got ${JSON.stringify(result.value)}`);
  return result.problems;
}

function expectProblem(input: unknown, field: string, code: number | null, messagePart?: string): void {
  const problems = problemsOf(input);
  const found = problems.find((p) => p.field === field && p.code === code);
  expect(found, JSON.stringify(problems)).toBeDefined();
  if (messagePart !== undefined) expect(found?.message).toContain(messagePart);
}

const withSchedule = (s: Record<string, unknown>) => ({ Schedule: { ...schedule, ...s }, Candidates: [candidate] });
const withCandidate = (c: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  ...extra,
  Schedule: schedule,
  Candidates: [candidate, { ...candidate, CandidateExtId: 'c-2', ...c }],
});

describe('validateScheduleRequest: valid requests', () => {
  it('normalises dates to UTC milliseconds and SpecialNeeds to a string', () => {
    const result = validateScheduleRequest({
      Workflow: 'EXTERNAL_ATTEMPTS',
      Upsert: true,
      Schedule: {
        ...schedule,
        StartDateTime: '2026-03-01T10:00:00+01:00',
        EndDateTime: '2026-03-01T12:30:00.5-00:30',
        Title: '',
        PIN: '0420',
      },
      Candidates: [
        {
          ...candidate,
          AttemptExtId: 'att-1',
          SpecialNeeds: true,
          ReasonableAdjustmentPercentage: 25,
          UserName: '',
          ProctorUIds: ['p-1'],
        },
      ],
    });
    expect(result).toEqual({
      ok: true,
      value: {
        Workflow: 'EXTERNAL_ATTEMPTS',
        Upsert: true,
        Schedule: {
          ...schedule,
          StartDateTime: '2026-03-01T09:00:00.000Z',
          EndDateTime: '2026-03-01T13:00:00.500Z',
          PIN: '0420',
        },
        Candidates: [
          {
            ...candidate,
            AttemptExtId: 'att-1',
            SpecialNeeds: 'true',
            ReasonableAdjustmentPercentage: 25,
            ProctorUIds: ['p-1'],
          },
        ],
      },
    });
  });

  it('accepts an empty Candidates list, and Workflow in any case', () => {
    const result = validateScheduleRequest({ Workflow: 'default', Schedule: schedule, Candidates: [] });
    expect(result.ok && result.value.Workflow).toBe('DEFAULT');
  });

  it('SpecialNeeds "false" stays a string on the wire', () => {
    const result = validateScheduleRequest({
      Schedule: schedule,
      Candidates: [{ ...candidate, SpecialNeeds: 'FALSE' }],
    });
    expect(result.ok && result.value.Candidates[0]?.SpecialNeeds).toBe('false');
  });
});

describe('validateScheduleRequest: schedule fields', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['AssessmentExtId missing', { AssessmentExtId: '' }, 'Schedule.AssessmentExtId'],
    ['AssessmentExtId pattern', { AssessmentExtId: 'A_1' }, 'Schedule.AssessmentExtId'],
    ['AssessmentExtId over 64', { AssessmentExtId: 'a'.repeat(65) }, 'Schedule.AssessmentExtId'],
    ['Title over 100', { Title: 't'.repeat(101) }, 'Schedule.Title'],
    ['ScheduleExtId pattern', { ScheduleExtId: 'S 1' }, 'Schedule.ScheduleExtId'],
    ['GroupExtId missing', { GroupExtId: undefined }, 'Schedule.GroupExtId'],
    ['GroupName missing', { GroupName: null }, 'Schedule.GroupName'],
    ['GroupName over 500', { GroupName: 'g'.repeat(501) }, 'Schedule.GroupName'],
    ['ScheduleGroupExtId over 64', { ScheduleGroupExtId: 'g'.repeat(65) }, 'Schedule.ScheduleGroupExtId'],
    ['Owner over 500', { Owner: 'o'.repeat(501) }, 'Schedule.Owner'],
    ['PIN too long', { PIN: '12345' }, 'Schedule.PIN'],
    [
      'template pattern',
      { ProctoringServiceTemplateExternalId: 'PT STD' },
      'Schedule.ProctoringServiceTemplateExternalId',
    ],
    ['boolean type', { UseKeyCode: 'yes' }, 'Schedule.UseKeyCode'],
    ['unknown field', { StartTime: 'x' }, 'Schedule.StartTime'],
  ];
  for (const [name, s, field] of cases) {
    it(name, () => expectProblem(withSchedule(s), field, null));
  }

  it('StartDateTime missing', () => {
    const { StartDateTime: _omitted, ...rest } = schedule;
    expectProblem({ Schedule: rest, Candidates: [] }, 'Schedule.StartDateTime', null, 'required');
  });
  it('a DateTime without zone is refused with an example', () => {
    expectProblem(
      withSchedule({ StartDateTime: '2026-03-01T09:00:00' }),
      'Schedule.StartDateTime',
      null,
      '2026-03-01T09:00:00Z',
    );
  });
  it('a date alone is refused', () => {
    expectProblem(withSchedule({ StartDateTime: '2026-03-01' }), 'Schedule.StartDateTime', null, 'RFC 3339');
  });
  it('invalid calendar values are refused', () => {
    for (const bad of [
      '2026-02-29T09:00:00Z',
      '2026-13-01T09:00:00Z',
      '2026-03-01T24:00:00Z',
      '2026-03-01T09:60:00Z',
      '2026-03-01T09:00:00+25:00',
    ]) {
      expectProblem(withSchedule({ StartDateTime: bad }), 'Schedule.StartDateTime', null, 'not a real date');
    }
  });
  it('a leap day is a real date', () => {
    expect(validateScheduleRequest(withSchedule({ StartDateTime: '2028-02-29T23:30:00-01:00' }))).toMatchObject({
      ok: true,
      value: { Schedule: { StartDateTime: '2028-03-01T00:30:00.000Z' } },
    });
  });
  it('EndDateTime must be after StartDateTime, compared in UTC', () => {
    expectProblem(
      withSchedule({ EndDateTime: '2026-03-01T09:00:00Z' }),
      'Schedule.EndDateTime',
      null,
      'after StartDateTime',
    );
    // 10:00+02:00 is 08:00Z, before a 09:00Z start.
    expectProblem(
      withSchedule({ EndDateTime: '2026-03-01T10:00:00+02:00' }),
      'Schedule.EndDateTime',
      null,
      'after StartDateTime',
    );
  });
  it('a problem of the Schedule object alone names its field under Schedule.', () => {
    const result = validateScheduleRequest({ Schedule: { ...schedule, PIN: 'xxxxx' }, Candidates: [] });
    expect(result.ok ? [] : result.problems.map((p) => p.field)).toEqual(['Schedule.PIN']);
  });
});

describe('validateScheduleRequest: candidates', () => {
  it('required candidate fields, with the Candidates[i] prefix', () => {
    const problems = problemsOf(withCandidate({ CandidateExtId: '', FirstName: '', LastName: undefined, Email: null }));
    expect(problems.map((p) => p.field).sort()).toEqual(
      [
        'Candidates[1].CandidateExtId',
        'Candidates[1].Email',
        'Candidates[1].FirstName',
        'Candidates[1].LastName',
      ].sort(),
    );
  });
  it('candidate field rules', () => {
    expectProblem(withCandidate({ Email: 'nope' }), 'Candidates[1].Email', null, 'not a valid address');
    expectProblem(withCandidate({ CandidateExtId: 'c_2' }), 'Candidates[1].CandidateExtId', null);
    expectProblem(withCandidate({ Company: 'x'.repeat(501) }), 'Candidates[1].Company', null);
    expectProblem(withCandidate({ SpecialNeeds: 'maybe' }), 'Candidates[1].SpecialNeeds', null);
    expectProblem(withCandidate({ ProctorUIds: ['p', ''] }), 'Candidates[1].ProctorUIds[1]', null);
    expectProblem(withCandidate({ Emial: 'x@y.z' }), 'Candidates[1].Emial', null, 'Unknown field');
  });
  it('249 and 250 on a candidate', () => {
    expectProblem(
      withCandidate({ SpecialNeeds: 'true', ReasonableAdjustmentPercentage: 1000 }),
      'Candidates[1].ReasonableAdjustmentPercentage',
      249,
    );
    expectProblem(
      withCandidate({ ReasonableAdjustmentPercentage: 10 }),
      'Candidates[1].ReasonableAdjustmentPercentage',
      250,
    );
    expectProblem(
      withCandidate({ SpecialNeeds: false, ReasonableAdjustmentPercentage: 0 }),
      'Candidates[1].ReasonableAdjustmentPercentage',
      250,
    );
  });
  it('EXTERNAL_ATTEMPTS requires AttemptExtId on every candidate', () => {
    const problems = problemsOf({
      Workflow: 'EXTERNAL_ATTEMPTS',
      Schedule: schedule,
      Candidates: [candidate, { ...candidate, CandidateExtId: 'c-2', AttemptExtId: 'a' }],
    });
    expect(problems).toEqual([expect.objectContaining({ field: 'Candidates[0].AttemptExtId', code: null })]);
    expect(problems[0]?.message).toContain('EXTERNAL_ATTEMPTS');
  });
  it('DEFAULT (or no Workflow) forbids AttemptExtId', () => {
    expectProblem(withCandidate({ AttemptExtId: 'a-1' }), 'Candidates[1].AttemptExtId', null, 'DEFAULT');
    expectProblem(withCandidate({ AttemptExtId: 'a-1' }, { Workflow: 'DEFAULT' }), 'Candidates[1].AttemptExtId', null);
  });
  it('CandidateExtId is unique within the request, ignoring case', () => {
    expectProblem(withCandidate({ CandidateExtId: 'C-1' }), 'Candidates[1].CandidateExtId', null, 'Candidates[0]');
  });
  it('validateCandidate uses paths relative to the candidate', () => {
    const result = validateCandidate(
      { ...candidate, Email: 'x', ReasonableAdjustmentPercentage: 5 },
      { workflow: 'EXTERNAL_ATTEMPTS' },
    );
    expect(result.ok ? [] : result.problems.map((p) => `${p.field}:${p.code}`).sort()).toEqual(
      ['AttemptExtId:null', 'Email:null', 'ReasonableAdjustmentPercentage:250'].sort(),
    );
  });
});

describe('validateScheduleRequest: request level', () => {
  it('an all-empty body', () => {
    expect(problemsOf({})).toEqual([
      expect.objectContaining({ code: null, message: 'All fields of the request body are empty' }),
    ]);
    expect(problemsOf({ Schedule: {}, Candidates: [] })[0]?.message).toBe('All fields of the request body are empty');
  });
  it('Schedule and Candidates are required', () => {
    expectProblem({ Candidates: [candidate] }, 'Schedule', null);
    expectProblem({ Schedule: schedule }, 'Candidates', null);
    expectProblem({ Schedule: schedule, Candidates: candidate }, 'Candidates', null);
  });
  it('bad Workflow, Upsert and unknown top-level fields', () => {
    const problems = problemsOf({
      Workflow: 'SIMPLE',
      Upsert: 'yes',
      upsert: true,
      Schedule: schedule,
      Candidates: [],
    });
    expect(problems.map((p) => p.field).sort()).toEqual(['Upsert', 'Workflow', 'upsert']);
    expect(problems.find((p) => p.field === 'upsert')?.message).toContain('Upsert');
  });
  it('reports problems of the schedule and of several candidates together', () => {
    const problems = problemsOf({
      Schedule: { ...schedule, StartDateTime: 'tomorrow', PIN: '12345' },
      Candidates: [
        { ...candidate, Email: 'x' },
        candidate,
        { ...candidate, CandidateExtId: 'c-3', ReasonableAdjustmentPercentage: 'abc' },
      ],
    });
    expect(problems.map((p) => `${p.field}:${p.code}`).sort()).toEqual(
      [
        'Schedule.StartDateTime:null',
        'Schedule.PIN:null',
        'Candidates[0].Email:null',
        'Candidates[1].CandidateExtId:null',
        'Candidates[2].ReasonableAdjustmentPercentage:249',
        'Candidates[2].ReasonableAdjustmentPercentage:250',
      ].sort(),
    );
  });
  it('a candidate that is not an object', () => {
    expectProblem({ Schedule: schedule, Candidates: ['c-1'] }, 'Candidates[0]', null, 'JSON object');
  });
});

describe('validateScheduleRequest: an invalid Workflow', () => {
  it('is reported once, without guessing AttemptExtId errors', () => {
    const problems = problemsOf({
      Workflow: 'EXTERNAL',
      Schedule: schedule,
      Candidates: [
        { ...candidate, AttemptExtId: 'a-1' },
        { ...candidate, CandidateExtId: 'c-2' },
      ],
    });
    expect(problems).toEqual([expect.objectContaining({ field: 'Workflow', code: null })]);
    expect(problems[0]?.message).toContain('DEFAULT or EXTERNAL_ATTEMPTS');
  });
});
