/**
 * The request schemas of src/domain/schemas.ts (what the OpenAPI document and `examctl schema`
 * say the API takes) against the validators, the one validator: each row states the validator's
 * expected verdict, and every input the validator accepts, and the wire value it sends, the
 * document takes too, so the document never refuses a body the engine takes.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Problem, Validation } from '../../src/domain/problem.js';
import { validateUser } from '../../src/domain/user.js';
import { validateScheduleRequest } from '../../src/domain/schedule.js';
import { validateCollection } from '../../src/domain/collection.js';
import { INVIGILATOR_IDS_FIELD, validateInvigilatorRemoval } from '../../src/domain/invigilators.js';
import type { FieldRule, RuleTable } from '../../src/domain/field-rules.js';
import { HIERARCHY_TABLE, USER_TABLE } from '../../src/domain/user.js';
import { CANDIDATE_TABLE, SCHEDULE_TABLE } from '../../src/domain/schedule.js';
import { COLLECTION_TABLE, ID_TITLE_ENTRY_TABLE } from '../../src/domain/collection.js';
import {
  collectionRequestSchema,
  invigilatorIdsSchema,
  scheduleRequestSchema,
  userRequestSchema,
  wireSchema,
} from '../../src/domain/schemas.js';

/** Validates; an accepted input and its wire value must satisfy the document's schema, a refused one says why. */
function agree(schema: z.ZodType, validate: (v: unknown) => Validation<unknown>, input: unknown): Validation<unknown> {
  const fast = validate(input);
  if (fast.ok) {
    const taken = schema.safeParse(input);
    expect(
      taken.success,
      `the document refuses what the validator accepts: ${JSON.stringify(taken.error?.issues)}`,
    ).toBe(true);
    const sent = schema.safeParse(fast.value);
    expect(sent.success, `the document refuses what the validator sends: ${JSON.stringify(sent.error?.issues)}`).toBe(
      true,
    );
  } else {
    expect(fast.problems.length).toBeGreaterThan(0);
    for (const problem of fast.problems) expect(problem.message).not.toBe('');
  }
  return fast;
}

const user = (fields: Record<string, unknown>) => ({
  ExternalId: 'u-1',
  FirstName: 'Ada',
  LastName: 'Lovelace',
  ...fields,
});
const agreeUser = (input: unknown) => agree(userRequestSchema, (v) => validateUser(v), input);

const emoji = '😀';
type Row = [field: string, value: unknown, valid: boolean];
/** Test titles show a value's start and length, not 500 characters of it. */
const show = (v: unknown): string => {
  const json = JSON.stringify(v) ?? String(v);
  return json.length > 40 ? `${json.slice(0, 24)}... (${json.length} chars)` : json;
};
const titled = (rows: Row[]) =>
  rows.map(([field, value, valid]) => [`${field} = ${show(value)} (valid: ${valid})`, field, value, valid] as const);

