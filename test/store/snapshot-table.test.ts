import { describe, it, expect } from 'vitest';
import { mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { join } from 'node:path';
import { StoreDamagedError } from '../../src/system/errors.js';
import type { Change, StoreState } from '../../src/engine/store/contract.js';
import { createStore, openStore } from '../../src/engine/store/index.js';
import { journalFileName, snapshotFileName } from '../../src/engine/store/manifest.js';
import type { FileStore } from '../../src/engine/store/file-store.js';
import { EntityMap } from '../../src/engine/store/entity-map.js';
import { readSnapshot } from '../../src/engine/store/snapshot.js';
import type { LoadedSnapshot } from '../../src/engine/store/snapshot.js';
import { hashString } from '../../src/domain/hash-slots.js';
import { ENGINE_INDEXER } from '../../src/engine/view.js';
import { put } from '../support/store.js';
import { useTempStore } from '../support/temp-dir.js';

let dir: string;

useTempStore('examctl-table-', (made) => ({ dir } = made));

const users = (state: StoreState): EntityMap => state.get('users') as EntityMap;
const hex = (crc: number) => crc.toString(16).padStart(8, '0');

/** Loads a snapshot file directly, as openStore does. */
async function loadSnapshot(path: string, generation = 1): Promise<LoadedSnapshot> {
  const handle = await open(path, 'r');
  try {
    return await readSnapshot(handle, path, generation);
  } finally {
    await handle.close();
  }
}

/** A store whose snapshot is written by hand: entity lines as given, a correct end line (format 2 crc unless told otherwise). */
async function handWrittenStore(
  entityLines: string[],
  options: { format?: 1 | 2; hints?: string | null } = {},
): Promise<string> {
  const format = options.format ?? 2;
  await mkdir(dir);
  let crc = 0;
  if (format === 1) for (const line of entityLines) crc = crc32(line, crc);
  else crc = crc32(entityLines.map((line) => `${line}\n`).join(''));
  const header =
    format === 1
      ? { examctl: 'store-snapshot', format, generation: 1 }
      : { examctl: 'store-snapshot', format, generation: 1, hints: options.hints ?? null };
  const lines = [
    JSON.stringify(header),
    ...entityLines,
    JSON.stringify({ end: true, count: entityLines.length, crc: hex(crc) }),
  ];
  const path = join(dir, snapshotFileName(1));
  await writeFile(path, `${lines.join('\n')}\n`);
  await writeFile(join(dir, journalFileName(1)), '');
  await writeFile(join(dir, 'CURRENT'), `${JSON.stringify({ examctl: 'store', format, generation: 1 })}\n`);
  return path;
}

async function expectDamaged(promise: Promise<unknown>, ...fragments: string[]): Promise<StoreDamagedError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(StoreDamagedError);
  for (const fragment of fragments) expect((error as Error).message).toContain(fragment);
  return error as StoreDamagedError;
}

