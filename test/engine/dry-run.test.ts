import { describe, it, expect } from 'vitest';
import type { ScheduleRequest, UserRequest } from '../../src/domain/types.js';
import { codes, demoEngine, scheduleRequest } from './helpers.js';

const user = (id: string, extra: Record<string, unknown> = {}) =>
  ({ ExternalId: id, FirstName: 'F', LastName: 'L', Role: 'Author', ...extra }) as unknown as UserRequest;

describe('dry run (plan)', () => {
  it('runs every state rule, writes nothing, and says created / updated / unchanged', async () => {
    const { engine, store } = demoEngine();
    const created = await engine.upsertUser(user('u-plan-1'), { dryRun: true });
    expect(created.action).toBe('created');
    const updated = await engine.upsertUser(
      user('c-1002', { FirstName: 'Benny', LastName: 'Okafor', Role: undefined }),
      { dryRun: true },
    );
    expect(updated.action).toBe('updated');
    const unchanged = await engine.upsertUser(user('author-2', { FirstName: 'Jo', LastName: 'Doe', Role: undefined }), {
      dryRun: true,
    });
    expect(unchanged.action).toBe('unchanged');
    const refused = await engine.upsertUser(user('u-plan-2', { Role: 'Wizard' }), { dryRun: true });
    expect(codes(refused.envelope.Errors)).toEqual([241]);
    expect(store.commits).toEqual([]);
    expect(store.state.get('users')!.has('u-plan-1')).toBe(false);
  });

  it('later dry-run calls see earlier planned changes (214 on a UserName planned earlier)', async () => {
    const { engine } = demoEngine();
    const first = await engine.upsertUser(user('u-plan-1', { UserName: 'plan.name' }), { dryRun: true });
    expect(first.envelope.Success).toBe(true);
    const second = await engine.upsertUser(user('u-plan-2', { UserName: 'Plan.Name' }), { dryRun: true });
    expect(codes(second.envelope.Errors)).toEqual([214]);
    const again = await engine.upsertUser(user('u-plan-1', { UserName: 'plan.name' }), { dryRun: true });
    expect(again.action).toBe('unchanged');
  });

  it('a planned schedule makes a second create of the same id a duplicate, and its group exists for later plans', async () => {
    const { engine, store } = demoEngine();
    const body = scheduleRequest({
      Schedule: { GroupExtId: 'H-PLANNED', GroupName: 'Planned' },
    }) as unknown as ScheduleRequest;
    expect((await engine.createSchedule(body, { dryRun: true })).action).toBe('created');
    const duplicate = await engine.createSchedule(body, { dryRun: true });
    expect(duplicate.status).toBe(400);
    expect(JSON.stringify(duplicate.envelope.Errors)).toContain('Duplicate ScheduleExtId');
    const upsert = await engine.createSchedule({ ...body, Upsert: true }, { dryRun: true });
    expect(upsert.action).toBe('unchanged');
    expect(store.state.get('hierarchies')!.has('H-PLANNED')).toBe(false);
    expect(store.commits).toEqual([]);
  });

  it('planned invigilator removals and collections are seen by later plans', async () => {
    const { engine } = demoEngine();
    expect((await engine.removeInvigilators('S-FUTURE', ['inv-1'], { dryRun: true })).action).toBe('updated');
    const again = await engine.removeInvigilators('S-FUTURE', ['inv-1'], { dryRun: true });
    expect(again.envelope.Content!.Errors.map((e) => e.Code)).toEqual([319]);
    await engine.addCollection({ ExternalId: 'plannedone', Title: 'P' }, { dryRun: true });
    const dup = await engine.addCollection({ ExternalId: 'plannedone', Title: 'P' }, { dryRun: true });
    expect(codes(dup.envelope.Errors)).toEqual([810]);
  });

  it('a real call after a plan reports the same action the plan did', async () => {
    const { engine, store } = demoEngine();
    const planned = await engine.upsertUser(user('u-real'), { dryRun: true });
    const real = await engine.upsertUser(user('u-real'));
    expect(real.action).toBe(planned.action);
    expect(store.state.get('users')!.has('u-real')).toBe(true);
  });
});
