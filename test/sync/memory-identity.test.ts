import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { ROOT } from '../durability/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { okEnvelope, startFaultServer } from '../support/fault-server.js';

/**
 * What the sync memory remembers must be what was sent, to the store that was sent to
 * (docs/sync.md, "The sync memory"): a hierarchy id holding `:` or a flag word is remembered
 * as itself (QA D1), and a memory of a replaced local store is not used (QA D2).
 */

interface Membership {
  ExternalId: string;
  Action?: string;
  IsCoordinator?: boolean;
}

const person = (id: string, hierarchies: Membership[]) => ({
  ExternalId: id,
  FirstName: 'A',
  LastName: 'B',
  Role: 'Candidate',
  Hierarchies: hierarchies,
});
// Night 1: c-1 coordinator of SCH:MATH and in G+1|x; c-2 in SCH:coordinator. Night 2: c-1 only in SCH:MATH (no flag), c-2 only in SCH.
const NIGHT1 = [
  person('c-1', [{ ExternalId: 'SCH:MATH', IsCoordinator: true }, { ExternalId: 'G+1|x' }]),
  person('c-2', [{ ExternalId: 'SCH:coordinator' }]),
];
const NIGHT2 = [person('c-1', [{ ExternalId: 'SCH:MATH' }]), person('c-2', [{ ExternalId: 'SCH' }])];
// Two users, both movers: over the default --max-prune of so small a population (a quarter).
const PRUNE = ['--changed-only', '--prune-memberships', '--max-prune', '100%'];

let dir: string;
let env: Record<string, string>;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-memory-identity-'));
  env = { EXAMCTL_RUNS_DIR: join(dir, 'state', 'runs'), EXAMCTL_TOKEN: 'dev-token' };
  writeFileSync(join(dir, 'night1.json'), JSON.stringify(NIGHT1));
  writeFileSync(join(dir, 'night2.json'), JSON.stringify(NIGHT2));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A loopback service answering POST /user ok (with `groupErrors` of each request) and keeping what it was sent. */
async function countingServer(groupErrors: (user: { Hierarchies?: Membership[] }) => unknown[]) {
  const sent: { ExternalId: string; Hierarchies?: Membership[] }[] = [];
  const server = await startFaultServer();
  server.fallback = (request) => {
    const user = JSON.parse(request.body) as { ExternalId: string; Hierarchies?: Membership[] };
    sent.push(user);
    return okEnvelope({ User: { ExternalId: user.ExternalId }, GroupErrors: groupErrors(user) });
  };
  return { server, sent };
}

