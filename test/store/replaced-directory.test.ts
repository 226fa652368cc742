import { existsSync, promises as fs, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStore, openStore } from '../../src/engine/store/index.js';
import { StoreReplacedError } from '../../src/system/errors.js';

/* docs/store.md, "A directory replaced under a writer": the store at the path, never the files held open. */
let dir: string;
let store: string;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'examctl-replaced-dir-'));
  store = path.join(dir, 'store');
  await createStore(store, []);
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const put = (key: string) => ({ result: key, changes: [{ collection: 'users' as const, key, value: { key } }] });
const copy = (from: string, to: string) =>
  fs.cp(from, to, { recursive: true, preserveTimestamps: true, filter: (file) => path.basename(file) !== 'LOCK' });

async function restoreFrom(backup: string): Promise<void> {
  await fs.rm(store, { recursive: true });
  await copy(backup, store);
}

async function usersAt(location: string): Promise<string[]> {
  const reopened = await openStore(location);
  const keys = [...reopened.state.get('users')!.keys()].sort();
  await reopened.close();
  return keys;
}

describe('a store directory replaced under a writer', () => {
  it("a run's store restored under it: the next write stops it (E3031, exit 3) and writes nothing", async () => {
    const run = await openStore(store, { stopWhenReplaced: true });
    await run.transact(() => put('a'));
    await copy(store, path.join(dir, 'backup'));
    await run.transact(() => put('b'));
    await restoreFrom(path.join(dir, 'backup'));
    const error = await run.transact(() => put('c')).catch((e: unknown) => e);
    await run.close();
    expect(error).toBeInstanceOf(StoreReplacedError);
    expect((error as StoreReplacedError).code).toBe('E3031');
    expect((error as StoreReplacedError).exitCode).toBe(3);
    expect((error as Error).message).toContain(`${store} `);
    expect(await usersAt(store)).toEqual(['a']);
  });

  it('a copy of the same history put back (nothing lost) is written on: the write lands at the path', async () => {
    const run = await openStore(store, { stopWhenReplaced: true });
    await run.transact(() => put('a'));
    await copy(store, path.join(dir, 'backup'));
    await restoreFrom(path.join(dir, 'backup'));
    await run.transact(() => put('b'));
    await run.close();
    expect(await usersAt(store)).toEqual(['a', 'b']);
  });

  it("another process's writes and compaction are no replacement: a run goes on and sees them", async () => {
    const run = await openStore(store, { stopWhenReplaced: true });
    await run.transact(() => put('a'));
    const other = await openStore(store);
    await other.transact(() => put('b'));
    await other.compact();
    await other.transact(() => put('c'));
    await other.close();
    await run.transact(() => put('d'));
    expect([...run.state.get('users')!.keys()].sort()).toEqual(['a', 'b', 'c', 'd']);
    await run.close();
    expect(await usersAt(store)).toEqual(['a', 'b', 'c', 'd']);
  });

  it("a store that is not a run's (local serve) reloads from the path: a restore is served, the write lands there", async () => {
    const served = await openStore(store);
    await served.transact(() => put('a'));
    await copy(store, path.join(dir, 'backup'));
    await served.transact(() => put('b'));
    await restoreFrom(path.join(dir, 'backup'));
    await served.transact(() => put('c'));
    expect([...served.state.get('users')!.keys()].sort()).toEqual(['a', 'c']);
    await served.close();
    expect(await usersAt(store)).toEqual(['a', 'c']);
  });

  it('local serve keeping the lock lease: LOCK is taken again in the directory put in place, before the write lands there', async () => {
    // A lease that never goes idle: the lock is held from the first write to close, whatever the timing.
    const served = await openStore(store, { leaseTiming: { idleMs: 60_000, maxHoldMs: 60_000, handoverMs: 150 } });
    await served.transact(() => put('a'));
    await copy(store, path.join(dir, 'backup'));
    await served.transact(() => put('b'));
    await restoreFrom(path.join(dir, 'backup'));
    const lock = path.join(store, 'LOCK');
    let holder: unknown;
    await served.transact(() => {
      holder = JSON.parse(readFileSync(lock, 'utf8')).pid;
      return put('c');
    });
    expect(holder).toBe(process.pid);
    await served.close();
    expect(existsSync(lock)).toBe(false);
    expect(await usersAt(store)).toEqual(['a', 'c']);
  });

  it('a copy that went on without us, its last line the same size at the same place: not ours, so reloaded', async () => {
    const served = await openStore(store);
    await served.transact(() => put('a'));
    await copy(store, path.join(dir, 'backup'));
    await served.transact(() => put('b'));
    const fork = await openStore(path.join(dir, 'backup'));
    await fork.transact(() => put('c'));
    await fork.close();
    await restoreFrom(path.join(dir, 'backup'));
    // The served store's last line and the fork's differ in one byte (b/c) only.
    const journal = path.join(store, 'journal-1.ndjson');
    expect((await fs.readFile(journal)).length).toBe(
      (await fs.readFile(path.join(dir, 'backup', 'journal-1.ndjson'))).length,
    );
    await served.transact(() => put('d'));
    expect([...served.state.get('users')!.keys()].sort()).toEqual(['a', 'c', 'd']);
    await served.close();
    expect(await usersAt(store)).toEqual(['a', 'c', 'd']);
  });

  it('a journal line of an older examctl (no head in it) is checked from the whole journal', async () => {
    const served = await openStore(store);
    await served.transact(() => put('a'));
    await served.close();
    // The line as an older examctl wrote it: the same changes, no `p`.
    const journal = path.join(store, 'journal-1.ndjson');
    const { encodeChecksummedLine } = await import('../../src/system/checksummed-line.js');
    await fs.writeFile(journal, encodeChecksummedLine('{"ch":[["users","a",{"key":"a"}]]}'));
    const reader = await openStore(store);
    await copy(store, path.join(dir, 'backup'));
    await reader.transact(() => put('b'));
    await restoreFrom(path.join(dir, 'backup'));
    await reader.transact(() => put('c'));
    await reader.close();
    expect(await usersAt(store)).toEqual(['a', 'c']);
  });
});