describe('snapshot table: many keys', () => {
  // Pairs with the same 32-bit FNV-1a hash (the table's hash), found by brute force: two ASCII
  // keys read from the bytes, and an ASCII key with a non-ASCII one (decoded).
  const COLLIDING_ASCII = ['user-g1e64p', 'user-1hx25pe'] as const;
  const COLLIDING_MIXED = ['nxfj', 'nüjr00'] as const;
  const COLLIDING_HINT_NAMES = ['Name-1nuzr8o', 'name-ql6z9w'] as const;

  it('the colliding pairs really collide (else the tests below would not test collisions)', () => {
    expect(hashString(COLLIDING_ASCII[0])).toBe(hashString(COLLIDING_ASCII[1]));
    expect(hashString(COLLIDING_MIXED[0])).toBe(hashString(COLLIDING_MIXED[1]));
    expect(hashString(`n${COLLIDING_HINT_NAMES[0].toLowerCase()}`)).toBe(
      hashString(`n${COLLIDING_HINT_NAMES[1].toLowerCase()}`),
    );
  });

  it('finds each of 20k similar keys (and case variants, and hash-colliding keys), misses the rest', async () => {
    const keys: string[] = [];
    for (let i = 1; i <= 20_000; i += 1) {
      const key = `user-${String(i).padStart(6, '0')}`;
      keys.push(key);
      if (i % 100 === 0) keys.push(key.toUpperCase(), `User-${String(i).padStart(6, '0')}`);
    }
    keys.push(...COLLIDING_ASCII, ...COLLIDING_MIXED);
    const names = new Map(keys.map((key, i) => [key, `N${i}-${key}`]));
    names.set(COLLIDING_ASCII[0], COLLIDING_HINT_NAMES[0]);
    names.set(COLLIDING_ASCII[1], COLLIDING_HINT_NAMES[1]);
    const valueOf = (key: string) => ({ ExternalId: key, UserName: names.get(key)! });
    await createStore(
      dir,
      keys.map((key) => ({ collection: 'users', key, value: valueOf(key) })),
      { indexer: ENGINE_INDEXER },
    );

    // The table itself: ordinals in file order, keys and values and hints as written.
    const loaded = await loadSnapshot(join(dir, snapshotFileName(1)));
    const table = loaded.tables.get('users')!;
    expect(table.count).toBe(keys.length);
    expect(loaded.tables.has('hierarchies')).toBe(false);
    for (let i = 0; i < keys.length; i += 1) {
      const key = keys[i]!;
      if (table.find(key) !== i) expect(table.find(key), key).toBe(i);
      if (table.keyOf(i) !== key) expect(table.keyOf(i)).toBe(key);
      // Persisted hints: the owner of each user's name hint is that user.
      const nameHint = `n${names.get(key)!.toLowerCase()}`;
      if (table.hintOwner(nameHint) !== i) expect(table.hintOwner(nameHint), nameHint).toBe(i);
    }
    expect(JSON.parse(table.valueText(keys.indexOf('USER-000100')))).toEqual(valueOf('USER-000100'));
    expect(table.hintsOf(keys.indexOf('USER-000100'))).toEqual([
      'euser-000100',
      `n${names.get('USER-000100')!.toLowerCase()}`,
    ]);
    for (const miss of [
      '',
      'user-',
      'user-00000',
      'user-0000001',
      'user-020001',
      'USER-000001',
      'user-000001 ',
      'user-g1e64q',
      'nüjr0',
      'nxfj\u0000',
    ]) {
      expect(table.find(miss), miss).toBe(-1);
    }
    expect(table.hintOwner('nno-such-name')).toBe(-1);
    expect(table.hintOwner('euser-000001')).toBe(-1);

    // Through the store.
    const store = await openStore(dir, { readOnly: true });
    const map = users(store.state);
    expect(map.size).toBe(keys.length);
    for (const key of keys) {
      if (!map.has(key)) expect(map.has(key), key).toBe(true);
    }
    // has() answers from the table without parsing anything.
    expect(keys.every((key) => map.isRaw(key))).toBe(true);
    for (const key of keys) {
      const value = map.get(key) as { ExternalId: string } | undefined;
      if (value?.ExternalId !== key) expect(value, key).toEqual(valueOf(key));
    }
    expect(map.get('USER-000100')).toEqual(valueOf('USER-000100'));
    expect(map.get('User-000100')).toEqual(valueOf('User-000100'));
    expect(map.get('user-000100')).toEqual(valueOf('user-000100'));
    expect(map.get(COLLIDING_ASCII[1])).toEqual(valueOf(COLLIDING_ASCII[1]));
    expect(map.get(COLLIDING_MIXED[1])).toEqual(valueOf(COLLIDING_MIXED[1]));
    for (const miss of ['', 'user-020001', 'USER-000001', 'User-000001', 'user-00001', 'user-g1e64q']) {
      expect(map.has(miss), miss).toBe(false);
      expect(map.get(miss), miss).toBeUndefined();
    }
    expect(map.size).toBe(keys.length);
    expect([...map.keys()]).toEqual(keys);
    await store.close();

    // And the hint lookup over the same table.
    const writer = await openStore(dir);
    writer.useIndexer(ENGINE_INDEXER);
    for (const key of [keys[0]!, keys[19_999]!, 'USER-000100', 'User-000100', ...COLLIDING_ASCII, ...COLLIDING_MIXED]) {
      expect(writer.keyByHint('users', `n${names.get(key)!.toLowerCase()}`), key).toBe(key);
    }
    expect(writer.keyByHint('users', 'euser-000100')).toBe('User-000100'); // the last in file order of USER- and User-
    expect(writer.keyByHint('users', 'nno-such-name')).toBeUndefined();
    await writer.close();
  });

  it('a key written twice in one collection is StoreDamagedError naming file:line; in two collections it is fine', async () => {
    const line = (collection: string, key: string, value: unknown = { ExternalId: key }) =>
      `{"c":${JSON.stringify(collection)},"k":${JSON.stringify(key)},"v":${JSON.stringify(value)}}`;
    const path = await handWrittenStore([
      line('users', 'u-1'),
      line('users', 'u-2'),
      line('users', 'u-1', { other: true }),
    ]);
    await expectDamaged(openStore(dir), `${path}:4:`, '"u-1"', 'users', 'line 2');
    await rm(dir, { recursive: true });

    // The same key spelled with an escape (read through JSON.parse) and without (read from the bytes).
    await handWrittenStore([line('users', 'u-1'), '{"c":"users","k":"\\u0075-1","v":{}}']);
    await expectDamaged(openStore(dir), `${path}:3:`, '"u-1"', 'line 2');
    await rm(dir, { recursive: true });

    // Non-ASCII, raw and escaped; and not adjacent (another collection in between).
    await handWrittenStore([line('users', 'ü-1'), line('hierarchies', 'ü-1'), '{"c":"users","k":"\\u00fc-1","v":{}}']);
    await expectDamaged(openStore(dir), `${path}:4:`, '"ü-1"', 'line 2');
    await rm(dir, { recursive: true });

    // Format 1 too.
    await handWrittenStore([line('roles', 'Author'), line('roles', 'Author')], { format: 1 });
    await expectDamaged(openStore(dir), `${path}:3:`, '"Author"', 'roles');
    await rm(dir, { recursive: true });

    // Same key in two collections; colliding hashes in one: all fine.
    await handWrittenStore([
      line('users', 'shared'),
      line('users', 'user-g1e64p'),
      line('users', 'user-1hx25pe'),
      line('hierarchies', 'shared', { ExternalId: 'shared', h: true }),
      line('users', 'nüjr00'),
      line('users', 'nxfj'),
    ]);
    const store = await openStore(dir);
    expect(store.state.get('users')!.get('shared')).toEqual({ ExternalId: 'shared' });
    expect(store.state.get('hierarchies')!.get('shared')).toEqual({ ExternalId: 'shared', h: true });
    expect([...store.state.get('users')!.keys()]).toEqual(['shared', 'user-g1e64p', 'user-1hx25pe', 'nüjr00', 'nxfj']);
    expect(store.state.get('users')!.size).toBe(5);
    expect(store.state.get('hierarchies')!.size).toBe(1);
    await store.close();
  });
});

