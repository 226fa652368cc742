import { describe, it, expect } from 'vitest';
import {
  coerceAndValidateScheduleRequest,
  coerceAndValidateUser,
  coerceFields,
  coerceScheduleRequestFields,
  hierarchyEntryCell,
  hierarchyEntryParts,
  parseBooleanSpelling,
} from '../../src/domain/coercion.js';
import { validateUser } from '../../src/domain/user.js';

const user = { ExternalId: 'u-1', FirstName: 'Ann', LastName: 'Lee' };

describe('boolean spellings', () => {
  const cases: [string, boolean | undefined][] = [
    ['true', true],
    ['TRUE', true],
    ['Yes', true],
    ['1', true],
    [' yes ', true],
    ['false', false],
    ['False', false],
    ['NO', false],
    ['0', false],
    // UK SIS exports: Y and N, any case.
    ['y', true],
    ['Y', true],
    [' N ', false],
    ['n', false],
    ['on', undefined],
    ['ye', undefined],
    ['2', undefined],
    ['', undefined],
  ];
  for (const [text, expected] of cases) {
    it(`"${text}" -> ${String(expected)}`, () => expect(parseBooleanSpelling(text)).toBe(expected));
  }

  it('user booleans from strings; JSON booleans pass through', () => {
    const { fields, problems } = coerceFields('user', {
      ...user,
      SpecialNeeds: 'Yes',
      DisableLogin: '0',
      EnableReadSpeaker: true,
    });
    expect(problems).toEqual([]);
    expect(fields).toMatchObject({ SpecialNeeds: true, DisableLogin: false, EnableReadSpeaker: true });
  });

  it('a bad spelling names the field and the accepted spellings, and the value stays', () => {
    const { fields, problems } = coerceFields('user', { ...user, DisablePasswordReset: 'maybe' });
    expect(problems).toEqual([expect.objectContaining({ field: 'DisablePasswordReset', code: 9017 })]);
    expect(problems[0]?.message).toContain('true/false, yes/no, Y/N or 1/0');
    expect(fields['DisablePasswordReset']).toBe('maybe');
  });

  it('does not change its input', () => {
    const input = { ...user, SpecialNeeds: 'yes' };
    coerceFields('user', input);
    expect(input.SpecialNeeds).toBe('yes');
  });
});

describe('integers', () => {
  it('ReasonableAdjustmentPercentage from digits', () => {
    expect(
      coerceFields('user', { ...user, ReasonableAdjustmentPercentage: ' 20 ' }).fields[
        'ReasonableAdjustmentPercentage'
      ],
    ).toBe(20);
    expect(
      coerceFields('candidate', { ReasonableAdjustmentPercentage: '0' }).fields['ReasonableAdjustmentPercentage'],
    ).toBe(0);
  });
  it('"abc" is 249', () => {
    const { problems } = coerceFields('user', { ...user, ReasonableAdjustmentPercentage: 'abc' });
    expect(problems).toEqual([expect.objectContaining({ field: 'ReasonableAdjustmentPercentage', code: 249 })]);
  });
  it('"12.5" is 249; "-3" becomes -3 and validation says 249', () => {
    expect(coerceFields('user', { ReasonableAdjustmentPercentage: '12.5' }).problems[0]?.code).toBe(249);
    const r = coerceAndValidateUser({ ...user, SpecialNeeds: 'true', ReasonableAdjustmentPercentage: '-3' });
    expect(r.ok ? [] : r.problems.map((p) => p.code)).toEqual([249]);
  });
});

describe('lists', () => {
  it('a string list value is split on |', () => {
    expect(coerceFields('user', { Labels: 'a|b' }).fields['Labels']).toEqual(['a', 'b']);
    expect(coerceFields('candidate', { ProctorUIds: 'p1|p2' }).fields['ProctorUIds']).toEqual(['p1', 'p2']);
  });
  it('collection lists become ExternalId objects', () => {
    const { fields } = coerceFields('collection', {
      Title: 'T',
      Taxonomies: ['TX-1', ' TX-2 '],
      ObjectiveRepositories: 'LO-1|LO-2',
      LoRepositoryExternalIds: [{ ExternalId: 'LO-3' }],
    });
    expect(fields).toEqual({
      Title: 'T',
      Taxonomies: [{ ExternalId: 'TX-1' }, { ExternalId: 'TX-2' }],
      ObjectiveRepositories: [{ ExternalId: 'LO-1' }, { ExternalId: 'LO-2' }],
      LoRepositoryExternalIds: [{ ExternalId: 'LO-3' }],
    });
  });
});

