import { afterEach, describe, expect, it, vi } from 'vitest';
import { readdir } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { createStore, openStore } from '../../src/engine/store/index.js';
import { StoreExistsError } from '../../src/engine/store/create-store.js';
import { useTempStore } from '../support/temp-dir.js';

/**
 * Renames onto the store directory fail with EPERM `failures` times: on Windows an antivirus or
 * the indexer holding a file of the just-built directory for a moment, or (failing for good)
 * a directory renamed onto an existing one, which Windows refuses with EPERM, not ENOTEMPTY.
 */
const state = vi.hoisted(() => ({ target: undefined as string | undefined, failures: 0, calls: 0, race: false }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const rename = async (from: string, to: string): Promise<void> => {
    if (state.target !== undefined && to === state.target) {
      state.calls++;
      // Another process's store lands there first (here: this very directory), then Windows refuses ours.
      if (state.race) {
        // Only the first time: the retries then meet that store, and EPERM again.
        if (state.calls === 1) await actual.rename(from, to);
        throw Object.assign(new Error(`EPERM: operation not permitted, rename '${from}' -> '${to}'`), {
          code: 'EPERM',
        });
      }
      if (state.calls <= state.failures)
        throw Object.assign(new Error(`EPERM: operation not permitted, rename '${from}' -> '${to}'`), {
          code: 'EPERM',
        });
    }
    return actual.rename(from, to);
  };
  return { ...actual, rename, default: { ...actual, rename } };
});

let dir: string;
useTempStore('examctl-create-busy-', (made) => ({ dir } = made));
afterEach(() => {
  state.target = undefined;
  state.failures = 0;
  state.calls = 0;
  state.race = false;
});

describe('creating a store while another program holds its new directory', () => {
  it('a rename that fails with EPERM a few times is retried and the store appears whole', async () => {
    state.target = dir;
    state.failures = 2;
    await createStore(dir, [{ collection: 'users', key: 'u-1', value: { UserName: 'u-1' } }]);
    expect(state.calls).toBe(3);
    const store = await openStore(dir);
    expect([...store.state.get('users')!.keys()]).toEqual(['u-1']);
    await store.close();
    expect((await readdir(dirname(dir))).filter((name) => name.startsWith(`.${basename(dir)}.creating-`))).toEqual([]);
  });

  it('EPERM onto a store another process created meanwhile is "a store already exists" (exit 2), as ENOTEMPTY is on POSIX', async () => {
    state.target = dir;
    state.race = true;
    const error = await createStore(dir, []).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreExistsError);
    expect(error).toMatchObject({ exitCode: 2, message: expect.stringContaining('created by another process') });
  });
});
