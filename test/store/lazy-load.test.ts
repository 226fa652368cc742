import { describe, it, expect } from 'vitest';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { join } from 'node:path';
import { StoreDamagedError } from '../../src/system/errors.js';
import type { Change, CollectionName, StoreIndexer, StoreState } from '../../src/engine/store/contract.js';
import { createStore, openStore } from '../../src/engine/store/index.js';
import { snapshotFileName } from '../../src/engine/store/manifest.js';
import { EntityMap } from '../../src/engine/store/entity-map.js';
import { ENGINE_INDEXER, StoreView } from '../../src/engine/view.js';
import { writeFormatOneStore } from './format-one.js';
import { exportEntities, hintsFromValues, put } from '../support/store.js';
import { useTempStore } from '../support/temp-dir.js';

let dir: string;

useTempStore('examctl-lazy-', (made) => ({ dir } = made));

const user = (key: string, extra: Record<string, unknown> = {}): Change => ({
  collection: 'users',
  key,
  value: { ExternalId: key, UserName: `Name-${key}`, ...extra },
});
const entityMap = (state: StoreState, collection: CollectionName): EntityMap => state.get(collection) as EntityMap;
const isRaw = (state: StoreState, collection: CollectionName, key: string): boolean =>
  entityMap(state, collection).isRaw(key);
/** The hints the snapshot persisted for each entity unchanged since the load, as keyByHint reads them. */
const persistedHints = (
  state: StoreState,
  collection: CollectionName,
): Array<[string, readonly string[] | undefined]> => {
  const map = entityMap(state, collection);
  return [...map.storedEntries()]
    .filter(([, ordinal]) => ordinal >= 0)
    .map(([key, ordinal]) => [key, map.table!.hintsOf(ordinal)]);
};

/** Counts derivations, so a test can tell persisted hints from values parsed to derive them. */
function countingIndexer(version = ENGINE_INDEXER.version): StoreIndexer & { calls: number } {
  return {
    version,
    calls: 0,
    hints(collection, key, value) {
      this.calls += 1;
      return ENGINE_INDEXER.hints(collection, key, value);
    },
  };
}

const content: Change[] = [
  user('u-1', { SynchronizationKey: '{AB12CD34-0000-0000-0000-000000000001}' }),
  user('U-2'),
  { collection: 'users', key: 'u-3', value: { ExternalId: 'u-3' } },
  { collection: 'hierarchies', key: 'H-ROOT', value: { ExternalId: 'H-ROOT' } },
  { collection: 'hierarchies', key: 'H-CHILD', value: { ExternalId: 'H-CHILD', Parent: 'H-ROOT' } },
  { collection: 'settings', key: 'settings', value: { SiteUrl: 'x' } },
];