/** Keys and names the byte scanner must not mistake: escapes, non-ASCII, JSON punctuation, the empty string. */
const SPECIAL_KEYS = [
  'ü-straße',
  'Ü-MIXED',
  '😀-emoji',
  '日本語-キー',
  'quote"in"key',
  'back\\slash\\',
  'ctrl\u0001\u001f\tkey',
  'line\nbreak\r',
  '',
  'del\u007f',
  'sep\u2028\u2029',
  'k,"v":{"x":1}',
  'k","h":["x"],"v":1',
  'lone\ud800surrogate',
  'plain-ascii',
  'PLAIN-ASCII',
];
const SPECIAL_NAMES = [
  'Zoë',
  'ΩMEGA😀',
  '名前',
  'quo"te',
  'back\\slash',
  'tab\tname',
  'İstanbul',
  'plain',
  '',
  'x],"v":{',
  '\u0000nul',
  'Ünïcödé',
  'new\nline',
  'ß',
  'Plain-Two',
  'emoji-👩‍💻',
];

describe('snapshot table: unusual keys and hints', () => {
  function specialUser(key: string, i: number, name = SPECIAL_NAMES[i % SPECIAL_NAMES.length]!, sync = i): Change {
    return {
      collection: 'users',
      key,
      value: {
        ExternalId: key,
        UserName: name,
        ...(i % 3 === 0 ? { SynchronizationKey: `{ÄB12CD34-0000-0000-0000-${String(sync).padStart(12, '0')}}` } : {}),
        Note: `note ${JSON.stringify(key)} ,"v": \\ ${name}`,
      },
    };
  }

  /** Checks the store against `model` (users) and `rootKey`: values, size, persisted/derived hints and keyByHint. */
  function check(
    store: FileStore,
    model: Map<string, unknown>,
    rootKey: string,
    label: string,
    expectRaw: boolean,
  ): void {
    const map = users(store.state);
    const expectedHints = new Map([...model].map(([key, value]) => [key, ENGINE_INDEXER.hints('users', key, value)]));
    for (const [key, ordinal] of map.storedEntries()) {
      // What the store persisted for an unchanged entity is what the indexer makes of it.
      if (ordinal >= 0)
        expect(map.table!.hintsOf(ordinal), `${label}: hints of ${JSON.stringify(key)}`).toEqual(
          expectedHints.get(key),
        );
    }
    for (const [key, hints] of expectedHints) {
      for (const hint of hints ?? [])
        expect(store.keyByHint('users', hint), `${label}: ${JSON.stringify(hint)}`).toBe(key);
    }
    expect(store.keyByHint('hierarchies', 'root'), label).toBe(rootKey);
    if (expectRaw) {
      // Answered from the persisted hints: nothing parsed.
      for (const key of model.keys()) expect(map.isRaw(key), `${label}: raw ${JSON.stringify(key)}`).toBe(true);
    }
    expect(map.size, label).toBe(model.size);
    for (const [key, value] of model) {
      expect(map.has(key), `${label}: has ${JSON.stringify(key)}`).toBe(true);
      expect(map.get(key), `${label}: get ${JSON.stringify(key)}`).toEqual(value);
    }
    expect(new Set(map.keys()), label).toEqual(new Set(model.keys()));
    expect(store.state.get('hierarchies')!.get(rootKey), label).toEqual({ ExternalId: rootKey });
  }

  it('round-trip through createStore, the journal, compaction and reopen', async () => {
    const rootKey = 'Wurzel-ü"\\\u0001';
    const initial = SPECIAL_KEYS.map((key, i) => specialUser(key, i));
    const model = new Map(initial.map((change) => [change.key, change.value]));
    await createStore(
      dir,
      [
        ...initial,
        { collection: 'hierarchies', key: rootKey, value: { ExternalId: rootKey } },
        { collection: 'hierarchies', key: 'kid-ü', value: { ExternalId: 'kid-ü', Parent: rootKey } },
      ],
      { indexer: ENGINE_INDEXER },
    );
    const text = await readFile(join(dir, snapshotFileName(1)), 'utf8');
    // Both paths are exercised: some lines carry escapes in the key, some raw non-ASCII.
    expect(text).toContain('"k":"Ü-MIXED","h":["eü-mixed","nωmega😀"]');
    expect(text).toContain('"k":"ü-straße","h":["nzoë","säb12cd34-0000-0000-0000-000000000000"]');
    expect(text).toContain('"k":"quote\\"in\\"key"');
    expect(text).toContain('"k":"","h":["n"]');

    let store = await openStore(dir);
    store.useIndexer(ENGINE_INDEXER);
    check(store, model, rootKey, 'fresh', true);

    // Journal: new special keys, a rename to a special name, a deletion of the empty key.
    const added = SPECIAL_KEYS.map((key, i) => specialUser(`${key}+`, i + 1, `${SPECIAL_NAMES[i]!}+`, 100 + i + 1));
    const renamed = specialUser('😀-emoji', 2, 'renamed-ñ"\\');
    await store.transact(put(...added, renamed, { collection: 'users', key: '', value: null }));
    for (const change of [...added, renamed]) model.set(change.key, change.value);
    model.delete('');
    check(store, model, rootKey, 'after transact', false);
    expect(store.keyByHint('users', 'n')).toBeUndefined(); // the deleted '' had the empty UserName
    expect(store.keyByHint('users', 'n名前')).toBeUndefined(); // the renamed user's old name
    expect(store.keyByHint('users', 'nrenamed-ñ"\\')).toBe('😀-emoji');
    await store.close();

    store = await openStore(dir);
    store.useIndexer(ENGINE_INDEXER);
    check(store, model, rootKey, 'after journal replay', false);
    await store.compact();
    check(store, model, rootKey, 'after compaction', false);
    await store.close();

    store = await openStore(dir);
    expect(store.currentGeneration).toBe(2);
    store.useIndexer(ENGINE_INDEXER);
    check(store, model, rootKey, 'compacted snapshot', true);
    expect(store.keyByHint('users', 'n名前')).toBeUndefined();
    expect(store.keyByHint('users', 'n')).toBeUndefined();
    // And once more, this time compacting entities that were parsed (written from their values).
    await store.compact();
    await store.close();
    store = await openStore(dir);
    store.useIndexer(ENGINE_INDEXER);
    check(store, model, rootKey, 'second compaction', true);
    await store.close();
  });
});

