import { describe, it, expect } from 'vitest';
import { appendFile, mkdir, readFile, readdir, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  InternalError,
  StoreDamagedError,
  StoreReplacedError,
  TargetError,
  UsageError,
} from '../../src/system/errors.js';
import type { Change, StoreIndexer, StoreState } from '../../src/engine/store/contract.js';
import { StoreExistsError, createStore, openStore, storeExists } from '../../src/engine/store/index.js';
import { journalFileName, snapshotFileName } from '../../src/engine/store/manifest.js';
import { readStoreHead } from '../../src/engine/store/file-store.js';
import { lockTimeoutFromEnv } from '../../src/system/lock.js';
import { put } from '../support/store.js';
import { exportWorldText } from '../../src/engine/world-io.js';
import { useTempStore } from '../support/temp-dir.js';
import { readStoreInstance } from '../../src/engine/store/store-instance.js';

let root: string;
let dir: string;

useTempStore('examctl-store-', (made) => ({ root, dir } = made));

const user = (key: string, value: unknown = { UserName: key }): Change => ({ collection: 'users', key, value });
const users = (state: StoreState) => state.get('users')!;

describe('create, open, round trip', () => {
  it('creates a store, writes, and reopens with the same content', async () => {
    expect(await storeExists(dir)).toBe(false);
    await createStore(dir, [user('u-1'), { collection: 'settings', key: 'settings', value: { SiteUrl: 'x' } }]);
    expect(await storeExists(dir)).toBe(true);
    const store = await openStore(dir);
    expect(users(store.state).get('u-1')).toEqual({ UserName: 'u-1' });
    await store.transact(put(user('u-2'), user('u-1', { UserName: 'renamed' })));
    await store.transact(put({ collection: 'users', key: 'u-2', value: null }));
    await store.close();

    const again = await openStore(dir);
    expect([...users(again.state).keys()]).toEqual(['u-1']);
    expect(users(again.state).get('u-1')).toEqual({ UserName: 'renamed' });
    expect(again.state.get('settings')!.get('settings')).toEqual({ SiteUrl: 'x' });
    await again.close();
  });

  it('returns the result of decide and lets later calls in a batch see earlier changes', async () => {
    await createStore(dir, []);
    const store = await openStore(dir);
    const increment = (state: StoreState) => {
      const n = ((state.get('settings')!.get('counter') as { n: number } | undefined)?.n ?? 0) + 1;
      return { result: n, changes: [{ collection: 'settings' as const, key: 'counter', value: { n } }] };
    };
    const results = await Promise.all(Array.from({ length: 25 }, () => store.transact(increment)));
    expect(results).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    await store.close();
    const again = await openStore(dir);
    expect(again.state.get('settings')!.get('counter')).toEqual({ n: 25 });
    await again.close();
  });

  it('rejects only the transaction whose decide throws; its changes are not applied', async () => {
    await createStore(dir, []);
    const store = await openStore(dir);
    const failing = store.transact(() => {
      throw new Error('rule broken');
    });
    const ok = store.transact(put(user('kept')));
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const unwritable = store.transact(put(user('cyclic', cyclic)));
    await expect(failing).rejects.toThrow('rule broken');
    await expect(ok).resolves.toBeUndefined();
    await expect(unwritable).rejects.toThrow();
    expect(users(store.state).has('cyclic')).toBe(false);
    await store.close();
    const again = await openStore(dir);
    expect([...users(again.state).keys()]).toEqual(['kept']);
    await again.close();
  });

  it('after the hints of a change failed mid-transaction, a read reloads: memory never shows a change that is not on the disk', async () => {
    await createStore(dir, []);
    const store = await openStore(dir);
    let derived = 0;
    store.useIndexer({
      version: 'test',
      hints: (_collection, key) => {
        derived += 1;
        if (key === 'half-applied') throw new Error('index broken');
        return [`k${key}`];
      },
    });
    // Asked once, the lookup keeps its overlay true through every later change.
    expect(store.keyByHint('users', 'kkept')).toBeUndefined();
    await store.transact(put(user('kept')));
    await expect(store.transact(put(user('first-half'), user('half-applied')))).rejects.toThrow('index broken');
    // The map took the first change before the second's hints threw.
    expect(users(store.state).has('first-half')).toBe(true);
    await store.refresh();
    expect([...users(store.state).keys()]).toEqual(['kept']);
    expect(derived).toBeGreaterThanOrEqual(2);
    await store.transact(put(user('after')));
    expect([...users(store.state).keys()].sort()).toEqual(['after', 'kept']);
    await store.close();
  });

  it('refuses to create over an existing store without force, replaces it with force', async () => {
    await createStore(dir, [user('old')]);
    await expect(createStore(dir, [user('new')])).rejects.toBeInstanceOf(StoreExistsError);
    const open = await openStore(dir);
    await createStore(dir, [user('new')], { force: true });
    const reopened = await openStore(dir);
    expect([...users(reopened.state).keys()]).toEqual(['new']);
    // A process that had the old store open reloads on its next catch-up.
    await open.refresh();
    expect([...users(open.state).keys()]).toEqual(['new']);
    await open.close();
    await reopened.close();
    const names = await readdir(dir);
    expect(names.filter((n) => n.startsWith('snapshot-'))).toEqual([snapshotFileName(2)]);
  });

  it('refreshes asked before a check begins share it; one asked after has its own and sees what was written meanwhile', async () => {
    await createStore(dir, [user('old')]);
    const reader = await openStore(dir);
    const writer = await openStore(dir);
    const first = reader.refresh();
    expect(reader.refresh()).toBe(first);
    await first;
    await writer.transact(put(user('meanwhile')));
    await writer.close();
    const second = reader.refresh();
    expect(second).not.toBe(first);
    await second;
    expect([...users(reader.state).keys()].sort()).toEqual(['meanwhile', 'old']);
    await reader.close();
  });

  it("a run's store replaced under it (local init --force between two of its batches): its next write and read fail, nothing lands on the new store (trial35 F04)", async () => {
    await createStore(dir, [user('old')]);
    const run = await openStore(dir, { stopWhenReplaced: true });
    await run.transact(put(user('sent')));
    await createStore(dir, [user('new')], { force: true });
    const stopped = await run.transact(put(user('later'))).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(stopped).toBeInstanceOf(StoreReplacedError);
    expect((stopped as StoreReplacedError).code).toBe('E3031');
    expect((stopped as StoreReplacedError).message).toContain(`${dir} `);
    expect((stopped as StoreReplacedError).message).toContain('local init --force');
    await expect(run.refresh()).rejects.toBeInstanceOf(TargetError);
    await run.close();
    const fresh = await openStore(dir);
    expect([...users(fresh.state).keys()]).toEqual(['new']);
    await fresh.close();
  });

  it('a store used after it was closed is an examctl bug (exit 70), naming the store', async () => {
    await createStore(dir, [user('old')]);
    const store = await openStore(dir);
    await store.close();
    const used = await store.transact(put(user('later'))).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(used).toBeInstanceOf(InternalError);
    expect((used as InternalError).code).toBe('E7000');
    expect((used as InternalError).exitCode).toBe(70);
    expect((used as InternalError).message).toContain(`store ${dir} is closed`);
  });

  it('refuses to create in a non-empty directory that is not a store, even with force', async () => {
    await mkdir(dir);
    await writeFile(join(dir, 'notes.txt'), 'mine');
    await expect(createStore(dir, [], { force: true })).rejects.toBeInstanceOf(UsageError);
    expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('creates into an existing empty directory', async () => {
    await mkdir(dir);
    await createStore(dir, [user('a')]);
    const store = await openStore(dir);
    expect(users(store.state).has('a')).toBe(true);
    await store.close();
  });

  it('local export lists entities sorted by key, whatever order the store holds them in', async () => {
    await createStore(dir, [
      user('b'),
      user('a'),
      user('B'),
      { collection: 'settings', key: 'settings', value: { SiteUrl: 'x' } },
    ]);
    const store = await openStore(dir);
    expect([...users(store.state).keys()]).toEqual(['b', 'a', 'B']);
    const exported = JSON.parse([...exportWorldText(store.state)].join('')) as { Users: { UserName: string }[] };
    expect(exported.Users.map((u) => u.UserName)).toEqual(['B', 'a', 'b']);
    await store.close();
  });
});

describe('a store\'s head (docs/store.md, "Head")', () => {
  it('moves with each commit, is kept through compaction with every earlier one, comes back with a restored copy, and a fork past it is another head', async () => {
    await createStore(dir, [user('u-1')]);
    const first = await readStoreHead(dir);
    const store = await openStore(dir);
    expect((await store.standing!()).head).toBe(first.head);
    await store.transact(put(user('u-2')));
    const second = (await store.standing!()).head;
    expect(second).not.toBe(first.head);
    const backup = await Promise.all(
      [journalFileName(1), snapshotFileName(1), 'CURRENT'].map(
        async (name) => [name, await readFile(join(dir, name))] as const,
      ),
    );
    await store.transact(put(user('u-3')));
    const third = (await store.standing!()).head;
    await store.compact();
    expect(store.currentGeneration).toBe(2);
    // Compaction keeps the head, and the history answers for every earlier one.
    expect(await store.standing!([third, second, first.head, 'A'.repeat(22)])).toEqual({
      head: third,
      holds: [third, second, first.head],
      changed: [],
    });
    await store.close();
    expect(await readStoreHead(dir, [second, first.head])).toEqual({
      head: third,
      holds: [second, first.head],
      changed: ['users:u-3'],
    });
    // Restored by copy to the backup: its head is back, the later one is not held.
    await rm(dir, { recursive: true });
    await mkdir(dir);
    for (const [name, bytes] of backup) await writeFile(join(dir, name), bytes);
    expect(await readStoreHead(dir, [second, third])).toEqual({ head: second, holds: [second], changed: [] });
    // Another command writes past the restore: a fork, the same length of history, another head.
    const forked = await openStore(dir);
    await forked.transact(put(user('u-3', { UserName: 'other' })));
    await forked.close();
    const fork = await readStoreHead(dir, [second, third]);
    expect([fork.head === third, fork.holds]).toEqual([false, [second]]);
  });

  it('names exactly what changed after a head through compactions, deletions too, while it keeps no more deletions than records', async () => {
    await createStore(dir, [user('u-1'), user('u-2')]);
    const store = await openStore(dir);
    const start = (await store.standing!()).head;
    await store.transact(put(user('u-1', { UserName: 'renamed' })));
    const mid = (await store.standing!()).head;
    await store.compact();
    await store.transact(() => ({ result: undefined, changes: [{ collection: 'users', key: 'u-2', value: null }] }));
    await store.transact(put(user('u-3'), { collection: 'settings', key: 'settings', value: {} }));
    await store.compact();
    await store.transact(put(user('u-4')));
    const changedAfter = async (head: string) => (await readStoreHead(dir, [head])).changed.sort();
    expect(await changedAfter(start)).toEqual(['users:u-1', 'users:u-2', 'users:u-3', 'users:u-4']);
    expect(await changedAfter(mid)).toEqual(['users:u-2', 'users:u-3', 'users:u-4']);
    // Deletions past the records' count: the oldest go at the next compaction, and the heads before them.
    for (const key of ['u-1', 'u-3', 'u-4'])
      await store.transact(() => ({ result: undefined, changes: [{ collection: 'users', key, value: null }] }));
    const late = (await store.standing!()).head;
    await store.compact();
    await store.compact();
    await store.close();
    const answer = await readStoreHead(dir, [late, mid, start]);
    expect([answer.holds, answer.changed]).toEqual([[late], []]);
    expect((await readStoreHead(dir, [mid])).holds).toEqual([]);
  });

  it('of a store an older examctl compacted last: the heads before its generation are not held, its first one is; a damaged serials file is exit 3', async () => {
    await createStore(dir, [user('u-1')]);
    const store = await openStore(dir);
    const start = (await store.standing!()).head;
    await store.transact(put(user('u-2')));
    await store.compact();
    const first = (await store.standing!()).head;
    await store.transact(put(user('u-3')));
    await store.close();
    const serials = await readFile(join(dir, 'serials-2.ndjson'), 'utf8');
    await writeFile(join(dir, 'serials-2.ndjson'), `{"damaged\n${serials}`);
    await expect(readStoreHead(dir, [start])).rejects.toMatchObject({
      exitCode: 3,
      message: expect.stringContaining('serials-2.ndjson:1'),
    });
    await rm(join(dir, 'serials-2.ndjson'));
    const answer = await readStoreHead(dir, [first, start]);
    expect([answer.holds, answer.changed]).toEqual([[first], ['users:u-3']]);
    expect((await readStoreHead(dir, [start])).holds).toEqual([]);
  });

  it('is its own for each store made, even of the same content', async () => {
    await createStore(dir, [user('u-1')]);
    const other = join(root, 'other');
    await createStore(other, [user('u-1')]);
    const [mine, theirs] = [await readStoreHead(dir), await readStoreHead(other)];
    expect(mine.head).not.toBe(theirs.head);
    expect((await readStoreHead(other, [mine.head])).holds).toEqual([]);
  });
});

describe('journal writes through the thread pool (a slow disk)', () => {
  it('commits concurrent transactions in order and reopens with all of them', async () => {
    await createStore(dir, [user('seed')]);
    // The first line probes synchronously; no write is ever fast enough after it, no probe is ever due.
    const store = await openStore(dir, { journalWriteTiming: { maxSyncMs: 0, probeEveryMs: Infinity } });
    await store.transact(put(user('first')));
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        store.transact(put(user(`u-${i}`), user('seed', { UserName: `seed-${i}` }))),
      ),
    );
    expect(results).toHaveLength(40);
    await store.close();
    const journal = await readFile(join(dir, journalFileName(1)), 'utf8');
    expect(journal.trim().split('\n').length).toBeGreaterThanOrEqual(2);
    const again = await openStore(dir);
    expect(users(again.state).size).toBe(42);
    expect(users(again.state).get('seed')).toEqual({ UserName: 'seed-39' });
    await again.close();
  });
});

