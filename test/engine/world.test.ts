import { describe, it, expect } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseWorld, type World } from '../../src/domain/world.js';
import { apiTokenDigest, worldToChanges } from '../../src/engine/world-io.js';
import { loadWorldFile } from '../../src/engine/local-target.js';
import { MemoryStore } from './memory-store.js';
import { demoWorld, exportWorld } from './helpers.js';

const raw = (): Record<string, unknown> =>
  JSON.parse(readFileSync(fileURLToPath(new URL('../../fixtures/world.json', import.meta.url)), 'utf8')) as Record<
    string,
    unknown
  >;

/** The normal form an export has: every list sorted by its key. */
function normalised(world: World): World {
  const by = (key: string) => (a: unknown, b: unknown) => {
    const x = String((a as Record<string, unknown>)[key]);
    const y = String((b as Record<string, unknown>)[key]);
    return x < y ? -1 : x > y ? 1 : 0;
  };
  return {
    ...world,
    // The store keeps API tokens only as digests.
    Settings: { ...world.Settings, ApiTokens: world.Settings.ApiTokens.map(apiTokenDigest) },
    Roles: [...world.Roles].sort(by('Title')),
    Users: [...world.Users].sort(by('ExternalId')),
    Hierarchies: [...world.Hierarchies].sort(by('ExternalId')),
    Assessments: [...world.Assessments].sort(by('ExternalId')),
    ProctoringTemplates: [...world.ProctoringTemplates].sort(by('ExternalId')),
    Taxonomies: [...world.Taxonomies].sort(by('ExternalId')),
    LoRepositories: [...world.LoRepositories].sort(by('ExternalId')),
    Schedules: [...world.Schedules].sort(by('ScheduleExtId')),
    ReviewSessions: [...world.ReviewSessions].sort(by('ExternalId')),
    Collections: [...world.Collections].sort(by('ExternalId')),
  };
}