describe('a hierarchy id holding ":" or a flag word (QA D1)', () => {
  it('remote: the second night deletes exactly the links sent and revokes the flag sent, nothing else', async () => {
    const { server, sent } = await countingServer(() => []);
    try {
      const url = server.url;
      const sync = (file: string) =>
        examctl(
          [
            'user',
            'sync',
            '--file',
            file,
            '--target',
            'remote',
            '--base-url',
            url,
            '--allow-insecure-http',
            '--yes',
            '--json',
            ...PRUNE,
          ],
          dir,
          env,
        );
      expect((await sync('night1.json')).code).toBe(0);
      sent.length = 0;
      const second = await sync('night2.json');
      expect(second.code, second.stderr).toBe(0);
      expect(sent.map((user) => [user.ExternalId, user.Hierarchies])).toEqual([
        [
          'c-1',
          [
            { ExternalId: 'SCH:MATH', IsCoordinator: false },
            { ExternalId: 'G+1|x', Action: 'DELETE' },
          ],
        ],
        ['c-2', [{ ExternalId: 'SCH' }, { ExternalId: 'SCH:coordinator', Action: 'DELETE' }]],
      ]);
      sent.length = 0;
      expect((await sync('night2.json')).code).toBe(0);
      expect(sent).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('local: a link another tool gave (SCH) is kept; the coordinator examctl gave on SCH:MATH is revoked; SCH:coordinator is deleted', async () => {
    const world = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'world.json'), 'utf8')) as {
      Hierarchies: unknown[];
      Users: unknown[];
    };
    for (const id of ['SCH', 'SCH:MATH', 'SCH:coordinator', 'G+1|x'])
      world.Hierarchies.push({ ExternalId: id, Title: id, Parent: 'root', Active: true });
    writeFileSync(join(dir, 'world.json'), JSON.stringify(world));
    expect((await examctl(['local', 'init', '--store', 'store', '--seed', 'world.json'], dir, env)).code).toBe(0);
    const sync = (file: string) =>
      examctl(['user', 'sync', '--file', file, '--target', 'local', '--store', 'store', '--json', ...PRUNE], dir, env);
    expect((await sync('night1.json')).code).toBe(0);
    // Another tool gives c-1 the link SCH (an UPSERT keeps the others).
    writeFileSync(
      join(dir, 'other.json'),
      JSON.stringify([person('c-1', [{ ExternalId: 'SCH', IsCoordinator: true }])]),
    );
    expect(
      (
        await examctl(
          [
            'user',
            'sync',
            '--file',
            'other.json',
            '--target',
            'local',
            '--store',
            'store',
            '--sync-dir',
            join(dir, 'other-tool'),
          ],
          dir,
          env,
        )
      ).code,
    ).toBe(0);
    const second = await sync('night2.json');
    expect(second.code, second.stderr).toBe(0);
    const exported = await examctl(['local', 'export', '--store', 'store'], dir, env);
    const users = new Map(
      (JSON.parse(exported.stdout) as { Users: { ExternalId: string; Hierarchies?: Membership[] }[] }).Users.map(
        (user) => [user.ExternalId, user],
      ),
    );
    const links = (id: string) =>
      (users.get(id)?.Hierarchies ?? [])
        .map((h) => `${h.ExternalId}${h.IsCoordinator === true ? ' (coordinator)' : ''}`)
        .sort();
    expect(links('c-1')).toEqual(['SCH (coordinator)', 'SCH:MATH']);
    expect(links('c-2')).toEqual(['SCH']);
  });
});