describe('compaction', () => {
  it('switches to a new generation, removes the old files, and reopens with everything', async () => {
    await createStore(dir, [user('seed')]);
    const store = await openStore(dir, { compactAtBytes: 2000 });
    for (let i = 0; i < 60; i += 1) await store.transact(put(user(`u-${i}`)));
    await store.transact(put({ collection: 'users', key: 'u-0', value: null }));
    expect(store.currentGeneration).toBeGreaterThan(1);
    await store.close();
    const names = (await readdir(dir)).filter((n) => /^(snapshot|journal)-/.test(n)).sort();
    const generation = Number((await readFile(join(dir, 'CURRENT'), 'utf8')).match(/"generation":(\d+)/)![1]);
    expect(names).toEqual([journalFileName(generation), snapshotFileName(generation)]);
    const again = await openStore(dir);
    expect(users(again.state).size).toBe(60);
    expect(users(again.state).has('u-0')).toBe(false);
    expect(users(again.state).has('u-59')).toBe(true);
    await again.close();
  });

  it('another open store notices the new generation on refresh and reloads, its hint lookups with it', async () => {
    await createStore(dir, []);
    const writer = await openStore(dir);
    const reader = await openStore(dir, { readOnly: true });
    const byName: StoreIndexer = {
      version: 'test',
      hints: (_collection, _key, value) => [`n${(value as { UserName: string }).UserName}`],
    };
    writer.useIndexer(byName);
    reader.useIndexer(byName);
    await writer.transact(put(user('a')));
    await reader.refresh();
    expect(reader.currentGeneration).toBe(1);
    expect(reader.keyByHint('users', 'na')).toBe('a');
    await writer.compact();
    await writer.transact(put(user('b'), user('a', { UserName: 'a2' })));
    await reader.refresh();
    expect(reader.currentGeneration).toBe(2);
    expect([
      reader.keyByHint('users', 'na'),
      reader.keyByHint('users', 'na2'),
      reader.keyByHint('users', 'nb'),
    ]).toEqual([undefined, 'a', 'b']);
    expect(users(reader.state).get('a')).toEqual({ UserName: 'a2' });
    await writer.close();
    await reader.close();
  });

  it('a writer catches up with another writer before its own transaction', async () => {
    await createStore(dir, []);
    const first = await openStore(dir);
    const second = await openStore(dir);
    await first.transact(put(user('from-first')));
    await first.compact();
    await first.transact(put(user('after-compaction')));
    const seen = await second.transact((state) => ({ result: [...state.get('users')!.keys()].sort(), changes: [] }));
    expect(seen).toEqual(['after-compaction', 'from-first']);
    await first.close();
    await second.close();
  });
});