const userRows: Row[] = [
  ['ExternalId', 'a-Z_0@9', true],
  ['ExternalId', 'x'.repeat(64), true],
  ['ExternalId', 'x'.repeat(65), false],
  ['ExternalId', 'has space', false],
  ['ExternalId', `${'x'.repeat(65)} `, false],
  ['ExternalId', '', false],
  ['ExternalId', '   ', false],
  ['ExternalId', null, false],
  ['ExternalId', 12, false],
  ['FirstName', emoji.repeat(500), true],
  ['FirstName', emoji.repeat(501), false],
  ['FirstName', '', false],
  ['LastName', 'x'.repeat(501), false],
  ['Email', 'a@b.co', true],
  ['Email', '', true],
  ['Email', null, true],
  ['Email', 'a@b', false],
  ['Email', 'a b@c.de', false],
  ['Email', `${'a'.repeat(95)}@b.co`, true],
  ['Email', `${'a'.repeat(96)}@b.co`, false],
  ['Email', 5, false],
  ['UserName', 'ada', true],
  ['UserName', 'a da', false],
  ['UserName', 'a\tb', false],
  ['UserName', 'x'.repeat(51), false],
  ['Role', 'Candidate', true],
  ['Role', 'x'.repeat(501), false],
  ['Photo', 'https://example.org/p.png', true],
  ['Photo', 'ftp://example.org/p.png', false],
  ['Photo', 'not a url', false],
  ['DateOfBirth', '1990-02-28', true],
  ['DateOfBirth', '19900228', true],
  ['DateOfBirth', '1990-02-30', false],
  ['DateOfBirth', '1990-2-3', false],
  ['DateOfBirth', '1990-02-280', false],
  ['Company', 'x'.repeat(100), true],
  ['Company', 'x'.repeat(101), false],
  ['CountryCode', 'x'.repeat(21), false],
  ['State', 'x'.repeat(51), false],
  ['City', 'x'.repeat(51), false],
  ['PostalCode', 12345, false],
  ['PostalCode', 'x'.repeat(51), false],
  ['PostalAddress', 'x'.repeat(501), false],
  ['AddressLine1', 'x'.repeat(501), false],
  ['AddressLine2', 'x'.repeat(500), true],
  ['PhoneNumber', 'x'.repeat(51), false],
  ['CellularPhone', 'x'.repeat(50), true],
  ['SpecialNeeds', true, true],
  ['SpecialNeeds', null, true],
  ['SpecialNeeds', 'yes', false],
  ['EnableReadSpeaker', false, true],
  ['DisableLogin', 'true', false],
  ['DisablePasswordReset', 1, false],
  ['SynchronizationKey', '3f2504e0-4f89-11d3-9a0c-0305e82c3301', true],
  ['SynchronizationKey', '{3F2504E0-4F89-11D3-9A0C-0305E82C3301}', true],
  ['SynchronizationKey', '3f2504e0-4f89-11d3-9a0c', false],
  ['Labels', ['a', ' b ', 'A'], true],
  ['Labels', [], true],
  ['Labels', Array.from({ length: 21 }, (_, i) => `l${i}`), false],
  ['Labels', ['a', ' a'], false],
  ['Labels', ['', 'b'], false],
  ['Labels', ['x'.repeat(101)], false],
  ['Labels', [3], false],
  ['Labels', 'a|b', false],
  ['AllowedIpAddresses', ['10.0.0.1', '10.0.0.0/8', '2001:db8::/32', '10.0.0.1-10.0.0.9', ' ::1 '], true],
  ['AllowedIpAddresses', ['::1', '0:0::1'], false],
  ['AllowedIpAddresses', ['10.0.0.9-10.0.0.1'], false],
  ['AllowedIpAddresses', ['010.0.0.1'], false],
  ['AllowedIpAddresses', Array.from({ length: 101 }, (_, i) => `10.0.${Math.floor(i / 200)}.${i}`), false],
  ['Password', 'secret', true],
  ['Password', emoji.repeat(500), true],
  ['Password', 'abcd', false],
  ['Password', 'x'.repeat(501), false],
  ['Password', 12345, false],
  ['Hierarchies', [{ ExternalId: 'H-1', IsCoordinator: true, Action: 'delete' }, { ExternalId: 'H-2' }], true],
  ['Hierarchies', [], true],
  ['Hierarchies', [null], false],
  ['Hierarchies', [{ ExternalId: 'H-1' }, { ExternalId: 'H-1' }], false],
  ['Hierarchies', [{ ExternalId: 'H-1', Action: 'MOVE' }], false],
  ['Hierarchies', [{ ExternalId: 'H-1', Action: 5 }], false],
  ['Hierarchies', [{ ExternalId: 'H-1', IsCoordinater: true }], false],
  ['Hierarchies', [{ IsCoordinator: 'yes' }], false],
  ['Hierarchies', ['H-1'], false],
  ['Hierarchies', { ExternalId: 'H-1' }, false],
  ['ReasonableAdjustmentPercentage', 12.5, false],
  ['ReasonableAdjustmentPercentage', -1, false],
  ['ReasonableAdjustmentPercentage', 'abc', false],
];

describe('user: validateUser, and the document takes what it takes', () => {
  it.each(titled(userRows))('%s', (_title, field, value, valid) => {
    expect(agreeUser(user({ [field]: value })).ok).toBe(valid);
  });

  it.each<[string, Record<string, unknown>, boolean]>([
    ['250: percentage without SpecialNeeds', { ReasonableAdjustmentPercentage: 20 }, false],
    ['250: percentage 0 with SpecialNeeds false', { ReasonableAdjustmentPercentage: 0, SpecialNeeds: false }, false],
    ['250 and 249 together', { ReasonableAdjustmentPercentage: 'abc' }, false],
    [
      'no 250 when SpecialNeeds is itself invalid',
      { ReasonableAdjustmentPercentage: 20, SpecialNeeds: 'maybe' },
      false,
    ],
    ['percentage with SpecialNeeds true', { ReasonableAdjustmentPercentage: 999, SpecialNeeds: true }, true],
    ['unknown field with a case hint', { firstname: 'x', Emial: 'a@b.co' }, false],
    ['several problems at once', { ExternalId: 'bad id!', Email: 'x', Labels: [''], Hierarchies: [null] }, false],
  ])('%s', (_name, fields, valid) => {
    expect(agreeUser(user(fields)).ok).toBe(valid);
  });

  it('reports the record-level problems the same way', () => {
    for (const input of [null, [], 'user', {}, { FirstName: 'A' }]) expect(agreeUser(input).ok).toBe(false);
  });

  it('carries the API code and the field of each problem', () => {
    const r = validateUser(
      user({ ReasonableAdjustmentPercentage: 20, Hierarchies: [{ ExternalId: 'H' }, { ExternalId: 'H' }] }),
    );
    expect(r.ok).toBe(false);
    const problems: Problem[] = r.ok ? [] : r.problems;
    expect(problems.map((p) => [p.field, p.code]).sort()).toEqual([
      ['Hierarchies[1].ExternalId', 243],
      ['ReasonableAdjustmentPercentage', 250],
    ]);
  });
});

