import { describe, expect, it, vi } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Change, StoreState } from '../../src/engine/store/contract.js';
import { createStore, openStore } from '../../src/engine/store/index.js';
import { journalFileName } from '../../src/engine/store/manifest.js';
import { TargetError } from '../../src/system/errors.js';
import { put } from '../support/store.js';
import { useTempStore } from '../support/temp-dir.js';

/** The next journal append fails as a full disk would (ENOSPC), once, on the event loop or the thread pool. */
const disk = vi.hoisted(() => ({ failNext: false }));
vi.mock('../../src/system/durable-write.js', async (original) => {
  const real = await original<typeof import('../../src/system/durable-write.js')>();
  const fail = (): boolean => {
    if (!disk.failNext) return false;
    disk.failNext = false;
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  };
  return {
    ...real,
    appendDurablySync: (...args: Parameters<typeof real.appendDurablySync>) =>
      fail() || real.appendDurablySync(...args),
    appendDurably: async (...args: Parameters<typeof real.appendDurably>) => fail() || real.appendDurably(...args),
  };
});

let dir: string;
useTempStore('examctl-failed-append-', (made) => ({ dir } = made));

const user = (key: string, value: unknown = { UserName: key }): Change => ({ collection: 'users', key, value });
const users = (state: StoreState) => state.get('users')!;

/*
 * A failed append leaves memory ahead of the disk (docs/store.md, "Writing: durability and
 * concurrency"): these prove such a change is never shown to a read and never written.
 */
describe('a journal append that fails', () => {
  it('refuses its batch with exit 3 naming the journal, and a read after it does not show the refused change', async () => {
    await createStore(dir, [user('seed')]);
    const store = await openStore(dir);
    disk.failNext = true;
    const refused = store.transact(put(user('lost'), user('seed', { UserName: 'renamed' })));
    await expect(refused).rejects.toBeInstanceOf(TargetError);
    await expect(refused).rejects.toThrow(`cannot write ${join(dir, journalFileName(1))}: `);
    await expect(refused).rejects.toMatchObject({ exitCode: 3 });
    await store.refresh();
    expect(users(store.state).has('lost')).toBe(false);
    expect(users(store.state).get('seed')).toEqual({ UserName: 'seed' });
    await store.close();
  });

  it('leaves nothing on the disk; the next transaction reloads and commits', async () => {
    await createStore(dir, [user('seed')]);
    const store = await openStore(dir);
    disk.failNext = true;
    await expect(store.transact(put(user('lost')))).rejects.toBeInstanceOf(TargetError);
    await store.transact(put(user('kept')));
    expect(users(store.state).has('lost')).toBe(false);
    await store.close();
    expect(await readFile(join(dir, journalFileName(1)), 'utf8')).not.toContain('lost');
    const again = await openStore(dir);
    expect([...users(again.state).keys()].sort()).toEqual(['kept', 'seed']);
    await again.close();
  });
});
