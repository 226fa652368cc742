import { describe, it, expect } from 'vitest';
import type { UserRequest } from '../../src/domain/types.js';
import type { WorldUser } from '../../src/domain/world.js';
import { verifyPassword } from '../../src/engine/password.js';
import { codes, demoEngine } from './helpers.js';
import { coerceAndValidateUser } from '../../src/domain/coercion.js';
import { USER_FIELDS, USER_FIELDS_NOT_IN_VIEW, USER_VIEW_FIELDS } from '../../src/domain/user.js';
import { templateColumnSpecs, templateExampleRow } from '../../src/domain/templates.js';

const sync = (engine: ReturnType<typeof demoEngine>['engine'], body: Record<string, unknown>, dryRun = false) =>
  engine.upsertUser(body as unknown as UserRequest, { dryRun });

const newUser = (extra: Record<string, unknown> = {}) => ({
  ExternalId: 'u-100',
  FirstName: 'Uma',
  LastName: 'Singh',
  Email: 'uma.singh@example.test',
  Role: 'Author',
  ...extra,
});

describe('upsertUser', () => {
  it('Content.User shows every field of the rule table but the password and memberships', async () => {
    // Every field set (the template's example row), so a field the view forgot is missing below.
    const row = templateExampleRow('users');
    const fields = Object.fromEntries(templateColumnSpecs('users').map((c, i) => [c.name, row[i]]));
    const validated = coerceAndValidateUser({ ...fields, Hierarchies: undefined });
    if (!validated.ok) throw new Error(JSON.stringify(validated.problems));
    const { engine } = demoEngine();
    const result = await sync(engine, validated.value as unknown as Record<string, unknown>);
    expect(result.envelope.Success).toBe(true);
    const expected = USER_FIELDS.filter((f) => !(USER_FIELDS_NOT_IN_VIEW as readonly string[]).includes(f));
    expect(USER_FIELDS_NOT_IN_VIEW).toEqual(['Password', 'Hierarchies']);
    expect(USER_VIEW_FIELDS).toEqual(expected);
    expect(Object.keys(result.envelope.Content!.User)).toEqual(expected);
  });

  it('creates a user and answers Content.User without the password', async () => {
    const { engine, store } = demoEngine();
    const result = await sync(engine, newUser({ Password: 'Top-Secret-9', UserName: 'uma' }));
    expect(result.status).toBe(200);
    expect(result.action).toBe('created');
    expect(result.envelope.Success).toBe(true);
    const content = result.envelope.Content!;
    expect(content.GroupErrors).toEqual([]);
    expect(content.User).toMatchObject({
      ExternalId: 'u-100',
      UserName: 'uma',
      Role: 'Author',
      Email: 'uma.singh@example.test',
    });
    expect(JSON.stringify(result)).not.toContain('Top-Secret-9');
    expect(JSON.stringify(result)).not.toContain('scrypt');
    const stored = store.state.get('users')!.get('u-100') as WorldUser;
    expect(JSON.stringify(stored)).not.toContain('Top-Secret-9');
    expect(await verifyPassword('Top-Secret-9', stored.PasswordHash!)).toBe(true);
    expect(await verifyPassword('wrong-one', stored.PasswordHash!)).toBe(false);
  });

  it('UserName defaults to the ExternalId on create', async () => {
    const { engine } = demoEngine();
    const result = await sync(engine, newUser());
    expect(result.envelope.Content!.User.UserName).toBe('u-100');
  });

  it('updates an existing user: given fields replaced, absent fields and Role kept', async () => {
    const { engine, store } = demoEngine();
    const result = await sync(engine, {
      ExternalId: 'c-1002',
      FirstName: 'Benjamin',
      LastName: 'Okafor',
      City: 'York',
    });
    expect(result.action).toBe('updated');
    const stored = store.state.get('users')!.get('c-1002') as WorldUser;
    expect(stored).toMatchObject({
      FirstName: 'Benjamin',
      City: 'York',
      Role: 'Candidate',
      DateOfBirth: '2004-03-17',
      CountryCode: 'GB',
    });
  });

  it('an identical resend is unchanged (password verified against the stored hash)', async () => {
    const { engine, store } = demoEngine();
    const body = newUser({ Password: 'Top-Secret-9', Labels: ['a', 'b'] });
    await sync(engine, body);
    const commits = store.commits.length;
    const again = await sync(engine, body);
    expect(again.action).toBe('unchanged');
    expect(store.commits.length).toBe(commits);
    const changed = await sync(engine, { ...body, Password: 'Other-Secret-9' });
    expect(changed.action).toBe('updated');
  });

  const refusals: { name: string; body: Record<string, unknown>; code: number; field: string }[] = [
    { name: '214 UserName of another user', body: newUser({ UserName: 'SCHEDULER' }), code: 214, field: 'UserName' },
    {
      name: '232 SynchronizationKey of another user',
      body: newUser({ SynchronizationKey: '{6F1C2A4E-8D3B-4C5A-9E7F-1A2B3C4D5E6F}' }),
      code: 232,
      field: 'SynchronizationKey',
    },
    {
      name: '233 ExternalId colliding ignoring case',
      body: newUser({ ExternalId: 'Scheduler-1' }),
      code: 233,
      field: 'ExternalId',
    },
    { name: '240 Role missing on create', body: newUser({ Role: undefined }), code: 240, field: 'Role' },
    { name: '241 unknown role title', body: newUser({ Role: 'Wizard' }), code: 241, field: 'Role' },
  ];
  for (const c of refusals) {
    it(`refuses: ${c.name} (HTTP 400)`, async () => {
      const { engine, store } = demoEngine();
      const result = await sync(engine, c.body);
      expect(result.status).toBe(400);
      expect(result.envelope).toMatchObject({ Success: false, Content: null });
      expect(result.envelope.Errors).toEqual([expect.objectContaining({ Code: c.code, Field: c.field })]);
      expect(store.state.get('users')!.has('u-100')).toBe(false);
    });
  }

  it('130 when the world has no root hierarchy and memberships are given', async () => {
    const { engine } = demoEngine((w) => {
      w.Hierarchies = w.Hierarchies.filter((h) => h.ExternalId !== 'root');
    });
    const result = await sync(engine, newUser({ Hierarchies: [{ ExternalId: 'H-NORTH' }] }));
    expect(result.status).toBe(400);
    expect(codes(result.envelope.Errors)).toEqual([130]);
    const withoutMemberships = await sync(engine, newUser());
    expect(withoutMemberships.envelope.Success).toBe(true);
  });

  it('Hierarchies: 131 / 133 / 1134 go to GroupErrors with HTTP 200 and the user is saved', async () => {
    const { engine, store } = demoEngine();
    const result = await sync(
      engine,
      newUser({
        Hierarchies: [
          { ExternalId: 'H-NOPE' },
          { ExternalId: 'root', IsAdministrator: true },
          { ExternalId: 'H-OLD' },
          { ExternalId: 'H-SOUTH', IsCoordinator: true },
        ],
      }),
    );
    expect(result.status).toBe(200);
    expect(result.envelope.Success).toBe(true);
    expect(result.envelope.Content!.GroupErrors).toEqual([
      { ExternalId: 'H-NOPE', Code: 131, Error: expect.stringContaining('H-NOPE') },
      { ExternalId: 'root', Code: 133, Error: expect.stringContaining('root') },
      { ExternalId: 'H-OLD', Code: 1134, Error: expect.stringContaining('H-OLD') },
    ]);
    expect((store.state.get('users')!.get('u-100') as WorldUser).Hierarchies).toEqual([
      { ExternalId: 'H-SOUTH', IsCoordinator: true },
    ]);
  });

  it('Hierarchies UPSERT updates flags of an existing membership and DELETE removes one', async () => {
    const { engine, store } = demoEngine();
    await sync(engine, {
      ExternalId: 'author-2',
      FirstName: 'Jo',
      LastName: 'Doe',
      Hierarchies: [
        { ExternalId: 'H-NORTH', IsCoordinator: false, HasReScoringPermissions: true },
        { ExternalId: 'H-SOUTH', Action: 'UPSERT' },
      ],
    });
    expect((store.state.get('users')!.get('author-2') as WorldUser).Hierarchies).toEqual([
      { ExternalId: 'H-NORTH', IsCoordinator: false, HasViewReportsPermissions: true, HasReScoringPermissions: true },
      { ExternalId: 'H-SOUTH' },
    ]);
    await sync(engine, {
      ExternalId: 'author-2',
      FirstName: 'Jo',
      LastName: 'Doe',
      Hierarchies: [{ ExternalId: 'H-NORTH', Action: 'DELETE' }],
    });
    expect((store.state.get('users')!.get('author-2') as WorldUser).Hierarchies).toEqual([{ ExternalId: 'H-SOUTH' }]);
  });

  it('field validation problems come back with their codes, all of them', async () => {
    const { engine } = demoEngine();
    const result = await sync(engine, newUser({ Email: 'not-an-email', UserName: 'has space', Password: 'abc' }));
    expect(result.status).toBe(400);
    expect(codes(result.envelope.Errors).sort()).toEqual([209, 226, 247]);
  });

  it('keeps the indexes true: a renamed user frees the old UserName', async () => {
    const { engine } = demoEngine();
    await sync(engine, { ExternalId: 'author-2', FirstName: 'Jo', LastName: 'Doe', UserName: 'jo.doe' });
    const reuse = await sync(engine, newUser({ UserName: 'jdoe' }));
    expect(reuse.envelope.Success).toBe(true);
    const taken = await sync(engine, { ...newUser({ UserName: 'JO.DOE' }), ExternalId: 'u-101' });
    expect(codes(taken.envelope.Errors)).toEqual([214]);
  });
});