describe('Hierarchies cell', () => {
  it('the one writer of a link cell, read back by its parser: id alone without flags, else id:flag+flag', () => {
    expect(hierarchyEntryCell('H-A', [])).toBe('H-A');
    expect(hierarchyEntryCell('H-A', ['coordinator', 'reports'])).toBe('H-A:coordinator+reports');
    expect(hierarchyEntryParts(hierarchyEntryCell('H-A', ['coordinator', 'reports']))).toEqual({
      id: 'H-A',
      flags: ['coordinator', 'reports'],
    });
  });
  it('EXTID and EXTID:flag+flag entries', () => {
    const { fields, problems } = coerceFields('user', {
      ...user,
      Hierarchies: ['H-NORTH', 'H-SOUTH:coordinator+Reports', 'H-OLD:delete', ' H-EAST : administrator + rescoring '],
    });
    expect(problems).toEqual([]);
    expect(fields['Hierarchies']).toEqual([
      {
        ExternalId: 'H-NORTH',
        IsCoordinator: false,
        IsAdministrator: false,
        HasViewReportsPermissions: false,
        HasReScoringPermissions: false,
      },
      {
        ExternalId: 'H-SOUTH',
        IsCoordinator: true,
        IsAdministrator: false,
        HasViewReportsPermissions: true,
        HasReScoringPermissions: false,
      },
      { ExternalId: 'H-OLD', Action: 'DELETE' },
      {
        ExternalId: 'H-EAST',
        IsCoordinator: false,
        IsAdministrator: true,
        HasViewReportsPermissions: false,
        HasReScoringPermissions: true,
      },
    ]);
    expect(validateUser(fields).ok).toBe(true);
  });
  it('a plain string cell is split on | and empty entries are skipped', () => {
    expect(coerceFields('user', { Hierarchies: 'H-1||H-2:delete|' }).fields['Hierarchies']).toEqual([
      {
        ExternalId: 'H-1',
        IsCoordinator: false,
        IsAdministrator: false,
        HasViewReportsPermissions: false,
        HasReScoringPermissions: false,
      },
      { ExternalId: 'H-2', Action: 'DELETE' },
    ]);
  });
  it('an unknown flag is a problem at the entry, and validation still refuses the entry', () => {
    const c = coerceFields('user', { ...user, Hierarchies: ['H-1', 'H-2:coordinater'] });
    expect(c.problems).toEqual([expect.objectContaining({ field: 'Hierarchies[1]', code: 9015 })]);
    expect(c.problems[0]?.message).toContain('coordinator, administrator, reports, rescoring, delete');
    expect(validateUser(c.fields).ok).toBe(false);
    const merged = coerceAndValidateUser({ ...user, Hierarchies: ['H-1', 'H-2:coordinater'] });
    expect(merged.ok ? [] : merged.problems).toEqual(c.problems);
  });
  it('delete with permission flags is a problem', () => {
    expect(coerceFields('user', { Hierarchies: ['H-1:delete+coordinator'] }).problems[0]?.field).toBe('Hierarchies[0]');
  });
  it('a JSON array in the cell, even when the reader split it on |', () => {
    const json = '[{"ExternalId":"H-1","IsCoordinator":true},{"ExternalId":"H|2","Action":"DELETE"}]';
    const { fields, problems } = coerceFields('user', { Hierarchies: json.split('|') });
    expect(problems).toEqual([]);
    expect(fields['Hierarchies']).toEqual([
      { ExternalId: 'H-1', IsCoordinator: true },
      { ExternalId: 'H|2', Action: 'DELETE' },
    ]);
  });
  it('bad JSON in the cell is a problem naming Hierarchies', () => {
    expect(coerceFields('user', { Hierarchies: ['[{"ExternalId":'] }).problems).toEqual([
      expect.objectContaining({ field: 'Hierarchies', code: 9015 }),
    ]);
  });
  it('JSON membership objects pass through untouched', () => {
    const list = [{ ExternalId: 'H-1' }];
    expect(coerceFields('user', { Hierarchies: list }).fields['Hierarchies']).toBe(list);
  });
});

