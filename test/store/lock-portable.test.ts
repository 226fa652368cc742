import { afterEach, describe, expect, it, vi } from 'vitest';
import { readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createStore, openStore } from '../../src/engine/store/index.js';
import { bootTime, isStale, StoreLock, type LockInfo } from '../../src/system/lock.js';
import { ownStartTicks } from '../../src/system/process-liveness.js';
import { StoreLockedError, TargetError } from '../../src/system/errors.js';
import { lockForDeciding } from '../../src/sync/memory-access.js';
import { put } from '../support/store.js';
import { useTempStore } from '../support/temp-dir.js';

/**
 * The file system of a USB stick (FAT32, exFAT) or of some network shares: no hard links, so
 * link(2) fails with EPERM. `openFails` makes the next opens of a LOCK fail with EPERM, as
 * Windows does while a deleted LOCK is still held open by a reader.
 */
const fsState = vi.hoisted(() => ({ openFails: 0, opensRefused: 0, failCode: 'EPERM' }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const eperm = (what: string) =>
    Object.assign(new Error(`EPERM: operation not permitted, ${what}`), { code: 'EPERM' });
  const link = async (from: string, to: string): Promise<void> => {
    throw eperm(`link '${from}' -> '${to}'`);
  };
  const open = (async (path: string, ...rest: unknown[]) => {
    if (fsState.openFails > 0 && String(path).endsWith('LOCK') && rest[0] === 'wx') {
      fsState.openFails--;
      fsState.opensRefused++;
      throw Object.assign(eperm(`open '${path}'`), { code: fsState.failCode });
    }
    return (actual.open as (...args: unknown[]) => unknown)(path, ...rest);
  }) as typeof actual.open;
  return { ...actual, link, open, default: { ...actual, link, open } };
});

let dir: string;
useTempStore('examctl-lock-portable-', (made) => ({ dir } = made));
afterEach(() => {
  fsState.openFails = 0;
  fsState.opensRefused = 0;
  fsState.failCode = 'EPERM';
});

function lockOf(info: Partial<LockInfo>): string {
  return `${JSON.stringify({ pid: process.pid, host: hostname(), command: 'examctl user sync', since: new Date().toISOString(), token: 'other-holder', ...info })}\n`;
}

describe('the store lock without hard links', () => {
  it('a store is created, written and read where link(2) fails with EPERM', async () => {
    await createStore(dir, [{ collection: 'users', key: 'u-1', value: { UserName: 'u-1' } }]);
    const store = await openStore(dir, { lockTimeoutMs: 2_000 });
    await store.transact(put({ collection: 'users', key: 'u-2', value: { UserName: 'u-2' } }));
    await store.close();
    const again = await openStore(dir);
    expect([...again.state.get('users')!.keys()].sort()).toEqual(['u-1', 'u-2']);
    await again.close();
    expect((await readdir(dir)).filter((name) => name === 'LOCK' || name.startsWith('.lock-'))).toEqual([]);
  });

  it('one holder at a time; the second waits and gets it once the first releases', async () => {
    await createStore(dir, []);
    const first = new StoreLock(dir, 1_000);
    await first.acquire();
    const lock = JSON.parse(await readFile(join(dir, 'LOCK'), 'utf8')) as LockInfo;
    expect(lock.pid).toBe(process.pid);
    await expect(new StoreLock(dir, 0).acquire()).rejects.toBeInstanceOf(StoreLockedError);
    const second = new StoreLock(dir, 5_000);
    const waiting = second.acquire();
    await first.release();
    await waiting;
    expect(second.held).toBe(true);
    await second.release();
  });

  it('EPERM on creating LOCK (a deleted LOCK still open, Windows) is "busy, retry"', async () => {
    await createStore(dir, []);
    fsState.openFails = 3;
    const lock = new StoreLock(dir, 5_000);
    await lock.acquire();
    expect(fsState.opensRefused).toBe(3);
    expect(lock.held).toBe(true);
    await lock.release();
  });

  it.each(['EPERM', 'EROFS', 'ENOSPC'])(
    'a folder that refuses LOCK for good (%s: immutable, read-only, full) is a target failure naming it, exit 3',
    async (code) => {
      await createStore(dir, []);
      fsState.openFails = Infinity;
      fsState.failCode = code;
      for (const taking of [() => new StoreLock(dir, 0).acquire(), () => lockForDeciding(dir, 0)]) {
        const error = await taking().then(
          () => undefined,
          (refused: unknown) => refused,
        );
        expect(error).toBeInstanceOf(TargetError);
        expect((error as TargetError).exitCode).toBe(3);
        expect((error as Error).message).toMatch(
          new RegExp(`^cannot write the lock ${join(dir, 'LOCK')}: .+ \\(${code}\\)$`),
        );
      }
    },
  );
});

