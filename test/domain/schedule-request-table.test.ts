import { describe, it, expect } from 'vitest';
import { validateScheduleRequest } from '../../src/domain/schedule.js';

const candidate = { CandidateExtId: 'c-1', FirstName: 'Ann', LastName: 'Lee', Email: 'ann@example.com' };

function fieldsOf(input: unknown): string[] {
  const result = validateScheduleRequest(input);
  if (result.ok) throw new Error(`expected problems, got ${JSON.stringify(result.value)}`);
  return result.problems.map((p) => `${p.field}: ${p.message}`);
}

// The request's own fields go through SCHEDULE_REQUEST_TABLE like any record: present fields in
// the body's order (unknown ones included), then the required ones absent, then each candidate.
describe('a schedule request is checked by its rule table', () => {
  it('names an unknown field, a missing Schedule, then the candidates', () => {
    const problems = fieldsOf({ workflow: 'DEFAULT', Candidates: [{ ...candidate, AttemptExtId: 'x' }] });
    expect(problems).toEqual([
      'workflow: Unknown field "workflow" in a schedule request; did you mean Workflow? (field names are case-sensitive)',
      'Schedule: Schedule is required',
      'Candidates[0].AttemptExtId: AttemptExtId must not be set when Workflow is DEFAULT (use Workflow EXTERNAL_ATTEMPTS)',
    ]);
  });

  it('refuses a body that is not an object (a list, a string, null) with one problem', () => {
    for (const body of [[], 'S-1', null])
      expect(fieldsOf(body)).toEqual([': A schedule request must be a JSON object with Schedule and Candidates']);
  });

  it('refuses Candidates that is not a list, and decides no AttemptExtId rule under an invalid Workflow', () => {
    expect(fieldsOf({ Schedule: null, Candidates: 'c-1' })).toEqual([
      'Schedule: Schedule is required',
      'Candidates: Candidates must be a list of candidate objects',
    ]);
    const invalid = fieldsOf({ Workflow: 'SOMETIMES', Candidates: [{ ...candidate, AttemptExtId: 'x' }] });
    expect(invalid.some((p) => p.startsWith('Workflow: '))).toBe(true);
    expect(invalid.some((p) => p.includes('AttemptExtId'))).toBe(false);
    expect(invalid).toContain('Schedule: Schedule is required');
  });
});