describe('EntityMap accounting', () => {
  it('delete / set on snapshot and added keys: return values, size, order, get', async () => {
    await createStore(
      dir,
      ['a', 'b', 'c'].map((key) => ({ collection: 'users', key, value: { v: key } })),
    );
    const map = new EntityMap((await loadSnapshot(join(dir, snapshotFileName(1)))).tables.get('users'), 'test');
    expect(map.size).toBe(3);
    expect(map.delete('b')).toBe(true);
    expect(map.delete('b')).toBe(false);
    expect(map.has('b')).toBe(false);
    expect(map.get('b')).toBeUndefined();
    expect(map.size).toBe(2);
    expect(map.delete('nope')).toBe(false);
    expect(map.size).toBe(2);
    map.set('b', { v: 'b2' });
    expect(map.size).toBe(3);
    map.set('b', { v: 'b3' });
    expect(map.size).toBe(3);
    map.set('x', { v: 'x' });
    map.set('x', { v: 'x2' });
    expect(map.size).toBe(4);
    map.set('y', { v: 'y' });
    expect(map.delete('x')).toBe(true);
    expect(map.delete('x')).toBe(false);
    expect(map.size).toBe(4);
    map.set('x', { v: 'x3' });
    expect(map.isRaw('c')).toBe(true);
    expect(map.isRaw('b')).toBe(false);
    // A snapshot key keeps its place; an added key deleted and added again goes last.
    expect([...map]).toEqual([
      ['a', { v: 'a' }],
      ['b', { v: 'b3' }],
      ['c', { v: 'c' }],
      ['y', { v: 'y' }],
      ['x', { v: 'x3' }],
    ]);
    // A parsed (cached) snapshot value deleted counts once.
    expect(map.get('a')).toEqual({ v: 'a' });
    expect(map.isRaw('a')).toBe(false);
    expect(map.delete('a')).toBe(true);
    expect(map.delete('a')).toBe(false);
    expect(map.size).toBe(4);
    expect([...map.keys()]).toEqual(['b', 'c', 'y', 'x']);
    expect([...map.values()]).toEqual([{ v: 'b3' }, { v: 'c' }, { v: 'y' }, { v: 'x3' }]);
    expect([...map.storedEntries()].map(([key, ordinal]) => [key, ordinal >= 0])).toEqual([
      ['b', false],
      ['c', true], // parsed by values() above, but unchanged: still as the snapshot has it
      ['y', false],
      ['x', false],
    ]);
    expect(new Map(map.changedEntries())).toEqual(
      new Map<string, unknown>([
        ['a', undefined],
        ['b', { v: 'b3' }],
        // c was only read: a parsed value is not a change
        ['y', { v: 'y' }],
        ['x', { v: 'x3' }],
      ]),
    );
    const seen: string[] = [];
    map.forEach((_value, key) => seen.push(key));
    expect(seen).toEqual(['b', 'c', 'y', 'x']);

    // Without a table (a new store's maps).
    const empty = new EntityMap();
    expect(empty.size).toBe(0);
    expect(empty.delete('a')).toBe(false);
    empty.set('a', 1);
    expect(empty.size).toBe(1);
    expect(empty.isRaw('a')).toBe(false);
    expect(empty.delete('a')).toBe(true);
    expect(empty.size).toBe(0);
    expect([...empty]).toEqual([]);
  });

  /**
   * The documented order, modelled: the keys of the snapshot this instance loaded (in file
   * order) that are still there, then keys added since, in insertion order (a snapshot key
   * deleted and set again keeps its place; an added key deleted and set again goes last).
   */
  class Model {
    readonly values = new Map<string, unknown>();
    private readonly added = new Map<string, true>();
    private readonly tableKeys: Set<string>;

    constructor(
      private readonly tableOrder: readonly string[],
      tableValues: ReadonlyMap<string, unknown>,
    ) {
      this.tableKeys = new Set(tableOrder);
      for (const key of tableOrder) this.values.set(key, tableValues.get(key));
    }

    apply(change: Change): void {
      if (change.value === null) {
        this.values.delete(change.key);
        this.added.delete(change.key);
        return;
      }
      this.values.set(change.key, change.value);
      if (!this.tableKeys.has(change.key) && !this.added.has(change.key)) this.added.set(change.key, true);
    }

    order(): string[] {
      return [...this.tableOrder.filter((key) => this.values.has(key)), ...this.added.keys()];
    }
  }

  /** What is on disk: the last snapshot's order and values, and the journal since. */
  class Disk {
    order: string[] = [];
    values = new Map<string, unknown>();
    journal: Change[] = [];

    load(): Model {
      const model = new Model(this.order, this.values);
      for (const change of this.journal) model.apply(change);
      return model;
    }

    compacted(from: Model): void {
      this.order = from.order();
      this.values = new Map(from.values);
      this.journal = [];
    }
  }

  function expectMatches(map: EntityMap, model: Model, label: string, gone: readonly string[]): void {
    const order = model.order();
    expect(map.size, label).toBe(order.length);
    expect([...map.keys()], label).toEqual(order);
    expect([...map.entries()], label).toEqual(order.map((key) => [key, model.values.get(key)]));
    for (const key of order) {
      expect(map.has(key), `${label}: ${key}`).toBe(true);
      expect(map.get(key), `${label}: ${key}`).toEqual(model.values.get(key));
    }
    for (const key of gone) {
      if (model.values.has(key)) continue;
      expect(map.has(key), `${label}: ${key} gone`).toBe(false);
      expect(map.get(key), `${label}: ${key} gone`).toBeUndefined();
    }
  }

  it('size and order across deletes, re-adds, double sets and double deletes, reopen and compaction', async () => {
    const v = (key: string, n: number) => ({ ExternalId: key, n });
    const set = (key: string, n: number): Change => ({ collection: 'users', key, value: v(key, n) });
    const del = (key: string): Change => ({ collection: 'users', key, value: null });
    const disk = new Disk();
    const initial = ['s1', 's2', 's3', 's4', 's5'].map((key) => set(key, 0));
    await createStore(dir, initial);
    const creation = new Model([], new Map());
    for (const change of initial) creation.apply(change);
    disk.compacted(creation);
    const everKey = ['s1', 's2', 's3', 's4', 's5', 'a1', 'a2', 'a3', 'tmp', 'never'];

    let store = await openStore(dir);
    let model = disk.load();
    expectMatches(users(store.state), model, 'opened', everKey);
    const run = async (label: string, ...changes: Change[]) => {
      await store.transact(put(...changes));
      for (const change of changes) model.apply(change);
      disk.journal.push(...changes);
      expectMatches(users(store.state), model, label, everKey);
    };

    await run('delete snapshot key', del('s2'));
    await run('re-add snapshot key', set('s2', 1));
    await run('add two', set('a1', 1), set('a2', 1));
    await run('delete added key', del('a1'));
    await run('delete added key again', del('a1'));
    await run('re-add added key', set('a1', 2));
    await run('set twice in one transaction', set('s3', 1), set('s3', 2));
    await run('set twice across transactions (1)', set('a2', 2));
    await run('set twice across transactions (2)', set('a2', 3));
    await run('delete twice in one transaction', del('s4'), del('s4'));
    await run('delete a deleted snapshot key again', del('s4'));
    await run('delete a key never there', del('never'));
    await run('add and delete in one transaction', set('tmp', 1), del('tmp'));
    await run('delete, re-add and delete a snapshot key', del('s5'), set('s5', 1), del('s5'));
    await store.close();

    store = await openStore(dir);
    model = disk.load();
    // Nothing the journal did not touch was parsed by the load.
    const raw = [...users(store.state).storedEntries()].filter(([, ordinal]) => ordinal >= 0).map(([key]) => key);
    expect(raw).toEqual(['s1']);
    expectMatches(users(store.state), model, 'after journal replay', everKey);

    await store.compact();
    disk.compacted(model);
    // A compaction reloads what it wrote: this instance now has the new table, as a reopen would.
    model = disk.load();
    expectMatches(users(store.state), model, 'after compaction (same instance)', everKey);
    expect(model.order()).toEqual(['s1', 's2', 's3', 'a2', 'a1']);
    expect([...users(store.state).storedEntries()].every(([, ordinal]) => ordinal >= 0)).toBe(true);
    // a2 is a key of the new table, so deleting and re-adding it keeps its place; s4 is not, so it comes last.
    await run('delete a2 after compaction', del('a2'));
    await run('re-add a2 after compaction', set('a2', 4));
    await run('re-add s4', set('s4', 5));
    await run('delete s1', del('s1'));
    expect(model.order()).toEqual(['s2', 's3', 'a2', 'a1', 's4']);
    await store.close();

    store = await openStore(dir);
    model = disk.load();
    // Reloaded from the compacted snapshot, a2 keeps its snapshot place; s4 (not in it) comes last.
    expect(model.order()).toEqual(['s2', 's3', 'a2', 'a1', 's4']);
    expectMatches(users(store.state), model, 'compacted + journal', everKey);
    await run('delete everything', ...model.order().map(del));
    expect(users(store.state).size).toBe(0);
    await run('add back', set('s3', 9), set('z', 1));
    await store.compact();
    disk.compacted(model);
    await store.close();
    store = await openStore(dir);
    model = disk.load();
    expectMatches(users(store.state), model, 'final', [...everKey, 'z']);
    expect([...users(store.state).keys()]).toEqual(['s3', 'z']);
    await store.close();
  });
});

