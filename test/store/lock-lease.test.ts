import { describe, expect, it, vi } from 'vitest';
import { spawn } from 'node:child_process';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Change, StoreState } from '../../src/engine/store/contract.js';
import { createStore, openStore } from '../../src/engine/store/index.js';
import { LockLease, type LeaseTiming } from '../../src/engine/store/lock-lease.js';
import { StoreLock } from '../../src/system/lock.js';
import { useTempStore } from '../support/temp-dir.js';

let dir: string;
useTempStore('examctl-lease-', (made) => ({ dir } = made));

const HOLD_FOREVER: LeaseTiming = { idleMs: 60_000, maxHoldMs: 60_000, handoverMs: 150 };

async function lockExists(): Promise<boolean> {
  return (await readdir(dir)).includes('LOCK');
}

/** Polls until `condition` holds; fails after `ms` (a bound for a slow machine, not a timing claim). */
async function eventually(condition: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(5);
  }
}

describe('lock lease', () => {
  it('keeps the lock from one batch to the next and says so; releaseNow removes LOCK', async () => {
    await createStore(dir, []);
    const lease = new LockLease(new StoreLock(dir, 1_000), dir, HOLD_FOREVER);
    expect(await lease.acquire()).toBe(false);
    await lease.batchDone();
    expect(await lockExists()).toBe(true);
    expect(await lease.acquire()).toBe(true);
    await lease.releaseNow();
    expect(await lockExists()).toBe(false);
    expect(await lease.acquire()).toBe(false);
    await lease.releaseNow();
  });

  it('lets the lock go once no batch came for the idle time', async () => {
    await createStore(dir, []);
    const lease = new LockLease(new StoreLock(dir, 1_000), dir, { ...HOLD_FOREVER, idleMs: 10 });
    await lease.acquire();
    await lease.batchDone();
    await eventually(async () => !(await lockExists()));
    expect(await lease.acquire()).toBe(false);
    await lease.releaseNow();
  });

  it('one idle timer for many batches: held through a batch the timer fires in, let go idleMs after the last batch', async () => {
    await createStore(dir, []);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    // Timers made, counted around the fake one (put back before the real ones are).
    const fake = globalThis.setTimeout;
    let made = 0;
    const counted = ((...args: Parameters<typeof setTimeout>) => {
      made += 1;
      return fake(...args);
    }) as typeof setTimeout;
    globalThis.setTimeout = counted;
    const realTimers = (): void => {
      if (globalThis.setTimeout === counted) globalThis.setTimeout = fake;
      vi.useRealTimers();
    };
    try {
      const lease = new LockLease(new StoreLock(dir, 1_000), dir, { ...HOLD_FOREVER, idleMs: 20 });
      await lease.acquire();
      await lease.batchDone();
      // Nine more batches, 2 ms apart: the one timer set by the first.
      for (let i = 0; i < 9; i++) {
        await vi.advanceTimersByTimeAsync(2);
        expect(await lease.acquire()).toBe(true);
        await lease.batchDone();
      }
      expect(made).toBe(1);
      // A batch begun before the timer fires (at 20): held through it; the timer is set again at its end.
      expect(await lease.acquire()).toBe(true);
      await vi.advanceTimersByTimeAsync(10);
      expect(await lockExists()).toBe(true);
      await lease.batchDone();
      expect(made).toBe(2);
      // Released 20 ms after that last batch (at 28), not before.
      await vi.advanceTimersByTimeAsync(19);
      expect(await lockExists()).toBe(true);
      await vi.advanceTimersByTimeAsync(2);
      realTimers();
      await eventually(async () => !(await lockExists()));
      expect(await lease.acquire()).toBe(false);
      await lease.releaseNow();
    } finally {
      realTimers();
    }
  });

  it('past the maximum hold, hands the lock to a waiting writer at the end of a batch', async () => {
    await createStore(dir, []);
    const lease = new LockLease(new StoreLock(dir, 1_000), dir, { ...HOLD_FOREVER, maxHoldMs: 0 });
    await lease.acquire();
    const other = new StoreLock(dir, 5_000);
    const otherIn = other.acquire();
    // The waiter shows itself by its temp file while it waits.
    await eventually(async () => (await readdir(dir)).some((name) => /^\.lock-\d+-/.test(name)));
    await lease.batchDone();
    await otherIn;
    expect(other.held).toBe(true);
    const back = lease.acquire();
    // Waiting for it now: shown by its temp file, as the other writer was.
    await eventually(async () => (await readdir(dir)).some((name) => /^\.lock-\d+-/.test(name)));
    await other.release();
    expect(await back).toBe(false);
    await lease.releaseNow();
  });

  it("past the maximum hold with nobody waiting (a dead process's temp file is nobody), keeps the lock", async () => {
    await createStore(dir, []);
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.on('close', resolve));
    await writeFile(join(dir, `.lock-${gone.pid}-deadbeef`), '{}\n');
    const lease = new LockLease(new StoreLock(dir, 1_000), dir, { ...HOLD_FOREVER, maxHoldMs: 0 });
    await lease.acquire();
    await lease.batchDone();
    expect(await lease.acquire()).toBe(true);
    await lease.releaseNow();
  });
});

describe('a store writing under a lease', () => {
  const counterOf = (state: StoreState): number =>
    (state.get('settings')!.get('counter') as { n: number } | undefined)?.n ?? 0;
  const increment =
    (key: string) =>
    (state: StoreState): { result: undefined; changes: Change[] } => ({
      result: undefined,
      changes: [
        { collection: 'users', key, value: { UserName: key } },
        { collection: 'settings', key: 'counter', value: { n: counterOf(state) + 1 } },
      ],
    });

  it('close lets a kept lock go at once', async () => {
    await createStore(dir, []);
    const store = await openStore(dir);
    await store.transact(increment('a'));
    await store.close();
    expect(await lockExists()).toBe(false);
  });

  it("a writer that never pauses still lets another in, and each sees the other's increments", async () => {
    await createStore(dir, []);
    const busy = await openStore(dir);
    const other = await openStore(dir, { lockTimeoutMs: 5_000 });
    let stop = false;
    let busyCount = 0;
    const loop = (async () => {
      while (!stop) {
        await busy.transact(increment(`busy-${busyCount}`));
        busyCount += 1;
      }
    })();
    await eventually(async () => busyCount >= 5);
    for (let i = 0; i < 3; i++) await other.transact(increment(`other-${i}`));
    stop = true;
    await loop;
    await busy.close();
    await other.close();
    const reopened = await openStore(dir, { readOnly: true });
    expect(counterOf(reopened.state)).toBe(busyCount + 3);
    expect(reopened.state.get('users')!.size).toBe(busyCount + 3);
    await reopened.close();
  });
});
