import { describe, expect, it } from 'vitest';
import {
  prepareScheduleRequest,
  Sittings,
  withCandidateLines,
  type ScheduleDefaults,
} from '../../src/domain/sittings.js';

const SCHEDULE = {
  AssessmentExtId: 'A-MATH-1',
  StartDateTime: '2026-12-01T09:00:00Z',
  GroupExtId: 'G-1',
  GroupName: 'Group one',
};

function row(line: number, fields: Record<string, unknown>, csv = true) {
  return { line, csv, fields };
}

function candidate(id: string, email = `${id}@example.test`): Record<string, unknown> {
  return { CandidateExtId: id, FirstName: 'A', LastName: 'B', Email: email };
}

describe('Sittings: rows grouped into one request per schedule', () => {
  it('groups by ScheduleExtId in order of first appearance, wherever the rows are', () => {
    const sittings = new Sittings<number>({ schedule: {} });
    sittings.add(row(2, { ScheduleExtId: 'S-1', ...SCHEDULE, ...candidate('c-1') }), 2);
    sittings.add(row(3, { ScheduleExtId: 'S-2', ...SCHEDULE, ...candidate('c-2') }), 3);
    sittings.add(row(4, { ScheduleExtId: 'S-1', ...candidate('c-3') }), 4);
    const all = [...sittings.all()];
    expect(sittings.size).toBe(2);
    expect(all.map((s) => s.id())).toEqual(['S-1', 'S-2']);
    expect(all.map((s) => s.attached)).toEqual([[2, 4], [3]]);
    const first = all[0]!.prepare();
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    expect(first.value.request.Candidates.map((c) => c.CandidateExtId)).toEqual(['c-1', 'c-3']);
    expect(first.value.candidateLines).toEqual([2, 4]);
  });

  it('an empty cell means "as the other rows say"; a different value fails on the later line', () => {
    const sittings = new Sittings({ schedule: {} });
    sittings.add(row(2, { ScheduleExtId: 'S-1', ...SCHEDULE, ...candidate('c-1') }), undefined);
    sittings.add(row(3, { ScheduleExtId: 'S-1', ...candidate('c-2') }), undefined);
    sittings.add(
      row(4, { ScheduleExtId: 'S-1', ...SCHEDULE, StartDateTime: '2026-12-02T09:00:00Z', ...candidate('c-3') }),
      undefined,
    );
    const prepared = [...sittings.all()][0]!.prepare();
    expect(prepared.ok).toBe(false);
    if (prepared.ok) return;
    expect(prepared.problems).toHaveLength(1);
    expect(prepared.problems[0]).toMatchObject({ line: 4, field: 'Schedule.StartDateTime', code: 9010 });
    expect(prepared.problems[0]!.message).toContain('line 2');
  });

  it('CSV spellings of one value agree ("yes" and "true")', () => {
    const sittings = new Sittings({ schedule: {} });
    sittings.add(row(2, { ScheduleExtId: 'S-1', ...SCHEDULE, UseKeyCode: 'yes', ...candidate('c-1') }), undefined);
    sittings.add(row(3, { ScheduleExtId: 'S-1', UseKeyCode: 'true', ...candidate('c-2') }), undefined);
    expect([...sittings.all()][0]!.prepare().ok).toBe(true);
  });

  it('defaults (flags, --schedule) fill what the rows leave out; rows without an id form one schedule', () => {
    const defaults: ScheduleDefaults = { schedule: { ...SCHEDULE } };
    const sittings = new Sittings(defaults);
    sittings.add(row(2, candidate('c-1')), undefined);
    sittings.add(row(3, candidate('c-2')), undefined);
    const [only] = [...sittings.all()];
    expect(sittings.size).toBe(1);
    expect(only!.id()).toBeNull();
    const prepared = only!.prepare();
    expect(prepared.ok).toBe(true);
    if (prepared.ok) expect(prepared.value.request.Schedule.GroupExtId).toBe('G-1');
    if (prepared.ok) expect(prepared.value.request.Candidates).toHaveLength(2);
  });

  it('problems about a candidate carry its own line; problems about a schedule field the line that set it', () => {
    const sittings = new Sittings({ schedule: {} });
    sittings.add(
      row(5, { ScheduleExtId: 'S-1', ...SCHEDULE, StartDateTime: 'not a date', ...candidate('c-1') }),
      undefined,
    );
    sittings.add(row(9, { ScheduleExtId: 'S-1', ...candidate('c-2', 'bad mail') }), undefined);
    const prepared = [...sittings.all()][0]!.prepare();
    expect(prepared.ok).toBe(false);
    if (prepared.ok) return;
    const byField = Object.fromEntries(prepared.problems.map((p) => [p.field, p.line]));
    expect(byField['Schedule.StartDateTime']).toBe(5);
    expect(byField['Candidates[1].Email']).toBe(9);
  });

  it('one candidate in two schedules with other names or email: both schedules fail, each naming the other line; the same user in both is fine (trial26 F03)', () => {
    const sittings = new Sittings({ schedule: {} });
    sittings.add(row(2, { ScheduleExtId: 'S-1', ...SCHEDULE, ...candidate('c-1') }), undefined);
    sittings.add(row(3, { ScheduleExtId: 'S-2', ...SCHEDULE, ...candidate('C-1', 'other@example.test') }), undefined);
    sittings.add(row(4, { ScheduleExtId: 'S-3', ...SCHEDULE, ...candidate('c-1') }), undefined);
    const [one, two, three] = [...sittings.all()].map((sitting) => sitting.prepare());
    expect(one).toMatchObject({ ok: false, problems: [{ line: 2, field: 'CandidateExtId', code: 9011 }] });
    expect(two).toMatchObject({ ok: false, problems: [{ line: 3, field: 'CandidateExtId', code: 9011 }] });
    // Each names the other's line and the field.
    expect(one!.ok ? '' : one!.problems[0]!.message).toMatch(/\bEmail\b.*\bline 3\b/);
    expect(two!.ok ? '' : two!.problems[0]!.message).toMatch(/\bEmail\b.*\bline 2\b/);
    expect(three!.ok).toBe(true);
  });

  it('one candidate in two schedules whose email differs only in case, or one of whose rows leaves a field blank: no conflict between the schedules (trial29 F02)', () => {
    const sittings = new Sittings({ schedule: {} });
    sittings.add(
      row(2, { ScheduleExtId: 'S-1', ...SCHEDULE, ...candidate('c-1', 'Amira.Haddad@Example.test') }),
      undefined,
    );
    sittings.add(
      row(3, { ScheduleExtId: 'S-2', ...SCHEDULE, ...candidate('c-1', 'amira.haddad@example.test') }),
      undefined,
    );
    sittings.add(row(4, { ScheduleExtId: 'S-3', ...SCHEDULE, ...candidate('c-1', '') }), undefined);
    const [one, two, three] = [...sittings.all()].map((sitting) => sitting.prepare());
    expect(one!.ok).toBe(true);
    expect(two!.ok).toBe(true);
    // The blank email fails its own schedule only, by its own rule.
    expect(three).toMatchObject({ ok: false, problems: [{ line: 4, field: 'Candidates[0].Email' }] });
  });

  it("a candidate's first row leaving the email blank: two later schedules giving two emails still fail each other (trial30 F02)", () => {
    const sittings = new Sittings({ schedule: {} });
    sittings.add(row(2, { ScheduleExtId: 'S-1', ...SCHEDULE, ...candidate('c-1', '') }), undefined);
    sittings.add(row(3, { ScheduleExtId: 'S-2', ...SCHEDULE, ...candidate('c-1', 'amira@example.test') }), undefined);
    sittings.add(
      row(4, { ScheduleExtId: 'S-3', ...SCHEDULE, ...candidate('c-1', 'a.haddad@example.test') }),
      undefined,
    );
    const [one, two, three] = [...sittings.all()].map((sitting) => sitting.prepare());
    expect(one).toMatchObject({ ok: false, problems: [{ line: 2, field: 'Candidates[0].Email' }] });
    expect(two).toMatchObject({
      ok: false,
      problems: [{ line: 3, message: "c-1's Email differs from line 4 (another schedule); one file gives a user one" }],
    });
    expect(three).toMatchObject({
      ok: false,
      problems: [{ line: 4, message: "c-1's Email differs from line 3 (another schedule); one file gives a user one" }],
    });
  });

  it('a name in NFC and in NFD, or with a no-break space, is one name (trial32 F06)', () => {
    const sittings = new Sittings({ schedule: {} });
    sittings.add(
      row(2, {
        ScheduleExtId: 'S-1',
        ...SCHEDULE,
        ...candidate('c-1'),
        FirstName: 'Am\u00e9ra',
        LastName: 'Al Haddad',
      }),
      undefined,
    );
    sittings.add(
      row(3, {
        ScheduleExtId: 'S-2',
        ...SCHEDULE,
        ...candidate('c-1'),
        FirstName: 'Ame\u0301ra',
        LastName: 'Al\u00a0Haddad',
      }),
      undefined,
    );
    expect([...sittings.all()].map((sitting) => sitting.prepare().ok)).toEqual([true, true]);
  });

  it('does not mutate the defaults it is given', () => {
    const defaults: ScheduleDefaults = { schedule: { ...SCHEDULE } };
    const sittings = new Sittings(defaults);
    sittings.add(row(2, { ScheduleExtId: 'S-1', GroupName: 'Other', ...candidate('c-1') }), undefined);
    expect(defaults.schedule).toEqual(SCHEDULE);
  });
});

