import { describe, it, expect } from 'vitest';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Change, StoreIndexer, StoreState } from '../../src/engine/store/contract.js';
import { createStore, openStore } from '../../src/engine/store/index.js';
import { snapshotFileName } from '../../src/engine/store/manifest.js';
import type { FileStore } from '../../src/engine/store/file-store.js';
import type { EntityMap } from '../../src/engine/store/entity-map.js';
import { ENGINE_INDEXER } from '../../src/engine/view.js';
import { createLocalEngine, type LocalEngine } from '../../src/engine/engine.js';
import { worldToChanges } from '../../src/engine/world-io.js';
import { ErrorCode } from '../../src/domain/codes.js';
import type { UserRequest } from '../../src/domain/types.js';
import { MemoryStore } from '../engine/memory-store.js';
import { NOW, codes, demoWorld } from '../engine/helpers.js';
import { writeFormatOneStore } from './format-one.js';
import { hintsFromValues, put } from '../support/store.js';
import { useTempStore } from '../support/temp-dir.js';
import { mulberry32 as prng } from '../../src/system/seeded-random.js';

let root: string;
let dir: string;

useTempStore('examctl-hints-', (made) => ({ root, dir } = made));

const usersOf = (state: StoreState): EntityMap => state.get('users') as EntityMap;

async function openIndexed(indexer: StoreIndexer = ENGINE_INDEXER): Promise<FileStore> {
  const store = await openStore(dir);
  store.useIndexer(indexer);
  return store;
}

/** The index built from the values, the reference keyByHint must agree with. */
function fromValues(users: ReadonlyMap<string, unknown>, hierarchies: ReadonlyMap<string, unknown> = new Map()) {
  return hintsFromValues(ENGINE_INDEXER, users, hierarchies);
}

/** keyByHint agrees with `expected` on every hint it has, and knows none of `gone` that it has not. */
function expectSameAnswers(
  store: FileStore,
  expected: ReturnType<typeof fromValues>,
  gone: Iterable<string>,
  label: string,
): void {
  for (const [hint, key] of expected.users) {
    const got = store.keyByHint('users', hint);
    if (got !== key) expect(got, `${label}: ${JSON.stringify(hint)}`).toBe(key);
  }
  for (const hint of gone) {
    if (expected.users.has(hint)) continue;
    const got = store.keyByHint('users', hint);
    if (got !== undefined) expect(got, `${label}: ${JSON.stringify(hint)} should be held by nobody`).toBeUndefined();
  }
  expect(store.keyByHint('hierarchies', 'root'), `${label}: root`).toBe(expected.rootKey);
}

interface TestUser {
  ExternalId: string;
  FirstName: string;
  UserName?: string;
  SynchronizationKey?: string;
  rev: number;
}

