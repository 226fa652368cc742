import { createdByLostAttempt, removedByLostAttempt } from '../../src/pipeline/service-answer.js';
import { statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NothingToResumeError } from '../../src/runs/run-errors.js';
import { RunJournal } from '../../src/runs/run-journal.js';
import {
  fingerprintInput,
  openResume,
  planResume,
  settleInFlight,
  type ResumeDecision,
} from '../../src/runs/resume-plan.js';
import { type ItemRef } from '../../src/runs/journal-lines.js';
import { readRun, rebuildReport } from './whole-record.js';
import type { ResentOutcome } from '../../src/runs/resume-plan.js';
import { header, leaveStaleLock, ref, tempRunsDir } from './helpers.js';
import { mulberry32 as random } from '../../src/system/seeded-random.js';

let runsDir: string;
let cleanup: () => void;
beforeEach(() => ({ dir: runsDir, cleanup } = tempRunsDir()));
afterEach(() => cleanup());

async function withInput(
  text: string,
): Promise<{ path: string; fingerprint: Awaited<ReturnType<typeof fingerprintInput>> }> {
  const path = join(runsDir, '..', 'input.csv');
  writeFileSync(path, text);
  return { path, fingerprint: await fingerprintInput(path) };
}

describe('resume planning', () => {
  it('sends the unanswered, in-flight and transient items and keeps rule failures', async () => {
    const journal = await RunJournal.start(runsDir, header());
    await journal.sent([ref(0), ref(1), ref(2), ref(3)]);
    journal.outcome({ ...ref(0), status: 'ok', errors: [], transient: false });
    journal.outcome({
      ...ref(1),
      status: 'failed',
      errors: [{ field: 'Email', code: 209, message: 'bad' }],
      transient: false,
    });
    journal.outcome({
      ...ref(2),
      status: 'failed',
      errors: [{ field: '', code: null, message: '503 after retries' }],
      transient: true,
    });
    await journal.close();
    const plan = planResume(await readRun(runsDir, journal.id), null);
    expect([0, 1, 2, 3, 4].map((n) => plan.decide(ref(n)).action)).toEqual(['keep', 'keep', 'send', 'send', 'send']);
    expect(plan.decide(ref(2))).toEqual({ action: 'send', maybeApplied: true });
    expect(plan.decide(ref(3))).toEqual({ action: 'send', maybeApplied: true });
    expect(plan.decide(ref(4))).toEqual({ action: 'send', maybeApplied: false });
    expect(plan.keptBelow(5)).toBe(2);
    expect(plan.keptBelow(1)).toBe(1);
  });

  it('refuses a finished run, one held by another process, and a changed or missing input file (exit 2, with the reason)', async () => {
    const input = await withInput('ExternalId\nu-0\n');
    const journal = await RunJournal.start(runsDir, header({ input: input.fingerprint }));
    await journal.close();
    const record = await readRun(runsDir, journal.id);
    expect(() => planResume(record, 'missing')).toThrow(
      `run ${journal.id}: its input file ${input.path} cannot be read any more`,
    );
    expect(() => planResume(record, { ...input.fingerprint, sha256: '0'.repeat(64) })).toThrow(
      /its content changed \(SHA-256 differs\); put the original back/,
    );
    expect(planResume(record, input.fingerprint).decide(ref(0))).toEqual({ action: 'send', maybeApplied: false });

    writeFileSync(input.path, 'ExternalId\nu-9\n');
    await expect(openResume(runsDir, journal.id)).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(
        /changed since the run started: its content changed \(SHA-256 differs\)/,
      ) as unknown,
    });
    writeFileSync(input.path, 'ExternalId\nu-0\nu-1\n');
    await expect(openResume(runsDir, journal.id)).rejects.toThrow(
      /its size changed \(15 -> 19 bytes\); put the original back and resume, or run the command again on the file as it is now \(a job that can run twice loses nothing/,
    );

    writeFileSync(input.path, 'ExternalId\nu-0\n');
    const opened = await openResume(runsDir, journal.id);
    await expect(openResume(runsDir, journal.id)).rejects.toThrow(/is being run by pid/);
    await opened.journal.end('completed', { total: 1, ok: 1, partial: 0, failed: 0, skipped: 0 });
    await opened.record.close();
    await expect(openResume(runsDir, journal.id)).rejects.toThrow(/is finished; nothing to resume/);
    await expect(openResume(runsDir, journal.id)).rejects.toBeInstanceOf(NothingToResumeError);
  });
});

