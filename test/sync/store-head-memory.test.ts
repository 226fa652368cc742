import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { examctlStep as examctl } from '../support/in-process.js';
import { compact, memoryFile, readMemory } from '../../src/sync/memory-files.js';

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
    expect(again.stdout).toContain('examctl has no record of sending it there');
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
    expect(first.stderr).toContain(`the sync memory ${file} records no store head`);
    // Sent (the store answers unchanged), not left out by the memory: no item carries the note naming the run that sent it.
    expect(notes(first.stdout)).toEqual([undefined, undefined]);
    const second = await night();
    expect(second.stderr).not.toContain('records no store head');
    expect(actions(second.stdout)).toEqual(['unchanged', 'unchanged']);
    expect(notes(second.stdout).every((note) => note !== undefined)).toBe(true);
  });
});
