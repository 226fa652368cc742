import { readFileSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// Every durable write of the journal is counted (and its lines kept): a group is one write.
const writes = vi.hoisted(() => [] as string[][]);
// The next durable write fails with this (a full disk), once.
const failing = vi.hoisted(() => ({ next: undefined as Error | undefined }));
vi.mock(import('../../src/system/durable-write.js'), async (original) => {
  const actual = await original();
  return {
    ...actual,
    appendDurably: (fd, bytes, position) => {
      const failure = failing.next;
      failing.next = undefined;
      if (failure !== undefined) return Promise.reject(failure);
      writes.push(
        bytes
          .toString('utf8')
          .split('\n')
          .slice(0, -1)
          .map((line) => (JSON.parse(line) as { b: { t: string; n?: number } }).b)
          .map((body) => `${body.t}${body.n ?? ''}`),
      );
      return actual.appendDurably(fd, bytes, position);
    },
  };
});

const { RunJournal } = await import('../../src/runs/run-journal.js');
const { readRun } = await import('./whole-record.js');
const { header, ref, tempRunsDir } = await import('./helpers.js');
const { openFiles } = await import('../support/open-files.js');

let runsDir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir: runsDir, cleanup } = tempRunsDir());
  writes.length = 0;
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  cleanup();
});

/** The last write's own settling done (setImmediate is not faked): no write in progress. */
const idle = () => new Promise((resolve) => setImmediate(resolve));

const ok = (n: number) => ({ ...ref(n), status: 'ok' as const, errors: [], transient: false });

describe('group commit of the run journal (docs/runs.md, "Group commit")', () => {
  it('answers that come while sent lines are written ride on the next sent group, not on a write of their own', async () => {
    const journal = await RunJournal.start(runsDir, header(), { maxDelayMs: 3_600_000, maxLines: 1024 });
    const first = journal.sent([ref(0), ref(1)]);
    // Queued while the first group is being written.
    journal.outcome(ok(0));
    journal.outcome(ok(1));
    await first;
    await journal.sent([ref(2)]);
    expect(writes).toEqual([['run'], ['sent0', 'sent1'], ['outcome0', 'outcome1', 'sent2']]);
    await journal.end('completed', { total: 3, ok: 2, partial: 0, failed: 0, skipped: 1 });
    const record = await readRun(runsDir, journal.id);
    expect([...record.items.values()].map((item) => [item.ref.n, item.outcome?.status])).toEqual([
      [0, 'ok'],
      [1, 'ok'],
      [2, undefined],
    ]);
  });

  it('answers alone are written once the delay has passed (one write for all), or at once when the group is full', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const journal = await RunJournal.start(runsDir, header(), { maxDelayMs: 20, maxLines: 4 });
    await journal.sent([ref(0), ref(1), ref(2), ref(3), ref(4), ref(5)]);
    await idle();
    journal.outcome(ok(0));
    vi.advanceTimersByTime(10);
    journal.outcome(ok(1));
    vi.advanceTimersByTime(9);
    expect(writes).toHaveLength(2);
    vi.advanceTimersByTime(1);
    // The write starts in the timer's turn.
    expect(writes).toHaveLength(3);
    expect(writes[2]).toEqual(['outcome0', 'outcome1']);
    await journal.flush();
    await idle();
    for (const n of [2, 3, 4, 5]) journal.outcome(ok(n));
    expect(writes[3]).toEqual(['outcome2', 'outcome3', 'outcome4', 'outcome5']);
    await journal.close();
    expect(readFileSync(journal.file, 'utf8').trimEnd().split('\n')).toHaveLength(13);
  });
});

describe('a resume that cannot take its journal back', () => {
  const openOn = async (path: string): Promise<number> =>
    (await openFiles()).filter((target) => target === path).length;

  it.skipIf(process.platform !== 'linux')(
    'closes it and lets the run go, whether its cut or its resume line failed (a full disk): never left to the collector',
    async () => {
      const journal = await RunJournal.start(runsDir, header());
      await journal.close();
      const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      const probe = await open(journal.file, 'r');
      vi.spyOn(Object.getPrototypeOf(probe) as { datasync: () => Promise<void> }, 'datasync').mockRejectedValueOnce(
        full,
      );
      await probe.close();
      const validLength = statSync(journal.file).size;
      await expect((await RunJournal.lockForResume(runsDir, journal.id)).reopen(validLength)).rejects.toThrow(
        /no space left/,
      );
      expect(await openOn(journal.file)).toBe(0);
      failing.next = full;
      await expect((await RunJournal.lockForResume(runsDir, journal.id)).reopen(validLength)).rejects.toThrow(
        /no space left/,
      );
      expect(await openOn(journal.file)).toBe(0);
      // Its lock went with it: the run can be taken over again.
      const held = await RunJournal.lockForResume(runsDir, journal.id);
      await (await held.reopen(validLength)).close();
      expect(readFileSync(journal.file, 'utf8').trimEnd().split('\n')).toHaveLength(2);
    },
  );
});