describe('an item in flight when the run died', () => {
  const inFlight: ResumeDecision = { action: 'send', maybeApplied: true };
  const fresh: ResumeDecision = { action: 'send', maybeApplied: false };
  const duplicate = {
    status: 'failed' as const,
    errors: [
      {
        field: 'Schedule.ScheduleExtId',
        code: null,
        message: 'Duplicate ScheduleExtId: S-1 already exists (use Upsert to update it)',
      },
    ],
  };
  const taken = { status: 'failed' as const, errors: [{ field: 'ExternalId', code: 810 as const, message: 'taken' }] };

  it('answered "already exists" on resend, for an id examctl chose for the run: ok, created, with a note', () => {
    const schedule = settleInFlight('R1', inFlight, duplicate, createdByLostAttempt('/schedule'), true);
    expect(schedule).toEqual({
      status: 'ok',
      errors: [],
      action: 'created',
      note: "created by the interrupted attempt of run R1, whose answer was lost (the id examctl chose for it is this run's alone)",
    });
    expect(settleInFlight('R1', inFlight, taken, createdByLostAttempt('/collections'), true)).toMatchObject({
      status: 'ok',
      action: 'created',
    });
  });

  it('answered "already exists" on resend, for an id the file gives: the failure stands, with a note saying what examctl cannot tell', () => {
    // It may have existed before the run, and an item on record as sent may never have gone out (sent ahead).
    for (const [answer, route] of [
      [duplicate, '/schedule'],
      [taken, '/collections'],
    ] as const) {
      const settled = settleInFlight('R1', inFlight, answer, createdByLostAttempt(route));
      expect(settled).toEqual({
        ...answer,
        note: 'the interrupted attempt of run R1 may have created it, or it existed before the run: that request was on record as sent and its answer was lost, so examctl cannot tell which; check it',
      });
    }
  });

  it('a server wording the duplicate its own way (words anywhere, any case) is still "already exists" on resume', () => {
    const worded = {
      status: 'failed' as const,
      errors: [{ field: '', code: null, message: 'Bad request: duplicate ScheduleExtId S-1' }],
    };
    expect(settleInFlight('R1', inFlight, worded, createdByLostAttempt('/schedule'), true).status).toBe('ok');
    expect(settleInFlight('R1', fresh, worded, createdByLostAttempt('/schedule'), true)).toEqual(worded);
  });

  it('a resend the target answers "unchanged" was applied by the interrupted attempt: sent, with a note saying so; one never in flight stays unchanged', () => {
    const unchanged = { status: 'ok' as const, errors: [], action: 'unchanged' as const };
    expect(settleInFlight('R1', inFlight, unchanged, undefined)).toEqual({
      status: 'ok',
      errors: [],
      action: 'sent',
      note: 'the resend changed nothing: the interrupted attempt of run R1 may have applied it (its answer was lost), or it was so before the run',
    });
    expect(settleInFlight('R1', fresh, unchanged, undefined)).toEqual(unchanged);
    // Unchanged for a reason of its own (a collection made by an earlier run): kept as it is.
    const made = { ...unchanged, note: 'exists as examctl sent it (run R0): not created again (--existing ok)' };
    expect(settleInFlight('R1', inFlight, made, undefined)).toEqual(made);
    const created = { status: 'ok' as const, errors: [], action: 'created' as const };
    expect(settleInFlight('R1', inFlight, created, undefined)).toEqual(created);
  });

  it('an item that was not in flight keeps its failure, and other failures stay failures', () => {
    expect(settleInFlight('R1', fresh, duplicate, createdByLostAttempt('/schedule'))).toEqual(duplicate);
    const other = { status: 'failed' as const, errors: [{ field: 'Email', code: 209 as const, message: 'bad' }] };
    expect(settleInFlight('R1', inFlight, other, createdByLostAttempt('/collections'))).toEqual(other);
    expect(settleInFlight('R1', inFlight, duplicate, undefined)).toEqual(duplicate);
    expect(settleInFlight('R1', inFlight, other, removedByLostAttempt)).toEqual(other);
    // No longer an invigilator: removed by the lost attempt, or never one (a typo): the answer stands, noted.
    const gone = {
      status: 'partial' as const,
      errors: [{ field: 'UserExtIds', code: 319 as const, message: 'not an invigilator' }],
    };
    expect(settleInFlight('R1', inFlight, gone, removedByLostAttempt)).toEqual({
      ...gone,
      note: expect.stringMatching(
        /^the interrupted attempt of run R1 may have removed it, or it was never there: .*cannot tell which/,
      ),
    });
  });
});