describe('schedule and request coercion', () => {
  it('sittings-row booleans including Upsert', () => {
    const { fields, problems } = coerceFields('schedule', {
      Upsert: 'yes',
      UseKeyCode: 'NO',
      LockExamOnConnectionLoss: '1',
      enableAutomaticDataCleanup: 'false',
      UseProctoringService: 'x',
    });
    expect(fields).toMatchObject({
      Upsert: true,
      UseKeyCode: false,
      LockExamOnConnectionLoss: true,
      enableAutomaticDataCleanup: false,
    });
    expect(problems.map((p) => p.field)).toEqual(['UseProctoringService']);
  });
  it('a whole request body: paths carry Schedule. and Candidates[i].', () => {
    const c = coerceScheduleRequestFields({
      Upsert: 'true',
      Schedule: { UseKeyCode: 'x' },
      Candidates: [{ SpecialNeeds: 'yes' }, { SpecialNeeds: 'perhaps' }],
    });
    expect(c.fields['Upsert']).toBe(true);
    expect(c.problems.map((p) => p.field)).toEqual(['Schedule.UseKeyCode', 'Candidates[1].SpecialNeeds']);
  });
  it('candidate SpecialNeeds yes becomes "true" on the wire', () => {
    const r = coerceAndValidateScheduleRequest({
      Schedule: { AssessmentExtId: 'A-1', StartDateTime: '2026-03-01T09:00:00Z', GroupExtId: 'G-1', GroupName: 'G' },
      Candidates: [
        {
          CandidateExtId: 'c-1',
          FirstName: 'A',
          LastName: 'B',
          Email: 'a@b.co',
          SpecialNeeds: 'yes',
          ReasonableAdjustmentPercentage: '15',
        },
      ],
    });
    expect(r.ok && r.value.Candidates[0]).toMatchObject({ SpecialNeeds: 'true', ReasonableAdjustmentPercentage: 15 });
  });
});

describe('coercion problems before validation (withReaderProblems)', () => {
  it("drops the validation echo of a coercion problem and keeps the other fields' problems", () => {
    const r = coerceAndValidateUser({
      ...user,
      SpecialNeeds: 'maybe',
      ReasonableAdjustmentPercentage: 'abc',
      Email: 'x',
    });
    expect(r.ok ? [] : r.problems.map((p) => `${p.field}:${p.code}`).sort()).toEqual(
      ['SpecialNeeds:9017', 'ReasonableAdjustmentPercentage:249', 'Email:209'].sort(),
    );
  });
  it('keeps everything when coercion found nothing', () => {
    const r = coerceAndValidateUser({ ...user, SpecialNeeds: 'yes', Email: 'x' });
    expect(r).toEqual(validateUser({ ...user, SpecialNeeds: true, Email: 'x' }));
    expect(r.ok ? [] : r.problems.map((p) => `${p.field}:${p.code}`)).toEqual(['Email:209']);
  });
  it('a whole-number cell refused (249) leaves the rule across fields (250) on the same value', () => {
    const r = coerceAndValidateUser({ ...user, SpecialNeeds: 'no', ReasonableAdjustmentPercentage: 'abc' });
    expect(r.ok ? [] : r.problems.map((p) => `${p.field}:${p.code}`)).toEqual([
      'ReasonableAdjustmentPercentage:249',
      'ReasonableAdjustmentPercentage:250',
    ]);
  });
  it('a Hierarchies entry coercion could not read is said once, not again inside the entry', () => {
    const r = coerceAndValidateUser({ ...user, Hierarchies: 'H-1:bogus|H-2' });
    expect(r.ok ? [] : r.problems.map((p) => p.field)).toEqual(['Hierarchies[0]']);
    expect(r.ok ? '' : r.problems[0]?.message).toMatch(/unknown flag "bogus"/);
  });
});
