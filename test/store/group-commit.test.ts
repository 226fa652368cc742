import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Change, StoreState } from '../../src/engine/store/contract.js';
import { GroupCommit, type CommitSteps, type Decide } from '../../src/engine/store/group-commit.js';

/**
 * The group commit over scripted steps: each journal write is a promise the test settles, so
 * what is decided, written and answered in each session is observable.
 */
function harness() {
  const log: string[] = [];
  const writes: { lines: string[]; settle: (error?: Error) => void; settled: boolean; failed: boolean }[] = [];
  let memory: string[] = [];
  let stale = false;
  /** Set by a test: the next path check finds the directory replaced (a reload then follows it). */
  const path = { replaced: false };
  const steps: CommitSteps = {
    acquireLock: async () => void log.push('lock'),
    releaseLock: async () => void log.push('release'),
    keepLock: async () => void log.push('keep'),
    catchUp: async () => {
      log.push(stale ? 'reload' : 'catch-up');
      stale = false;
    },
    checkPath: () => {
      log.push('check');
      if (!path.replaced) return;
      path.replaced = false;
      throw new Error('directory replaced');
    },
    decide: (decide) => {
      const { result, changes } = decide(new Map() as StoreState);
      memory = [...memory, ...changes.map((c) => c.key)];
      return { result, serialized: changes.map((c) => c.key).join(',') };
    },
    append: (serialized) =>
      new Promise<void>((resolve, reject) => {
        log.push(`write ${serialized.join('+')}`);
        const write = {
          lines: serialized,
          settled: false,
          failed: false,
          settle: (error?: Error) => {
            write.settled = true;
            write.failed = error !== undefined;
            if (error) reject(error);
            else resolve();
          },
        };
        writes.push(write);
      }),
    markStale: () => {
      stale = true;
      log.push('stale');
    },
    stale: () => stale,
    afterCommit: async () => void log.push('after-commit'),
  };
  return {
    commits: new GroupCommit(steps),
    log,
    writes,
    memory: () => memory,
    markStale: () => (stale = true),
    path,
    /** Memory as the next reload leaves it. */
    reloaded: (keys: string[]) => {
      memory = keys;
    },
  };
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

  it('what is submitted while a line is written is decided on top of it; its line follows once the first is durable and the path checked', async () => {
    const { commits, log, writes, memory } = harness();
    const a = track(commits.submit(put('a')));
    await tick();
    const b = track(commits.submit(put('b')));
    const c = track(commits.submit(put('c')));
    await tick();
    // Decided while a's line is written, and not written before it is durable.
    expect(memory()).toEqual(['a', 'b', 'c']);
    expect(writes.map((w) => w.lines)).toEqual([['a']]);
    writes[0]!.settle();
    await tick();
    expect(a.value).toBe('a');
    expect([b.settled, c.settled]).toEqual([false, false]);
    expect(writes.map((w) => w.lines)).toEqual([['a'], ['b', 'c']]);
    writes[1]!.settle();
    await tick();
    expect([b.value, c.value]).toEqual(['b', 'c']);
    // One lock, one catch-up and one compaction check for the session; a path check before the second line.
    expect(log).toEqual(['lock', 'catch-up', 'write a', 'check', 'write b+c', 'after-commit', 'keep']);
  });

  it('a failed line under a batch decided on top of it: the line is refused, the batch on top is never written nor answered, and is decided again after the reload', async () => {
    const { commits, log, writes, memory, reloaded } = harness();
    const a = track(commits.submit(put('a')));
    await tick();
    const b = track(commits.submit(put('b')));
    await tick();
    const durableB = track(commits.whenDurable());
    expect(memory()).toEqual(['a', 'b']);
    reloaded([]);
    writes[0]!.settle(new Error('disk full'));
    await tick();
    expect((a.error as Error).message).toBe('disk full');
    // A read that saw b fails: b will not be durable as it was decided.
    expect((durableB.error as Error).message).toBe('disk full');
    expect(b.settled).toBe(false);
    await tick();
    expect(writes.map((w) => w.lines)).toEqual([['a'], ['b']]);
    expect(memory()).toEqual(['b']);
    writes[1]!.settle();
    await tick();
    expect(b.value).toBe('b');
    expect(log).toEqual([
      'lock',
      'catch-up',
      'write a',
      'stale',
      'release',
      'lock',
      'reload',
      'write b',
      'after-commit',
      'keep',
    ]);
  });

  it('a path that changed before the next line: nothing of that batch is written or answered; it is decided again after the reload', async () => {
    const { commits, log, writes, memory, path, reloaded } = harness();
    const a = track(commits.submit(put('a')));
    await tick();
    const b = track(commits.submit(put('b')));
    await tick();
    const durableB = track(commits.whenDurable());
    path.replaced = true;
    reloaded(['a']);
    writes[0]!.settle();
    await tick();
    expect(a.value).toBe('a');
    expect((durableB.error as Error).message).toBe('directory replaced');
    expect(b.settled).toBe(false);
    await tick();
    expect(writes.map((w) => w.lines)).toEqual([['a'], ['b']]);
    expect(memory()).toEqual(['a', 'b']);
    writes[1]!.settle();
    await tick();
    expect(b.value).toBe('b');
    expect(log).toEqual([
      'lock',
      'catch-up',
      'write a',
      'check',
      'stale',
      'release',
      'lock',
      'reload',
      'write b',
      'after-commit',
      'keep',
    ]);
  });

  it('a session writes at most 16 lines, then lets a compaction and the lock handover in', async () => {
    const { commits, log, writes } = harness();
    void commits.submit(put('k0'));
    await tick();
    for (let line = 1; line <= 17; line += 1) {
      void commits.submit(put(`k${line}`));
      await tick();
      writes[line - 1]!.settle();
      await tick();
    }
    const afterSixteen = log.indexOf('after-commit');
    expect(log.slice(0, afterSixteen).filter((entry) => entry.startsWith('write'))).toHaveLength(16);
    expect(log.slice(afterSixteen, afterSixteen + 4)).toEqual(['after-commit', 'keep', 'lock', 'catch-up']);
    writes.at(-1)!.settle();
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

  /*
   * The model: each transaction puts its own key. Whatever the order of submissions, turns, settled
   * and failed lines and replaced paths, lines are written one at a time, each after a lock's catch-up
   * or a path check, a key in at most one line, lines in submission order; a transaction is answered
   * only once its line is durable, and in the end exactly those in a durable line succeed, those in
   * a failed line fail, and none is left waiting.
   */
  it('model: answers follow durable lines, whatever fails and whenever', async () => {
    type Step = { t: 'submit' } | { t: 'turn' } | { t: 'settle'; fail: boolean } | { t: 'replace' };
    const step: fc.Arbitrary<Step> = fc.oneof(
      { arbitrary: fc.constant({ t: 'submit' as const }), weight: 4 },
      { arbitrary: fc.constant({ t: 'turn' as const }), weight: 3 },
      { arbitrary: fc.boolean().map((fail) => ({ t: 'settle' as const, fail })), weight: 3 },
      { arbitrary: fc.constant({ t: 'replace' as const }), weight: 1 },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60 }), async (steps) => {
        const { commits, log, writes, path } = harness();
        const answers: { key: string; state: { settled: boolean; error?: unknown } }[] = [];
        const lineOf = (key: string) => writes.find((write) => write.lines.includes(key));
        const settleNext = (fail: boolean) =>
          writes.find((write) => !write.settled)?.settle(fail ? new Error('disk full') : undefined);
        const answeredOnlyWhenDurable = () => {
          for (const { key, state } of answers)
            if (state.settled && state.error === undefined)
              expect(lineOf(key)).toMatchObject({ settled: true, failed: false });
        };
        for (const next of steps) {
          if (next.t === 'submit') {
            const key = `k${answers.length}`;
            answers.push({ key, state: track(commits.submit(put(key))) });
          } else if (next.t === 'turn') await tick();
          else if (next.t === 'settle') settleNext(next.fail);
          else path.replaced = true;
          // One line on its way at a time.
          expect(writes.filter((write) => !write.settled).length).toBeLessThanOrEqual(1);
          answeredOnlyWhenDurable();
        }
        for (let round = 0; round < 500 && answers.some(({ state }) => !state.settled); round += 1) {
          settleNext(false);
          await tick();
        }
        answeredOnlyWhenDurable();
        const written = writes.flatMap((write) => write.lines);
        expect(new Set(written).size).toBe(written.length);
        const durable = writes.filter((write) => !write.failed).flatMap((write) => write.lines);
        expect(durable).toEqual([...durable].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1))));
        for (const { key, state } of answers) {
          expect(state.settled).toBe(true);
          // Nothing here throws in a decide or a catch-up: every transaction reaches a line.
          expect(lineOf(key)).toBeDefined();
          expect(state.error === undefined).toBe(lineOf(key)?.failed === false);
        }
        // Each line after a lock's catch-up (or reload) or a path check that passed.
        for (const [index, entry] of log.entries())
          if (entry.startsWith('write')) expect(['catch-up', 'reload', 'check']).toContain(log[index - 1]);
      }),
      { seed: 20261128, numRuns: 300 },
    );
  });
});
