import { describe, expect, it } from 'vitest';
import type { IntegrationApi } from '../../src/port/integration-api.js';
import { StoreReplacedError, TransientTargetError } from '../../src/system/errors.js';
import { RecordDispatcher } from '../../src/pipeline/record-dispatcher.js';
import type { Outcome, Unit } from '../../src/pipeline/record-job.js';
import { startJournaling, type RunJournaling } from '../../src/pipeline/run-journaling.js';
import type { ReportSummary } from '../../src/report/run-report.js';
import type { ResolvedTarget } from '../../src/context/resolved-target.js';
import type { CommandDeps } from '../../src/context/command-deps.js';

const api = {} as IntegrationApi;
const unit = (n: number, valid = true): Unit<number> => ({
  source: { file: 'in.csv', line: n + 2 },
  id: `u-${n}`,
  prepared: valid ? { ok: true, value: n } : { ok: false, problems: [{ field: 'Email', code: null, message: 'bad' }] },
});

/** A journal that logs what it is told, and lets the test decide when "sent" lines are durable. */
function fakeJournal(
  log: string[],
  kept: Map<number, Outcome> = new Map(),
): { journal: RunJournaling; makeDurable: () => void } {
  const durable: (() => void)[] = [];
  const journal: RunJournaling = {
    id: 'R1',
    kept: (n, u) => {
      const outcome = kept.get(n);
      return outcome === undefined ? undefined : { item: { source: u.source, id: u.id, ...outcome } };
    },
    sending: (n) => {
      log.push(`sending ${n}`);
      return new Promise<void>((resolve) => durable.push(resolve));
    },
    answered: (n, _u, outcome) => {
      log.push(`answered ${n} ${outcome.status}`);
      return outcome;
    },
    unchanged: (n, since) => void log.push(`unchanged ${n} ${since}`),
    refused: (n) => void log.push(`refused ${n}`),
    unanswered: (n, _u, error) => void log.push(`unanswered ${n} ${(error as Error).name}`),
    end: async () => undefined,
    close: async () => undefined,
    discard: async () => undefined,
  };
  return { journal, makeDurable: () => durable.splice(0).forEach((resolve) => resolve()) };
}