describe('lazy load', () => {
  it('keeps snapshot values unparsed until read, then caches the parsed value in place', async () => {
    await createStore(dir, content, { indexer: ENGINE_INDEXER });
    const store = await openStore(dir, { readOnly: true });
    expect(isRaw(store.state, 'users', 'u-1')).toBe(true);
    const first = store.state.get('users')!.get('u-1');
    expect(first).toEqual({
      ExternalId: 'u-1',
      UserName: 'Name-u-1',
      SynchronizationKey: '{AB12CD34-0000-0000-0000-000000000001}',
    });
    expect(isRaw(store.state, 'users', 'u-1')).toBe(false);
    expect(store.state.get('users')!.get('u-1')).toBe(first);
    expect(isRaw(store.state, 'users', 'U-2')).toBe(true);
    // Iteration yields parsed values in insertion order.
    expect([...store.state.get('users')!.values()].map((v) => (v as { ExternalId: string }).ExternalId)).toEqual([
      'u-1',
      'U-2',
      'u-3',
    ]);
    expect([...store.state.get('users')!].every(([key, v]) => (v as { ExternalId: string }).ExternalId === key)).toBe(
      true,
    );
    expect(store.state.get('users')!.size).toBe(3);
    expect([...store.state.get('users')!.keys()]).toEqual(['u-1', 'U-2', 'u-3']);
    const seen: unknown[] = [];
    store.state.get('hierarchies')!.forEach((value) => seen.push(value));
    expect(seen).toEqual([{ ExternalId: 'H-ROOT' }, { ExternalId: 'H-CHILD', Parent: 'H-ROOT' }]);
    await store.close();
  });

  it('writes hints beside each value, the value last, and hands them back without parsing', async () => {
    await createStore(dir, content, { indexer: ENGINE_INDEXER });
    const text = await readFile(join(dir, snapshotFileName(1)), 'utf8');
    expect(text.split('\n')[0]).toBe(
      `{"examctl":"store-snapshot","format":2,"generation":1,"hints":"${ENGINE_INDEXER.version}"}`,
    );
    expect(text).toContain(
      '{"c":"users","k":"u-1","h":["nname-u-1","sab12cd34-0000-0000-0000-000000000001"],"v":{"ExternalId":"u-1"',
    );
    expect(text).toContain('{"c":"hierarchies","k":"H-ROOT","h":["root"],"v":{');
    expect(text).toContain('{"c":"settings","k":"settings","v":{"SiteUrl":"x"}}');

    const store = await openStore(dir);
    const indexer = countingIndexer();
    store.useIndexer(indexer);
    expect(persistedHints(store.state, 'users')).toEqual([
      ['u-1', ['nname-u-1', 'sab12cd34-0000-0000-0000-000000000001']],
      ['U-2', ['eu-2', 'nname-u-2']],
      ['u-3', []],
    ]);
    expect(persistedHints(store.state, 'hierarchies')).toEqual([
      ['H-ROOT', ['root']],
      ['H-CHILD', []],
    ]);
    expect(persistedHints(store.state, 'settings')).toEqual([['settings', undefined]]);
    expect(indexer.calls).toBe(0);
    expect(isRaw(store.state, 'users', 'u-1')).toBe(true);
    // Entities changed since the snapshot are derived from their (already parsed) values.
    await store.transact(put(user('u-4')));
    expect(store.keyByHint('users', 'nname-u-4')).toBe('u-4');
    expect(indexer.calls).toBe(1);
    await store.close();
  });

  it('the engine indexes built from hints equal those built from the values', async () => {
    await createStore(dir, content, { indexer: ENGINE_INDEXER });
    const store = await openStore(dir);
    store.useIndexer(ENGINE_INDEXER);
    const view = new StoreView(store.state, (c, hint) => store.keyByHint(c, hint));
    expect(view.rootHierarchyKey()).toBe('H-ROOT');
    expect(view.userKeyByUserName('name-u-3')).toBeUndefined();
    expect(view.userKeyByExternalIdIgnoringCase('u-2')).toBe('U-2');
    expect(view.userKeyBySynchronizationKey('ab12cd34-0000-0000-0000-000000000001')).toBe('u-1');
    // Answered from the persisted hints: no user value was parsed.
    expect(['u-1', 'U-2', 'u-3'].every((key) => isRaw(store.state, 'users', key))).toBe(true);
    const fromValues = hintsFromValues(ENGINE_INDEXER, store.state.get('users')!, store.state.get('hierarchies')!);
    expect(fromValues.users.size).toBe(4);
    for (const [hint, key] of fromValues.users) expect(store.keyByHint('users', hint)).toBe(key);
    expect(fromValues.rootKey).toBe('H-ROOT');
    expect(store.keyByHint('users', 'nno-such-name')).toBeUndefined();
    // Case-insensitive ExternalId lookups: through the hint for a mixed-case key, through the users map for a lower-case one.
    expect(view.userKeyByExternalIdIgnoringCase('u-2')).toBe('U-2');
    expect(view.userKeyByExternalIdIgnoringCase('U-1')).toBe('u-1');
    expect(view.userKeyByExternalIdIgnoringCase('u-9')).toBeUndefined();
    expect(view.userKeyByUserName('NAME-U-1')).toBe('u-1');
    expect(view.userKeyBySynchronizationKey('ab12cd34-0000-0000-0000-000000000001')).toBe('u-1');
    expect(view.userKeyByUserName('name-u-2')).toBe('U-2');
    expect(view.userKeyByExternalIdIgnoringCase('u-2')).toBe('U-2');
    expect(view.userKeyBySynchronizationKey('{AB12CD34-0000-0000-0000-000000000001}')).toBe('u-1');
    // A deletion removes every entry the user contributed.
    await store.transact(put({ collection: 'users', key: 'U-2', value: null }));
    expect(view.userKeyByExternalIdIgnoringCase('u-2')).toBeUndefined();
    expect(view.userKeyByUserName('name-u-2')).toBeUndefined();
    await store.close();
  });

  it('after another process compacts, a reload rebuilds the indexes from the new snapshot hints', async () => {
    await createStore(dir, content, { indexer: ENGINE_INDEXER });
    const reader = await openStore(dir);
    const view = new StoreView(reader.state, (c, hint) => reader.keyByHint(c, hint));
    reader.useIndexer(ENGINE_INDEXER);
    const writer = await openStore(dir);
    writer.useIndexer(ENGINE_INDEXER);
    await writer.transact(put(user('New-5', { SynchronizationKey: '{00000000-0000-0000-0000-00000000000A}' })));
    await writer.compact();
    await writer.close();
    await reader.refresh();
    expect(reader.currentGeneration).toBe(2);
    expect(isRaw(reader.state, 'users', 'New-5')).toBe(true);
    expect(view.userKeyBySynchronizationKey('00000000-0000-0000-0000-00000000000a')).toBe('New-5');
    expect(view.userKeyByExternalIdIgnoringCase('new-5')).toBe('New-5');
    expect(view.userKeyByUserName('name-new-5')).toBe('New-5');
    expect(isRaw(reader.state, 'users', 'New-5')).toBe(true);
    await reader.close();
  });

  it('derives hints again (parsing) when they were persisted by another indexer version, and compaction rewrites them', async () => {
    await createStore(dir, content, { indexer: { version: 'old', hints: () => ['stale'] } });
    const store = await openStore(dir);
    const indexer = countingIndexer();
    store.useIndexer(indexer);
    for (const hint of ['eu-2', 'nname-u-2']) expect(store.keyByHint('users', hint)).toBe('U-2');
    expect(indexer.calls).toBeGreaterThan(0);
    await store.compact();
    await store.close();
    const text = await readFile(join(dir, snapshotFileName(2)), 'utf8');
    expect(text).not.toContain('stale');
    expect(text).toContain(`"hints":"${ENGINE_INDEXER.version}"`);
    expect(text).toContain('"k":"U-2","h":["eu-2","nname-u-2"]');
  });

  it('compaction copies never-read values as their text, without parsing them', async () => {
    await createStore(dir, content, { indexer: ENGINE_INDEXER });
    const store = await openStore(dir);
    const indexer = countingIndexer();
    store.useIndexer(indexer);
    await store.transact(put(user('u-4')));
    await store.compact();
    expect(isRaw(store.state, 'users', 'u-1')).toBe(true);
    expect(indexer.calls).toBe(1); // u-4 only
    await store.close();
    const before = (await readFile(join(dir, snapshotFileName(2)), 'utf8')).split('\n');
    expect(before).toContain(
      '{"c":"users","k":"u-4","h":["nname-u-4"],"v":{"ExternalId":"u-4","UserName":"Name-u-4"}}',
    );
    const again = await openStore(dir);
    expect([...exportEntities(again.state)].filter(([c]) => c === 'users').map(([, k]) => k)).toEqual([
      'U-2',
      'u-1',
      'u-3',
      'u-4',
    ]);
    await again.close();
  });

  it('keeps keys, hints and values with quotes, backslashes and non-ASCII text intact', async () => {
    const key = 'k,"v":\\"ü😀';
    const value = { ExternalId: key, UserName: 'Zoë ,"v": \\', Nested: { s: '},"v":{' } };
    // Escapes take the JSON.parse path; plain non-ASCII text the byte scanner.
    const plain = { ExternalId: 'Ü-1', UserName: 'Zoë😀', Nested: { s: '},"v":{' } };
    await createStore(
      dir,
      [
        { collection: 'users', key, value },
        { collection: 'users', key: 'Ü-1', value: plain },
      ],
      { indexer: ENGINE_INDEXER },
    );
    const store = await openStore(dir);
    store.useIndexer(ENGINE_INDEXER);
    expect(persistedHints(store.state, 'users')).toEqual([
      [key, ['nzoë ,"v": \\']],
      ['Ü-1', ['eü-1', 'nzoë😀']],
    ]);
    expect(store.state.get('users')!.get(key)).toEqual(value);
    expect(store.state.get('users')!.get('Ü-1')).toEqual(plain);
    await store.close();
  });

  it('a value that does not parse although its checksum matches is StoreDamagedError when read', async () => {
    await createStore(dir, [user('a')]);
    const path = join(dir, snapshotFileName(1));
    const lines = (await readFile(path, 'utf8')).split('\n');
    lines[1] = '{"c":"users","k":"a","v":{"ExternalId":}';
    lines[2] = JSON.stringify({ end: true, count: 1, crc: crc32(`${lines[1]}\n`).toString(16).padStart(8, '0') });
    await writeFile(path, lines.join('\n'));
    const store = await openStore(dir, { readOnly: true });
    expect(() => store.state.get('users')!.get('a')).toThrow(StoreDamagedError);
    expect(() => store.state.get('users')!.get('a')).toThrow(`${path}: the value of "a" is not valid JSON`);
    await store.close();
  });
});