describe('world file', () => {
  it('the bundled demo world is valid and covers the states the engine needs', () => {
    const world = demoWorld();
    expect(world.Settings.ExternalApiOwner).toBe('scheduler');
    expect(world.Users.some((u) => u.CanManageSchedules === true)).toBe(true);
    expect(world.Users.some((u) => u.CanManageSchedules !== true)).toBe(true);
    expect(world.Hierarchies.some((h) => !h.Active)).toBe(true);
    const statuses = new Set(world.ReviewSessions.flatMap((r) => r.Results.map((x) => x.PassedStatus)));
    expect([...statuses].sort()).toEqual(['NOT_SATISFACTORY', 'NOT_SUBMITTED', 'SATISFACTORY', 'VOIDED']);
    expect(world.ReviewSessions.reduce((n, r) => n + r.Results.length, 0)).toBeGreaterThanOrEqual(10);
    expect(world.Schedules.some((s) => s.Archived)).toBe(true);
  });

  it('round trip: world -> store -> export equals the normalised world', () => {
    const world = demoWorld();
    const store = new MemoryStore(worldToChanges(world));
    expect(exportWorld(store.state)).toEqual(normalised(world));
    // Exporting the export again is a fixed point.
    const again = new MemoryStore(worldToChanges(exportWorld(store.state)));
    expect(JSON.stringify(exportWorld(again.state))).toBe(JSON.stringify(exportWorld(store.state)));
  });

  it('export keeps passwords only as hashes', () => {
    const text = JSON.stringify(exportWorld(new MemoryStore(worldToChanges(demoWorld())).state));
    expect(text).toContain('"PasswordHash":"scrypt$N=16384,r=8,p=1$');
    expect(text).not.toContain('"Password"');
  });

  it('export shows API tokens only as sha256 digests; digests and plain tokens load alike', () => {
    const world = demoWorld();
    const digestOfOther = `sha256:${createHash('sha256').update('other-token').digest('hex')}`;
    world.Settings.ApiTokens = [
      'dev-token',
      digestOfOther.toUpperCase().replace('SHA256:', 'sha256:'),
      apiTokenDigest('dev-token'),
    ];
    const exported = exportWorld(new MemoryStore(worldToChanges(world)).state);
    // Digested, lower-cased, the duplicate (plain and digest of one token) dropped.
    expect(exported.Settings.ApiTokens).toEqual([apiTokenDigest('dev-token'), digestOfOther]);
    expect(apiTokenDigest('dev-token')).toBe(`sha256:${createHash('sha256').update('dev-token').digest('hex')}`);
    expect(JSON.stringify(exported)).not.toContain('dev-token');
    expect(parseWorld(JSON.parse(JSON.stringify(exported))).ok).toBe(true);
  });

  it('a store made before tokens were digested still exports digests only', () => {
    const world = demoWorld();
    const store = new MemoryStore([
      ...worldToChanges(world).slice(1),
      { collection: 'settings', key: 'settings', value: world.Settings },
    ]);
    expect((store.state.get('settings')!.get('settings') as { ApiTokens: string[] }).ApiTokens).toEqual(['dev-token']);
    expect(exportWorld(store.state).Settings.ApiTokens).toEqual([apiTokenDigest('dev-token')]);
  });

  const rejections: { name: string; edit: (w: Record<string, any>) => void; error: RegExp }[] = [
    { name: 'unknown top-level field', edit: (w) => (w['Extra'] = 1), error: /^Extra: unknown field/ },
    {
      name: 'unknown settings field',
      edit: (w) => (w['Settings']['Colour'] = 'x'),
      error: /^Settings\.Colour: unknown field/,
    },
    {
      name: 'unknown user field',
      edit: (w) => (w['Users'][2]['Password'] = 'plain'),
      error: /^Users\[2\]\.Password: unknown field/,
    },
    {
      name: 'unknown candidate field',
      edit: (w) => (w['Schedules'][0]['Candidates'][1]['Shoe'] = 4),
      error: /^Schedules\[0\]\.Candidates\[1\]\.Shoe: unknown field/,
    },
    {
      name: 'unknown membership field',
      edit: (w) => (w['Users'][0]['Hierarchies'][0]['Action'] = 'DELETE'),
      error: /^Users\[0\]\.Hierarchies\[0\]\.Action: unknown field/,
    },
    {
      name: 'review session without Results',
      edit: (w) => delete w['ReviewSessions'][0]['Results'],
      error: /^ReviewSessions\[0\]\.Results:/,
    },
    {
      name: 'duplicate user ExternalId',
      edit: (w) => w['Users'].push({ ...w['Users'][0], UserName: 'other' }),
      error: /duplicate ExternalId/,
    },
    {
      name: 'hierarchy with unknown parent',
      edit: (w) => (w['Hierarchies'][1]['Parent'] = 'H-NONE'),
      error: /^Hierarchies\[1\]\.Parent: unknown hierarchy/,
    },
    {
      name: 'date without zone',
      edit: (w) => (w['Schedules'][0]['StartDateTime'] = '2026-10-05T09:00:00'),
      error: /^Schedules\[0\]\.StartDateTime:/,
    },
    {
      name: 'malformed token digest',
      edit: (w) => (w['Settings']['ApiTokens'] = ['sha256:abc']),
      error: /^Settings\.ApiTokens\[0\]: .*64 hex digits/,
    },
    { name: 'empty token', edit: (w) => (w['Settings']['ApiTokens'] = ['']), error: /^Settings\.ApiTokens\[0\]:/ },
    {
      name: 'two users with one UserName (ignoring case)',
      edit: (w) =>
        w['Users'].push({
          ...w['Users'][0],
          ExternalId: 'U-OTHER',
          UserName: String(w['Users'][0]['UserName']).toUpperCase(),
          SynchronizationKey: undefined,
        }),
      error: /^Users\[\d+\]\.UserName: duplicate UserName "[^"]+"$/,
    },
    {
      name: 'user with unknown role',
      edit: (w) => (w['Users'][0]['Role'] = 'Wizard'),
      error: /^Users\[0\]\.Role: unknown role/,
    },
    {
      name: 'two users with one SynchronizationKey (ignoring case and braces)',
      edit: (w) => {
        w['Users'][0]['SynchronizationKey'] = '{AB12CD34-0000-0000-0000-000000000001}';
        w['Users'][1]['SynchronizationKey'] = 'ab12cd34-0000-0000-0000-000000000001';
      },
      error: /^Users\[1\]\.SynchronizationKey: duplicate SynchronizationKey/,
    },
  ];
  for (const r of rejections) {
    it(`rejects: ${r.name}, naming the path`, () => {
      const world = raw();
      r.edit(world as Record<string, any>);
      const parsed = parseWorld(world);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok)
        expect(
          parsed.errors.some((e) => r.error.test(e)),
          parsed.errors.join('\n'),
        ).toBe(true);
    });
  }

  it('a user ExternalId given twice is one error, and one differing only in case is the same refusal', () => {
    const world = raw() as Record<string, any>;
    const first = world['Users'][0];
    world['Users'].push({ ...first, UserName: 'other' });
    const twice = parseWorld(world);
    expect(twice.ok ? [] : twice.errors.filter((e) => e.includes('ExternalId'))).toEqual([
      `Users[${world['Users'].length - 1}].ExternalId: duplicate ExternalId "${first.ExternalId}" (user ids are compared ignoring case)`,
    ]);
    world['Users'][world['Users'].length - 1].ExternalId = String(first.ExternalId).toUpperCase();
    const cased = parseWorld(world);
    expect(cased.ok ? [] : cased.errors.filter((e) => e.includes('ExternalId'))).toEqual([
      `Users[${world['Users'].length - 1}].ExternalId: duplicate ExternalId "${String(first.ExternalId).toUpperCase()}" (user ids are compared ignoring case)`,
    ]);
  });

  it('review sessions keep fields the schema does not list', () => {
    const world = raw() as Record<string, any>;
    world['ReviewSessions'][0]['FutureField'] = { any: 'thing' };
    const parsed = parseWorld(world);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(parsed.world.ReviewSessions[0]!['FutureField']).toEqual({ any: 'thing' });
  });
});