describe('stale locks', () => {
  it.runIf(process.platform === 'linux')(
    'a LOCK whose live pid has another start time (a reused pid) is broken',
    async () => {
      await createStore(dir, []);
      await writeFile(join(dir, 'LOCK'), lockOf({ started: (ownStartTicks() as number) - 1 }));
      const lock = new StoreLock(dir, 0);
      await lock.acquire();
      expect(lock.held).toBe(true);
      await lock.release();
    },
  );

  it.runIf(process.platform === 'linux')('a LOCK of the same live process (same start time) holds', async () => {
    await createStore(dir, []);
    await writeFile(join(dir, 'LOCK'), lockOf({ started: ownStartTicks() as number }));
    await expect(new StoreLock(dir, 0).acquire()).rejects.toBeInstanceOf(StoreLockedError);
  });

  it('with no start time recorded (macOS, Windows), a live pid from before the last boot is stale', async () => {
    const now = bootTime();
    // A live process that is not this one (this one's pid on a lock it never took is a dead process's: below).
    const base: LockInfo = { pid: process.ppid, host: hostname(), command: 'x', since: 'x', token: 't' };
    expect(isStale({ ...base, boot: now - 24 * 3600_000 }, now)).toBe(true);
    expect(isStale({ ...base, boot: now - 30_000 }, now)).toBe(false);
    expect(isStale(base, now)).toBe(false);
    // A recorded start time decides alone (Linux): the boot reading is not consulted.
    const started = ownStartTicks();
    await createStore(dir, []);
    const lock = new StoreLock(dir, 0);
    await lock.acquire();
    const own = JSON.parse(await readFile(join(dir, 'LOCK'), 'utf8')) as LockInfo;
    if (started !== undefined) expect(isStale({ ...own, started, boot: now - 24 * 3600_000 }, now)).toBe(false);
    expect(isStale(own, now)).toBe(false);
    await lock.release();
  });

  it("without a start time, a lock naming this process's pid with a token it never made is stale (a dead process's pid, handed out again)", () => {
    const now = bootTime();
    expect(
      isStale(
        { pid: process.pid, host: hostname(), command: 'x', since: 'x', token: 'dead-process-token', boot: now },
        now,
      ),
    ).toBe(true);
  });

  it('records the boot time where no start time can be read', async () => {
    await createStore(dir, []);
    const lock = new StoreLock(dir, 0);
    await lock.acquire();
    const info = JSON.parse(await readFile(join(dir, 'LOCK'), 'utf8')) as LockInfo;
    if (ownStartTicks() === undefined) expect(info.boot).toEqual(expect.any(Number));
    else expect(info.started).toBe(ownStartTicks());
    await lock.release();
  });

  it('an empty LOCK (its writer died before writing it) is waited on while young and broken once old', async () => {
    await createStore(dir, []);
    const lockPath = join(dir, 'LOCK');
    await writeFile(lockPath, '');
    // Young: modified "in the future", so no clock can make it old during the test.
    const future = new Date(Date.now() + 3600_000);
    await utimes(lockPath, future, future);
    await expect(new StoreLock(dir, 0).acquire()).rejects.toBeInstanceOf(StoreLockedError);
    const past = new Date(Date.now() - 3600_000);
    await utimes(lockPath, past, past);
    const lock = new StoreLock(dir, 0);
    await lock.acquire();
    expect(lock.held).toBe(true);
    await lock.release();
  });
});
