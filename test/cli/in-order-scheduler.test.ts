import { describe, expect, it } from 'vitest';
import type { IntegrationApi } from '../../src/port/integration-api.js';
import { InOrderScheduler } from '../../src/pipeline/in-order-scheduler.js';
import { RecordDispatcher } from '../../src/pipeline/record-dispatcher.js';
import type { Outcome, Unit } from '../../src/pipeline/record-job.js';
import type { ReportEntry } from '../../src/report/run-report.js';

interface Item {
  n: number;
}

/** A promise settled from outside, to decide the order answers come in. */
function deferred<T>(): { promise: Promise<T>; resolve(value: T): void; reject(error: Error): void } {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Deterministic shuffle (a fixed LCG), so a failure can be replayed. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('InOrderScheduler', () => {
  it('emits in input order whatever order the answers come in', async () => {
    for (const seed of [1, 7, 42, 2026]) {
      const emitted: number[] = [];
      const scheduler = new InOrderScheduler<Item>({
        window: 1000,
        maxBuffered: 1000,
        emit: (item) => void emitted.push(item.n),
      });
      const answers = Array.from({ length: 200 }, () => deferred<Item>());
      for (const [n, answer] of answers.entries()) {
        // Every third item is known at once (validated only), the rest are answers to wait for.
        const wait = scheduler.accept(n % 3 === 0 ? { n } : answer.promise);
        expect(wait).toBeUndefined();
      }
      for (const n of shuffled([...answers.keys()], seed)) {
        answers[n]!.resolve({ n });
        if (n % 17 === 0) await flush();
      }
      await scheduler.drain();
      expect(emitted).toEqual([...answers.keys()]);
    }
  });

  it('an item known at once with nothing before it is emitted synchronously', () => {
    const emitted: number[] = [];
    const scheduler = new InOrderScheduler<Item>({
      window: 2,
      maxBuffered: 4,
      emit: (item) => void emitted.push(item.n),
    });
    expect(scheduler.accept({ n: 0 })).toBeUndefined();
    expect(scheduler.accept({ n: 1 })).toBeUndefined();
    expect(emitted).toEqual([0, 1]);
  });

  it('never has more than `window` answers in flight, and fills the window', async () => {
    let inFlight = 0;
    let most = 0;
    const emitted: number[] = [];
    const scheduler = new InOrderScheduler<Item>({
      window: 3,
      maxBuffered: 100,
      emit: (item) => void emitted.push(item.n),
    });
    for (let n = 0; n < 30; n++) {
      inFlight += 1;
      most = Math.max(most, inFlight);
      // Later items answer first, so the window is freed out of order.
      const answer = new Promise<Item>((resolve) =>
        setTimeout(
          () => {
            inFlight -= 1;
            resolve({ n });
          },
          (30 - n) % 4,
        ),
      );
      const wait = scheduler.accept(answer);
      if (wait !== undefined) await wait;
    }
    await scheduler.drain();
    expect(most).toBe(3);
    expect(emitted).toEqual(Array.from({ length: 30 }, (_, n) => n));
  });

  it('holds at most `maxBuffered` items behind an unanswered one: the caller waits for the head', async () => {
    const emitted: number[] = [];
    const scheduler = new InOrderScheduler<Item>({
      window: 10,
      maxBuffered: 3,
      emit: (item) => void emitted.push(item.n),
    });
    const head = deferred<Item>();
    expect(scheduler.accept(head.promise)).toBeUndefined();
    expect(scheduler.accept({ n: 1 })).toBeUndefined();
    const wait = scheduler.accept({ n: 2 });
    expect(wait).toBeInstanceOf(Promise);
    let waited = false;
    void wait!.then(() => (waited = true));
    await flush();
    expect(waited).toBe(false);
    expect(emitted).toEqual([]);
    head.resolve({ n: 0 });
    await wait;
    expect(emitted).toEqual([0, 1, 2]);
  });

  it('waits for back-pressure from emit before taking more', async () => {
    const emitted: number[] = [];
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const scheduler = new InOrderScheduler<Item>({
      window: 10,
      maxBuffered: 10,
      emit: (item) => {
        emitted.push(item.n);
        return item.n === 0 ? slow : undefined;
      },
    });
    const wait = scheduler.accept({ n: 0 });
    expect(wait).toBe(slow);
    release();
    await wait;
    expect(scheduler.accept({ n: 1 })).toBeUndefined();
    expect(emitted).toEqual([0, 1]);
  });

  it('a rejected answer rejects drain in its turn: the items before it are emitted, none after', async () => {
    const emitted: number[] = [];
    const scheduler = new InOrderScheduler<Item>({
      window: 10,
      maxBuffered: 10,
      emit: (item) => void emitted.push(item.n),
    });
    const first = deferred<Item>();
    const broken = deferred<Item>();
    scheduler.accept(first.promise);
    scheduler.accept(broken.promise);
    scheduler.accept({ n: 2 });
    broken.reject(new Error('boom'));
    await flush();
    first.resolve({ n: 0 });
    await expect(scheduler.drain()).rejects.toThrow('boom');
    expect(emitted).toEqual([0]);
  });

  it('an emit that fails rejects the wait of the item that caused it', async () => {
    const scheduler = new InOrderScheduler<Item>({
      window: 10,
      maxBuffered: 10,
      emit: () => Promise.reject(new Error('disk full')),
    });
    await expect(scheduler.accept({ n: 0 })).rejects.toThrow('disk full');
  });

  it('abandon lets every answer in flight come in and emits nothing more', async () => {
    const emitted: number[] = [];
    const scheduler = new InOrderScheduler<Item>({
      window: 10,
      maxBuffered: 10,
      emit: (item) => void emitted.push(item.n),
    });
    const answers = [deferred<Item>(), deferred<Item>()];
    for (const answer of answers) scheduler.accept(answer.promise);
    let abandoned = false;
    const abandoning = scheduler.abandon().then(() => (abandoned = true));
    answers[1]!.resolve({ n: 1 });
    await flush();
    expect(abandoned).toBe(false);
    answers[0]!.reject(new Error('late failure'));
    await abandoning;
    expect(emitted).toEqual([]);
    await scheduler.drain();
    expect(emitted).toEqual([]);
  });
});

describe('RecordDispatcher with the scheduler: stopping and draining', () => {
  const api = {} as IntegrationApi;
  const unit = (n: number, valid = true): Unit<number> => ({
    source: { file: 'in.csv', line: n + 2 },
    id: `u-${n}`,
    prepared: valid
      ? { ok: true, value: n }
      : { ok: false, problems: [{ field: 'Email', code: null, message: 'bad' }] },
  });

  async function run(
    units: Unit<number>[],
    send: (n: number) => Promise<Outcome>,
    options: { maxErrors?: number; signal?: AbortSignal; window?: number } = {},
  ): Promise<{ statuses: string[]; dispatcher: RecordDispatcher<number, never>; entries: ReportEntry[] }> {
    const entries: ReportEntry[] = [];
    const dispatcher = new RecordDispatcher<number, never>(
      { command: 'user sync', send: (_api, n) => send(n) },
      { api, callOptions: {}, maxErrors: options.maxErrors, signal: options.signal },
    );
    const scheduler = new InOrderScheduler<ReportEntry>({
      window: options.window ?? 2,
      maxBuffered: 16,
      emit: (entry) => void entries.push(entry),
    });
    for (const next of units) {
      const wait = scheduler.accept(dispatcher.dispatch(next));
      if (wait !== undefined) await wait;
    }
    await scheduler.drain();
    return { statuses: entries.map((entry) => `${entry.item.id}:${entry.item.status}`), dispatcher, entries };
  }

  it('an interrupt stops dispatching: answers in flight are reported, the rest skipped, in order', async () => {
    const controller = new AbortController();
    const sent: number[] = [];
    const { statuses, dispatcher } = await run(
      [0, 1, 2, 3, 4, 5].map((n) => unit(n)),
      async (n) => {
        sent.push(n);
        if (n === 1) controller.abort();
        await flush();
        return { status: 'ok', errors: [] };
      },
      { signal: controller.signal, window: 2 },
    );
    expect(sent).toEqual([0, 1]);
    expect(statuses).toEqual(['u-0:ok', 'u-1:ok', 'u-2:skipped', 'u-3:skipped', 'u-4:skipped', 'u-5:skipped']);
    expect(dispatcher.stopReason).toEqual({ kind: 'interrupted' });
    expect(dispatcher.answered).toBe(2);
  });

  it('--max-errors counts local and target failures and skips the rest', async () => {
    const sent: number[] = [];
    const units = [unit(0, false), unit(1), unit(2), unit(3), unit(4)];
    const { statuses, dispatcher } = await run(
      units,
      async (n) => {
        sent.push(n);
        return n === 1
          ? { status: 'failed', errors: [{ field: '', code: null, message: 'refused' }] }
          : { status: 'ok', errors: [] };
      },
      { maxErrors: 2, window: 1 },
    );
    expect(sent).toEqual([1]);
    expect(statuses).toEqual(['u-0:failed', 'u-1:failed', 'u-2:skipped', 'u-3:skipped', 'u-4:skipped']);
    expect(dispatcher.stopReason).toEqual({ kind: 'max-errors' });
  });

  it('a target failure is carried by the unit that met it; the rest is skipped; the error is kept for the end', async () => {
    const { statuses, dispatcher, entries } = await run(
      [0, 1, 2].map((n) => unit(n)),
      async (n) => {
        if (n === 0) throw new Error('403 not allowed');
        return { status: 'ok', errors: [] };
      },
      { window: 1 },
    );
    expect(statuses).toEqual(['u-0:skipped', 'u-1:skipped', 'u-2:skipped']);
    expect(entries[0]!.item.errors[0]!.message).toBe('403 not allowed');
    // The rest say why they were not sent, in runs show's words (notSentReason).
    expect(entries[1]!.item.errors.map((e) => e.message)).toEqual(['not sent: the run stopped before it']);
    const stop = dispatcher.stopReason;
    expect(stop?.kind === 'target-failed' ? stop.error.message : undefined).toBe('403 not allowed');
  });

  it('without an API (validate only) valid units are ok and nothing is answered', () => {
    const dispatcher = new RecordDispatcher<number, never>(
      { command: 'user sync', send: () => Promise.reject(new Error('never')) },
      { api: null, callOptions: {}, maxErrors: undefined, signal: undefined },
    );
    const entry = dispatcher.dispatch(unit(0));
    expect(entry).not.toBeInstanceOf(Promise);
    expect((entry as ReportEntry).item.status).toBe('ok');
    expect(dispatcher.answered).toBe(0);
  });
});