describe('a local store replaced at the same path (QA D2)', () => {
  const NIGHTLY = ['--changed-only', '--disable-missing', '--prune-memberships'];
  const ids = ['s-1', 's-2', 's-3'];
  const init = (...flags: string[]) => examctl(['local', 'init', '--store', 'store', ...flags], dir, env);
  const sync = (...flags: string[]) =>
    examctl(
      ['user', 'sync', '--file', 'users.json', '--target', 'local', '--store', 'store', '--json', ...NIGHTLY, ...flags],
      dir,
      env,
    );
  const storedIds = async () => {
    const exported = await examctl(['local', 'export', '--store', 'store'], dir, env);
    expect(exported.code, exported.stderr).toBe(0);
    return (JSON.parse(exported.stdout) as { Users: { ExternalId: string }[] }).Users.map(
      (user) => user.ExternalId,
    ).filter((id) => id.startsWith('s-'));
  };
  beforeEach(async () => {
    writeFileSync(
      join(dir, 'users.json'),
      JSON.stringify(
        ids.map((id) => ({ ExternalId: id, FirstName: 'S', LastName: id, Role: 'Candidate', Hierarchies: [] })),
      ),
    );
    expect((await init()).code).toBe(0);
  });

  it("local init --force: the replaced store's memory is not used, said; the next night sends everything", async () => {
    expect((await sync()).code).toBe(0);
    const replaced = await init('--force');
    expect(replaced.code, replaced.stderr).toBe(0);
    const night = await sync();
    expect(night.code, night.stderr).toBe(0);
    // One story, said once (trial17 f06): replaced, so the memory starts again; not "lost", no import advised, no "looked for".
    expect(
      night.stderr.split("holds none of the store heads it saw): not used; this store's memory starts again"),
    ).toHaveLength(2);
    expect(night.stderr).not.toMatch(/lost|synced import|looked for/);
    expect(await storedIds()).toEqual(ids);
  });

  it("a memory the replacement could not forget (another --sync-dir) holds the old store's heads: not used, said, everything sent", async () => {
    const elsewhere = ['--sync-dir', join(dir, 'elsewhere')];
    expect((await sync(...elsewhere)).code).toBe(0);
    expect((await init('--force')).code).toBe(0);
    // synced show says so too, before any run (trial26 F08).
    const shown = await examctl(['synced', 'show', ...elsewhere], dir, env);
    expect(shown.stdout).toMatch(
      /^local store .*store \(of another store: the store there holds none of its heads, or is another instance than it names, so does not use it\): 3 users/m,
    );
    const json = JSON.parse((await examctl(['synced', 'show', '--json', ...elsewhere], dir, env)).stdout) as {
      memories: { replaced?: boolean }[];
    };
    expect(json.memories.map((memory) => memory.replaced)).toEqual([true]);
    const night = await sync(...elsewhere);
    expect(night.code, night.stderr).toBe(0);
    expect(night.stderr).toContain('holds none of the store heads it saw): not used');
    const items = (JSON.parse(night.stdout) as { items: { id: string; action?: string }[] }).items;
    expect(items.map((item) => [item.id, item.action])).toEqual(ids.map((id) => [id, 'created']));
    expect(await storedIds()).toEqual(ids);
    // The memory now records the new store's heads: the same night again sends nothing.
    const again = await sync(...elsewhere);
    expect(again.stderr).not.toContain('replaced');
    expect((await examctl(['synced', 'show', ...elsewhere], dir, env)).stdout).not.toContain('not used');
    expect(
      (JSON.parse(again.stdout) as { items: { action?: string }[] }).items.every((item) => item.action === 'unchanged'),
    ).toBe(true);
  });

  it('a store moved (mv): synced show marks its memory not at all, and the run on the new path takes it in (trial29 F03)', async () => {
    expect((await sync()).code).toBe(0);
    renameSync(join(dir, 'store'), join(dir, 'moved'));
    const shown = await examctl(['synced', 'show', '--json'], dir, env);
    expect(
      (JSON.parse(shown.stdout) as { memories: { replaced?: boolean }[] }).memories.map((memory) => memory.replaced),
    ).toEqual([undefined]);
    // The job still pointing at the old path: its --require-memory night makes no store there (trial32 F09).
    const old = await sync('--require-memory');
    expect(old.code).toBe(2);
    // Its memory names a store there: the store is gone (E2301).
    expectCoded(old.stderr, 'E2301', '--require-memory', join(dir, 'store'));
    expect(existsSync(join(dir, 'store'))).toBe(false);
    // A path no memory names: no memory to require (E2501), and no store made there either.
    const none = await examctl(
      [
        'user',
        'sync',
        '--file',
        'users.json',
        '--target',
        'local',
        '--store',
        'never',
        '--json',
        ...NIGHTLY,
        '--require-memory',
      ],
      dir,
      env,
    );
    expect(none.code).toBe(2);
    expectCoded(none.stderr, 'E2501', '--require-memory', join(dir, 'never'));
    expect(existsSync(join(dir, 'never'))).toBe(false);
    // doctor on the moved store: its memory is not lost, the next run takes it in (trial32 F07).
    const doctor = await examctl(['doctor', '--target', 'local', '--store', 'moved', '--json'], dir, env);
    const memoryCheck = (
      JSON.parse(doctor.stdout) as { checks: { name: string; status: string; detail: string }[] }
    ).checks.find((check) => check.name === 'sync memory');
    expect(memoryCheck).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining("the next run takes in this store's memory kept for the path it was moved from"),
    });
    const night = await examctl(
      ['user', 'sync', '--file', 'users.json', '--target', 'local', '--store', 'moved', '--json', ...NIGHTLY],
      dir,
      env,
    );
    expect(night.code, night.stderr).toBe(0);
    expect(night.stderr).toContain('took in');
    expect(
      (JSON.parse(night.stdout) as { items: { action?: string }[] }).items.every((item) => item.action === 'unchanged'),
    ).toBe(true);
  });

  it("--require-memory with only the replaced store's memory: exit 2 saying why the file there is not used", async () => {
    const elsewhere = ['--sync-dir', join(dir, 'elsewhere')];
    expect((await sync(...elsewhere)).code).toBe(0);
    expect((await init('--force')).code).toBe(0);
    const night = await sync(...elsewhere, '--require-memory');
    expect(night.code).toBe(2);
    expectCoded(
      night.stderr,
      'E2504',
      '--require-memory: the local store holds none of the store heads this memory saw',
    );
    expect(night.stderr).toContain('nothing was sent');
  });

  it("a dry run leaves a replaced store's memory as it was and says so (trial30)", async () => {
    const memories = () =>
      (readdirSync(join(dir, 'state'), { recursive: true }) as string[])
        .filter((name) => name.endsWith('.ndjson'))
        .map((name) => readFileSync(join(dir, 'state', name), 'utf8'));
    expect((await sync()).code).toBe(0);
    expect((await init('--force')).code).toBe(0);
    const before = memories();
    const plain = () =>
      examctl(['user', 'sync', '--file', 'users.json', '--target', 'local', '--store', 'store', '--dry-run'], dir, env);
    for (const run of [await sync('--dry-run'), await plain()]) {
      expect(run.stderr).toContain('holds none of the store heads');
      expect(run.stderr).not.toContain('starts again');
    }
    expect((JSON.parse((await sync('--dry-run')).stdout) as { syncMemory: unknown }).syncMemory).toMatchObject({
      replaced: true,
      left: true,
    });
    expect(memories()).toEqual(before);
  });

  it("doctor warns that a replaced store's memory is not used, with the way on; exit 0 (trial30)", async () => {
    expect((await sync()).code).toBe(0);
    const doctor = () => examctl(['doctor', '--target', 'local', '--store', 'store', '--json'], dir, env);
    const memoryCheck = async () => {
      const run = await doctor();
      expect(run.code, run.stdout).toBe(0);
      return (JSON.parse(run.stdout) as { checks: { name: string; status: string; detail: string }[] }).checks.find(
        (entry) => entry.name === 'sync memory',
      )!;
    };
    expect((await memoryCheck()).status).toBe('ok');
    expect((await init('--force')).code).toBe(0);
    const check = await memoryCheck();
    expect(check.status).toBe('warn');
    expect(check.detail).toMatch(/users 3 \(.*\): the local store holds none of the store heads this memory saw/);
    // Only what the night says: another store's memory, not an "older" store of its own (trial39 F02).
    expect(check.detail).not.toContain('older than run');
    const night = await sync('--dry-run');
    expect(night.stderr).toContain('holds none of the store heads it saw): not used');
    expect(night.stderr).not.toContain('older than run');
  });

  it('a run --require-memory refuses for it leaves that memory as it was: the store restored from its backup uses it (trial29 F06)', async () => {
    const elsewhere = ['--sync-dir', join(dir, 'elsewhere')];
    const memories = () =>
      (readdirSync(join(dir, 'elsewhere'), { recursive: true }) as string[])
        .filter((name) => name.endsWith('.ndjson'))
        .map((name) => [name, readFileSync(join(dir, 'elsewhere', name), 'utf8')]);
    expect((await sync(...elsewhere)).code).toBe(0);
    cpSync(join(dir, 'store'), join(dir, 'backup'), { recursive: true });
    const before = memories();
    expect((await init('--force')).code).toBe(0);
    const refused = await sync(...elsewhere, '--require-memory');
    expect(refused.code).toBe(2);
    expectCoded(refused.stderr, 'E2504', '--require-memory');
    // Said once, by the refusal (the refused run's summary only counts), and as what it does: nothing sent.
    expect(refused.stderr).toContain('holds none of the store heads this memory saw');
    expect(refused.stderr).toContain('this memory is left as it is');
    expect(refused.stderr).not.toContain('everything is sent');
    expect(refused.stderr).not.toContain('starts again');
    expect((JSON.parse(refused.stdout) as { syncMemory: unknown }).syncMemory).toMatchObject({
      replaced: true,
      left: true,
    });
    expect(memories()).toEqual(before);
    rmSync(join(dir, 'store'), { recursive: true });
    cpSync(join(dir, 'backup'), join(dir, 'store'), { recursive: true });
    const restored = await sync(...elsewhere, '--require-memory');
    expect(restored.code, restored.stderr).toBe(0);
    expect((JSON.parse(restored.stdout) as { items: { action?: string }[] }).items.map((item) => item.action)).toEqual([
      'unchanged',
      'unchanged',
      'unchanged',
    ]);
  });
});