describe('every input row exactly once across crashes and resumes (property)', () => {
  // Ids the file gives, then ids examctl chose for the run (only those prove who made them).
  it.each(Array.from({ length: 8 }, (_, seed) => [seed + 1, seed % 2 === 1] as const))(
    'seed %i, ids examctl chose: %s',
    async (seed, chosen) => {
      const next = random(seed);
      const units: ItemRef[] = Array.from({ length: 40 }, (_, n) => ({
        n,
        source: { file: 'sittings.csv', line: n + 2 },
        id: `S-${n}`,
      }));
      // A schedule push with Upsert false: a second create of one id is refused as a duplicate.
      const created = new Map<string, number>();
      const createSchedule = (id: string) => {
        if (next() < 0.05)
          return {
            status: 'failed' as const,
            errors: [{ field: '', code: null, message: '503 after retries' }],
            transient: true,
          };
        if (created.has(id))
          return {
            status: 'failed' as const,
            errors: [
              { field: 'Schedule.ScheduleExtId', code: null, message: `Duplicate ScheduleExtId: ${id} already exists` },
            ],
            transient: false,
          };
        created.set(id, (created.get(id) ?? 0) + 1);
        return { status: 'ok' as const, errors: [], transient: false };
      };

      /** One attempt; may "die" at a random moment: then the journal is cut at a random point after its last durable write. */
      const attempt = async (journal: RunJournal, decide: (ref: ItemRef) => ResumeDecision): Promise<boolean> => {
        let durable = statSync(journal.file).size;
        for (const unit of units) {
          const decision = decide(unit);
          if (decision.action === 'keep') continue;
          if (next() < 0.04) return die(journal, durable);
          await journal.sent([unit]);
          await journal.flush();
          durable = statSync(journal.file).size;
          if (next() < 0.04) return die(journal, durable);
          const answer = createSchedule(unit.id as string);
          if (next() < 0.04) return die(journal, durable);
          const settled: ResentOutcome & { transient: boolean } = answer.transient
            ? answer
            : {
                ...settleInFlight(journal.id, decision, answer, createdByLostAttempt('/schedule'), chosen),
                transient: false,
              };
          journal.outcome({
            ...unit,
            status: settled.status,
            errors: settled.errors,
            transient: answer.transient,
            ...(settled.note === undefined ? {} : { note: settled.note }),
          });
        }
        await journal.end('completed', { total: units.length, ok: 0, partial: 0, failed: 0, skipped: 0 });
        return true;
      };
      const die = async (journal: RunJournal, durable: number): Promise<false> => {
        // What reached the disk after the last fsync someone waited for is anyone's guess: keep a random part of it.
        await journal.close();
        const size = statSync(journal.file).size;
        truncateSync(journal.file, durable + Math.floor(next() * (size - durable + 1)));
        leaveStaleLock(join(runsDir, journal.id));
        return false;
      };

      const first = await RunJournal.start(runsDir, header({ command: 'schedule push', units: units.length }));
      let finished = await attempt(first, () => ({ action: 'send', maybeApplied: false }));
      for (let rounds = 0; ; rounds++) {
        expect(rounds).toBeLessThan(200);
        if (!finished) {
          // The plan reads the run's index as it decides: closed after the attempt, as runs resume does.
          const { journal, plan, record: index } = await openResume(runsDir, first.id);
          finished = await attempt(journal, (unit) => plan.decide(unit)).finally(() => index.close());
          continue;
        }
        // A finished run is not resumed; transient failures left in it are sent again in the same
        // run here, standing for the retry an admin would do, so the property covers them too.
        const record = await readRun(runsDir, first.id);
        if (![...record.items.values()].some((history) => history.outcome?.transient === true)) break;
        const retry = planResume(record, null);
        const held = await RunJournal.lockForResume(runsDir, first.id);
        finished = await attempt(await held.reopen(record.validLength), (unit) => retry.decide(unit));
      }

      const report = rebuildReport(await readRun(runsDir, first.id), units);
      // The target holds every row exactly once...
      expect([...created.keys()].sort()).toEqual(units.map((unit) => unit.id).sort());
      expect([...created.values()].every((count) => count === 1)).toBe(true);
      // ...and the report covers every row exactly once. With ids examctl chose, none failed because
      // the lost run created it; with the file's, such a row keeps its refusal, saying examctl cannot tell.
      expect(report.items.map((item) => item.source.line)).toEqual(units.map((unit) => unit.source.line));
      const notOk = report.items.filter((item) => item.status !== 'ok');
      if (chosen) expect(notOk, `seed ${seed}`).toEqual([]);
      else
        for (const item of notOk)
          expect(item.note, `seed ${seed}`).toMatch(
            /may have created it, or it existed before the run: .*cannot tell which/,
          );
    },
  );
});
