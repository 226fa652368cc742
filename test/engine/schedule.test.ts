import { describe, it, expect } from 'vitest';
import type { ScheduleRequest } from '../../src/domain/types.js';
import type { WorldHierarchy, WorldSchedule, WorldUser } from '../../src/domain/world.js';
import { candidate, codes, demoEngine, messages, scheduleRequest } from './helpers.js';

const push = (engine: ReturnType<typeof demoEngine>['engine'], body: unknown, dryRun = false) =>
  engine.createSchedule(body as ScheduleRequest, { dryRun });

describe('createSchedule: success', () => {
  it('creates the schedule, returns its id, stores resolved fields and default end', async () => {
    const { engine, store } = demoEngine();
    const result = await push(engine, scheduleRequest());
    expect(result.status).toBe(200);
    expect(result.envelope).toEqual({ Content: 'S-NEW-1', Success: true, Errors: null });
    expect(result.action).toBe('created');
    const stored = store.state.get('schedules')!.get('S-NEW-1') as WorldSchedule;
    // A-MATH-1 lasts 90 minutes: default end = start + 90 + 60.
    expect(stored.EndDateTime).toBe('2026-12-01T11:30:00.000Z');
    expect(stored.Owner).toBe('scheduler');
    expect(stored.ScheduleGroupExtId).toBe('root');
    expect(stored.Workflow).toBe('DEFAULT');
    expect(stored.Archived).toBe(false);
    expect(stored.Invigilators).toEqual([]);
    expect(stored.Title).toContain('Mathematics 1');
    expect(stored.UseProctoringService).toBe(false);
  });

  it('generates a ScheduleExtId when none is given and returns it', async () => {
    const { engine, store } = demoEngine();
    const body = scheduleRequest();
    delete (body['Schedule'] as Record<string, unknown>)['ScheduleExtId'];
    const result = await push(engine, body);
    expect(result.envelope.Success).toBe(true);
    const id = result.envelope.Content as string;
    expect(id).toMatch(/^[A-Za-z0-9-]{1,64}$/);
    expect(store.state.get('schedules')!.has(id)).toBe(true);
  });

  it('copies the profile fields a user shares onto the candidate user, and keeps the sitting-only ones off it', async () => {
    const { engine, store } = demoEngine();
    const profile = {
      Company: 'Acme',
      City: 'Leiden',
      PhoneNumber: '+31 71 000',
      RegistrationNumber: 'R-1',
      VoucherId: 'V-1',
    };
    const result = await push(engine, scheduleRequest({ Candidates: [candidate('c-profile', profile)] }));
    expect(result.envelope.Success).toBe(true);
    const user = store.state.get('users')!.get('c-profile') as WorldUser & Record<string, unknown>;
    expect(user).toMatchObject({ Company: 'Acme', City: 'Leiden', PhoneNumber: '+31 71 000' });
    expect(user['RegistrationNumber']).toBeUndefined();
    expect(user['VoucherId']).toBeUndefined();
  });

  it('registers candidates as users keyed by CandidateExtId, with the participate role, in the group', async () => {
    const { engine, store } = demoEngine();
    await push(
      engine,
      scheduleRequest({
        Candidates: [
          candidate('c-2001', { UserName: 'gil.r', SpecialNeeds: 'true', ReasonableAdjustmentPercentage: 20 }),
        ],
      }),
    );
    const user = store.state.get('users')!.get('c-2001') as WorldUser;
    expect(user.Role).toBe('Candidate');
    expect(user.UserName).toBe('gil.r');
    expect(user.SpecialNeeds).toBe(true);
    expect(user.ReasonableAdjustmentPercentage).toBe(20);
    expect(user.Hierarchies).toEqual([{ ExternalId: 'H-NORTH' }]);
  });

  it('updates an existing user behind a candidate and adds the group membership', async () => {
    const { engine, store } = demoEngine();
    await push(
      engine,
      scheduleRequest({
        Schedule: { GroupExtId: 'H-SOUTH', GroupName: 'South' },
        Candidates: [candidate('c-1001', { FirstName: 'Adaline' })],
      }),
    );
    const user = store.state.get('users')!.get('c-1001') as WorldUser;
    expect(user.FirstName).toBe('Adaline');
    expect(user.UserName).toBe('c-1001');
    expect(user.Hierarchies?.map((h) => h.ExternalId)).toEqual(['H-NORTH', 'H-SOUTH']);
    expect(user.PasswordHash).toMatch(/^scrypt\$/);
  });

  it('creates a missing group under the schedule hierarchy', async () => {
    const { engine, store } = demoEngine();
    await push(
      engine,
      scheduleRequest({ Schedule: { GroupExtId: 'H-NEW-ROOM', GroupName: 'Room 12', ScheduleGroupExtId: 'H-SOUTH' } }),
    );
    expect(store.state.get('hierarchies')!.get('H-NEW-ROOM')).toEqual({
      ExternalId: 'H-NEW-ROOM',
      Title: 'Room 12',
      Parent: 'H-SOUTH',
      Active: true,
    });
  });

  it('creates a missing group under the root when no ScheduleGroupExtId is given', async () => {
    const { engine, store } = demoEngine();
    await push(engine, scheduleRequest({ Schedule: { GroupExtId: 'H-POPUP', GroupName: 'Pop-up' } }));
    expect((store.state.get('hierarchies')!.get('H-POPUP') as WorldHierarchy).Parent).toBe('root');
  });

  it('gives every candidate a unique StartupLink with a >=128-bit base64url token', async () => {
    const { engine, store } = demoEngine();
    await push(
      engine,
      scheduleRequest({ Candidates: [candidate('c-3001'), candidate('c-3002'), candidate('c-3003')] }),
    );
    const stored = store.state.get('schedules')!.get('S-NEW-1') as WorldSchedule;
    const links = stored.Candidates.map((c) => c.StartupLink);
    for (const link of links) {
      const match = /^https:\/\/exam\.example\.test\/delivery\/external-login\?session=([A-Za-z0-9_-]+)$/.exec(link);
      expect(match).not.toBeNull();
      expect(Buffer.from(match![1]!, 'base64url').length).toBeGreaterThanOrEqual(16);
    }
    expect(new Set(links).size).toBe(3);
    expect(stored.Candidates.every((c) => c.LaunchUrl === undefined)).toBe(true);
  });

  it('adds a LaunchUrl at the provider when proctoring is on (from the assessment) and uses the default template', async () => {
    const { engine, store } = demoEngine();
    // A-PHYS-2: 120 min + 30 extra, proctored.
    const result = await push(
      engine,
      scheduleRequest({ Schedule: { AssessmentExtId: 'A-PHYS-2', EndDateTime: '2026-12-01T12:00:00.000Z' } }),
    );
    expect(result.envelope.Success).toBe(true);
    const stored = store.state.get('schedules')!.get('S-NEW-1') as WorldSchedule;
    expect(stored.UseProctoringService).toBe(true);
    expect(stored.ProctoringServiceTemplateExternalId).toBe('PTSTD');
    expect(stored.Candidates[0]!.LaunchUrl).toMatch(/^https:\/\/proctor\.example\.test\/launch\?t=[A-Za-z0-9_-]{22,}#/);
  });

  it('never returns the links or stores a candidate password', async () => {
    const { engine, store } = demoEngine();
    const result = await push(
      engine,
      scheduleRequest({ Candidates: [candidate('c-4001', { Password: 'Sekret-123' })] }),
    );
    expect(JSON.stringify(result)).not.toContain('external-login');
    const everything = JSON.stringify([...store.state.values()].map((m) => [...m.values()]));
    expect(everything).not.toContain('Sekret-123');
    expect((store.state.get('users')!.get('c-4001') as WorldUser).PasswordHash).toMatch(/^scrypt\$N=16384,r=8,p=1\$/);
  });
});

describe('createSchedule: state rules', () => {
  const cases: {
    name: string;
    body: Record<string, unknown>;
    field: string;
    message: RegExp;
    edit?: Parameters<typeof demoEngine>[0];
  }[] = [
    {
      name: 'duplicate ScheduleExtId without Upsert',
      body: scheduleRequest({ Schedule: { ScheduleExtId: 'S-FUTURE' } }),
      field: 'Schedule.ScheduleExtId',
      message: /Duplicate ScheduleExtId/,
    },
    {
      name: 'unknown assessment',
      body: scheduleRequest({ Schedule: { AssessmentExtId: 'A-NOPE' } }),
      field: 'Schedule.AssessmentExtId',
      message: /Assessment not found: A-NOPE/,
    },
    {
      name: 'owner without permission',
      body: scheduleRequest({ Schedule: { Owner: 'jdoe' } }),
      field: 'Schedule.Owner',
      message: /no longer has permission/,
    },
    {
      name: 'unknown owner',
      body: scheduleRequest({ Schedule: { Owner: 'nobody' } }),
      field: 'Schedule.Owner',
      message: /no longer has permission/,
    },
    {
      name: 'scheduler not set',
      body: scheduleRequest(),
      field: 'Schedule.Owner',
      message: /Scheduler not set/,
      edit: (w) => {
        delete w.Settings.ExternalApiOwner;
      },
    },
    {
      name: 'unknown ScheduleGroupExtId',
      body: scheduleRequest({ Schedule: { ScheduleGroupExtId: 'H-GONE' } }),
      field: 'Schedule.ScheduleGroupExtId',
      message: /Hierarchy not found: H-GONE/,
    },
    {
      name: 'inactive ScheduleGroupExtId',
      body: scheduleRequest({ Schedule: { ScheduleGroupExtId: 'H-OLD' } }),
      field: 'Schedule.ScheduleGroupExtId',
      message: /must be active/,
    },
    {
      name: 'inactive existing GroupExtId',
      body: scheduleRequest({ Schedule: { GroupExtId: 'H-OLD', GroupName: 'Old' } }),
      field: 'Schedule.GroupExtId',
      message: /must be active/,
    },
    {
      name: 'unknown proctoring template',
      body: scheduleRequest({ Schedule: { ProctoringServiceTemplateExternalId: 'PTNOPE' } }),
      field: 'Schedule.ProctoringServiceTemplateExternalId',
      message: /PTNOPE/,
    },
    {
      name: 'no root hierarchy for a schedule without ScheduleGroupExtId',
      body: scheduleRequest(),
      field: 'Schedule.ScheduleGroupExtId',
      message: /Root hierarchy not found/,
      edit: (w) => {
        w.Hierarchies = w.Hierarchies.filter((h) => h.ExternalId !== 'root');
      },
    },
    {
      name: 'proctoring on but no template given and no default',
      body: scheduleRequest({ Schedule: { UseProctoringService: true } }),
      field: 'Schedule.ProctoringServiceTemplateExternalId',
      message: /not set/,
      edit: (w) => {
        delete w.Settings.DefaultProctoringTemplate;
      },
    },
    {
      name: 'span not greater than duration plus extra',
      // A-LAW-EXAM: 180 + 90 = 270 minutes; the span is exactly 270.
      body: scheduleRequest({
        Schedule: {
          AssessmentExtId: 'A-LAW-EXAM',
          StartDateTime: '2026-12-01T09:00:00.000Z',
          EndDateTime: '2026-12-01T13:30:00.000Z',
        },
      }),
      field: 'Schedule.EndDateTime',
      message: /270.*180 \+ 90/,
    },
    {
      name: 'default end too short for the extra time',
      body: scheduleRequest({ Schedule: { AssessmentExtId: 'A-LAW-EXAM' } }),
      field: 'Schedule.EndDateTime',
      // The caller sent no EndDateTime: the message says the end was the default and how to fix it.
      message: /240.*the default EndDateTime.*180 \+ 90 = 270 minutes\); give an EndDateTime later than /,
    },
  ];
  for (const c of cases) {
    it(`refuses: ${c.name} (HTTP 400, Code null)`, async () => {
      const { engine, store } = demoEngine(c.edit);
      const before = store.commits.length;
      const result = await push(engine, c.body);
      expect(result.status).toBe(400);
      expect(result.envelope.Success).toBe(false);
      expect(result.envelope.Content).toBeNull();
      const errors = result.envelope.Errors as { Code: unknown; Field: string; Message: string }[];
      const hit = errors.find((e) => e.Field === c.field);
      expect(hit, messages(errors)).toBeDefined();
      expect(hit!.Code).toBeNull();
      expect(hit!.Message).toMatch(c.message);
      expect(store.commits.length).toBe(before);
      expect(result.action).toBeUndefined();
    });
  }

  it('lists every problem of one request, not only the first', async () => {
    const { engine } = demoEngine();
    const result = await push(
      engine,
      scheduleRequest({ Schedule: { AssessmentExtId: 'A-NOPE', Owner: 'jdoe', ScheduleGroupExtId: 'H-GONE' } }),
    );
    expect((result.envelope.Errors as unknown[]).length).toBe(3);
  });

  it('passes field validation problems through with their codes (250)', async () => {
    const { engine } = demoEngine();
    const result = await push(
      engine,
      scheduleRequest({ Candidates: [candidate('c-5001', { ReasonableAdjustmentPercentage: 10 })] }),
    );
    expect(result.status).toBe(400);
    expect(codes(result.envelope.Errors)).toContain(250);
  });

  // The user endpoint's conditions (214, 233) in its words, unnumbered: the schedule endpoint's table numbers only 249 and 250.
  it('refuses a candidate UserName that belongs to another user, as the user endpoint does but without its code 214', async () => {
    const { engine } = demoEngine();
    const result = await push(
      engine,
      scheduleRequest({ Candidates: [candidate('c-6001', { UserName: 'scheduler' })] }),
    );
    expect(result.status).toBe(400);
    const errors = result.envelope.Errors as { Code: unknown; Field: string; Message: string }[];
    expect(errors).toEqual([
      expect.objectContaining({
        Code: null,
        Field: 'Candidates[0].UserName',
        Message: 'A user with the UserName scheduler already exists',
      }),
    ]);
  });

  it('refuses a candidate whose id collides case-insensitively with another user, without the user endpoint code 233', async () => {
    const { engine } = demoEngine();
    const result = await push(engine, scheduleRequest({ Candidates: [candidate('C-1001')] }));
    expect(codes(result.envelope.Errors)).toEqual([null]);
    expect(messages(result.envelope.Errors)).toMatch(/C-1001 collides with c-1001/);
  });

  it('refuses new candidates when the world has no participate role', async () => {
    const { engine } = demoEngine((w) => {
      w.Roles = w.Roles.filter((r) => !r.Participate);
      w.Users = w.Users.filter((u) => u.Role !== 'Candidate');
      w.Schedules = [];
    });
    const result = await push(engine, scheduleRequest());
    expect(messages(result.envelope.Errors)).toMatch(/Participate/);
  });
});