describe("a store the first run creates (no local init: the README's default)", () => {
  const NIGHTLY = ['--changed-only', '--disable-missing', '--prune-memberships', '--require-memory'];
  const users = (ids: string[]) =>
    JSON.stringify(
      ids.map((id) => ({ ExternalId: id, FirstName: 'S', LastName: id, Role: 'Candidate', Hierarchies: [] })),
    );
  // No --store: the current directory's .examctl-store, created by the first real run.
  const sync = (...flags: string[]) =>
    examctl(['user', 'sync', '--file', 'users.json', '--target', 'local', '--json', ...flags], dir, env);

  it("the second night uses the first night's memory: the leaver is disabled, the others unchanged", async () => {
    writeFileSync(join(dir, 'users.json'), users(['s-1', 's-2', 's-3']));
    const first = await sync('--changed-only', '--disable-missing', '--prune-memberships');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('created local store at');
    writeFileSync(join(dir, 'users.json'), users(['s-1', 's-2']));
    const second = await sync(...NIGHTLY);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain('replaced');
    const items = (JSON.parse(second.stdout) as { items: { id: string; action?: string }[] }).items;
    expect(items.map((item) => [item.id, item.action])).toEqual([
      ['s-1', 'unchanged'],
      ['s-2', 'unchanged'],
      ['s-3', 'disabled'],
    ]);
  });

  it('schedule push --changed-only: the second run sends nothing', async () => {
    const push = () =>
      examctl(
        [
          'schedule',
          'push',
          '--file',
          join(ROOT, 'fixtures', 'sittings.csv'),
          '--target',
          'local',
          '--upsert',
          '--changed-only',
          '--json',
        ],
        dir,
        env,
      );
    const first = await push();
    expect(first.code, first.stderr).toBe(0);
    const second = await push();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain('replaced');
    const items = (JSON.parse(second.stdout) as { items: { action?: string }[] }).items;
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((item) => item.action === 'unchanged')).toBe(true);
  });

  it('a dry run before the first real run creates nothing and finds no memory', async () => {
    writeFileSync(join(dir, 'users.json'), users(['s-1']));
    const dry = await sync('--changed-only', '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain('no store yet at');
    expect(existsSync(join(dir, '.examctl-store'))).toBe(false);
  });
});

