import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lineWith } from '../support/facts.js';
import { expectCoded } from '../support/coded-message.js';
import { ROOT, startExamctl } from '../durability/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { okEnvelope, startFaultServer } from '../support/fault-server.js';
import { decodeChecksummedLine, encodeChecksummedLine } from '../../src/system/checksummed-line.js';

/**
 * Joiners, movers, leavers (issue 33, docs/sync.md "Movers"): 300 users synced, then a night
 * with 50 movers (H-A to H-D), 50 coordinators revoked and 10 Hierarchies cells emptied. With
 * --changed-only --prune-memberships exactly those 110 users are sent, with exactly the DELETEs
 * and false flags; the next night nothing; a night where everyone moves is refused; a killed
 * pruning run resumed sends each remaining change once. Both targets.
 */

const USERS = 300;
const ids = Array.from({ length: USERS }, (_, i) => `jm-${i}`);
const movers = ids.slice(0, 50);
const revoked = ids.slice(100, 150);
const emptied = ids.slice(200, 210);
const changedIds = [...movers, ...revoked, ...emptied].sort();

/** Each user's Hierarchies cell on the first night and on the second. */
function cell(id: string, night: 1 | 2 | 'all-move'): string {
  if (night === 'all-move') return 'H-D';
  if (movers.includes(id)) return night === 1 ? 'H-A' : 'H-D';
  if (revoked.includes(id)) return night === 1 ? 'H-A:coordinator' : 'H-A';
  if (emptied.includes(id)) return night === 1 ? 'H-B' : '';
  return 'H-B|H-C:reports';
}

function writeNight(
  file: string,
  night: 1 | 2 | 'all-move',
  header = 'ExternalId,FirstName,LastName,Email,UserName,Role,Hierarchies',
): void {
  const withHierarchies = header.endsWith('Hierarchies');
  const lines = [header];
  for (const id of ids)
    lines.push(
      `${id},First,Last ${id},${id}@example.test,name-${id},Candidate${withHierarchies ? `,${cell(id, night)}` : ''}`,
    );
  writeFileSync(file, `${lines.join('\n')}\n`);
}

interface Membership {
  ExternalId: string;
  Action?: string;
  IsCoordinator?: boolean;
  HasViewReportsPermissions?: boolean;
}

interface Applied {
  id: string;
  hierarchies: Membership[] | undefined;
}

/** A loopback service that answers POST /user ok and keeps what it was sent; `groupErrors` answers per request. */
async function startCountingServer(): Promise<{
  url: string;
  applied: Applied[];
  groupErrors: (user: { ExternalId: string; Hierarchies?: Membership[] }) => unknown[];
  setGroupErrors: (f: (user: { ExternalId: string; Hierarchies?: Membership[] }) => unknown[]) => void;
  close: () => Promise<void>;
}> {
  const applied: Applied[] = [];
  let groupErrors = (_user: { ExternalId: string; Hierarchies?: Membership[] }): unknown[] => [];
  const service = await startFaultServer();
  service.fallback = (request) => {
    const user = JSON.parse(request.body) as { ExternalId: string; Hierarchies?: Membership[] };
    applied.push({ id: user.ExternalId, hierarchies: user.Hierarchies });
    return okEnvelope({ User: { ExternalId: user.ExternalId }, GroupErrors: groupErrors(user) });
  };
  return {
    url: service.url,
    applied,
    groupErrors: (user) => groupErrors(user),
    setGroupErrors: (f) => (groupErrors = f),
    close: () => service.close(),
  };
}

interface Item {
  id: string;
  status: string;
  action?: string;
  removed?: string[];
  errors: unknown[];
}

function itemsOf(stdout: string): Item[] {
  return (JSON.parse(stdout) as { items: Item[] }).items;
}