const schedule = {
  AssessmentExtId: 'A-1',
  StartDateTime: '2026-03-01T09:00:00Z',
  GroupExtId: 'G-1',
  GroupName: 'Group',
};
const candidate = { CandidateExtId: 'C-1', FirstName: 'Ada', LastName: 'Lovelace', Email: 'ada@example.org' };
const agreeSchedule = (input: unknown) => agree(scheduleRequestSchema, validateScheduleRequest, input);

const scheduleRows: Row[] = [
  ['AssessmentExtId', 'A-1', true],
  ['AssessmentExtId', 'A_1', false],
  ['AssessmentExtId', '', false],
  ['AssessmentExtId', 'x'.repeat(65), false],
  ['Title', 'x'.repeat(101), false],
  ['ScheduleExtId', 'S-1', true],
  ['ScheduleExtId', 'S 1', false],
  ['StartDateTime', '2026-03-01 09:00:00.123456+01:00', true],
  ['StartDateTime', '2026-03-01T09:00:00', false],
  ['StartDateTime', '2026-02-30T09:00:00Z', false],
  ['StartDateTime', 'tomorrow', false],
  ['EndDateTime', '2026-03-01T10:00:00Z', true],
  ['EndDateTime', '2026-03-01T09:00:00Z', false],
  ['EndDateTime', '2026-03-01T09:30:00+01:00', false],
  ['GroupExtId', 'G.1', false],
  ['GroupName', '   ', false],
  ['ScheduleGroupExtId', 'any thing', true],
  ['ScheduleGroupExtId', 'x'.repeat(65), false],
  ['ScheduleGroupName', 'x'.repeat(501), false],
  ['LockExamOnConnectionLoss', 'no', false],
  ['Owner', 'owner', true],
  ['PIN', '0420', true],
  // string(4) is all the API text says: a shorter or non-digit PIN is sent (with a warning).
  ['PIN', '420', true],
  ['PIN', 'ab12', true],
  ['PIN', '04200', false],
  ['PIN', 420, false],
  ['UseProctoringService', true, true],
  ['ProctoringServiceTemplateExternalId', 'PTSTD', true],
  ['ProctoringServiceTemplateExternalId', 'PtStd2', true],
  // "Alphanumeric": no dashes, unlike the ids beside it.
  ['ProctoringServiceTemplateExternalId', 'PT-STD', false],
  ['ProctoringServiceTemplateExternalId', 'PT STD', false],
  ['UseKeyCode', null, true],
  ['enableAutomaticDataCleanup', 'true', false],
  ['dataCleanupNoticePeriod', 'P30D', true],
  ['dataCleanupNoticePeriod', 30, false],
  ['StartTime', '09:00', false],
];

const candidateRows: Row[] = [
  ['CandidateExtId', 'C-2', true],
  ['CandidateExtId', 'C_2', false],
  ['CandidateExtId', 'x'.repeat(501), false],
  ['CandidateExtId', null, false],
  ['FirstName', '', false],
  ['Email', 'no-at-sign', false],
  ['Email', 'x'.repeat(490) + '@example.org', false],
  ['UserName', 'a b', true],
  ['Password', 'x', true],
  ['Password', 'x'.repeat(501), false],
  ['SpecialNeeds', 'TRUE', true],
  ['SpecialNeeds', false, true],
  ['SpecialNeeds', 'yes', false],
  ['ReasonableAdjustmentPercentage', 12.5, false],
  ['AttemptExtId', 'AT-1', false],
  ['Photo', 'any string', true],
  ['CompId', 'x'.repeat(501), false],
  ['ProctorUIds', ['p1', 'p2'], true],
  ['ProctorUIds', ['p1', ''], false],
  ['ProctorUIds', 'p1', false],
  ['Emial', 'a@b.co', false],
];