describe('a partial mover (QA D6)', () => {
  it("its DELETE went through, the file's own link failed: sent again the next night, but not as a mover again", async () => {
    // H-X does not exist on the platform: 131 for it, every night.
    const { server, sent } = await countingServer((user) =>
      (user.Hierarchies ?? []).flatMap((h) =>
        h.ExternalId === 'H-X' ? [{ ExternalId: 'H-X', Code: 131, Error: 'Hierarchy H-X not found' }] : [],
      ),
    );
    try {
      const url = server.url;
      const sync = (file: string) =>
        examctl(
          [
            'user',
            'sync',
            '--file',
            file,
            '--target',
            'remote',
            '--base-url',
            url,
            '--allow-insecure-http',
            '--yes',
            '--json',
            ...PRUNE,
          ],
          dir,
          env,
        );
      writeFileSync(join(dir, 'a.json'), JSON.stringify([person('p-1', [{ ExternalId: 'H-A' }])]));
      writeFileSync(join(dir, 'b.json'), JSON.stringify([person('p-1', [{ ExternalId: 'H-X' }])]));
      expect((await sync('a.json')).code).toBe(0);
      const moved = await sync('b.json');
      expect(moved.code).toBe(1);
      const items = (out: string) => (JSON.parse(out) as { items: { status: string; removed?: string[] }[] }).items;
      expect(items(moved.stdout).map((item) => [item.status, item.removed])).toEqual([['partial', ['H-A']]]);
      sent.length = 0;
      const next = await sync('b.json');
      expect(next.code).toBe(1);
      expect(sent.map((user) => user.Hierarchies)).toEqual([[{ ExternalId: 'H-X' }]]);
      expect(items(next.stdout).map((item) => [item.status, item.removed])).toEqual([['partial', undefined]]);
    } finally {
      await server.close();
    }
  });
});