describe('crash leftovers and large values', () => {
  it('ignores files a compaction killed before the CURRENT switch left, and the next compaction replaces them', async () => {
    await createStore(dir, [user('a')]);
    await writeFile(join(dir, snapshotFileName(2)), 'half a snapshot');
    await writeFile(join(dir, '.atomic-99999999-0123-snapshot-2.ndjson'), 'half');
    const store = await openStore(dir);
    expect(store.currentGeneration).toBe(1);
    expect([...users(store.state).keys()]).toEqual(['a']);
    await store.transact(put(user('b')));
    await store.compact();
    await store.close();
    expect((await readdir(dir)).sort()).toEqual([
      'CURRENT',
      'INSTANCE',
      'heads-2.ndjson',
      journalFileName(2),
      'serials-2.ndjson',
      snapshotFileName(2),
    ]);
    const again = await openStore(dir);
    expect([...users(again.state).keys()].sort()).toEqual(['a', 'b']);
    await again.close();
  });

  it('replaces a damaged store with force', async () => {
    await createStore(dir, [user('a')]);
    await writeFile(join(dir, 'CURRENT'), 'garbage');
    await expect(openStore(dir)).rejects.toBeInstanceOf(StoreDamagedError);
    await createStore(dir, [user('fresh')], { force: true });
    const store = await openStore(dir);
    expect([...users(store.state).keys()]).toEqual(['fresh']);
    await store.close();
  });

  it('a replacement that fails before its switch leaves the store as it was, its INSTANCE (or none) included', async () => {
    const full: StoreIndexer = {
      version: 'x',
      hints: () => {
        throw Object.assign(new Error('full'), { code: 'ENOSPC' });
      },
    };
    await createStore(dir, [user('a')]);
    const id = await readStoreInstance(dir);
    await expect(createStore(dir, [user('b')], { force: true, indexer: full })).rejects.toThrow(
      /cannot replace the store.*ENOSPC/,
    );
    expect(await readStoreInstance(dir)).toBe(id);
    await rm(join(dir, 'INSTANCE'));
    await expect(createStore(dir, [user('b')], { force: true, indexer: full })).rejects.toThrow(/cannot replace/);
    expect(await readStoreInstance(dir)).toBeUndefined();
    const store = await openStore(dir);
    expect([...users(store.state).keys()]).toEqual(['a']);
    await store.close();
    await createStore(dir, [user('b')], { force: true });
    expect((await readdir(dir)).sort()).toEqual(['CURRENT', 'INSTANCE', journalFileName(2), snapshotFileName(2)]);
    expect(await readStoreInstance(dir)).not.toBe(id);
  });

  it('round-trips values larger than the read chunk through journal and snapshot', async () => {
    await createStore(dir, []);
    const big = { UserName: 'big', Notes: 'x\u00e9\n'.repeat(150_000) };
    const store = await openStore(dir);
    await store.transact(put(user('big', big), user('small')));
    await store.close();
    const fromJournal = await openStore(dir);
    expect(users(fromJournal.state).get('big')).toEqual(big);
    await fromJournal.compact();
    await fromJournal.close();
    const fromSnapshot = await openStore(dir);
    expect(users(fromSnapshot.state).get('big')).toEqual(big);
    expect(users(fromSnapshot.state).get('small')).toEqual({ UserName: 'small' });
    await fromSnapshot.close();
  });
});