describe('snapshot damage', () => {
  const three: Change[] = ['a', 'b', 'c'].map((key) => ({
    collection: 'users',
    key,
    value: { ExternalId: key, UserName: `Name-${key}`, Age: 41 },
  }));

  async function snapshotBytes(): Promise<{ path: string; bytes: Buffer; lines: string[] }> {
    await createStore(dir, three, { indexer: ENGINE_INDEXER });
    const path = join(dir, snapshotFileName(1));
    const bytes = await readFile(path);
    return { path, bytes, lines: bytes.toString('utf8').split('\n') };
  }

  it('a changed byte inside a value is a checksum mismatch at the end line', async () => {
    const { path, bytes, lines } = await snapshotBytes();
    expect(lines).toHaveLength(6); // header, 3 entities, end, ''
    const at = bytes.indexOf('"Age":41', bytes.indexOf('"k":"b"')) + '"Age":4'.length;
    bytes[at] = '2'.charCodeAt(0);
    await writeFile(path, bytes);
    await expectDamaged(openStore(dir), `${path}:5: checksum mismatch`);
    await expectDamaged(openStore(dir, { readOnly: true }), `${path}:5:`);
  });

  it('a changed byte inside a key or the hints is a checksum mismatch too', async () => {
    const { path, bytes } = await snapshotBytes();
    const key = Buffer.from(bytes);
    key[key.indexOf('"k":"c"') + 5] = 'd'.charCodeAt(0);
    await writeFile(path, key);
    await expectDamaged(openStore(dir), `${path}:5: checksum mismatch`);
    const hints = Buffer.from(bytes);
    hints[hints.indexOf('"nname-a"') + 2] = 'N'.charCodeAt(0);
    await writeFile(path, hints);
    await expectDamaged(openStore(dir), `${path}:5: checksum mismatch`);
  });

  it('a changed byte in a format 1 snapshot is found too', async () => {
    const lines = three.map(({ collection, key, value }) => JSON.stringify({ c: collection, k: key, v: value }));
    const path = await handWrittenStore(lines, { format: 1 });
    const good = await openStore(dir);
    expect(good.state.get('users')!.get('b')).toEqual(three[1]!.value);
    await good.close();
    const bytes = await readFile(path);
    bytes[bytes.indexOf('"Age":41', bytes.indexOf('"k":"b"')) + 7] = '2'.charCodeAt(0);
    await writeFile(path, bytes);
    await expectDamaged(openStore(dir), `${path}:5: checksum mismatch`);
  });

  it('a truncated snapshot: cut inside a line, cut before the end line, cut inside the end line', async () => {
    const { path, bytes, lines } = await snapshotBytes();
    const lineStart = (n: number) => lines.slice(0, n - 1).reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
    await writeFile(path, bytes.subarray(0, lineStart(3) + 10));
    await expectDamaged(openStore(dir), `${path}:3: incomplete last line`);
    await writeFile(path, bytes.subarray(0, lineStart(5)));
    await expectDamaged(openStore(dir), `${path}:5: no end line`);
    await writeFile(path, bytes.subarray(0, lineStart(5) + 5));
    await expectDamaged(openStore(dir), `${path}:5: incomplete last line`);
    await writeFile(path, bytes.subarray(0, bytes.length - 1)); // only the final newline missing
    await expectDamaged(openStore(dir), `${path}:5:`);
    await writeFile(path, '');
    await expectDamaged(openStore(dir), `${path}:1:`);
    // A whole entity line missing: the count says so.
    await writeFile(path, [lines[0], lines[1], lines[3], lines[4], ''].join('\n'));
    await expectDamaged(openStore(dir), `${path}:4: end line counts 3 entities, file has 2`);
    // Intact again: opens.
    await writeFile(path, bytes);
    const store = await openStore(dir);
    expect(store.state.get('users')!.size).toBe(3);
    await store.close();
  });

  it('content after the end line', async () => {
    const { path, bytes, lines } = await snapshotBytes();
    await writeFile(path, Buffer.concat([bytes, Buffer.from(`${lines[1]!}\n`)]));
    await expectDamaged(openStore(dir), `${path}:6: content after the end line`);
    await writeFile(path, Buffer.concat([bytes, Buffer.from(`${lines[4]!}\n`)]));
    await expectDamaged(openStore(dir), `${path}:6: content after the end line`);
  });

  it("an entity line in a layout other than the writer's is damage naming file:line; escapes in a key or a hint are read", async () => {
    // The crc covers the lines: only examctl's writer makes a snapshot that passes it, in one layout.
    const path = await handWrittenStore([
      '{"c":"users","k":"ok","v":{"ExternalId":"ok"}}',
      '{"c":"users", "k":"spaced","v":{"ExternalId":"spaced"}}',
    ]);
    await expectDamaged(openStore(dir), `${path}:3: not an entity line`);
    await rm(dir, { recursive: true });
    await handWrittenStore(['{"c":"users","v":{"ExternalId":"v-first"},"k":"v-first"}']);
    await expectDamaged(openStore(dir), `${path}:2: not an entity line`);
    await rm(dir, { recursive: true });
    await handWrittenStore(['{"c":"users","k":"h-\\u0041\\"","h":["nx\\u0041"],"v":{"ExternalId":"h-first"}}'], {
      hints: 'hand',
    });
    const store = await openStore(dir);
    store.useIndexer({ version: 'hand', hints: () => [] });
    expect([...store.state.get('users')!.keys()]).toEqual(['h-A"']);
    expect(store.state.get('users')!.get('h-A"')).toEqual({ ExternalId: 'h-first' });
    expect(users(store.state).table!.hintsOf(0)).toEqual(['nxA']);
    expect(store.keyByHint('users', 'nxA')).toBe('h-A"');
    await store.close();
    await rm(dir, { recursive: true });
    await handWrittenStore(['{"c":"users","k":"a","v":{}}', '{"c":"nope","k":"b","v":{}}']);
    await expectDamaged(openStore(dir), `${path}:3: not an entity line`);
    await rm(dir, { recursive: true });
    await handWrittenStore(['{"c":"users","k":"a","x":1,"v":{}}']);
    await expectDamaged(openStore(dir), `${path}:2: not an entity line`);
  });
});