describe('the dispatcher and the run journal', () => {
  it('sends no request before its unit is on record as sent, and journals every outcome and refusal by position', async () => {
    const log: string[] = [];
    const { journal, makeDurable } = fakeJournal(log);
    const dispatcher = new RecordDispatcher<number, never>(
      {
        command: 'user sync',
        send: async (_api, n) => {
          log.push(`request ${n}`);
          return { status: 'ok', errors: [] };
        },
      },
      { api, callOptions: {}, maxErrors: undefined, signal: undefined, journal },
    );
    const answers = [dispatcher.dispatch(unit(0)), dispatcher.dispatch(unit(1, false)), dispatcher.dispatch(unit(2))];
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['sending 0', 'refused 1', 'sending 2']);
    makeDurable();
    await Promise.all(answers);
    expect(log.slice(3).sort()).toEqual(['answered 0 ok', 'answered 2 ok', 'request 0', 'request 2']);
    expect(log.indexOf('request 0')).toBeGreaterThan(log.indexOf('sending 0'));
  });

  it('on a resume, a unit whose outcome stands is reported as recorded and never sent, even after a stop', async () => {
    const log: string[] = [];
    const controller = new AbortController();
    controller.abort();
    const { journal } = fakeJournal(
      log,
      new Map([[0, { status: 'failed', errors: [{ field: 'Email', code: 209, message: 'bad' }] }]]),
    );
    const dispatcher = new RecordDispatcher<number, never>(
      { command: 'user sync', send: () => Promise.reject(new Error('must not be sent')) },
      { api, callOptions: {}, maxErrors: undefined, signal: controller.signal, journal },
    );
    const kept = await dispatcher.dispatch(unit(0));
    const stopped = await dispatcher.dispatch(unit(1));
    expect(kept.item.status).toBe('failed');
    expect(stopped.item.status).toBe('skipped');
    expect(log).toEqual([]);
  });

  it('a send that throws is told to the journal (which records a transient failure) before the run stops', async () => {
    const log: string[] = [];
    const { journal, makeDurable } = fakeJournal(log);
    const dispatcher = new RecordDispatcher<number, never>(
      {
        command: 'user sync',
        send: () =>
          Promise.reject(
            new TransientTargetError('127.0.0.1: POST /user failed after 5 attempts in 3 s: service unavailable (503)'),
          ),
      },
      { api, callOptions: {}, maxErrors: undefined, signal: undefined, journal },
    );
    const answer = dispatcher.dispatch(unit(0));
    await new Promise((resolve) => setImmediate(resolve));
    makeDurable();
    expect((await answer).item.status).toBe('skipped');
    expect(log).toEqual(['sending 0', 'unanswered 0 TransientTargetError']);
    expect(dispatcher.stopReason?.kind).toBe('target-failed');
  });

  it("items in flight when the store is replaced under the run are as never reached (nothing of them landed): the unreached rows' words, in the report and the journal", async () => {
    const log: string[] = [];
    const { journal, makeDurable } = fakeJournal(log);
    const replaced = new StoreReplacedError(
      '/s was replaced (local init --force) under this run: stopped; run the file again',
    );
    const dispatcher = new RecordDispatcher<number, never>(
      { command: 'user sync', send: () => Promise.reject(replaced) },
      { api, callOptions: {}, maxErrors: undefined, signal: undefined, journal },
    );
    const answers = [dispatcher.dispatch(unit(0)), dispatcher.dispatch(unit(1))];
    await new Promise((resolve) => setImmediate(resolve));
    makeDurable();
    const words = 'not sent: the run stopped before it (its store was replaced or is gone: run the file again)';
    const items = [...(await Promise.all(answers)), await dispatcher.dispatch(unit(2))].map((entry) => entry.item);
    expect(items.map((item) => [item.status, item.errors[0]?.message])).toEqual(Array(3).fill(['skipped', words]));
    expect(log).toContain('unanswered 1 StoreReplacedError');
    // The journal withdraws them as never reached (no reason of their own): `runs show` gives them the unreached rows' words too.
    const unsent: { reason?: string }[] = [];
    const run = {
      id: 'R1',
      sent: async () => undefined,
      unsent: (refs: { reason?: string }[]) => void unsent.push(...refs),
      end: async () => undefined,
    };
    const resume = { journal: run, plan: { decide: () => ({ action: 'send' }) }, record: {} };
    const journaling = await startJournaling('user sync', {} as ResolvedTarget, undefined, {}, {
      env: {},
      resume,
    } as unknown as CommandDeps);
    journaling.sending(0, unit(0));
    journaling.unanswered(0, unit(0), replaced);
    await journaling.end('target-error', {} as ReportSummary);
    expect(unsent).toEqual([{ n: 0, source: unit(0).source, id: 'u-0' }]);
  });
});