/** What the second night must send for one user: the file's entries, then examctl's DELETEs. */
function expectedSecondNight(id: string): Membership[] {
  if (movers.includes(id)) {
    return [
      {
        ExternalId: 'H-D',
        IsCoordinator: false,
        IsAdministrator: false,
        HasViewReportsPermissions: false,
        HasReScoringPermissions: false,
      } as Membership,
      { ExternalId: 'H-A', Action: 'DELETE' },
    ];
  }
  if (revoked.includes(id))
    return [
      {
        ExternalId: 'H-A',
        IsCoordinator: false,
        IsAdministrator: false,
        HasViewReportsPermissions: false,
        HasReScoringPermissions: false,
      } as Membership,
    ];
  return [{ ExternalId: 'H-B', Action: 'DELETE' }];
}

function expectedRemoved(id: string): string[] {
  return movers.includes(id) ? ['H-A'] : revoked.includes(id) ? ['H-A:coordinator'] : ['H-B'];
}

/** Ids whose sent outcome (not `unchanged`) the last run's journal holds on disk. */
function durablyAnswered(): Set<string> {
  const runs = join(dir, 'state', 'runs');
  const run = readdirSync(runs)
    .filter((name) => !name.startsWith('.'))
    .sort()
    .at(-1)!;
  const done = new Set<string>();
  for (const line of readFileSync(join(runs, run, 'journal.ndjson'), 'utf8').split('\n')) {
    if (!line.includes('"t":"outcome"') || line.includes('"action":"unchanged"')) continue;
    const id = /"id":"(jm-\d+)"/.exec(line)?.[1];
    if (id !== undefined) done.add(id);
  }
  return done;
}

/** The request at which the service kills the pruning run (of the 110 it sends). */
const KILL_AT_REQUEST = 100;

const NIGHTLY = ['--changed-only', '--disable-missing', '--prune-memberships', '--max-prune', '40%'];