describe('format 1 stores', () => {
  /** A store as examctl 0.x (format 1) wrote it: no hints, no hints version. */
  async function formatOneStore(): Promise<void> {
    await writeFormatOneStore(dir, content);
  }

  it('are read (hints derived from the values) and written as format 2 by the next compaction', async () => {
    await formatOneStore();
    const store = await openStore(dir);
    const indexer = countingIndexer();
    store.useIndexer(indexer);
    expect(store.state.get('users')!.get('U-2')).toEqual({ ExternalId: 'U-2', UserName: 'Name-U-2' });
    expect(store.keyByHint('hierarchies', 'root')).toBe('H-ROOT');
    expect(indexer.calls).toBe(2);
    await store.transact(put(user('u-9')));
    expect(await readFile(join(dir, 'CURRENT'), 'utf8')).toContain('"format":1');
    await store.compact();
    await store.close();
    expect(await readFile(join(dir, 'CURRENT'), 'utf8')).toMatch(
      /^\{"examctl":"store","format":2,"generation":2,"head":"[A-Za-z0-9_-]{22}"\}\n$/,
    );
    const text = await readFile(join(dir, snapshotFileName(2)), 'utf8');
    expect(text.split('\n')[0]).toContain('"format":2');
    expect(text).toContain('{"c":"users","k":"u-1","h":["nname-u-1","sab12cd34-0000-0000-0000-000000000001"],"v":');
    const again = await openStore(dir);
    expect(again.state.get('users')!.size).toBe(4);
    await again.close();
  });
});

