import { describe, expect, it } from 'vitest';
import type { Change, StoreState } from '../../src/engine/store/contract.js';
import { GroupCommit, type CommitSteps, type Decide } from '../../src/engine/store/group-commit.js';

/**
 * The group commit over scripted steps: each journal write is a promise the test settles, so
 * what is decided, written and answered in each session is observable.
 */
function harness() {
  const log: string[] = [];
  const writes: { lines: string[]; settle: (error?: Error) => void }[] = [];
  let memory: string[] = [];
  let stale = false;
  const steps: CommitSteps = {
    acquireLock: async () => void log.push('lock'),
    releaseLock: async () => void log.push('release'),
    keepLock: async () => void log.push('keep'),
    catchUp: async () => void log.push(stale ? 'reload' : 'catch-up'),
    decide: (decide) => {
      const { result, changes } = decide(new Map() as StoreState);
      memory = [...memory, ...changes.map((c) => c.key)];
      return { result, serialized: changes.map((c) => c.key).join(',') };
    },
    append: (serialized) =>
      new Promise<string>((resolve, reject) => {
        log.push(`write ${serialized.join('+')}`);
        const head = `after ${serialized.join('+')}`;
        writes.push({ lines: serialized, settle: (error) => (error ? reject(error) : resolve(head)) });
      }),
    markStale: () => {
      stale = true;
      log.push('stale');
    },
    stale: () => stale,
    afterCommit: async () => void log.push('after-commit'),
  };
  return { commits: new GroupCommit(steps), log, writes, memory: () => memory, markStale: () => (stale = true) };
}

const put =
  (key: string): Decide =>
  () => ({ result: key, changes: [{ collection: 'users', key, value: {} } satisfies Change] });
const tick = () => new Promise((resolve) => setImmediate(resolve));

