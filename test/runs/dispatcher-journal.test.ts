import { describe, expect, it } from 'vitest';
import type { IntegrationApi } from '../../src/api/integration-api.js';
import { TransientTargetError } from '../../src/errors.js';
import { RecordDispatcher } from '../../src/cli/pipeline/record-dispatcher.js';
import type { Outcome, Unit } from '../../src/cli/pipeline/record-job.js';
import type { RunJournaling } from '../../src/cli/pipeline/run-journaling.js';

const api = {} as IntegrationApi;
const unit = (n: number, valid = true): Unit<number> => ({
  source: { file: 'in.csv', line: n + 2 },
  id: `u-${n}`,
  prepared: valid ? { ok: true, value: n } : { ok: false, problems: [{ field: 'Email', code: null, message: 'bad' }] },
});

/** A journal that logs what it is told, and lets the test decide when "sent" lines are durable. */
function fakeJournal(log: string[], kept: Map<number, Outcome> = new Map()): { journal: RunJournaling; makeDurable: () => void } {
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
    refused: (n) => void log.push(`refused ${n}`),
    unanswered: (n, _u, error) => void log.push(`unanswered ${n} ${(error as Error).name}`),
    end: async () => undefined,
    close: async () => undefined,
  };
  return { journal, makeDurable: () => durable.splice(0).forEach((resolve) => resolve()) };
}

describe('the dispatcher and the run journal', () => {
  it('sends no request before its unit is on record as sent, and journals every outcome and refusal by position', async () => {
    const log: string[] = [];
    const { journal, makeDurable } = fakeJournal(log);
    const dispatcher = new RecordDispatcher<number, never>(
      {
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

  it("on a resume, a unit whose outcome stands is reported as recorded and never sent, even after a stop", async () => {
    const log: string[] = [];
    const controller = new AbortController();
    controller.abort();
    const { journal } = fakeJournal(log, new Map([[0, { status: 'failed', errors: [{ field: 'Email', code: 209, message: 'bad' }] }]]));
    const dispatcher = new RecordDispatcher<number, never>(
      { send: () => Promise.reject(new Error('must not be sent')) },
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
      { send: () => Promise.reject(new TransientTargetError('127.0.0.1: POST /user failed after 5 attempts in 3s: service unavailable (503)')) },
      { api, callOptions: {}, maxErrors: undefined, signal: undefined, journal },
    );
    const answer = dispatcher.dispatch(unit(0));
    await new Promise((resolve) => setImmediate(resolve));
    makeDurable();
    expect((await answer).item.status).toBe('skipped');
    expect(log).toEqual(['sending 0', 'unanswered 0 TransientTargetError']);
    expect(dispatcher.stopReason?.kind).toBe('target-failed');
  });
});
