import { describe, expect, it } from 'vitest';
import type { ScheduleRequest } from '../../src/domain/types.js';
import { worldDirectory } from '../../src/engine/directory.js';
import { validateScheduleRequest } from '../../src/domain/schedule.js';
import { candidate, demoEngine, demoWorld, scheduleRequest } from './helpers.js';

describe('local directory for prompts', () => {
  it('lists the roles that take exams first, so a hurried Enter never picks an administrator role', () => {
    const world = demoWorld();
    const titles = worldDirectory(world).roleTitles();
    const participate = world.Roles.filter((role) => role.Participate).map((role) => role.Title);
    expect(participate.length).toBeGreaterThan(0);
    expect(titles.slice(0, participate.length)).toEqual(participate);
    expect([...titles].sort()).toEqual(world.Roles.map((role) => role.Title).sort());
  });
});

describe('store lists for pickers and schedule links', () => {
  it('lists assessments by id, hierarchies with their path from the root, schedules latest first', () => {
    const { engine } = demoEngine();
    expect(engine.assessments().map((entry) => entry.id)).toEqual([
      'A-LANG-QUIZ',
      'A-LAW-EXAM',
      'A-MATH-1',
      'A-PHYS-2',
    ]);
    const lab = engine.hierarchies().find((entry) => entry.id === 'H-NORTH-LAB');
    expect(lab).toEqual({
      id: 'H-NORTH-LAB',
      title: 'North campus - computer lab',
      path: 'Root / North campus / North campus - computer lab',
      active: true,
    });
    expect(engine.hierarchies().find((entry) => entry.id === 'H-OLD')?.active).toBe(false);
    expect(engine.schedules().map((entry) => entry.id)).toEqual(['S-FUTURE', 'S-LIVE', 'S-PAST', 'S-ARCHIVED']);
    expect(engine.schedules().find((entry) => entry.id === 'S-ARCHIVED')?.archived).toBe(true);
  });

  it('gives the same answers over the world file as over the store made from it', () => {
    const { engine, world } = demoEngine();
    const direct = worldDirectory(world);
    expect(direct.assessments()).toEqual(engine.assessments());
    expect(direct.hierarchies()).toEqual(engine.hierarchies());
    expect(direct.schedules()).toEqual(engine.schedules());
    expect(direct.scheduleLinks('S-FUTURE')).toEqual(engine.scheduleLinks('S-FUTURE'));
    expect(direct.userOf('C-1001')).toEqual(engine.userOf('c-1001'));
  });

  it('survives a hierarchy parent cycle in a damaged world', () => {
    const world = demoWorld();
    world.Hierarchies.push(
      { ExternalId: 'H-A', Title: 'A', Parent: 'H-B', Active: true },
      { ExternalId: 'H-B', Title: 'B', Parent: 'H-A', Active: true },
    );
    const paths = worldDirectory(world)
      .hierarchies()
      .filter((entry) => entry.id.startsWith('H-A') || entry.id === 'H-B');
    expect(paths.map((entry) => entry.path)).toEqual(['B / A', 'A / B']);
  });

  it('reads the links the engine stored for new candidates, LaunchUrl only with proctoring, no password', async () => {
    const { engine } = demoEngine();
    const result = await engine.createSchedule(
      scheduleRequest({
        Schedule: { ScheduleExtId: 'S-LINKS', UseProctoringService: true },
        Candidates: [candidate('c-9001', { Password: 'Secret-123!' }), candidate('c-9002')],
      }) as unknown as ScheduleRequest,
    );
    expect(result.envelope.Success).toBe(true);
    const links = engine.scheduleLinks('S-LINKS');
    expect(links?.UseProctoringService).toBe(true);
    expect(links?.Candidates.map((entry) => entry.CandidateExtId)).toEqual(['c-9001', 'c-9002']);
    for (const entry of links?.Candidates ?? []) {
      expect(entry.StartupLink).toMatch(/^https:\/\/exam\.example\.test\/delivery\/external-login\?session=[\w-]{32}$/);
      expect(entry.LaunchUrl).toMatch(/#\/exam\/S-LINKS$/);
    }
    expect(JSON.stringify(links)).not.toContain('Secret-123!');
    expect(engine.scheduleLinks('S-LIVE')?.Candidates.every((entry) => entry.LaunchUrl === undefined)).toBe(true);
    expect(engine.scheduleLinks('S-NOPE')).toBeNull();
  });
});

describe('scheduleChanges: what schedule push --upsert of a request would change in the stored schedule', () => {
  const { engine, world } = demoEngine();
  /** The request that stores schedule `id` as it is (its candidates without the links the store made). */
  const asStored = (id: string): ScheduleRequest => {
    const stored = world.Schedules.find((schedule) => schedule.ScheduleExtId === id)!;
    const { Workflow, Archived: _archived, Invigilators: _invigilators, Candidates, ...Schedule } = stored;
    const validation = validateScheduleRequest({
      Workflow,
      Schedule,
      Candidates: Candidates.map(({ StartupLink: _startup, LaunchUrl: _launch, ...fields }) => fields),
    });
    if (!validation.ok) throw new Error(JSON.stringify(validation.problems));
    return validation.value;
  };

  it('nothing for a schedule as stored, one already started too; null for a schedule the store does not hold', () => {
    expect(engine.scheduleChanges(asStored('S-FUTURE'))).toEqual({ changed: [] });
    expect(engine.scheduleChanges(asStored('S-PAST'))).toEqual({ changed: [] });
    const other = asStored('S-PAST');
    expect(engine.scheduleChanges({ ...other, Schedule: { ...other.Schedule, ScheduleExtId: 'S-NONE' } })).toBeNull();
  });

  it('a field given otherwise, one the request leaves out (the upsert clears it), a candidate renamed; never the candidates’ users', () => {
    const request = asStored('S-FUTURE');
    const { PIN: _pin, ...schedule } = request.Schedule;
    const [first, ...rest] = request.Candidates;
    const changes = engine.scheduleChanges({
      ...request,
      Schedule: { ...schedule, Title: 'Physics 2 - resit' },
      Candidates: [{ ...first!, FirstName: 'Adaline' }, ...rest],
    });
    expect(changes).toEqual({ changed: expect.arrayContaining(['Title', 'PIN', 'Candidates']) });
    expect((changes as { changed: string[] }).changed).toHaveLength(3);
  });

  it('refused, with the reason, where the store would refuse the upsert (another workflow)', () => {
    const changes = engine.scheduleChanges({ ...asStored('S-FUTURE'), Workflow: 'DEFAULT' });
    expect(changes).toMatchObject({
      refused: expect.stringContaining('it is EXTERNAL_ATTEMPTS, the request says DEFAULT'),
    });
  });
});