function track<T>(promise: Promise<T>) {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

describe('group commit', () => {
  it('the transactions of one turn share a session: one lock, one catch-up, one line, each answered once it is durable', async () => {
    const { commits, log, writes, memory } = harness();
    const a = track(commits.submit(put('a')));
    const b = track(commits.submit(put('b')));
    await tick();
    expect(memory()).toEqual(['a', 'b']);
    expect(writes.map((w) => w.lines)).toEqual([['a', 'b']]);
    expect([a.settled, b.settled]).toEqual([false, false]);
    writes[0]!.settle();
    await tick();
    expect([a.value, b.value]).toEqual(['a', 'b']);
    expect(log).toEqual(['lock', 'catch-up', 'write a+b', 'after-commit', 'keep']);
  });

  it("each transaction that wrote is told its line's head before it is answered; one that wrote nothing is not", async () => {
    const { commits, writes } = harness();
    const told: string[] = [];
    const nothing: Decide = () => ({ result: 'none', changes: [] });
    const a = track(commits.submit(put('a'), (head) => told.push(`a: ${head}`)));
    const none = track(commits.submit(nothing, (head) => told.push(`none: ${head}`)));
    const b = track(commits.submit(put('b'), (head) => told.push(`b: ${head}`)));
    await tick();
    expect(told).toEqual([]);
    writes[0]!.settle();
    await tick();
    expect(told).toEqual(['a: after a+b', 'b: after a+b']);
    expect([a.value, none.value, b.value]).toEqual(['a', 'none', 'b']);
  });

  it('what is submitted while a line is written waits undecided for the next session', async () => {
    const { commits, log, writes, memory } = harness();
    const a = track(commits.submit(put('a')));
    await tick();
    const b = track(commits.submit(put('b')));
    await tick();
    expect(memory()).toEqual(['a']);
    expect(writes).toHaveLength(1);
    writes[0]!.settle();
    await tick();
    expect(a.value).toBe('a');
    expect(b.settled).toBe(false);
    expect(writes.map((w) => w.lines)).toEqual([['a'], ['b']]);
    writes[1]!.settle();
    await tick();
    expect(b.value).toBe('b');
    expect(log).toEqual([
      'lock',
      'catch-up',
      'write a',
      'after-commit',
      'keep',
      'lock',
      'catch-up',
      'write b',
      'after-commit',
      'keep',
    ]);
  });

  it('whenDurable waits for the line being written, not for what comes after', async () => {
    const { commits, writes } = harness();
    await expect(commits.whenDurable()).resolves.toBeUndefined();
    void commits.submit(put('a'));
    await tick();
    const durable = track(commits.whenDurable());
    // b comes after the read: its line is not waited for.
    void commits.submit(put('b'));
    await tick();
    expect(durable.settled).toBe(false);
    writes[0]!.settle();
    await tick();
    expect(durable.settled).toBe(true);
    expect(durable.error).toBeUndefined();
    expect(writes.map((w) => w.lines)).toEqual([['a'], ['b']]);
    writes[1]!.settle();
  });

  it('a failed write refuses its batch and what waits on its durability; the next transaction starts over with a reload', async () => {
    const { commits, log, writes } = harness();
    const a = track(commits.submit(put('a')));
    const b = track(commits.submit(put('b')));
    await tick();
    const durable = track(commits.whenDurable());
    writes[0]!.settle(new Error('disk full'));
    await tick();
    expect((a.error as Error).message).toBe('disk full');
    expect((b.error as Error).message).toBe('disk full');
    expect((durable.error as Error).message).toBe('disk full');
    expect(log).toEqual(['lock', 'catch-up', 'write a+b', 'stale', 'release']);

    const c = track(commits.submit(put('c')));
    await tick();
    writes[1]!.settle();
    await tick();
    expect(c.value).toBe('c');
    expect(log.slice(5)).toEqual(['lock', 'reload', 'write c', 'after-commit', 'keep']);
  });

  it('a throwing decide fails alone, and a transaction with nothing to write is answered with its batch', async () => {
    const { commits, writes } = harness();
    const a = track(commits.submit(put('a')));
    const bad = track(
      commits.submit(() => {
        throw new Error('rule bug');
      }),
    );
    const read = track(commits.submit(() => ({ result: 'nothing', changes: [] })));
    await tick();
    // Decided on memory that showed a: answered once a is durable, with no write of its own.
    expect(read.settled).toBe(false);
    writes[0]!.settle();
    await tick();
    expect(a.value).toBe('a');
    expect((bad.error as Error).message).toBe('rule bug');
    expect(read.value).toBe('nothing');
    expect(writes).toHaveLength(1);
  });

  it('a decide that leaves memory stale stops the batch: the ones after it are decided after a reload', async () => {
    const { commits, log, writes, memory, markStale } = harness();
    const a = track(commits.submit(put('a')));
    const broken = track(
      commits.submit(() => {
        markStale();
        throw new Error('hints threw halfway');
      }),
    );
    const c = track(commits.submit(put('c')));
    await tick();
    expect(memory()).toEqual(['a']);
    writes[0]!.settle();
    await tick();
    expect(a.value).toBe('a');
    expect((broken.error as Error).message).toBe('hints threw halfway');
    await tick();
    writes[1]!.settle();
    await tick();
    expect(c.value).toBe('c');
    expect(log).toEqual([
      'lock',
      'catch-up',
      'write a',
      'after-commit',
      'keep',
      'lock',
      'reload',
      'write c',
      'after-commit',
      'keep',
    ]);
  });

  it('a session starts at the end of the event-loop turn: transactions submitted by separate callbacks of one turn share its line', async () => {
    const { commits, writes } = harness();
    // Two callbacks of one check phase, as two sockets' requests are callbacks of one poll phase.
    const a = new Promise((resolve) => setImmediate(() => resolve(commits.submit(put('a')))));
    const b = new Promise((resolve) => setImmediate(() => resolve(commits.submit(put('b')))));
    while (writes.length === 0) await tick();
    expect(writes.map((w) => w.lines)).toEqual([['a', 'b']]);
    writes[0]!.settle();
    await expect(Promise.all([a, b])).resolves.toEqual(['a', 'b']);
  });

  it('work queued after a submission (a close) waits for its session, though the session starts only at the end of the turn', async () => {
    const { commits, writes } = harness();
    const a = track(commits.submit(put('a')));
    const closed = track(commits.exclusive(async () => 'closed'));
    while (writes.length === 0) await tick();
    expect(closed.settled).toBe(false);
    writes[0]!.settle();
    await tick();
    expect(a.value).toBe('a');
    expect(closed.value).toBe('closed');
  });

  it('exclusive work waits for a session to finish its line', async () => {
    const { commits, writes } = harness();
    void commits.submit(put('a'));
    await tick();
    const work = track(commits.exclusive(async () => 'compacted'));
    await tick();
    expect(work.settled).toBe(false);
    writes[0]!.settle();
    await tick();
    expect(work.value).toBe('compacted');
  });
});
