import { describe, it, expect } from 'vitest';
import type { CollectionRequest, ScheduleRequest, UserRequest } from '../../src/domain/types.js';
import type { WorldUser } from '../../src/domain/world.js';
import { candidate, codes, demoEngine, scheduleRequest } from './helpers.js';

// A second pass over docs/interpretations.md: the points not covered elsewhere, each producing its
// code through the engine (the engine calls the domain rules; these prove the codes reach a caller).

const user = (store: ReturnType<typeof demoEngine>['store'], id: string) =>
  store.state.get('users')!.get(id) as WorldUser;

describe('ReasonableAdjustmentPercentage only with SpecialNeeds true (249, 250)', () => {
  it('the engine answers 249 for a percentage out of range, on a user and on a candidate', async () => {
    const { engine } = demoEngine();
    const onUser = await engine.upsertUser({
      ExternalId: 'u-249',
      FirstName: 'A',
      LastName: 'B',
      Role: 'Candidate',
      SpecialNeeds: true,
      ReasonableAdjustmentPercentage: 1000,
    } as unknown as UserRequest);
    expect(onUser.status).toBe(400);
    expect(codes(onUser.envelope.Errors)).toEqual([249]);
    const onCandidate = await engine.createSchedule(
      scheduleRequest({
        Candidates: [candidate('c-249', { SpecialNeeds: 'true', ReasonableAdjustmentPercentage: -1 })],
      }) as unknown as ScheduleRequest,
    );
    expect(codes(onCandidate.envelope.Errors)).toEqual([249]);
  });

  it('a user update that sets SpecialNeeds false drops the stored percentage (no 250 state is ever stored)', async () => {
    const { engine, store } = demoEngine();
    const create = await engine.upsertUser({
      ExternalId: 'u-250',
      FirstName: 'A',
      LastName: 'B',
      Role: 'Candidate',
      SpecialNeeds: true,
      ReasonableAdjustmentPercentage: 25,
    } as unknown as UserRequest);
    expect(create.action).toBe('created');
    expect(user(store, 'u-250')).toMatchObject({ SpecialNeeds: true, ReasonableAdjustmentPercentage: 25 });

    // An update that does not touch SpecialNeeds keeps both.
    await engine.upsertUser({ ExternalId: 'u-250', FirstName: 'A2', LastName: 'B' } as unknown as UserRequest);
    expect(user(store, 'u-250')).toMatchObject({
      FirstName: 'A2',
      SpecialNeeds: true,
      ReasonableAdjustmentPercentage: 25,
    });

    const cleared = await engine.upsertUser({
      ExternalId: 'u-250',
      FirstName: 'A2',
      LastName: 'B',
      SpecialNeeds: false,
    } as unknown as UserRequest);
    expect(cleared.action).toBe('updated');
    expect(user(store, 'u-250').SpecialNeeds).toBe(false);
    expect(user(store, 'u-250')).not.toHaveProperty('ReasonableAdjustmentPercentage');
    expect(cleared.envelope.Content!.User).not.toHaveProperty('ReasonableAdjustmentPercentage');

    // Setting a percentage while SpecialNeeds is false in the same request is 250.
    const refused = await engine.upsertUser({
      ExternalId: 'u-250',
      FirstName: 'A2',
      LastName: 'B',
      SpecialNeeds: false,
      ReasonableAdjustmentPercentage: 0,
    } as unknown as UserRequest);
    expect(codes(refused.envelope.Errors)).toEqual([250]);
  });

  it('a candidate with SpecialNeeds "false" drops the percentage stored on its user', async () => {
    const { engine, store } = demoEngine();
    const first = await engine.createSchedule(
      scheduleRequest({
        Candidates: [candidate('c-250', { SpecialNeeds: 'true', ReasonableAdjustmentPercentage: 10 })],
      }) as unknown as ScheduleRequest,
    );
    expect(first.envelope.Success).toBe(true);
    expect(user(store, 'c-250')).toMatchObject({ SpecialNeeds: true, ReasonableAdjustmentPercentage: 10 });
    const second = await engine.createSchedule(
      scheduleRequest({
        Schedule: { ScheduleExtId: 'S-NEW-2' },
        Candidates: [candidate('c-250', { SpecialNeeds: 'false' })],
      }) as unknown as ScheduleRequest,
    );
    expect(second.envelope.Success).toBe(true);
    expect(user(store, 'c-250').SpecialNeeds).toBe(false);
    expect(user(store, 'c-250')).not.toHaveProperty('ReasonableAdjustmentPercentage');
  });
});

describe('collection list entries (901, 902, 1004) reach the caller through the engine', () => {
  const add = (body: Record<string, unknown>) =>
    demoEngine().engine.addCollection(body as unknown as CollectionRequest);

  it('901: an empty taxonomy entry', async () => {
    const result = await add({ Title: 'C', Taxonomies: [{}] });
    expect(result.status).toBe(400);
    expect(codes(result.envelope.Errors)).toContain(901);
  });

  it('902: a taxonomy entry without ExternalId', async () => {
    const result = await add({ Title: 'C', Taxonomies: [{ ExternalId: '', Title: 'x' }] });
    expect(codes(result.envelope.Errors)).toContain(902);
  });

  it('1004: a repository entry without ExternalId, under either list name', async () => {
    for (const list of ['ObjectiveRepositories', 'LoRepositoryExternalIds']) {
      const result = await add({ Title: 'C', [list]: [{ ExternalId: '', Title: 'x' }] });
      expect(codes(result.envelope.Errors)).toContain(1004);
    }
  });
});

describe('a generated schedule Title fits string(100)', () => {
  it('cuts a long assessment title (by code points) and keeps the start time', async () => {
    const long = `Mathematics ${'é'.repeat(60)}${'😀'.repeat(40)}`;
    const { engine, store } = demoEngine((world) => {
      world.Assessments.find((a) => a.ExternalId === 'A-MATH-1')!.Title = long;
    });
    const result = await engine.createSchedule(scheduleRequest() as unknown as ScheduleRequest);
    expect(result.envelope.Success).toBe(true);
    const title = (store.state.get('schedules')!.get('S-NEW-1') as { Title: string }).Title;
    expect([...title].length).toBeLessThanOrEqual(100);
    expect(title.endsWith('… 2026-12-01 09:00 UTC')).toBe(true);
    expect(title.startsWith('Mathematics éé')).toBe(true);
    expect(encodeURIComponent(title)).toBeTruthy(); // throws on a lone surrogate
    // A short title is used whole.
    const short = demoEngine();
    await short.engine.createSchedule(scheduleRequest() as unknown as ScheduleRequest);
    expect((short.store.state.get('schedules')!.get('S-NEW-1') as { Title: string }).Title).toBe(
      'Mathematics 1 2026-12-01 09:00 UTC',
    );
  });
});
