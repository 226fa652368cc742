import { describe, expect, it } from 'vitest';
import type { Change, StoreState } from '../../src/engine/store/contract.js';
import { GroupCommit, type CommitSteps, type Decide } from '../../src/engine/store/group-commit.js';

/**
 * The pipelined group commit over scripted steps: each journal write is a promise the test
 * settles, so what is decided, written and answered while a write is in flight is observable.
 */
function harness(options: { drainDue?: () => boolean } = {}) {
  const log: string[] = [];
  const writes: { lines: string[]; settle: (error?: Error) => void }[] = [];
  let memory: string[] = [];
  const steps: CommitSteps = {
    acquireLock: async () => void log.push('lock'),
    releaseLock: async () => void log.push('release'),
    keepLock: async () => void log.push('keep'),
    catchUp: async () => void log.push('catch-up'),
    decide: (decide) => {
      const { result, changes } = decide(new Map() as StoreState);
      memory = [...memory, ...changes.map((c) => c.key)];
      return { result, serialized: changes.map((c) => c.key).join(',') };
    },
    append: (serialized) =>
      new Promise<void>((resolve, reject) => {
        log.push(`write ${serialized.join('+')}`);
        writes.push({ lines: serialized, settle: (error) => (error ? reject(error) : resolve()) });
      }),
    markStale: () => void log.push('stale'),
    drainDue: options.drainDue ?? (() => false),
    afterCommit: async () => void log.push('after-commit'),
  };
  return { commits: new GroupCommit(steps), log, writes, memory: () => memory };
}

const put = (key: string): Decide => () => ({ result: key, changes: [{ collection: 'users', key, value: {} } satisfies Change] });
const tick = () => new Promise((resolve) => setImmediate(resolve));

function track<T>(promise: Promise<T>) {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

describe('pipelined group commit', () => {
  it('decides while a write is in flight, writes that batch only once the first is durable, and answers each caller after its own write', async () => {
    const { commits, log, writes, memory } = harness();
    const a = track(commits.submit(put('a')));
    await tick();
    expect(writes.map((w) => w.lines)).toEqual([['a']]);

    // Write 1 in flight: b and c are decided at once (memory shows them) but not written yet.
    const b = track(commits.submit(put('b')));
    const c = track(commits.submit(put('c')));
    expect(memory()).toEqual(['a', 'b', 'c']);
    await tick();
    expect(writes).toHaveLength(1);
    expect([a.settled, b.settled, c.settled]).toEqual([false, false, false]);

    writes[0]!.settle();
    await tick();
    expect(writes.map((w) => w.lines)).toEqual([['a'], ['b', 'c']]);
    expect(a).toMatchObject({ settled: true, value: 'a' });
    expect([b.settled, c.settled]).toEqual([false, false]);

    writes[1]!.settle();
    await tick();
    expect([b.value, c.value]).toEqual(['b', 'c']);
    // One lock and one catch-up for the whole session; the lease is kept once the writes drained.
    expect(log).toEqual(['lock', 'catch-up', 'write a', 'write b+c', 'after-commit', 'keep']);
  });

  it('whenDurable waits for everything decided so far, not for what comes after', async () => {
    const { commits, writes } = harness();
    await expect(commits.whenDurable()).resolves.toBeUndefined();
    void commits.submit(put('a'));
    await tick();
    void commits.submit(put('b'));
    const durable = track(commits.whenDurable());
    writes[0]!.settle();
    await tick();
    // c comes after the read: its batch is not waited for.
    void commits.submit(put('c'));
    expect(durable.settled).toBe(false);
    writes[1]!.settle();
    await tick();
    expect(durable.settled).toBe(true);
    expect(durable.error).toBeUndefined();
    expect(writes.map((w) => w.lines)).toEqual([['a'], ['b'], ['c']]);
    writes[2]!.settle();
  });

  it('a failed write refuses its batch and the one decided on top of it; the next transaction starts over with a reload', async () => {
    const { commits, log, writes } = harness();
    const a = track(commits.submit(put('a')));
    await tick();
    const b = track(commits.submit(put('b')));
    const durable = track(commits.whenDurable());
    writes[0]!.settle(new Error('disk full'));
    await tick();
    expect((a.error as Error).message).toBe('disk full');
    expect((b.error as Error).message).toBe('disk full');
    expect((durable.error as Error).message).toBe('disk full');
    expect(log).toEqual(['lock', 'catch-up', 'write a', 'stale', 'release']);

    const c = track(commits.submit(put('c')));
    await tick();
    writes[1]!.settle();
    await tick();
    expect(c.value).toBe('c');
    expect(log.slice(5)).toEqual(['lock', 'catch-up', 'write c', 'after-commit', 'keep']);
  });

  it('a throwing decide fails alone, and a transaction with nothing to write is answered with its batch', async () => {
    const { commits, writes } = harness();
    const a = track(commits.submit(put('a')));
    await tick();
    const bad = track(
      commits.submit(() => {
        throw new Error('rule bug');
      }),
    );
    const read = track(commits.submit(() => ({ result: 'nothing', changes: [] })));
    writes[0]!.settle();
    await tick();
    expect(a.value).toBe('a');
    expect((bad.error as Error).message).toBe('rule bug');
    // Decided on memory that showed a: answered once a was durable, with no write of its own.
    expect(read.value).toBe('nothing');
    expect(writes).toHaveLength(1);
  });

  it('when a compaction or a handover is due, stops deciding, lets the writes drain, and runs the rest in a new session', async () => {
    let due = false;
    const { commits, log, writes, memory } = harness({ drainDue: () => due });
    void commits.submit(put('a'));
    await tick();
    due = true;
    void commits.submit(put('b'));
    writes[0]!.settle();
    await tick();
    // b was decided before the drain: it is written; c, submitted after, waits undecided.
    const c = track(commits.submit(put('c')));
    expect(memory()).toEqual(['a', 'b']);
    due = false;
    writes[1]!.settle();
    await tick();
    await tick();
    expect(log.slice(0, 6)).toEqual(['lock', 'catch-up', 'write a', 'write b', 'after-commit', 'keep']);
    expect(log.slice(6)).toEqual(['lock', 'catch-up', 'write c']);
    writes[2]!.settle();
    await tick();
    expect(c.value).toBe('c');
  });

  it('a session starts at the end of the event-loop turn: transactions submitted by separate callbacks of one turn share its first line', async () => {
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

  it('exclusive work waits for a session to drain', async () => {
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

  it('never holds a line for callers about to come back: the next line starts as soon as the one before is durable', async () => {
    const { commits, writes } = harness();
    // a's caller submits c as soon as it is answered, as a client with one request in flight does.
    const c = commits.submit(put('a')).then(() => commits.submit(put('c')));
    await tick();
    void commits.submit(put('b'));
    writes[0]!.settle();
    await tick();
    // b's line went at once, without waiting for a's caller: c is decided into the line after it.
    expect(writes.map((w) => w.lines)).toEqual([['a'], ['b']]);
    writes[1]!.settle();
    await tick();
    expect(writes.map((w) => w.lines)).toEqual([['a'], ['b'], ['c']]);
    writes[2]!.settle();
    await expect(c).resolves.toBe('c');
  });
});