let dir: string;
let env: Record<string, string>;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-movers-'));
  env = { EXAMCTL_RUNS_DIR: join(dir, 'state', 'runs'), EXAMCTL_TOKEN: 'dev-token' };
  writeNight(join(dir, 'night1.csv'), 1);
  writeNight(join(dir, 'night2.csv'), 2);
  writeNight(join(dir, 'all-move.csv'), 'all-move');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('remote target: requests counted by the server', () => {
  let server: Awaited<ReturnType<typeof startCountingServer>>;
  beforeEach(async () => {
    server = await startCountingServer();
  });
  afterEach(async () => {
    await server.close();
  });
  const sync = (file: string, ...flags: string[]) =>
    examctl(
      [
        'user',
        'sync',
        '--file',
        file,
        '--target',
        'remote',
        '--base-url',
        server.url,
        '--allow-insecure-http',
        '--yes',
        '--json',
        ...flags,
      ],
      dir,
      env,
    );

  it('sends exactly the 110 changes with their DELETEs and false flags; the same night again sends nothing', async () => {
    const first = await sync('night1.csv');
    expect(first.code, first.stderr).toBe(0);
    expect(server.applied).toHaveLength(USERS);

    // The plan first: from the memory, the service not asked.
    const plan = await examctl(
      [
        'user',
        'sync',
        '--file',
        'night2.csv',
        '--target',
        'remote',
        '--base-url',
        server.url,
        '--allow-insecure-http',
        '--dry-run',
        ...NIGHTLY,
      ],
      dir,
      env,
    );
    expect(plan.code, plan.stderr).toBe(0);
    expect(server.applied).toHaveLength(USERS);
    expect(plan.stderr).toContain('~ jm-0 (leaves H-A; joins H-D)');
    expect(lineWith(plan.stderr, '110 movers', 'would lose')).toBeTruthy();
    const revokedPlan = await examctl(
      [
        'user',
        'sync',
        '--file',
        'night2.csv',
        '--target',
        'remote',
        '--base-url',
        server.url,
        '--allow-insecure-http',
        '--dry-run',
        '--json',
        ...NIGHTLY,
      ],
      dir,
      env,
    );
    expect(itemsOf(revokedPlan.stdout).find((item) => item.id === 'jm-100')?.removed).toEqual(['H-A:coordinator']);

    server.applied.length = 0;
    const second = await sync('night2.csv', ...NIGHTLY);
    expect(second.code, second.stderr).toBe(0);
    expect(server.applied.map((a) => a.id).sort()).toEqual(changedIds);
    for (const a of server.applied) expect(a.hierarchies, a.id).toEqual(expectedSecondNight(a.id));
    const items = itemsOf(second.stdout);
    for (const id of changedIds) expect(items.find((item) => item.id === id)?.removed, id).toEqual(expectedRemoved(id));
    expect(items.filter((item) => item.action === 'unchanged')).toHaveLength(USERS - 110);
    expect(lineWith(second.stderr, '110 movers', 'lost a link')).toBeTruthy();
    expect((JSON.parse(second.stdout) as { summary: { movers?: number } }).summary.movers).toBe(110);

    server.applied.length = 0;
    const third = await sync('night2.csv', ...NIGHTLY);
    expect(third.code, third.stderr).toBe(0);
    expect(server.applied).toEqual([]);
  });

  it('without --prune-memberships, names the users who keep links the file dropped, every night until a pruning night removes them', async () => {
    expect((await sync('night1.csv')).code).toBe(0);
    const kept =
      '60 users keep a hierarchy link or permission flag examctl sent that the file no longer gives (jm-0 still in H-A; jm-1 still in H-A; jm-2 still in H-A, 57 more)';
    // The movers' requests only add H-D; an emptied cell sends nothing: H-A and H-B stay. A revoked
    // flag is not among them: the CSV cell sends it false, so the request itself revokes it.
    const second = await sync('night2.csv', '--changed-only', '--disable-missing');
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(kept);
    expect(second.stderr).toContain('--prune-memberships removes them');
    // The next night they are unchanged, and still in H-A and H-B: said again.
    server.applied.length = 0;
    const third = await sync('night2.csv', '--changed-only', '--disable-missing');
    expect(server.applied).toEqual([]);
    expect(third.stderr).toContain(kept);
    // A dry run says it too.
    const plan = await examctl(
      [
        'user',
        'sync',
        '--file',
        'night2.csv',
        '--target',
        'remote',
        '--base-url',
        server.url,
        '--allow-insecure-http',
        '--dry-run',
        '--changed-only',
      ],
      dir,
      env,
    );
    expect(plan.stderr).toContain(kept);
    // Pruned: nothing kept any more.
    expect((await sync('night2.csv', ...NIGHTLY)).code).toBe(0);
    const after = await sync('night2.csv', '--changed-only', '--disable-missing');
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).not.toContain('no longer gives');
  });

  it('refuses a night where everyone moves: exit 2, nothing sent, naming the count and --max-prune', async () => {
    expect((await sync('night1.csv')).code).toBe(0);
    server.applied.length = 0;
    const refused = await sync('all-move.csv', '--changed-only', '--prune-memberships');
    expect(refused.code).toBe(2);
    expectCoded(refused.stderr, 'E2503', '300 of the 300 users', '--max-prune');
    expect(server.applied).toEqual([]);
    const alone = await sync('all-move.csv', '--max-prune', '5%');
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--max-prune needs --prune-memberships');
    // Said plainly that it is meant: it goes.
    const meant = await sync('all-move.csv', '--changed-only', '--prune-memberships', '--max-prune', '100%');
    expect(meant.code, meant.stderr).toBe(0);
    expect(server.applied).toHaveLength(USERS);
  });

  it('a killed pruning run, resumed, sends each remaining change once', async () => {
    expect((await sync('night1.csv')).code).toBe(0);
    server.applied.length = 0;
    // Killed by the service as its 100th request arrives, not by a count of outcomes (which also
    // counts the unchanged rows, settling ahead of the network: at outcome:40 a loaded machine
    // was once killed with no answer on disk yet). A request goes only once its own sent line is
    // durable, and that group carried the answers queued before it: the answers before it, but
    // the last few, are on disk at any speed.
    const running = startExamctl(
      [
        'user',
        'sync',
        '--file',
        'night2.csv',
        '--target',
        'remote',
        '--base-url',
        server.url,
        '--allow-insecure-http',
        '--yes',
        '--concurrency',
        '1',
        ...NIGHTLY,
      ],
      dir,
      env,
    );
    server.setGroupErrors(() => {
      if (server.applied.length === KILL_AT_REQUEST) running.child.kill('SIGKILL');
      return [];
    });
    const killed = await running.done;
    server.setGroupErrors(() => []);
    expect(killed.signal).toBe('SIGKILL');
    const beforeKill = server.applied.map((a) => a.id);
    expect(beforeKill.length).toBeGreaterThan(0);
    expect(beforeKill.length).toBeLessThan(110);
    // What the killed run's journal holds as answered: never sent again.
    const done = durablyAnswered();
    expect(done.size).toBeGreaterThan(0);
    const resumed = await examctl(
      ['--yes', '--json', '--base-url', server.url, '--allow-insecure-http', 'runs', 'resume'],
      dir,
      env,
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    const byResume = server.applied.slice(beforeKill.length).map((a) => a.id);
    expect(byResume.filter((id) => done.has(id))).toEqual([]);
    expect(new Set(byResume).size).toBe(byResume.length);
    expect([...new Set([...beforeKill, ...byResume])].sort()).toEqual(changedIds);
    // A change sent twice is only one whose answer the kill kept off the journal.
    expect(byResume.filter((id) => beforeKill.includes(id) && done.has(id))).toEqual([]);
    // The resumed report, and the one `runs show` rebuilds, say what each of the 110 removed.
    const shown = await examctl(['runs', 'show', 'last', '--json'], dir, env);
    expect(shown.code, shown.stderr).toBe(0);
    // (A change the killed run sent, whose answer the kill kept off the journal but the memory
    // had already remembered, is not sent again: it was applied, by this run: `sent`, so noted.)
    const reported = changedIds.filter((id) => done.has(id) || byResume.includes(id));
    expect(reported.length).toBeGreaterThan(60);
    for (const report of [resumed.stdout, shown.stdout]) {
      const items = itemsOf(report);
      for (const id of reported) expect(items.find((item) => item.id === id)?.removed, id).toEqual(expectedRemoved(id));
      for (const id of changedIds.filter((id) => !reported.includes(id))) {
        expect(
          items.find((item) => item.id === id),
          id,
        ).toMatchObject({
          action: 'sent',
          note: expect.stringMatching(/^acknowledged to the interrupted attempt of this run/),
        });
      }
    }
    expect((JSON.parse(resumed.stdout) as { summary: { movers?: number } }).summary.movers).toBe(reported.length);
    for (const a of server.applied) expect(a.hierarchies, a.id).toEqual(expectedSecondNight(a.id));
    server.applied.length = 0;
    const next = await sync('night2.csv', ...NIGHTLY);
    expect(next.code, next.stderr).toBe(0);
    expect(server.applied).toEqual([]);
  });

  it('a 131 for a link examctl deletes is done; a file without a Hierarchies column prunes nothing and says so once', async () => {
    expect((await sync('night1.csv')).code).toBe(0);
    // 131 (not found) or 1134 (inactive) for every DELETE examctl added; jm-1's own H-D is not found either.
    server.setGroupErrors((user) => [
      ...(user.Hierarchies ?? [])
        .filter((h) => h.Action === 'DELETE')
        .map((h, i) => ({
          ExternalId: h.ExternalId,
          Code: i % 2 === 0 && user.ExternalId.endsWith('0') ? 1134 : 131,
          Error: `Hierarchy ${h.ExternalId} gone`,
        })),
      ...(user.ExternalId === 'jm-1' ? [{ ExternalId: 'H-D', Code: 131, Error: 'Hierarchy H-D not found' }] : []),
    ]);
    server.applied.length = 0;
    const second = await sync('night2.csv', ...NIGHTLY);
    expect(second.code, second.stderr).toBe(1);
    const items = itemsOf(second.stdout);
    expect(
      items.filter((item) => item.status !== 'ok').map((item) => [item.id, item.status, item.errors.length]),
    ).toEqual([['jm-1', 'partial', 1]]);
    expect(items.find((item) => item.id === 'jm-0')?.errors).toEqual([]);
    expect(items.find((item) => item.id === 'jm-200')?.errors).toEqual([]);

    writeNight(join(dir, 'no-column.csv'), 2, 'ExternalId,FirstName,LastName,Email,UserName,Role');
    server.setGroupErrors(() => []);
    server.applied.length = 0;
    const noColumn = await sync('no-column.csv', '--prune-memberships');
    expect(noColumn.code, noColumn.stderr).toBe(0);
    expect(noColumn.stderr.match(/no Hierarchies column/g)).toHaveLength(1);
    expect(server.applied.filter((a) => a.hierarchies !== undefined)).toEqual([]);
  });

  it('a memory an earlier examctl wrote (no links) prunes nothing and says so; a full sync records the links', async () => {
    expect((await sync('night1.csv')).code).toBe(0);
    const synced = join(dir, 'state', 'synced');
    const file = join(synced, readdirSync(synced)[0]!, 'users.ndjson');
    const lines = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
    const withoutLinks = lines.map((line) => {
      const decoded = decodeChecksummedLine(Buffer.from(line));
      if (!decoded.ok) throw new Error(decoded.reason);
      const { h: _links, ...body } = decoded.body as { h?: unknown };
      return encodeChecksummedLine(JSON.stringify(body));
    });
    expect(lines.some((line) => line.includes('"h":'))).toBe(true);
    writeFileSync(file, withoutLinks.join(''));
    server.applied.length = 0;
    const night = await sync('night2.csv', ...NIGHTLY);
    expect(night.code, night.stderr).toBe(0);
    expect(night.stderr).toContain('records no hierarchy links yet, so nothing is pruned');
    expect(server.applied.filter((a) => a.hierarchies?.some((h) => h.Action === 'DELETE'))).toEqual([]);
    // The full night (every row sent) records them: a later change is pruned.
    expect((await sync('night1.csv')).code).toBe(0);
    server.applied.length = 0;
    // Night 2's very file after night 1's again: an old file (docs/sync.md, "Stale input"), meant here.
    expect((await sync('night2.csv', ...NIGHTLY, '--allow-old-file')).code).toBe(0);
    expect(server.applied.find((a) => a.id === 'jm-0')?.hierarchies).toEqual(expectedSecondNight('jm-0'));
  });

  it('JSON input: a flag examctl sent true that the record no longer gives is sent false; one never sent is never touched', async () => {
    const record = (hierarchies: unknown[]) => ({
      ExternalId: 'js-1',
      FirstName: 'J',
      LastName: 'S',
      Email: 'js@example.test',
      UserName: 'js-1',
      Role: 'Candidate',
      Hierarchies: hierarchies,
    });
    writeFileSync(join(dir, 'a.json'), JSON.stringify([record([{ ExternalId: 'H-A', IsCoordinator: true }])]));
    expect((await sync('a.json')).code).toBe(0);
    writeFileSync(
      join(dir, 'b.json'),
      JSON.stringify([record([{ ExternalId: 'H-A' }, { ExternalId: 'H-X', IsAdministrator: false }])]),
    );
    server.applied.length = 0;
    const second = await sync('b.json', '--changed-only', '--prune-memberships');
    expect(second.code, second.stderr).toBe(0);
    expect(server.applied[0]!.hierarchies).toEqual([
      { ExternalId: 'H-A', IsCoordinator: false },
      { ExternalId: 'H-X', IsAdministrator: false },
    ]);
    expect(itemsOf(second.stdout)[0]!.removed).toEqual(['H-A:coordinator']);
    server.applied.length = 0;
    expect((await sync('b.json', '--changed-only', '--prune-memberships')).code).toBe(0);
    expect(server.applied).toEqual([]);
  });
});

