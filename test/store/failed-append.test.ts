import { describe, expect, it, vi } from 'vitest';
import { cp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Change, StoreState } from '../../src/engine/store/contract.js';
import { createStore, openStore } from '../../src/engine/store/index.js';
import { journalFileName } from '../../src/engine/store/manifest.js';
import { StoreReplacedError, TargetError } from '../../src/system/errors.js';
import { put } from '../support/store.js';
import { useTempStore } from '../support/temp-dir.js';

/**
 * The next journal append fails as a full disk would (ENOSPC), once, on the event loop or the thread pool;
 * `held`: a thread-pool append waits there (the marker) until the test releases it.
 */
const disk = vi.hoisted(() => ({ failNext: false, held: undefined as Promise<void> | undefined, holding: false }));
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
    appendDurablyTo: async (...args: Parameters<typeof real.appendDurablyTo>) => {
      const held = disk.held;
      disk.held = undefined;
      if (held !== undefined) {
        disk.holding = true;
        await held;
      }
      return fail() || real.appendDurablyTo(...args);
    },
  };
});

let dir: string;
let root: string;
useTempStore('examctl-failed-append-', (made) => ({ dir, root } = made));

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

  it('under a batch decided while it was written: that batch is never written nor answered, and commits after the reload', async () => {
    await createStore(dir, [user('seed')]);
    // Lines through the thread pool (a slow disk), after the first, synchronous probe.
    const store = await openStore(dir, { journalWriteTiming: { maxSyncMs: 0, probeEveryMs: Infinity } });
    await store.transact(put(user('probe')));
    const release = await holdNextLine();
    const refused = store.transact(put(user('lost')));
    refused.catch(() => undefined);
    await lineHeld();
    // Decided on top of the line held at the marker: memory shows it, and a read of it waits.
    const onTop = store.transact(put(user('on-top')));
    await new Promise((resolve) => setImmediate(resolve));
    expect(users(store.state).has('on-top')).toBe(true);
    const read = store.whenDurable();
    read.catch(() => undefined);
    disk.failNext = true;
    release();
    await expect(refused).rejects.toBeInstanceOf(TargetError);
    await expect(read).rejects.toBeInstanceOf(TargetError);
    await expect(onTop).resolves.toBeUndefined();
    expect(users(store.state).has('lost')).toBe(false);
    await store.close();
    const journal = await readFile(join(dir, journalFileName(1)), 'utf8');
    expect(journal).not.toContain('lost');
    // Written once, after the reload, on top of what the disk holds.
    expect(journal.split('\n').filter((line) => line.includes('"on-top"'))).toHaveLength(1);
    const again = await openStore(dir);
    expect([...users(again.state).keys()].sort()).toEqual(['on-top', 'probe', 'seed']);
    await again.close();
  });
});

/** Holds the next thread-pool line at the marker; `release` lets it go on. */
async function holdNextLine(): Promise<() => void> {
  let release = (): void => undefined;
  disk.held = new Promise((resolve) => (release = resolve));
  disk.holding = false;
  return release;
}

const lineHeld = async (): Promise<void> => {
  while (!disk.holding) await new Promise((resolve) => setImmediate(resolve));
};

/* docs/store.md, "A directory replaced under a writer", for a line decided while the one before it was written. */
describe('a directory replaced while a line is written, with the next line decided', () => {
  async function replacedUnder(stopWhenReplaced: boolean) {
    await createStore(dir, [user('seed')]);
    const backup = join(root, 'backup');
    await cp(dir, backup, { recursive: true });
    const store = await openStore(dir, {
      stopWhenReplaced,
      journalWriteTiming: { maxSyncMs: 0, probeEveryMs: Infinity },
    });
    await store.transact(put(user('probe')));
    const release = await holdNextLine();
    const first = store.transact(put(user('first')));
    await lineHeld();
    await rm(dir, { recursive: true });
    await cp(backup, dir, { recursive: true });
    const next = store.transact(put(user('next')));
    next.catch(() => undefined);
    await new Promise((resolve) => setImmediate(resolve));
    expect(users(store.state).has('next')).toBe(true);
    release();
    // Written where its check found the journal (the window every check before a write leaves).
    await first;
    return { store, next };
  }

  it('local serve: the next line is not written into the directory that went; decided again, it goes into the one at the path', async () => {
    const { store, next } = await replacedUnder(false);
    await expect(next).resolves.toBeUndefined();
    expect([...users(store.state).keys()].sort()).toEqual(['next', 'seed']);
    await store.close();
    const again = await openStore(dir);
    expect([...users(again.state).keys()].sort()).toEqual(['next', 'seed']);
    await again.close();
  });

  it('a run: stops there (E3031), and nothing of it reaches the directory at the path', async () => {
    const { store, next } = await replacedUnder(true);
    await expect(next).rejects.toBeInstanceOf(StoreReplacedError);
    await store.close();
    const again = await openStore(dir);
    expect([...users(again.state).keys()]).toEqual(['seed']);
    await again.close();
  });
});
