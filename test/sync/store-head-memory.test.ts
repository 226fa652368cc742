import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lineWith } from '../support/facts.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { compact, memoryFile, readMemory } from '../../src/sync/memory-files.js';
import { encodeChecksummedLine } from '../../src/system/checksummed-line.js';
import { openStore } from '../../src/engine/store/index.js';
import { readStoreInstance } from '../../src/engine/store/store-instance.js';

/**
 * The store head tells a memory of another store, for every kind (docs/sync.md, "Where the store
 * stands"): a collection's memory records heads as users' do, and a memory no head was recorded
 * with (an older examctl's) never leaves a row out as unchanged on a store that says a head.
 */

let dir: string;
let env: Record<string, string>;
const syncDir = () => join(dir, 'state', 'synced');
const store = () => ({ kind: 'local' as const, store: join(dir, 'store') });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-head-memory-'));
  env = { EXAMCTL_RUNS_DIR: join(dir, 'state', 'runs'), EXAMCTL_SYNC_DIR: syncDir() };
  expect((await examctl(['local', 'init', '--store', 'store'], dir, env)).code).toBe(0);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const collection = (...flags: string[]) =>
  examctl(
    [
      'collection',
      'add',
      '--title',
      'Biology',
      '--external-id',
      'bio',
      '--target',
      'local',
      '--store',
      'store',
      '--yes',
      ...flags,
    ],
    dir,
    env,
  );

describe("collection add's memory", () => {
  it('records the store heads its runs saw', async () => {
    expect((await collection()).code).toBe(0);
    const memory = await readMemory(memoryFile(syncDir(), store(), 'collections'), 'collections', store());
    expect(memory.populations?.get('')?.heads?.length).toBe(2);
  });

  it("on another store (replaced at the path) an 810 for a collection examctl sent the old one is not 'unchanged': exit 1", async () => {
    expect((await collection()).code).toBe(0);
    expect((await examctl(['local', 'init', '--store', 'store', '--force'], dir, env)).code).toBe(0);
    // Someone else makes `bio` on the new store (a memory of their own).
    expect((await collection('--sync-dir', join(dir, 'theirs'))).code).toBe(0);
    const again = await collection('--existing', 'ok', '--json');
    expect(again.code, again.stderr).toBe(1);
    expect(JSON.parse(again.stdout).items[0].errors[0]).toMatchObject({
      code: 810,
      message: expect.stringMatching(/no record.*synced adopt-collections/),
    });
  });
});

describe('a memory no store head was recorded with (an older examctl wrote it)', () => {
  const users = (ids: string[]) =>
    JSON.stringify(
      ids.map((id) => ({ ExternalId: id, FirstName: 'S', LastName: id, Role: 'Candidate', Hierarchies: [] })),
    );
  const night = () =>
    examctl(
      ['user', 'sync', '--file', 'users.json', '--target', 'local', '--store', 'store', '--changed-only', '--json'],
      dir,
      env,
    );
  const notes = (stdout: string) =>
    (JSON.parse(stdout) as { items: { note?: string }[] }).items.map((item) => item.note);
  const actions = (stdout: string) =>
    (JSON.parse(stdout) as { items: { action?: string }[] }).items.map((item) => item.action);

  it('every user it records is sent again once, said; the night after is unchanged', async () => {
    writeFileSync(join(dir, 'users.json'), users(['a', 'b']));
    expect((await night()).code).toBe(0);
    const file = memoryFile(syncDir(), store(), 'users');
    const contents = await readMemory(file, 'users', store());
    for (const record of contents.populations!.values()) delete record.heads;
    await compact(contents, store());
    const first = await night();
    expect(first.code, first.stderr).toBe(0);
    expect(lineWith(first.stderr, file, 'no store head')).toBeTruthy();
    // Sent (the store answers unchanged), not left out by the memory: each item says why it went again.
    expect(
      notes(first.stdout).map((note) => note?.startsWith('sent again: ') && note.includes('no store head')),
    ).toEqual([true, true]);
    const second = await night();
    expect(second.stderr).not.toContain('records no store head');
    expect(actions(second.stdout)).toEqual(['unchanged', 'unchanged']);
    expect(notes(second.stdout).every((note) => note !== undefined)).toBe(true);
  });
});