describe('format version', () => {
  it('refuses a store whose CURRENT names a newer format', async () => {
    await createStore(dir, []);
    await writeFile(join(dir, 'CURRENT'), '{"examctl":"store","format":99,"generation":1}\n');
    const error = await openStore(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreDamagedError);
    expect((error as Error).message).toContain(
      'store format 99 is newer than this examctl supports (2); upgrade examctl',
    );
  });

  it('refuses a snapshot whose header names a newer format', async () => {
    await createStore(dir, []);
    const path = join(dir, snapshotFileName(1));
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.replace('"format":2', '"format":7'));
    await expect(openStore(dir)).rejects.toThrow(/store format 7 is newer/);
  });
});

describe('damage', () => {
  async function storeWithThreeLines(): Promise<string> {
    await createStore(dir, []);
    const store = await openStore(dir);
    for (const key of ['a', 'b', 'c']) await store.transact(put(user(key)));
    await store.close();
    return join(dir, journalFileName(1));
  }

  /** Three journal lines, the middle one changed without its checksum; the journal's path and text. */
  async function storeWithDamagedMiddleLine(): Promise<{ journal: string; damaged: string }> {
    const journal = await storeWithThreeLines();
    const lines = (await readFile(journal, 'utf8')).split('\n');
    lines[1] = lines[1]!.replace('"UserName":"b"', '"UserName":"x"');
    const damaged = lines.join('\n');
    await writeFile(journal, damaged);
    return { journal, damaged };
  }

  it('a corrupted middle journal line is StoreDamagedError naming file:line, and nothing is overwritten', async () => {
    const { journal, damaged } = await storeWithDamagedMiddleLine();
    const before = await readdir(dir);
    const error = await openStore(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreDamagedError);
    expect((error as Error).message).toContain(`${journal}:2: checksum mismatch`);
    expect(await readFile(journal, 'utf8')).toBe(damaged);
    expect(await readdir(dir)).toEqual(before);
  });

  it.skipIf(process.platform !== 'linux')(
    'a store that cannot be loaded keeps no file open (its journal was opened before the replay failed)',
    async () => {
      const { journal } = await storeWithDamagedMiddleLine();
      const openOnJournal = async () => {
        const fds = await readdir('/proc/self/fd');
        const targets = await Promise.all(fds.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
        return targets.filter((target) => target === journal).length;
      };
      expect(await openOnJournal()).toBe(0);
      for (let i = 0; i < 3; i += 1) await expect(openStore(dir)).rejects.toBeInstanceOf(StoreDamagedError);
      expect(await openOnJournal()).toBe(0);
    },
  );

  it('a damaged snapshot entity line is StoreDamagedError naming file:line', async () => {
    await createStore(dir, [user('a'), user('b')]);
    const path = join(dir, snapshotFileName(1));
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.replace('{"c":"users","k":"b"', '{"c":"users","k":"b'));
    await expect(openStore(dir)).rejects.toThrow(`${path}:3: invalid JSON`);
    await writeFile(path, text.replace('"UserName":"b"', '"UserName":"B"'));
    await expect(openStore(dir)).rejects.toThrow(`${path}:4: checksum mismatch`);
  });

  it('a truncated snapshot is refused', async () => {
    await createStore(dir, [user('a'), user('b')]);
    const path = join(dir, snapshotFileName(1));
    const lines = (await readFile(path, 'utf8')).split('\n');
    await writeFile(path, `${lines.slice(0, 3).join('\n')}\n`);
    await expect(openStore(dir)).rejects.toThrow(/no end line/);
  });

  it('a torn tail (no newline) is ignored on load and cut off by the next writer', async () => {
    const journal = await storeWithThreeLines();
    const good = await readFile(journal, 'utf8');
    await appendFile(journal, '{"crc":"0000');
    const store = await openStore(dir);
    expect([...users(store.state).keys()].sort()).toEqual(['a', 'b', 'c']);
    await store.transact(put(user('d')));
    await store.close();
    const after = await readFile(journal, 'utf8');
    expect(after.startsWith(good)).toBe(true);
    expect(after.slice(good.length)).toMatch(/^\{"crc":"[0-9a-f]{8}","b":\{"p":"[\w-]{22}","ch":\[\["users","d"/);
    const again = await openStore(dir);
    expect([...users(again.state).keys()].sort()).toEqual(['a', 'b', 'c', 'd']);
    await again.close();
  });

  it('a last line with a bad checksum counts as torn', async () => {
    const journal = await storeWithThreeLines();
    const lines = (await readFile(journal, 'utf8')).split('\n');
    lines[2] = lines[2]!.replace('"UserName":"c"', '"UserName":"z"');
    await writeFile(journal, lines.join('\n'));
    const store = await openStore(dir);
    expect([...users(store.state).keys()].sort()).toEqual(['a', 'b']);
    await store.transact(put(user('e')));
    await store.close();
    const again = await openStore(dir);
    expect([...users(again.state).keys()].sort()).toEqual(['a', 'b', 'e']);
    await again.close();
  });

  it('a missing CURRENT is not a store', async () => {
    await mkdir(dir);
    await expect(openStore(dir)).rejects.toBeInstanceOf(StoreDamagedError);
  });
});

describe('read-only mode', () => {
  it('applies transactions to memory only: no lock, no write', async () => {
    await createStore(dir, [user('a')]);
    const journal = join(dir, journalFileName(1));
    const store = await openStore(dir, { readOnly: true });
    const result = await store.transact(() => ({ result: 'planned', changes: [user('b')] }));
    expect(result).toBe('planned');
    expect(users(store.state).has('b')).toBe(true);
    expect((await stat(journal)).size).toBe(0);
    expect(await readdir(dir)).not.toContain('LOCK');
    await store.close();
    const again = await openStore(dir);
    expect(users(again.state).has('b')).toBe(false);
    await again.close();
  });
});

describe('lock timeout configuration', () => {
  it('rejects a malformed EXAMCTL_LOCK_TIMEOUT_MS', () => {
    expect(() => lockTimeoutFromEnv({ EXAMCTL_LOCK_TIMEOUT_MS: 'soon' })).toThrow(UsageError);
    expect(lockTimeoutFromEnv({ EXAMCTL_LOCK_TIMEOUT_MS: '300' })).toBe(300);
    expect(lockTimeoutFromEnv({})).toBe(10_000);
  });

  it('the store itself reads no environment: a malformed EXAMCTL_LOCK_TIMEOUT_MS does not reach openStore', async () => {
    await createStore(dir, []);
    const saved = process.env.EXAMCTL_LOCK_TIMEOUT_MS;
    process.env.EXAMCTL_LOCK_TIMEOUT_MS = 'soon';
    try {
      const store = await openStore(dir, { lockTimeoutMs: 50 });
      await store.close();
    } finally {
      if (saved === undefined) delete process.env.EXAMCTL_LOCK_TIMEOUT_MS;
      else process.env.EXAMCTL_LOCK_TIMEOUT_MS = saved;
    }
  });
});