describe('export after engine writes', () => {
  it('is itself a valid world file (local export then local init --seed works)', async () => {
    const { createLocalEngine } = await import('../../src/engine/engine.js');
    const { NOW, scheduleRequest, candidate } = await import('./helpers.js');
    const store = new MemoryStore(worldToChanges(demoWorld()));
    const engine = createLocalEngine({ store, now: () => NOW });
    const schedule = await engine.createSchedule(
      scheduleRequest({
        Schedule: {
          GroupExtId: 'H-EXPORT',
          GroupName: 'Export room',
          AssessmentExtId: 'A-PHYS-2',
          EndDateTime: '2026-12-01T13:00:00Z',
          UseKeyCode: true,
        },
        Candidates: [
          candidate('c-8001', {
            Password: 'Exported-1',
            SpecialNeeds: 'true',
            ReasonableAdjustmentPercentage: 10,
            ProctorUIds: ['p-1'],
          }),
        ],
      }) as never,
    );
    expect(schedule.envelope.Success).toBe(true);
    const user = await engine.upsertUser({
      ExternalId: 'u-export',
      FirstName: 'E',
      LastName: 'X',
      Role: 'Author',
      Labels: ['x'],
      AllowedIpAddresses: ['10.0.0.1'],
      SynchronizationKey: '{11111111-2222-3333-4444-555555555555}',
      Hierarchies: [{ ExternalId: 'H-SOUTH', IsCoordinator: true }],
    });
    expect(user.envelope.Success).toBe(true);
    expect(
      (await engine.addCollection({ Title: 'Exported', Taxonomies: [{ ExternalId: 'TX-BLOOM', Title: 'B' }] })).envelope
        .Success,
    ).toBe(true);
    const exported = exportWorld(store.state);
    const parsed = parseWorld(JSON.parse(JSON.stringify(exported)));
    expect(parsed.ok ? [] : parsed.errors).toEqual([]);
    // Fields in schema order, whoever built the entity: export -> init --seed -> export is byte-identical.
    if (parsed.ok)
      expect(JSON.stringify(exportWorld(new MemoryStore(worldToChanges(parsed.world)).state), null, 2)).toBe(
        JSON.stringify(exported, null, 2),
      );
    expect(Object.keys(exported.Users.find((u) => u.ExternalId === 'u-export')!).slice(0, 3)).toEqual([
      'ExternalId',
      'UserName',
      'FirstName',
    ]);
  });
});

describe('exportWorldText (what local export writes)', () => {
  it('is exactly its own JSON.stringify(world, null, 2) and a newline, in chunks', async () => {
    const { exportWorldText } = await import('../../src/engine/world-io.js');
    const world = demoWorld();
    // Enough users for several chunks, one list empty, strings with newlines and quotes.
    for (let i = 0; i < 1300; i += 1) {
      world.Users.push({
        ExternalId: `bulk-${i}`,
        UserName: `bulk${i}`,
        FirstName: 'Line\nBreak "q"',
        LastName: 'X',
        Role: 'Candidate',
        Labels: [],
      });
    }
    world.Collections = [];
    const state = new MemoryStore(worldToChanges(world)).state;
    const chunks = [...exportWorldText(state)];
    expect(chunks.length).toBeGreaterThan(3);
    const text = chunks.join('');
    expect(text).toBe(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
    expect((JSON.parse(text) as typeof world).Users.find((u) => u.ExternalId === 'bulk-7')?.FirstName).toBe(
      'Line\nBreak "q"',
    );
    // An empty store (no settings) exports the same way too.
    const empty = [...exportWorldText(new MemoryStore([]).state)].join('');
    expect(empty).toBe(
      `${JSON.stringify({ Settings: { SiteUrl: '', ApiTokens: [] }, ...Object.fromEntries(['Roles', 'Users', 'Hierarchies', 'Assessments', 'ProctoringTemplates', 'Taxonomies', 'LoRepositories', 'Schedules', 'ReviewSessions', 'Collections'].map((list) => [list, []])) }, null, 2)}\n`,
    );
  });
});

describe('a world file that cannot be read', () => {
  it('is E2101 when missing and E2102 when it is a directory, as every input file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'examctl-world-'));
    try {
      await expect(loadWorldFile(join(dir, 'absent.json'))).rejects.toMatchObject({ code: 'E2101' });
      await expect(loadWorldFile(dir)).rejects.toMatchObject({ code: 'E2102' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