describe("an older examctl's memory (format 2) whose header names another store's instance (`i`)", () => {
  const line = (body: unknown) => encodeChecksummedLine(JSON.stringify(body));
  const RUN = '20261101T000000.000Z-0001';
  /** What an older examctl wrote for store A: `gone-1` and `gone-2` synced, no store head recorded. */
  const olderMemory = (instance: string) =>
    line({ t: 'sync-memory', v: 2, kind: 'users', target: store(), i: instance }) +
    line({ id: 'gone-1', d: 'd'.repeat(43), r: RUN, f: 'S', l: 'gone-1' }) +
    line({ id: 'gone-2', d: 'e'.repeat(43), r: RUN, f: 'S', l: 'gone-2' }) +
    line({ t: 'population', r: RUN, n: 2, e: true });
  const placeMemory = (instance: string) => {
    const file = memoryFile(syncDir(), store(), 'users');
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, olderMemory(instance), { mode: 0o600 });
    return file;
  };
  const night = (...flags: string[]) =>
    examctl(
      [
        'user',
        'sync',
        '--file',
        'users.json',
        '--target',
        'local',
        '--store',
        'store',
        '--changed-only',
        '--disable-missing',
        '--max-disable',
        '2',
        '--json',
        ...flags,
      ],
      dir,
      env,
    );
  const storeUsers = async () => {
    const opened = await openStore(store().store);
    try {
      return [...(opened.state.get('users')?.values() ?? [])] as { ExternalId?: string; DisableLogin?: boolean }[];
    } finally {
      await opened.close();
    }
  };
  beforeEach(() => {
    writeFileSync(
      join(dir, 'users.json'),
      JSON.stringify([{ ExternalId: 'a', FirstName: 'S', LastName: 'a', Role: 'Candidate', Hierarchies: [] }]),
    );
  });

  it("is not this store's: nothing it lists is disabled, said; the night after is this store's own", async () => {
    const file = placeMemory('instance-of-store-A');
    const first = await night();
    expect(first.code, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout) as { items: { id?: string }[]; syncMemory?: { replaced?: boolean } };
    // No disable was sent: no leaver row (not even "not on the target").
    expect(report.items.map((item) => item.id)).toEqual(['a']);
    expect(report.syncMemory?.replaced).toBe(true);
    expect(first.stderr).toContain(file);
    const users = await storeUsers();
    expect(users.map((user) => user.ExternalId)).toContain('a');
    expect(users.filter((user) => user.DisableLogin === true)).toEqual([]);
    const memory = await readMemory(file, 'users', store());
    expect([...memory.entries].map(([id]) => id)).toEqual(['a']);
    expect(memory.populations?.get('')?.heads?.length).toBeGreaterThan(0);
    const second = await night();
    expect(second.code, second.stderr).toBe(0);
    expect((JSON.parse(second.stdout) as { items: { action?: string }[] }).items.map((item) => item.action)).toEqual([
      'unchanged',
    ]);
  });

  it('doctor warns E2504, synced show marks it replaced, and an export of it imported here is refused E2504', async () => {
    const file = placeMemory('instance-of-store-A');
    const doctor = await examctl(['doctor', '--target', 'local', '--store', 'store', '--json'], dir, env);
    const checks = (JSON.parse(doctor.stdout) as { checks: { name: string; status: string; code?: string }[] }).checks;
    const memoryCheck = checks.find((check) => check.name === 'sync memory');
    expect(memoryCheck?.status).toBe('warn');
    expect(memoryCheck?.code).toBe('E2504');
    const show = await examctl(['synced', 'show', '--json'], dir, env);
    expect(show.code, show.stderr).toBe(0);
    const memories = (JSON.parse(show.stdout) as { memories: { file: string; replaced?: boolean }[] }).memories;
    expect(memories.map((memory) => [memory.file, memory.replaced])).toEqual([[file, true]]);
    const out = join(dir, 'older.json');
    const exported = await examctl(
      ['synced', 'export', '--out', out, '--target', 'local', '--store', 'store'],
      dir,
      env,
    );
    expect(exported.code, exported.stderr).toBe(0);
    // The export keeps the instance the older memory names.
    expect(readFileSync(out, 'utf8')).toContain('instance-of-store-A');
    const imported = await examctl(
      ['synced', 'import', out, '--target', 'local', '--store', 'store', '--force'],
      dir,
      env,
    );
    expect(imported.code).toBe(2);
    expect(imported.stderr).toContain('E2504');
    expect(imported.stderr).toContain(out);
    // Nothing written: the memory there is as it was.
    expect(readFileSync(file, 'utf8')).toBe(olderMemory('instance-of-store-A'));
  });

  it("naming this store's instance, doctor does not warn E2504 and synced show does not mark it replaced", async () => {
    placeMemory((await readStoreInstance(store().store))!);
    const doctor = await examctl(['doctor', '--target', 'local', '--store', 'store', '--json'], dir, env);
    const checks = (JSON.parse(doctor.stdout) as { checks: { name: string; code?: string }[] }).checks;
    expect(checks.find((check) => check.name === 'sync memory')?.code).toBeUndefined();
    const show = await examctl(['synced', 'show', '--json'], dir, env);
    expect((JSON.parse(show.stdout) as { memories: { replaced?: boolean }[] }).memories[0]?.replaced).toBeUndefined();
  });

  it('--require-memory refuses it (E2504), sending nothing and leaving the memory as it was', async () => {
    const file = placeMemory('instance-of-store-A');
    const refused = await night('--require-memory');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('E2504');
    expect((await storeUsers()).map((user) => user.ExternalId)).not.toContain('a');
    const again = await night('--require-memory');
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('E2504');
    const kept = await readMemory(file, 'users', store());
    expect([...kept.entries].map(([id]) => id).sort()).toEqual(['gone-1', 'gone-2']);
    expect(kept.instance).toBe('instance-of-store-A');
  });

  it("naming this store's instance, it is this store's: what it lists and the file lacks is disabled", async () => {
    // The store holds them (another sync directory's run made them): the memory's user sync did, on this store.
    writeFileSync(
      join(dir, 'users.json'),
      JSON.stringify(
        ['a', 'gone-1', 'gone-2'].map((id) => ({
          ExternalId: id,
          FirstName: 'S',
          LastName: id,
          Role: 'Candidate',
          Hierarchies: [],
        })),
      ),
    );
    expect((await night('--sync-dir', join(dir, 'theirs'))).code).toBe(0);
    writeFileSync(
      join(dir, 'users.json'),
      JSON.stringify([{ ExternalId: 'a', FirstName: 'S', LastName: 'a', Role: 'Candidate', Hierarchies: [] }]),
    );
    const instance = await readStoreInstance(store().store);
    expect(instance).toBeDefined();
    placeMemory(instance!);
    const first = await night();
    expect(first.code, first.stderr).toBe(0);
    const users = await storeUsers();
    expect(
      users
        .filter((user) => user.DisableLogin === true)
        .map((user) => user.ExternalId)
        .sort(),
    ).toEqual(['gone-1', 'gone-2']);
  });
});