describe('keyByHint equals an index built from the values', () => {
  const KEY_COUNT = 45;
  const NAME_COUNT = 140;
  /** Lower-case keys (their own ExternalId index entry), mixed-case ASCII and mixed-case non-ASCII ('e' hints). */
  const keyOf = (n: number) => (n % 3 === 0 ? `User-${n}` : n % 3 === 1 ? `user-${n}` : `ÜSER-${n}`);
  const baseName = (m: number) =>
    m % 4 === 0 ? `zoë.${m}` : m % 4 === 1 ? `name-${m}` : m % 4 === 2 ? `Name_${m}` : `名前${m}x`;

  interface RunStats {
    transactions: number;
    checks: number;
    /** Compactions by the second instance without an indexer: the primary then reloads a snapshot whose hints it cannot trust. */
    untrustedReloads: number;
    otherProcess: number;
    reopened: number;
    compacted: number;
  }

  async function randomRun(seed: number, steps: number): Promise<RunStats> {
    const rand = prng(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
    const randomCase = (text: string) =>
      [...text].map((c) => (rand() < 0.5 ? c.toUpperCase() : c.toLowerCase())).join('');
    const syncOf = (n: number) => {
      const guid = randomCase(`ab12cd34-0000-0000-0000-${String(n).padStart(12, '0')}`);
      return rand() < 0.5 ? `{${guid}}` : guid;
    };

    const users = new Map<string, TestUser>();
    const hierarchies = new Map<string, { ExternalId: string; Parent?: string }>([
      ['H-A', { ExternalId: 'H-A' }],
      ['H-B', { ExternalId: 'H-B', Parent: 'H-A' }],
      ['H-ç', { ExternalId: 'H-ç', Parent: 'H-A' }],
    ]);
    const everHints = new Set<string>();
    let rev = 0;
    const heldNames = () =>
      new Set([...users.values()].flatMap((u) => (u.UserName === undefined ? [] : [u.UserName.toLowerCase()])));
    const freeName = (): string => {
      const held = heldNames();
      for (;;) {
        const name = randomCase(baseName(Math.floor(rand() * NAME_COUNT)));
        if (!held.has(name.toLowerCase())) return name;
      }
    };
    const userChange = (key: string, user: TestUser | null): Change => {
      if (user === null) {
        users.delete(key);
        return { collection: 'users', key, value: null };
      }
      rev += 1;
      const value = { ...user, rev };
      users.set(key, value);
      for (const hint of ENGINE_INDEXER.hints('users', key, value) ?? []) everHints.add(hint);
      return { collection: 'users', key, value: { ...value } };
    };
    const newUser = (n: number): TestUser => ({
      ExternalId: keyOf(n),
      FirstName: `F${n}`,
      ...(rand() < 0.9 ? { UserName: freeName() } : {}),
      ...(rand() < 0.5 ? { SynchronizationKey: syncOf(n) } : {}),
      rev: 0,
    });
    const live = () => [...users.keys()];
    const named = () => live().filter((key) => users.get(key)!.UserName !== undefined);
    const absent = () => Array.from({ length: KEY_COUNT }, (_, n) => n).filter((n) => !users.has(keyOf(n)));

    /** One random operation on the model; its changes, in order. */
    const operation = (): Change[] => {
      const r = rand();
      const free = absent();
      const withName = named();
      if ((r < 0.2 || users.size < 6) && free.length > 0) {
        const n = pick(free); // create, or re-create a deleted user
        return [userChange(keyOf(n), newUser(n))];
      }
      if (r < 0.35 && users.size > 0) {
        const key = pick(live()); // rename to a free name
        return [userChange(key, { ...users.get(key)!, UserName: freeName() })];
      }
      if (r < 0.47 && withName.length > 0) {
        const key = pick(withName); // case-only change
        const user = users.get(key)!;
        return [userChange(key, { ...user, UserName: randomCase(user.UserName!) })];
      }
      if (r < 0.57 && withName.length >= 2) {
        const a = pick(withName); // swap two names in one transaction
        const b = pick(withName.filter((key) => key !== a));
        const [ua, ub] = [users.get(a)!, users.get(b)!];
        return [userChange(a, { ...ua, UserName: ub.UserName! }), userChange(b, { ...ub, UserName: ua.UserName! })];
      }
      if (r < 0.62 && withName.length >= 3) {
        const [a, b, c] = [...withName].sort(() => rand() - 0.5) as [string, string, string]; // rotate three
        const [na, nb, nc] = [users.get(a)!.UserName!, users.get(b)!.UserName!, users.get(c)!.UserName!];
        return [
          userChange(a, { ...users.get(a)!, UserName: nb }),
          userChange(b, { ...users.get(b)!, UserName: nc }),
          userChange(c, { ...users.get(c)!, UserName: na }),
        ];
      }
      if (r < 0.67 && withName.length > 0) {
        const key = pick(withName); // drop the UserName
        const { UserName: _dropped, ...rest } = users.get(key)!;
        return [userChange(key, rest)];
      }
      if (r < 0.73 && users.size > 0) {
        const key = pick(live()); // set, change or clear the SynchronizationKey
        const { SynchronizationKey: sync, ...rest } = users.get(key)!;
        const n = Number(/\d+$/.exec(key)![0]);
        return [
          userChange(key, sync === undefined || rand() < 0.5 ? { ...rest, SynchronizationKey: syncOf(n) } : rest),
        ];
      }
      if (r < 0.78 && users.size > 0) {
        const key = pick(live()); // delete and re-create in one transaction, with another name
        const n = Number(/\d+$/.exec(key)![0]);
        const deleted = userChange(key, null);
        return [deleted, userChange(key, newUser(n))];
      }
      if (r < 0.81) {
        const [oldRoot] = [...hierarchies].find(([, h]) => h.Parent === undefined)!; // another root
        const newRoot = pick([...hierarchies.keys()].filter((key) => key !== oldRoot));
        hierarchies.set(oldRoot, { ExternalId: oldRoot, Parent: newRoot });
        hierarchies.set(newRoot, { ExternalId: newRoot });
        return [
          { collection: 'hierarchies', key: oldRoot, value: hierarchies.get(oldRoot) },
          { collection: 'hierarchies', key: newRoot, value: hierarchies.get(newRoot) },
        ];
      }
      if (users.size > 0) return [userChange(pick(live()), null)]; // delete
      return [];
    };
    const transaction = (): Change[] => {
      const count = rand() < 0.7 ? 1 : 2 + Math.floor(rand() * 3);
      return Array.from({ length: count }, operation).flat();
    };

    const initial: Change[] = [];
    for (let n = 0; n < 30; n += 1) initial.push(userChange(keyOf(n), newUser(n)));
    for (const [key, value] of hierarchies) initial.push({ collection: 'hierarchies', key, value });
    await createStore(dir, initial, { indexer: ENGINE_INDEXER });

    let primary = await openIndexed();
    /** Changes by the second instance the primary has not caught up on. */
    let behind = false;
    const stats: RunStats = {
      transactions: 0,
      checks: 0,
      untrustedReloads: 0,
      otherProcess: 0,
      reopened: 0,
      compacted: 0,
    };
    const check = (label: string) => {
      stats.checks += 1;
      expectSameAnswers(primary, fromValues(users, hierarchies), everHints, `seed ${seed}, ${label}`);
    };
    const checkState = (label: string) => {
      const state = usersOf(primary.state);
      expect(state.size, label).toBe(users.size);
      for (const [key, user] of users) expect(state.get(key), `${label}: ${key}`).toEqual(user);
    };

    for (let step = 0; step < steps; step += 1) {
      const r = rand();
      const label = `step ${step}`;
      if (r < 0.03) {
        await primary.compact();
        stats.compacted += 1;
        behind = false;
      } else if (r < 0.07) {
        await primary.close();
        primary = await openIndexed();
        stats.reopened += 1;
        behind = false;
        if (rand() < 0.5) {
          check(`${label} (reopened)`);
          checkState(`${label} (reopened)`);
        }
      } else if (r < 0.17) {
        // Another process: its own instance, with or without the engine's indexer, maybe compacting.
        const other = await openStore(dir);
        stats.otherProcess += 1;
        const indexed = rand() < 0.5;
        if (indexed) other.useIndexer(ENGINE_INDEXER);
        const count = 1 + Math.floor(rand() * 4);
        for (let i = 0; i < count; i += 1) {
          await other.transact(put(...transaction()));
          stats.transactions += 1;
        }
        if (rand() < 0.35) {
          await other.compact();
          if (!indexed) stats.untrustedReloads += 1;
        }
        await other.close();
        if (rand() < 0.6) await primary.refresh();
        else behind = true; // the primary catches up in its next transaction
      } else {
        await primary.transact(put(...transaction()));
        stats.transactions += 1;
        behind = false;
      }
      if (!behind && rand() < 0.35) check(label);
    }
    if (behind) await primary.refresh();
    check('end');
    checkState('end');
    await primary.close();
    // And what is on disk answers the same.
    const reopened = await openIndexed();
    primary = reopened;
    check('end, reopened');
    await reopened.compact();
    await reopened.close();
    primary = await openIndexed();
    check('end, compacted and reopened');
    checkState('end, compacted and reopened');
    await primary.close();
    return stats;
  }

  it.each([1, 7, 2024])('a random history of ~300 operations (seed %i)', async (seed) => {
    const stats = await randomRun(seed, 220);
    // The run did what it claims.
    expect(stats.transactions).toBeGreaterThan(200);
    expect(stats.checks).toBeGreaterThan(50);
    expect(stats.otherProcess).toBeGreaterThan(10);
    expect(stats.untrustedReloads).toBeGreaterThan(0);
    expect(stats.reopened).toBeGreaterThan(2);
    expect(stats.compacted).toBeGreaterThan(2);
  });

  it('a hint nobody holds any more is undefined, whatever held it before', async () => {
    await createStore(
      dir,
      [
        {
          collection: 'users',
          key: 'Ab-1',
          value: {
            ExternalId: 'Ab-1',
            UserName: 'Alice',
            SynchronizationKey: '{00000000-0000-0000-0000-0000000000AA}',
          },
        },
        { collection: 'users', key: 'b-2', value: { ExternalId: 'b-2', UserName: 'Bob' } },
        { collection: 'hierarchies', key: 'R', value: { ExternalId: 'R' } },
      ],
      { indexer: ENGINE_INDEXER },
    );
    const store = await openIndexed();
    expect(store.keyByHint('users', 'nalice')).toBe('Ab-1');
    expect(store.keyByHint('users', 'eab-1')).toBe('Ab-1');
    expect(store.keyByHint('users', 's00000000-0000-0000-0000-0000000000aa')).toBe('Ab-1');
    await store.transact(
      put({ collection: 'users', key: 'Ab-1', value: null }, { collection: 'hierarchies', key: 'R', value: null }),
    );
    for (const hint of ['nalice', 'eab-1', 's00000000-0000-0000-0000-0000000000aa'])
      expect(store.keyByHint('users', hint), hint).toBeUndefined();
    expect(store.keyByHint('hierarchies', 'root')).toBeUndefined();
    // Bob takes Alice's name, then lets it go again.
    await store.transact(put({ collection: 'users', key: 'b-2', value: { ExternalId: 'b-2', UserName: 'ALICE' } }));
    expect(store.keyByHint('users', 'nalice')).toBe('b-2');
    expect(store.keyByHint('users', 'nbob')).toBeUndefined();
    await store.transact(put({ collection: 'users', key: 'b-2', value: { ExternalId: 'b-2' } }));
    expect(store.keyByHint('users', 'nalice')).toBeUndefined();
    await store.close();
    // The same from the journal alone, and from the compacted snapshot.
    const again = await openIndexed();
    for (const hint of ['nalice', 'nbob', 'eab-1', 's00000000-0000-0000-0000-0000000000aa'])
      expect(again.keyByHint('users', hint), hint).toBeUndefined();
    await again.compact();
    await again.close();
    const compacted = await openIndexed();
    for (const hint of ['nalice', 'nbob', 'eab-1']) expect(compacted.keyByHint('users', hint), hint).toBeUndefined();
    expect(compacted.keyByHint('hierarchies', 'root')).toBeUndefined();
    expect(compacted.state.get('users')!.size).toBe(1);
    await compacted.close();
  });
});

const person = (key: string, userName: string): Change => ({
  collection: 'users',
  key,
  value: { ExternalId: key, UserName: userName },
});
const gone = (key: string): Change => ({ collection: 'users', key, value: null });

describe('changes the journal replays before the indexer is registered', () => {
  const initial = [person('u-1', 'Alice'), person('U-2', 'Bob'), person('u-3', 'Carol'), person('u-4', 'Dave')];

  it('are reflected: renamed, deleted, re-created, case-only, taken over', async () => {
    await createStore(dir, initial, { indexer: ENGINE_INDEXER });
    const writer = await openStore(dir); // no indexer: just writes the journal
    await writer.transact(put(person('u-1', 'Alicia')));
    await writer.transact(put(gone('U-2'), person('u-5', 'bob')));
    await writer.transact(put(person('u-3', 'CAROL')));
    await writer.transact(put(gone('u-4'), person('u-4', 'Dave2')));
    await writer.close();

    const store = await openStore(dir);
    // The journal is replayed by openStore, before anything observes.
    expect(usersOf(store.state).get('u-1')).toEqual({ ExternalId: 'u-1', UserName: 'Alicia' });
    store.useIndexer(ENGINE_INDEXER);
    expect(store.keyByHint('users', 'nalice')).toBeUndefined();
    expect(store.keyByHint('users', 'nalicia')).toBe('u-1');
    expect(store.keyByHint('users', 'nbob')).toBe('u-5');
    expect(store.keyByHint('users', 'eu-2')).toBeUndefined();
    expect(store.keyByHint('users', 'ncarol')).toBe('u-3');
    expect(store.keyByHint('users', 'ndave')).toBeUndefined();
    expect(store.keyByHint('users', 'ndave2')).toBe('u-4');
    const current = new Map([...usersOf(store.state)]);
    expectSameAnswers(
      store,
      fromValues(current),
      ['nalice', 'nbob', 'ncarol', 'ndave', 'ndave2', 'eu-2', 'nalicia'],
      'replayed',
    );
    await store.close();
  });

  it('including changes applied after observe but before the first question', async () => {
    await createStore(dir, initial, { indexer: ENGINE_INDEXER });
    const writer = await openStore(dir);
    await writer.transact(put(person('u-1', 'Alicia')));
    await writer.close();

    const store = await openStore(dir);
    store.useIndexer(ENGINE_INDEXER);
    // Not asked yet: the overlay does not exist; these are applied without it.
    await store.transact(put(person('u-1', 'Alice'), person('u-3', 'Alicia')));
    await store.transact(put(gone('u-4')));
    const other = await openStore(dir);
    await other.transact(put(person('U-2', 'Dave')));
    await other.close();
    await store.refresh();
    expect(store.keyByHint('users', 'nalice')).toBe('u-1');
    expect(store.keyByHint('users', 'nalicia')).toBe('u-3');
    expect(store.keyByHint('users', 'ncarol')).toBeUndefined();
    expect(store.keyByHint('users', 'ndave')).toBe('U-2');
    expect(store.keyByHint('users', 'nbob')).toBeUndefined();
    // And from now on every change keeps it true.
    await store.transact(put(person('u-3', 'Carol'), person('u-1', 'Alicia')));
    expect(store.keyByHint('users', 'nalice')).toBeUndefined();
    expect(store.keyByHint('users', 'nalicia')).toBe('u-1');
    expect(store.keyByHint('users', 'ncarol')).toBe('u-3');
    await store.close();
  });

  it('a read-only store (dry run) answers for its in-memory changes too', async () => {
    await createStore(dir, initial, { indexer: ENGINE_INDEXER });
    const store = await openStore(dir, { readOnly: true });
    store.useIndexer(ENGINE_INDEXER);
    await store.transact(put(person('u-1', 'Zed'), gone('U-2')));
    expect(store.keyByHint('users', 'nalice')).toBeUndefined();
    expect(store.keyByHint('users', 'nzed')).toBe('u-1');
    expect(store.keyByHint('users', 'nbob')).toBeUndefined();
    expect(store.keyByHint('users', 'eu-2')).toBeUndefined();
    await store.close();
  });
});

describe('hints not written by this indexer are not trusted', () => {
  const initial: Change[] = [
    person('u-1', 'Alice'),
    person('U-2', 'Bob'),
    {
      collection: 'users',
      key: 'u-3',
      value: { ExternalId: 'u-3', UserName: 'Carol', SynchronizationKey: '{AB12CD34-0000-0000-0000-000000000003}' },
    },
    { collection: 'hierarchies', key: 'H-ROOT', value: { ExternalId: 'H-ROOT' } },
    { collection: 'hierarchies', key: 'H-KID', value: { ExternalId: 'H-KID', Parent: 'H-ROOT' } },
  ];
  /** Another version's derivation: plausible-looking but wrong hints (Alice's name on Bob, root on the child). */
  const misleading: StoreIndexer = {
    version: 'engine-indexes/0',
    hints(collection, key) {
      if (collection === 'users') return key === 'U-2' ? ['nalice', 'nbob-old'] : [`nold-${key}`];
      if (collection === 'hierarchies') return key === 'H-KID' ? ['root'] : [];
      return undefined;
    },
  };
  const everHints = [
    'nalice',
    'nbob',
    'ncarol',
    'nbob-old',
    'nold-u-1',
    'nold-u-3',
    'eu-2',
    'sab12cd34-0000-0000-0000-000000000003',
    'nalicia',
  ];

  it('another indexer version: derived from the values; compaction makes them trusted on reopen', async () => {
    await createStore(dir, initial, { indexer: misleading });
    const store = await openIndexed();
    expect(store.keyByHint('users', 'nalice')).toBe('u-1');
    expect(store.keyByHint('users', 'nbob')).toBe('U-2');
    expect(store.keyByHint('users', 'nbob-old')).toBeUndefined();
    expect(store.keyByHint('users', 'nold-u-1')).toBeUndefined();
    expect(store.keyByHint('hierarchies', 'root')).toBe('H-ROOT');
    await store.transact(put(person('u-1', 'Alicia'), gone('U-2')));
    let expected = new Map(initial.filter((c) => c.collection === 'users').map((c) => [c.key, c.value]));
    expected.set('u-1', { ExternalId: 'u-1', UserName: 'Alicia' });
    expected.delete('U-2');
    const hierarchies = new Map(initial.filter((c) => c.collection === 'hierarchies').map((c) => [c.key, c.value]));
    expectSameAnswers(store, fromValues(expected, hierarchies), everHints, 'untrusted');
    await store.compact();
    expectSameAnswers(store, fromValues(expected, hierarchies), everHints, 'untrusted, compacted');
    await store.close();
    const text = await readFile(join(dir, snapshotFileName(2)), 'utf8');
    expect(text.split('\n')[0]).toContain(`"hints":"${ENGINE_INDEXER.version}"`);
    expect(text).not.toContain('nold-');

    const reopened = await openIndexed();
    expectSameAnswers(reopened, fromValues(expected, hierarchies), everHints, 'trusted after compaction');
    // Answered from the persisted hints: no user was parsed for it.
    for (const key of expected.keys()) expect(usersOf(reopened.state).isRaw(key), key).toBe(true);
    expect(usersOf(reopened.state).isRaw('U-2')).toBe(false); // deleted: not in the snapshot
    await reopened.transact(put(person('u-1', 'Alice')));
    expected = new Map(expected).set('u-1', { ExternalId: 'u-1', UserName: 'Alice' });
    expectSameAnswers(reopened, fromValues(expected, hierarchies), everHints, 'trusted, changed');
    expect(usersOf(reopened.state).isRaw('u-3')).toBe(true);
    await reopened.close();
  });

  it('a store created without an indexer, and one opened with another version than it was written with', async () => {
    await createStore(dir, initial);
    expect((await readFile(join(dir, snapshotFileName(1)), 'utf8')).split('\n')[0]).toContain('"hints":null');
    const plain = await openIndexed();
    const users = new Map(initial.filter((c) => c.collection === 'users').map((c) => [c.key, c.value]));
    const hierarchies = new Map(initial.filter((c) => c.collection === 'hierarchies').map((c) => [c.key, c.value]));
    expectSameAnswers(plain, fromValues(users, hierarchies), everHints, 'no hints');
    await plain.close();
    await rm(dir, { recursive: true });

    // Written with the engine's indexer, read with a newer one deriving other strings: the persisted ones are ignored.
    await createStore(dir, initial, { indexer: ENGINE_INDEXER });
    const newer: StoreIndexer = {
      version: 'engine-indexes/99',
      hints: (collection, key, value) => ENGINE_INDEXER.hints(collection, key, value)?.map((hint) => `v99:${hint}`),
    };
    const store = await openIndexed(newer);
    expect(store.keyByHint('users', 'nalice')).toBeUndefined();
    expect(store.keyByHint('users', 'v99:nalice')).toBe('u-1');
    expect(store.keyByHint('users', 'v99:eu-2')).toBe('U-2');
    expect(store.keyByHint('hierarchies', 'root')).toBeUndefined();
    expect(store.keyByHint('hierarchies', 'v99:root')).toBe('H-ROOT');
    await store.close();
  });

  it('a format 1 store (no hints at all)', async () => {
    await writeFormatOneStore(dir, initial);
    const store = await openIndexed();
    const users = new Map(initial.filter((c) => c.collection === 'users').map((c) => [c.key, c.value]));
    const hierarchies = new Map(initial.filter((c) => c.collection === 'hierarchies').map((c) => [c.key, c.value]));
    expectSameAnswers(store, fromValues(users, hierarchies), everHints, 'format 1');
    await store.transact(put(person('U-2', 'Robert')));
    users.set('U-2', { ExternalId: 'U-2', UserName: 'Robert' });
    expectSameAnswers(store, fromValues(users, hierarchies), [...everHints, 'nrobert'], 'format 1, changed');
    await store.compact();
    await store.close();
    const compacted = await openIndexed();
    expectSameAnswers(compacted, fromValues(users, hierarchies), [...everHints, 'nrobert'], 'format 1, compacted');
    expect(usersOf(compacted.state).isRaw('U-2')).toBe(true);
    await compacted.close();
  });
});

describe('through the engine: the same answers as over a store without keyByHint', () => {
  const request = (id: string, extra: Record<string, unknown> = {}) =>
    ({ ExternalId: id, FirstName: 'F', LastName: 'L', Role: 'Author', ...extra }) as unknown as UserRequest;

  /** Requests whose outcome depends on the UserName / ExternalId / SynchronizationKey lookups. */
  const requests: UserRequest[] = [
    request('u-a', { UserName: 'Case.Only' }),
    request('u-b', { UserName: 'CASE.ONLY' }),
    request('u-b', { UserName: 'case.only' }),
    request('u-a', { UserName: 'CASE.only' }), // its own name, other case
    request('u-c', { UserName: 'Other' }),
    request('u-a', { UserName: 'OTHER' }),
    request('u-c', { UserName: 'Freed' }),
    request('u-a', { UserName: 'other' }),
    request('u-d', { UserName: 'case.ONLY' }), // freed by u-a
    request('u-e', { UserName: 'JDOE' }), // a demo-world user, still unparsed in the snapshot
    request('u-f', { UserName: 'Scheduler' }),
    request('U-A', { UserName: 'unique.one' }), // ExternalId differing only in case
    request('Mixed-1', { UserName: 'mixed.one' }),
    request('mixed-1', { UserName: 'mixed.two' }),
    request('u-g', { UserName: 'sync.g', SynchronizationKey: '{3F2504E0-4F89-11D3-9A0C-0305E82C3301}' }),
    request('u-h', { UserName: 'sync.h', SynchronizationKey: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' }),
    request('u-g', { SynchronizationKey: '3F2504E0-4F89-11D3-9A0C-0305E82C3302' }),
    request('u-h', { UserName: 'sync.h', SynchronizationKey: '{3f2504e0-4f89-11d3-9a0c-0305e82c3301}' }),
    request('u-i', { UserName: 'Freed' }),
    request('u-j', { UserName: 'FREED.not' }),
    request('u-a', { UserName: 'inv.ONE' }), // a demo-world user's name
  ];

  type Outcome = { action: unknown; codes: (number | null)[] };
  const outcome = (result: { action?: unknown; envelope: { Errors?: unknown } }): Outcome => ({
    action: result.action,
    codes: codes(result.envelope.Errors ?? []),
  });

  it('UserName taken ignoring case (214), ExternalId taken ignoring case, SynchronizationKey taken', async () => {
    const world = worldToChanges(demoWorld());
    const memory = createLocalEngine({ store: new MemoryStore(world), now: () => NOW });
    const expected: Outcome[] = [];
    for (const req of requests) expected.push(outcome(await memory.upsertUser(req)));
    await memory.close();
    // The rules were exercised: refusals for the clashing names, acceptances once freed.
    expect(expected[1]!.codes).toEqual([ErrorCode.UserNameTaken]);
    expect(expected[2]!.codes).toEqual([ErrorCode.UserNameTaken]);
    expect(expected[3]!.codes).toEqual([]);
    expect(expected[5]!.codes).toEqual([ErrorCode.UserNameTaken]);
    expect(expected[8]!.codes).toEqual([]);
    expect(expected[9]!.codes).toEqual([ErrorCode.UserNameTaken]);
    expect(expected[11]!.codes).toContain(ErrorCode.UserExternalIdTaken);
    expect(expected[13]!.codes).toContain(ErrorCode.UserExternalIdTaken);
    expect(expected[15]!.codes).toContain(ErrorCode.SynchronizationKeyTaken);
    expect(expected[17]!.codes).toEqual([]);
    expect(expected[20]!.codes).toEqual([ErrorCode.UserNameTaken]);

    // The file store, in three ways: one process throughout; reopened before every request (so
    // each lookup goes through what the journal replayed); compacted and reopened now and then.
    for (const mode of ['one process', 'reopened', 'compacted'] as const) {
      const location = join(root, mode.replace(' ', '-'));
      await createStore(location, world, { indexer: ENGINE_INDEXER });
      const open = async () => createLocalEngine({ store: await openStore(location), now: () => NOW });
      let engine: LocalEngine = await open();
      for (let i = 0; i < requests.length; i += 1) {
        if (mode !== 'one process' && i > 0) {
          await engine.close();
          if (mode === 'compacted' && i % 4 === 0) {
            const store = await openStore(location);
            store.useIndexer(ENGINE_INDEXER);
            await store.compact();
            await store.close();
          }
          engine = await open();
        }
        expect(
          outcome(await engine.upsertUser(requests[i]!)),
          `${mode}: request ${i} ${JSON.stringify(requests[i])}`,
        ).toEqual(expected[i]);
      }
      await engine.close();
    }
  });

  it('a case-only rename made by another process, seen after refresh', async () => {
    const world = worldToChanges(demoWorld());
    const location = join(root, 'store');
    await createStore(location, world, { indexer: ENGINE_INDEXER });
    const memoryStore = new MemoryStore(world);
    const memory = createLocalEngine({ store: memoryStore, now: () => NOW });
    const file = createLocalEngine({ store: await openStore(location), now: () => NOW });
    const both = async (req: UserRequest) => {
      const fromMemory = outcome(await memory.upsertUser(req));
      expect(outcome(await file.upsertUser(req)), JSON.stringify(req)).toEqual(fromMemory);
      return fromMemory;
    };
    expect((await both(request('u-x', { UserName: 'Before.Name' }))).codes).toEqual([]);
    // Another process renames jdoe's holder (author-2) and u-x; the memory store gets the same changes.
    const other = await openStore(location);
    const author = other.state.get('users')!.get('author-2') as Record<string, unknown>;
    const ux = other.state.get('users')!.get('u-x') as Record<string, unknown>;
    const changes: Change[] = [
      { collection: 'users', key: 'author-2', value: { ...author, UserName: 'JDoe.Renamed' } },
      { collection: 'users', key: 'u-x', value: { ...ux, UserName: 'BEFORE.NAME' } },
    ];
    await other.transact(put(...changes));
    await other.close();
    memoryStore.commitFromOtherProcess(changes);
    expect((await both(request('u-y', { UserName: 'jdoe' }))).codes).toEqual([]);
    expect((await both(request('u-z', { UserName: 'jdoe.RENAMED' }))).codes).toEqual([ErrorCode.UserNameTaken]);
    expect((await both(request('u-w', { UserName: 'before.name' }))).codes).toEqual([ErrorCode.UserNameTaken]);
    await memory.close();
    await file.close();
  });
});