describe('units put on record as sent ahead of their dispatch', () => {
  const AHEAD = 64;
  /** A dispatcher that records ahead and logs the positions whose requests went out. */
  const aheadDispatcher = (journal: RunJournaling, signal?: AbortSignal) => {
    const requests: number[] = [];
    const dispatcher = new RecordDispatcher<number, never>(
      {
        command: 'user sync',
        send: async (_api, n) => {
          requests.push(n);
          return { status: 'ok', errors: [] };
        },
      },
      { api, callOptions: {}, maxErrors: undefined, signal, journal, recordAhead: AHEAD },
    );
    return { dispatcher, requests };
  };

  it('records at most `recordAhead` positions ahead, at least half of them per group, never a unit that is not sent', async () => {
    const log: string[] = [];
    const { journal, makeDurable } = fakeJournal(log, new Map([[5, { status: 'ok', errors: [] }]]));
    const { dispatcher, requests } = aheadDispatcher(journal);
    const units = Array.from({ length: 200 }, (_, n) => unit(n, n !== 7));
    dispatcher.expect(units.slice(0, 150));
    const recorded = (): number[] =>
      log.filter((line) => line.startsWith('sending ')).map((line) => Number(line.slice(8)));
    const answers: Promise<unknown>[] = [];
    let groups = 0;
    let before = 0;
    for (let n = 0; n < 150; n++) {
      const answer = dispatcher.dispatch(units[n]!);
      if (answer instanceof Promise) answers.push(answer);
      const now = recorded();
      if (now.length > before) groups += 1;
      before = now.length;
      // Never further ahead than the bound, and never beyond what was announced.
      expect(Math.max(...now)).toBeLessThan(Math.min(n + AHEAD, 150));
      expect(Math.max(...now)).toBeGreaterThanOrEqual(n);
    }
    // The kept unit (5) and the refused one (7) are never on record as sent.
    expect(recorded()).not.toContain(5);
    expect(recorded()).not.toContain(7);
    expect(recorded()).toHaveLength(148);
    // 150 positions at 64 ahead, topped up at half: a handful of groups, not one per unit.
    expect(groups).toBeLessThanOrEqual(Math.ceil(150 / (AHEAD / 2)) + 1);
    // Nothing goes out before its group is durable.
    await new Promise((resolve) => setImmediate(resolve));
    expect(requests).toEqual([]);
    makeDurable();
    await Promise.all(answers);
    expect(requests).toHaveLength(148);
    // The next batch is recorded once announced, from where the last one ended.
    dispatcher.expect(units.slice(150));
    const next = dispatcher.dispatch(units[150]!);
    expect(recorded().slice(148)).toEqual(Array.from({ length: 50 }, (_, k) => 150 + k));
    makeDurable();
    await next;
  });

  it('a unit whose sent line is durable already goes out in its own dispatch, with nothing to wait for', async () => {
    const log: string[] = [];
    const { journal, makeDurable } = fakeJournal(log);
    const { dispatcher, requests } = aheadDispatcher(journal);
    const units = Array.from({ length: 10 }, (_, n) => unit(n));
    dispatcher.expect(units);
    const first = dispatcher.dispatch(units[0]!);
    expect(requests).toEqual([]);
    makeDurable();
    await first;
    expect(requests).toEqual([0]);
    await new Promise((resolve) => setImmediate(resolve));
    // Its line was written with the first unit's: the request starts in the dispatch call itself.
    const second = dispatcher.dispatch(units[1]!);
    expect(requests).toEqual([0, 1]);
    expect((await second).item.status).toBe('ok');
    expect(log.filter((line) => line.startsWith('sending '))).toHaveLength(10);
  });

  it('a piece announced while requests are in flight is put on record at once, not at its first dispatch', async () => {
    const log: string[] = [];
    const { journal, makeDurable } = fakeJournal(log);
    const { dispatcher, requests } = aheadDispatcher(journal);
    const units = Array.from({ length: 96 }, (_, n) => unit(n));
    const recorded = (): number => log.filter((line) => line.startsWith('sending ')).length;
    // The first piece (a window of 16) is on record as it is announced.
    dispatcher.expect(units.slice(0, 16));
    expect(recorded()).toBe(16);
    const answers = units.slice(0, 16).map((u) => dispatcher.dispatch(u));
    makeDurable();
    await Promise.all(answers);
    expect(requests).toHaveLength(16);
    // The next piece, read ahead between answers: its sent lines start now, so the dispatch of
    // unit 16 (when an answer frees a slot) finds them durable and waits for no fsync.
    dispatcher.expect(units.slice(16));
    expect(recorded()).toBe(16 + AHEAD);
    makeDurable();
    await new Promise((resolve) => setImmediate(resolve));
    const next = dispatcher.dispatch(units[16]!);
    expect(requests).toHaveLength(17);
    await next;
  });

  it('a stop leaves units on record ahead unsent (skipped), and records nothing further', async () => {
    const log: string[] = [];
    const { journal, makeDurable } = fakeJournal(log);
    const controller = new AbortController();
    const { dispatcher, requests } = aheadDispatcher(journal, controller.signal);
    const units = Array.from({ length: 200 }, (_, n) => unit(n));
    dispatcher.expect(units);
    const first = dispatcher.dispatch(units[0]!);
    controller.abort();
    const later = [1, 2, 3].map((n) => dispatcher.dispatch(units[n]!));
    makeDurable();
    const entries = await Promise.all([first, ...later]);
    expect(entries.map((entry) => entry.item.status)).toEqual(['skipped', 'skipped', 'skipped', 'skipped']);
    expect(requests).toEqual([]);
    const recordedCount = log.filter((line) => line.startsWith('sending ')).length;
    expect(recordedCount).toBe(AHEAD);
    for (let n = 4; n < 200; n++) await dispatcher.dispatch(units[n]!);
    expect(log.filter((line) => line.startsWith('sending ')).length).toBe(recordedCount);
  });
});