describe('schedule: validateScheduleRequest, and the document takes what it takes', () => {
  it.each(titled(scheduleRows))('Schedule.%s', (_title, field, value, valid) => {
    expect(agreeSchedule({ Schedule: { ...schedule, [field]: value }, Candidates: [candidate] }).ok).toBe(valid);
  });

  it.each(titled(candidateRows))('Candidates[0].%s', (_title, field, value, valid) => {
    expect(agreeSchedule({ Schedule: schedule, Candidates: [{ ...candidate, [field]: value }] }).ok).toBe(valid);
  });

  it.each<[string, unknown, boolean]>([
    [
      'Workflow any case',
      { Workflow: 'external_attempts', Schedule: schedule, Candidates: [{ ...candidate, AttemptExtId: 'A1' }] },
      true,
    ],
    [
      'EXTERNAL_ATTEMPTS needs AttemptExtId',
      { Workflow: 'EXTERNAL_ATTEMPTS', Schedule: schedule, Candidates: [candidate] },
      false,
    ],
    [
      'DEFAULT forbids AttemptExtId',
      { Workflow: 'DEFAULT', Schedule: schedule, Candidates: [{ ...candidate, AttemptExtId: 'A1' }] },
      false,
    ],
    [
      'invalid Workflow: no AttemptExtId guess',
      { Workflow: 'NIGHTLY', Schedule: schedule, Candidates: [{ ...candidate, AttemptExtId: 'A1' }] },
      false,
    ],
    ['Upsert must be boolean', { Upsert: 'yes', Schedule: schedule, Candidates: [] }, false],
    [
      '250 on a candidate',
      { Schedule: schedule, Candidates: [{ ...candidate, ReasonableAdjustmentPercentage: 10 }] },
      false,
    ],
    [
      '250 satisfied',
      { Schedule: schedule, Candidates: [{ ...candidate, SpecialNeeds: 'true', ReasonableAdjustmentPercentage: 10 }] },
      true,
    ],
    [
      'duplicate CandidateExtId ignoring case',
      { Schedule: schedule, Candidates: [candidate, { ...candidate, CandidateExtId: 'c-1' }] },
      false,
    ],
    ['a candidate that is not an object', { Schedule: schedule, Candidates: [candidate, null, 'C-3'] }, false],
    ['empty Candidates list', { Schedule: schedule, Candidates: [] }, true],
    ['missing Schedule', { Candidates: [candidate] }, false],
    ['Schedule not an object', { Schedule: 'S-1', Candidates: [candidate] }, false],
    ['missing Candidates', { Schedule: schedule }, false],
    ['Candidates not a list', { Schedule: schedule, Candidates: candidate }, false],
    ['all fields empty', { Schedule: {}, Candidates: [] }, false],
    ['not an object', [schedule], false],
    ['unknown top-level field', { Schedule: schedule, Candidates: [], workflow: 'DEFAULT' }, false],
    [
      'problems everywhere at once',
      { Workflow: 'x', Schedule: { ...schedule, PIN: '12345' }, Candidates: [{ Email: 'bad' }, candidate, candidate] },
      false,
    ],
  ])('%s', (_name, input, valid) => {
    expect(agreeSchedule(input).ok).toBe(valid);
  });
});

const agreeCollection = (input: unknown) => agree(collectionRequestSchema, validateCollection, input);

const collectionRows: Row[] = [
  ['ExternalId', 'col1', true],
  // "a-z and 0-9" (802): the text's letter, which the engine and the document keep.
  ['ExternalId', 'Col1', false],
  ['ExternalId', 'col-1', false],
  ['ExternalId', 'x'.repeat(65), false],
  ['Title', 'x'.repeat(99), true],
  ['Title', 'x'.repeat(100), false],
  ['Title', emoji.repeat(99), true],
  ['Title', '  ', false],
  ['Title', 7, false],
  ['Owner', 'x'.repeat(65), false],
  ['Taxonomies', [{ ExternalId: 'T1', Title: 'Tax' }], true],
  ['Taxonomies', null, true],
  ['Taxonomies', [], true],
  ['Taxonomies', [null], false],
  ['Taxonomies', [{}], false],
  ['Taxonomies', [{ ExternalId: '' }], false],
  ['Taxonomies', [{ ExternalId: 'T1', Name: 'x' }], false],
  ['Taxonomies', 'T1', false],
  ['LoRepositoryExternalIds', [{ ExternalId: 'R1' }], true],
  ['LoRepositoryExternalIds', [{ Title: 'no id' }], false],
  ['ObjectiveRepositories', [null, { ExternalId: 'R1' }], false],
  ['ObjectiveRepositories', [{ ExternalId: 'x'.repeat(65) }], false],
];