describe('createSchedule: upsert', () => {
  it('updates an existing schedule: fields replaced, candidates added or updated, others stay, links kept', async () => {
    const { engine, store } = demoEngine();
    await push(engine, scheduleRequest({ Candidates: [candidate('c-7001'), candidate('c-7002')] }));
    const first = store.state.get('schedules')!.get('S-NEW-1') as WorldSchedule;
    const result = await push(
      engine,
      scheduleRequest({
        Upsert: true,
        Schedule: { Title: 'Renamed', PIN: '1234' },
        Candidates: [candidate('c-7002', { LastName: 'Changed' }), candidate('c-7003')],
      }),
    );
    expect(result.envelope.Success).toBe(true);
    expect(result.action).toBe('updated');
    const stored = store.state.get('schedules')!.get('S-NEW-1') as WorldSchedule;
    expect(stored.Title).toBe('Renamed');
    expect(stored.PIN).toBe('1234');
    expect(stored.Candidates.map((c) => c.CandidateExtId)).toEqual(['c-7001', 'c-7002', 'c-7003']);
    expect(stored.Candidates[1]!.LastName).toBe('Changed');
    expect(stored.Candidates[1]!.StartupLink).toBe(first.Candidates[1]!.StartupLink);
  });

  it('an identical upsert (same password too) is unchanged and writes nothing', async () => {
    const { engine, store } = demoEngine();
    const body = scheduleRequest({ Upsert: true, Candidates: [candidate('c-7101', { Password: 'Pass-word-1' })] });
    expect((await push(engine, body)).action).toBe('created');
    const commits = store.commits.length;
    const again = await push(engine, body);
    expect(again.envelope.Success).toBe(true);
    expect(again.action).toBe('unchanged');
    expect(store.commits.length).toBe(commits);
  });

  it('refuses to change the workflow of an existing schedule', async () => {
    const { engine } = demoEngine();
    const result = await push(
      engine,
      scheduleRequest({
        Upsert: true,
        Schedule: {
          ScheduleExtId: 'S-FUTURE',
          AssessmentExtId: 'A-PHYS-2',
          EndDateTime: '2026-12-10T13:00:00.000Z',
          StartDateTime: '2026-12-10T09:00:00.000Z',
        },
      }),
    );
    expect(result.status).toBe(400);
    expect(messages(result.envelope.Errors)).toMatch(/Workflow/);
    expect(codes(result.envelope.Errors)).toEqual([null]);
  });

  it('refuses to update an activated schedule (start passed per the engine clock)', async () => {
    const { engine } = demoEngine();
    const result = await push(
      engine,
      scheduleRequest({ Upsert: true, Schedule: { ScheduleExtId: 'S-LIVE', AssessmentExtId: 'A-MATH-1' } }),
    );
    expect(result.status).toBe(400);
    expect(messages(result.envelope.Errors)).toMatch(/activated/);
  });

  it('creates with Upsert true when the schedule does not exist', async () => {
    const { engine } = demoEngine();
    const result = await push(engine, scheduleRequest({ Upsert: true }));
    expect(result.action).toBe('created');
  });
});

describe('createSchedule: concurrent calls', () => {
  it('two concurrent creates of one ScheduleExtId: one created, one duplicate', async () => {
    const { engine } = demoEngine();
    const results = await Promise.all([push(engine, scheduleRequest()), push(engine, scheduleRequest())]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
  });

  it('concurrent schedules registering the same new candidate create one user, both succeed', async () => {
    const { engine, store } = demoEngine();
    const [a, b] = await Promise.all([
      push(engine, scheduleRequest({ Schedule: { ScheduleExtId: 'S-A' }, Candidates: [candidate('c-9001')] })),
      push(
        engine,
        scheduleRequest({
          Schedule: { ScheduleExtId: 'S-B', GroupExtId: 'H-SOUTH', GroupName: 'South' },
          Candidates: [candidate('c-9001')],
        }),
      ),
    ]);
    expect([a.envelope.Success, b.envelope.Success]).toEqual([true, true]);
    const user = store.state.get('users')!.get('c-9001') as WorldUser;
    expect(user.Hierarchies?.map((h) => h.ExternalId)).toEqual(['H-NORTH', 'H-SOUTH']);
  });
});