describe('compaction copies unchanged lines as they are', () => {
  it('in runs of adjacent lines, also when collections interleave in the file, and reloads what it wrote', async () => {
    await mkdir(dir);
    const line = (c: string, k: string, h: string[] | undefined, v: unknown) =>
      `{"c":${JSON.stringify(c)},"k":${JSON.stringify(k)}${h === undefined ? '' : `,"h":${JSON.stringify(h)}`},"v":${JSON.stringify(v)}}`;
    // Not the order a writer groups them in: users, a hierarchy, users again, settings between.
    const lines = [
      line('users', 'u-1', ['nann'], { ExternalId: 'u-1', UserName: 'Ann' }),
      line('users', 'u-2', ['nbo'], { ExternalId: 'u-2', UserName: 'Bo' }),
      line('hierarchies', 'H-ROOT', ['root'], { ExternalId: 'H-ROOT' }),
      line('users', 'Ü-3', ['eü-3', 'nçé'], { ExternalId: 'Ü-3', UserName: 'Çé', Note: 'a "quoted" \\ text' }),
      line('settings', 'settings', undefined, { SiteUrl: 'x' }),
      line('users', 'k"4', ['nd'], { ExternalId: 'k"4', UserName: 'D' }),
      line('users', 'u-5', ['ne'], { ExternalId: 'u-5', UserName: 'E' }),
    ];
    const body = lines.map((l) => `${l}\n`).join('');
    const snapshot = [
      JSON.stringify({ examctl: 'store-snapshot', format: 2, generation: 1, hints: ENGINE_INDEXER.version }),
      ...lines,
      JSON.stringify({ end: true, count: lines.length, crc: crc32(body).toString(16).padStart(8, '0') }),
    ];
    await writeFile(join(dir, snapshotFileName(1)), `${snapshot.join('\n')}\n`);
    await writeFile(join(dir, 'journal-1.ndjson'), '');
    await writeFile(join(dir, 'CURRENT'), '{"examctl":"store","format":2,"generation":1}\n');

    const store = await openStore(dir);
    const indexer = countingIndexer();
    store.useIndexer(indexer);
    await store.transact(
      put(user('u-2', { UserName: 'Bob' }), { collection: 'users', key: 'u-5', value: null }, user('u-6')),
    );
    await store.compact();
    expect(store.currentGeneration).toBe(2);
    // Reloaded: everything is as the new snapshot has it, nothing parsed.
    expect(['u-1', 'u-2', 'Ü-3', 'k"4', 'u-6'].every((key) => isRaw(store.state, 'users', key))).toBe(true);
    expect(store.keyByHint('users', 'nbob')).toBe('u-2');
    expect(store.keyByHint('users', 'nbo')).toBeUndefined();
    expect(store.keyByHint('users', 'nçé')).toBe('Ü-3');
    await store.close();

    const written = (await readFile(join(dir, snapshotFileName(2)), 'utf8')).split('\n');
    for (const unchanged of [lines[0], lines[2], lines[3], lines[4], lines[5]]) expect(written).toContain(unchanged);
    expect(written.filter((l) => l.startsWith('{"c":'))).toHaveLength(7);
    const again = await openStore(dir, { readOnly: true });
    expect([...exportEntities(again.state)].map(([c, k]) => `${c}/${k}`)).toEqual([
      'settings/settings',
      'users/k"4',
      'users/u-1',
      'users/u-2',
      'users/u-6',
      'users/Ü-3',
      'hierarchies/H-ROOT',
    ]);
    expect(again.state.get('users')!.get('Ü-3')).toEqual({
      ExternalId: 'Ü-3',
      UserName: 'Çé',
      Note: 'a "quoted" \\ text',
    });
    expect(again.state.get('users')!.get('u-2')).toEqual({ ExternalId: 'u-2', UserName: 'Bob' });
    await again.close();
  });
});
