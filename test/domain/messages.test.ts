import { describe, it, expect } from 'vitest';
import { z } from 'zod';
import { checkScheduleSpan, defaultEndDateTime, hierarchyNotFoundMessage } from '../../src/domain/messages.js';
import { USER_COLUMNS, CANDIDATE_COLUMNS, SCHEDULE_COLUMNS, COLLECTION_COLUMNS } from '../../src/domain/columns.js';
import { USER_FIELDS } from '../../src/domain/user.js';
import { userRequestSchema } from '../../src/domain/schemas.js';
import { validateUser } from '../../src/domain/user.js';

describe('schedule span (shared with the engine)', () => {
  it('default end is start + duration + 60 minutes', () => {
    expect(defaultEndDateTime('2026-03-01T09:00:00.000Z', 90)).toBe('2026-03-01T11:30:00.000Z');
  });
  it('the span must be strictly longer than duration + extra', () => {
    expect(checkScheduleSpan('2026-03-01T09:00:00.000Z', '2026-03-01T10:40:00.000Z', 90, 10)?.message).toContain(
      'lasts 100 minutes (StartDateTime 2026-03-01T09:00:00.000Z to EndDateTime 2026-03-01T10:40:00.000Z)',
    );
    expect(checkScheduleSpan('2026-03-01T09:00:00.000Z', '2026-03-01T10:41:00.000Z', 90, 10)).toBeNull();
  });
  it('a default end says it was the default and from when an EndDateTime would do', () => {
    // 180 minutes + 90 extra: the default end (start + 240) is 30 minutes short.
    const p = checkScheduleSpan(
      '2026-12-01T09:00:00.000Z',
      defaultEndDateTime('2026-12-01T09:00:00.000Z', 180),
      180,
      90,
      true,
    );
    expect(p).toMatchObject({ field: 'Schedule.EndDateTime', code: null });
    expect(p!.message).toContain(
      'to the default EndDateTime 2026-12-01T13:00:00.000Z, start + duration + 60 minutes, as the request gives no EndDateTime',
    );
    expect(p!.message).toMatch(/180 \+ 90 = 270 minutes\); give an EndDateTime later than 2026-12-01T13:30:00\.000Z$/);
    // An end the request gave is not called the default, and no remedy is guessed.
    const given = checkScheduleSpan('2026-12-01T09:00:00.000Z', '2026-12-01T13:00:00.000Z', 180, 90);
    expect(given!.message).not.toContain('default');
    expect(given!.message).not.toContain('give an EndDateTime');
  });
  it('the message names both figures', () => {
    const p = checkScheduleSpan('2026-03-01T09:00:00.000Z', '2026-03-01T10:40:00.000Z', 90, 15)!;
    expect(p).toMatchObject({ field: 'Schedule.EndDateTime', code: null });
    expect(p.message).toContain('100 minutes');
    expect(p.message).toContain('90 + 15 = 105 minutes');
  });
  it('per-hierarchy messages name the hierarchy', () => {
    expect(hierarchyNotFoundMessage('H-9')).toBe('Hierarchy not found: H-9');
  });
});

describe('column catalogs', () => {
  const kindOf = (cols: readonly { name: string; kind: string }[], name: string) =>
    cols.find((c) => c.name === name)?.kind;
  it('list columns', () => {
    expect(kindOf(USER_COLUMNS, 'Labels')).toBe('list');
    expect(kindOf(USER_COLUMNS, 'AllowedIpAddresses')).toBe('list');
    expect(kindOf(USER_COLUMNS, 'Hierarchies')).toBe('list');
    expect(kindOf(USER_COLUMNS, 'Email')).toBe('string');
    expect(kindOf(CANDIDATE_COLUMNS, 'ProctorUIds')).toBe('list');
    expect(kindOf(COLLECTION_COLUMNS, 'Taxonomies')).toBe('list');
    expect(kindOf(COLLECTION_COLUMNS, 'ObjectiveRepositories')).toBe('list');
  });
  it('sittings columns hold the schedule fields plus Workflow and Upsert', () => {
    const names = SCHEDULE_COLUMNS.map((c) => c.name);
    expect(names).toEqual(
      expect.arrayContaining(['ScheduleExtId', 'AssessmentExtId', 'StartDateTime', 'PIN', 'Workflow', 'Upsert']),
    );
    expect(names).not.toContain('CandidateExtId');
    // Derived from the rule table, not a count: a new field is a column at once.
    expect(USER_COLUMNS.map((c) => c.name)).toEqual(USER_FIELDS);
  });
});

describe('the validator and the document of a user request', () => {
  it('the validator carries codes and paths; the document takes an empty Email as unset', () => {
    const r = validateUser({
      ExternalId: 'u 1',
      FirstName: 'A',
      LastName: 'B',
      Hierarchies: [{ ExternalId: 'H', Action: 'x' }],
    });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.problems.map((p) => `${p.field}:${p.code}`).sort()).toEqual([
        'ExternalId:219',
        'Hierarchies[0].Action:244',
      ]);
    expect(validateUser({ ExternalId: 'u1', FirstName: 'A', LastName: 'B', Email: '' })).toEqual({
      ok: true,
      value: { ExternalId: 'u1', FirstName: 'A', LastName: 'B' },
    });
    expect(userRequestSchema.safeParse({ ExternalId: 'u1', FirstName: 'A', LastName: 'B', Email: '' }).success).toBe(
      true,
    );
  });
  it('the document declares every field of the table, and no other', () => {
    const json = z.toJSONSchema(userRequestSchema, { io: 'input', unrepresentable: 'any' }) as {
      properties: Record<string, unknown>;
      additionalProperties?: unknown;
    };
    expect(Object.keys(json.properties)).toEqual(USER_FIELDS);
    expect(json.additionalProperties).toBe(false);
  });
});
