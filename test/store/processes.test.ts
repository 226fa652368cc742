import { describe, it, expect, beforeAll, beforeEach, afterEach } from 'vitest';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StoreLockedError } from '../../src/system/errors.js';
import type { StoreState } from '../../src/engine/store/contract.js';
import { createStore, openStore } from '../../src/engine/store/index.js';

// These tests run real processes on the built code (dist/, built by the vitest global setup).
const worker = fileURLToPath(new URL('./store-worker.mjs', import.meta.url));
const builtStore = fileURLToPath(new URL('../../dist/engine/store/index.js', import.meta.url));

let root: string;
let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  await access(builtStore).catch(() => {
    throw new Error(`${builtStore} is missing: run these tests through vitest run (its global setup builds dist/)`);
  });
});
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'examctl-store-proc-'));
  dir = join(root, 'store');
});
afterEach(async () => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await rm(root, { recursive: true, force: true });
});

interface Worker {
  child: ChildProcess;
  lines: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  /** Resolves once stdout has at least `count` lines. */
  linesAtLeast(count: number): Promise<void>;
}

function startWorker(...args: string[]): Worker {
  const child = spawn(process.execPath, [worker, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
    for (const waiter of waiters.splice(0)) {
      if (lines.length >= waiter.count) waiter.resolve();
      else waiters.push(waiter);
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stderr })),
  );
  return {
    child,
    lines,
    exited,
    linesAtLeast: (count) =>
      new Promise<void>((resolve, reject) => {
        if (lines.length >= count) return resolve();
        waiters.push({ count, resolve });
        void exited.then(({ stderr: err }) => reject(new Error(`worker exited before ${count} lines: ${err}`)));
      }),
  };
}

const users = (state: StoreState) => state.get('users')!;
const counter = (state: StoreState) => (state.get('settings')!.get('counter') as { n: number } | undefined)?.n;

describe('durability across kill -9', () => {
  for (const [label, compactAt] of [
    ['no compaction', '0'],
    ['frequent compaction', '20000'],
  ] as const) {
    it(`every key the worker saw committed survives kill -9 (${label})`, async () => {
      await createStore(dir, []);
      const writer = startWorker('write', dir, 'k', '1000000', '8', ...(compactAt === '0' ? [] : [compactAt]));
      await writer.linesAtLeast(400);
      writer.child.kill('SIGKILL');
      const { signal } = await writer.exited;
      expect(signal).toBe('SIGKILL');
      const committed = writer.lines.filter((line) => line.startsWith('k-'));
      expect(committed.length).toBeGreaterThanOrEqual(400);

      const store = await openStore(dir);
      const present = users(store.state);
      const missing = committed.filter((key) => !present.has(key));
      expect(missing).toEqual([]);
      // Each transaction wrote a user and the counter together: nothing half-applied.
      expect(counter(store.state)).toBe(present.size);
      // The store stays writable after the crash (a torn tail, if any, is cut off).
      await store.transact(() => ({ result: undefined, changes: [{ collection: 'users', key: 'after', value: {} }] }));
      await store.close();
      const again = await openStore(dir);
      expect(users(again.state).size).toBe(present.size);
      await again.close();
    });
  }
});

describe('several writer processes', () => {
  it('four processes lose nothing, and a read-modify-write counter sees every increment', async () => {
    await createStore(dir, []);
    const perWriter = 150;
    const writers = ['a', 'b', 'c', 'd'].map((prefix) =>
      startWorker('write', dir, prefix, String(perWriter), '4', '30000'),
    );
    const results = await Promise.all(writers.map((w) => w.exited));
    for (const result of results) expect(result).toMatchObject({ code: 0, stderr: '' });
    const store = await openStore(dir);
    for (const prefix of ['a', 'b', 'c', 'd']) {
      for (let i = 0; i < perWriter; i += 1) expect(users(store.state).has(`${prefix}-${i}`)).toBe(true);
    }
    expect(users(store.state).size).toBe(4 * perWriter);
    expect(counter(store.state)).toBe(4 * perWriter);
    await store.close();
  });
});

describe('lock', () => {
  it('waits for a live holder up to the bound, names it, and recovers the lock once the holder is killed', async () => {
    await createStore(dir, []);
    const holder = startWorker('hold-lock', dir);
    await holder.linesAtLeast(1);
    expect(holder.lines[0]).toBe('locked');

    const store = await openStore(dir, { lockTimeoutMs: 300 });
    const write = () =>
      store.transact(() => ({ result: 'ok', changes: [{ collection: 'users', key: 'x', value: {} }] }));
    const error = await write().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreLockedError);
    expect((error as Error).message).toContain(`pid ${holder.child.pid}`);
    expect((error as Error).message).toContain('store-worker.mjs hold-lock');
    expect(users(store.state).has('x')).toBe(false);

    holder.child.kill('SIGKILL');
    await holder.exited;
    await expect(write()).resolves.toBe('ok');
    await store.close();
    const reader = await openStore(dir, { readOnly: true });
    expect(users(reader.state).has('x')).toBe(true);
    await reader.close();
  });

  it('takes over a lock file left by a dead pid', async () => {
    await createStore(dir, []);
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.on('close', resolve));
    const lock = {
      pid: gone.pid,
      host: hostname(),
      command: 'examctl user sync',
      since: new Date().toISOString(),
      token: 'dead',
    };
    await writeFile(join(dir, 'LOCK'), JSON.stringify(lock));
    const store = await openStore(dir, { lockTimeoutMs: 200 });
    await store.transact(() => ({ result: undefined, changes: [{ collection: 'users', key: 'y', value: {} }] }));
    await store.close();
    await expect(readFile(join(dir, 'LOCK'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('several processes finding the same stale lock all get through, one at a time', async () => {
    await createStore(dir, []);
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.on('close', resolve));
    const lock = {
      pid: gone.pid,
      host: hostname(),
      command: 'examctl user sync',
      since: new Date().toISOString(),
      token: 'dead',
    };
    await writeFile(join(dir, 'LOCK'), JSON.stringify(lock));
    const writers = ['p', 'q', 'r'].map((prefix) => startWorker('write', dir, prefix, '50', '4'));
    for (const result of await Promise.all(writers.map((w) => w.exited)))
      expect(result).toMatchObject({ code: 0, stderr: '' });
    const store = await openStore(dir, { readOnly: true });
    expect(users(store.state).size).toBe(150);
    expect(counter(store.state)).toBe(150);
    await store.close();
  });

  it('does not break a lock held on another host: it times out and says so', async () => {
    await createStore(dir, []);
    const lock = {
      pid: 1,
      host: 'elsewhere.example',
      command: 'examctl schedule push',
      since: '2026-01-01T00:00:00.000Z',
      token: 't',
    };
    await writeFile(join(dir, 'LOCK'), JSON.stringify(lock));
    const store = await openStore(dir, { lockTimeoutMs: 100 });
    await expect(store.transact(() => ({ result: undefined, changes: [] }))).rejects.toThrow(
      /locked by pid 1 on host elsewhere\.example \(examctl schedule push\) since 2026-01-01T00:00:00\.000Z/,
    );
    await store.close();
  });
});