describe('local target: the store export says it', () => {
  const sync = (file: string, ...flags: string[]) =>
    examctl(['user', 'sync', '--file', file, '--target', 'local', '--store', 'store', '--json', ...flags], dir, env);

  interface StoredUser {
    ExternalId: string;
    Hierarchies?: Membership[];
  }
  async function storedUsers(): Promise<Map<string, StoredUser>> {
    const exported = await examctl(['local', 'export', '--store', 'store'], dir, env);
    expect(exported.code, exported.stderr).toBe(0);
    return new Map(
      (JSON.parse(exported.stdout) as { Users: StoredUser[] }).Users.map((user) => [user.ExternalId, user]),
    );
  }
  const linksOf = (user: StoredUser | undefined) =>
    (user?.Hierarchies ?? [])
      .map(
        (h) =>
          `${h.ExternalId}${h.IsCoordinator === true ? ':coordinator' : ''}${h.HasViewReportsPermissions === true ? ':reports' : ''}`,
      )
      .sort();

  beforeEach(async () => {
    const world = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'world.json'), 'utf8')) as { Hierarchies: unknown[] };
    for (const id of ['H-A', 'H-B', 'H-C', 'H-D'])
      world.Hierarchies.push({ ExternalId: id, Title: id, Parent: 'root', Active: true });
    writeFileSync(join(dir, 'world.json'), JSON.stringify(world));
    expect((await examctl(['local', 'init', '--store', 'store', '--seed', 'world.json'], dir, env)).code).toBe(0);
  });

  it('the store holds exactly the file memberships after the second night; only the 110 are updated; then nothing', async () => {
    expect((await sync('night1.csv')).code).toBe(0);
    const before = await storedUsers();
    const second = await sync('night2.csv', ...NIGHTLY);
    expect(second.code, second.stderr).toBe(0);
    const items = itemsOf(second.stdout);
    expect(
      items
        .filter((item) => item.action !== 'unchanged')
        .map((item) => item.id)
        .sort(),
    ).toEqual(changedIds);
    expect(items.filter((item) => item.action === 'updated')).toHaveLength(110);
    const after = await storedUsers();
    for (const id of ids) {
      const expected = movers.includes(id)
        ? ['H-D']
        : revoked.includes(id)
          ? ['H-A']
          : emptied.includes(id)
            ? []
            : linksOf(before.get(id));
      expect(linksOf(after.get(id)), id).toEqual(expected);
    }
    expect(linksOf(before.get('jm-100'))).toEqual(['H-A:coordinator']);
    const third = await sync('night2.csv', ...NIGHTLY);
    expect(itemsOf(third.stdout).filter((item) => item.action !== 'unchanged')).toEqual([]);
  });

  it('refuses a night where everyone moves, the store untouched', async () => {
    expect((await sync('night1.csv')).code).toBe(0);
    const before = await storedUsers();
    const refused = await sync('all-move.csv', '--changed-only', '--prune-memberships');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--max-prune');
    expect(await storedUsers()).toEqual(before);
  });

  it('a killed pruning run, resumed, applies each remaining change once', async () => {
    expect((await sync('night1.csv')).code).toBe(0);
    const killed = await examctl(
      ['user', 'sync', '--file', 'night2.csv', '--target', 'local', '--store', 'store', ...NIGHTLY],
      dir,
      {
        ...env,
        EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:40:SIGKILL',
      },
    );
    expect(killed.signal).toBe('SIGKILL');
    const resumed = await examctl(['--yes', '--json', 'runs', 'resume'], dir, env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const resumedItems = itemsOf(resumed.stdout);
    // Every change reported once across the run; the remaining ones sent by the resume only.
    expect(
      resumedItems
        .filter((item) => item.action !== 'unchanged')
        .map((item) => item.id)
        .sort(),
    ).toEqual(changedIds);
    const after = await storedUsers();
    for (const id of movers) expect(linksOf(after.get(id)), id).toEqual(['H-D']);
    for (const id of emptied) expect(linksOf(after.get(id)), id).toEqual([]);
    const next = await sync('night2.csv', ...NIGHTLY);
    expect(itemsOf(next.stdout).filter((item) => item.action !== 'unchanged')).toEqual([]);
  });
});