describe('collection: validateCollection, and the document takes what it takes', () => {
  it.each(titled(collectionRows))('%s', (_title, field, value, valid) => {
    expect(agreeCollection({ Title: 'Collection', [field]: value }).ok).toBe(valid);
  });

  it('reports a missing Title and a non-object the same way', () => {
    expect(agreeCollection({ Owner: 'o' }).ok).toBe(false);
    expect(agreeCollection('Collection').ok).toBe(false);
  });
});

describe('invigilators: validateInvigilatorRemoval, and the document takes what it takes', () => {
  const validateBody = (ids: unknown): Validation<unknown> => {
    const r = validateInvigilatorRemoval('S-1', ids);
    if (r.ok) return { ok: true, value: r.value.userExtIds };
    // The schema is the body itself, so its paths start inside the list: UserExtIds[2] is [2].
    return {
      ok: false,
      problems: r.problems.map((p) => ({ ...p, field: p.field.slice(INVIGILATOR_IDS_FIELD.length) })),
    };
  };
  it.each<[unknown, boolean]>([
    [['u1', 'u2', 'u1'], true],
    [[], false],
    [null, false],
    ['u1', false],
    [['', 3], false],
    [['u1', '', 3], false],
  ])('%j (valid: %s)', (ids, valid) => {
    expect(agree(invigilatorIdsSchema, validateBody, ids).ok).toBe(valid);
  });
});

describe("each rule's wire schema is built from the numbers its check enforces", () => {
  const tables: [string, RuleTable][] = [
    ['user', USER_TABLE],
    ['hierarchy', HIERARCHY_TABLE],
    ['schedule', SCHEDULE_TABLE],
    ['candidate', CANDIDATE_TABLE],
    ['collection', COLLECTION_TABLE],
    ['list entry', ID_TITLE_ENTRY_TABLE],
  ];
  const stringRules = tables.flatMap(([entity, table]) =>
    table.rules
      .map((rule): [string, FieldRule, number] => {
        const json = z.toJSONSchema(wireSchema(rule), { io: 'input', unrepresentable: 'any' }) as {
          type?: string;
          maxLength?: number;
        };
        return [`${entity}.${rule.name}`, rule, json.type === 'string' ? (json.maxLength ?? -1) : -1];
      })
      .filter(([, , max]) => max >= 0),
  );

  it('covers the string fields of every table', () => {
    expect(stringRules.length).toBeGreaterThan(50);
  });

  it.each(stringRules)('%s: maxLength %i is where the check starts refusing for length', (_name, rule, max) => {
    const problemsFor = (value: string) => {
      const problems: Problem[] = [];
      rule.check(value, rule.name, problems);
      return problems.map((p) => p.message);
    };
    const atMax = problemsFor('7'.repeat(max));
    const overMax = problemsFor('7'.repeat(max + 1));
    // One more character adds a problem of its own (the length one), whatever else the value breaks.
    expect(overMax.filter((m) => !atMax.includes(m))).toHaveLength(1);
  });

  it('describes each rule with its codes', () => {
    const described = (rule: FieldRule | undefined) =>
      (rule === undefined ? undefined : wireSchema(rule).description) ?? '';
    expect(described(USER_TABLE.byName.get('ExternalId'))).toMatch(/code 206.*code 218.*code 219/);
    expect(described(USER_TABLE.byName.get('FirstName'))).toMatch(/At most 500 characters \(code \d+\)/);
    expect(described(USER_TABLE.byName.get('Labels'))).toMatch(/code 234.*code 235.*code 236/);
    expect(described(HIERARCHY_TABLE.byName.get('Action'))).toContain('(code 244)');
    expect(described(COLLECTION_TABLE.byName.get('Taxonomies'))).toMatch(/code 901.*code 902/);
    expect(described(CANDIDATE_TABLE.byName.get('ReasonableAdjustmentPercentage'))).toMatch(/code 249.*code 250/);
    // The schedule endpoint numbers none of these: no code is claimed.
    expect(described(SCHEDULE_TABLE.byName.get('AssessmentExtId'))).not.toContain('code');
  });

  it("builds each rule's schema once and hands the same one back", () => {
    const rule = USER_TABLE.byName.get('Labels') as FieldRule;
    expect(wireSchema(rule)).toBe(wireSchema(rule));
  });
});