describe('prepareScheduleRequest: whole requests from JSON', () => {
  const request = (id?: string) => ({
    Schedule: { ...(id ? { ScheduleExtId: id } : {}), ...SCHEDULE },
    Candidates: [candidate('c-1'), candidate('c-2')],
  });

  it('defaults fill what a request leaves out; the request wins over them', () => {
    const defaults = { schedule: { GroupName: 'From flags', Owner: 'owner-1' }, upsert: true };
    const { id, prepared } = prepareScheduleRequest(request(), 3, defaults);
    expect(id).toBeNull();
    expect(prepared.ok).toBe(true);
    if (!prepared.ok) return;
    expect(prepared.value.request.Schedule.GroupName).toBe('Group one');
    expect(prepared.value.request.Schedule.Owner).toBe('owner-1');
    expect(prepared.value.candidateLines).toEqual([3, 3]);
  });
});

describe('withCandidateLines', () => {
  it('puts the candidate line on Candidates[i] problems and leaves the others', () => {
    const problems = withCandidateLines(
      [
        { field: 'Candidates[1].Email', code: null, message: 'bad' },
        { field: 'Schedule.Title', code: null, message: 'long' },
        { field: 'Candidates[0]', code: null, message: 'x', line: 99 },
      ],
      [7, 8],
    );
    expect(problems.map((p) => p.line)).toEqual([8, undefined, 99]);
  });
});
