import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunJournal } from '../../src/runs/run-journal.js';
import { planResume } from '../../src/runs/resume-plan.js';
import { scanRun, summarize, unjournaledCount } from '../../src/runs/read-run.js';
import { type ItemRef } from '../../src/runs/journal-lines.js';
import { readRun, rebuildReport } from './whole-record.js';
import type { OutcomeLine } from '../../src/runs/journal-lines.js';
import type { ReportItem } from '../../src/report/run-report.js';
import { mulberry32 } from '../../src/system/seeded-random.js';
import { header, tempRunsDir } from './helpers.js';

/**
 * `runs show` streams the journal (scanRun: a byte of state and a line offset per item, the line
 * read back when shown); whole-record.ts reads it whole (readRun). Both must say the same of every
 * item, whatever the attempts wrote: sent ahead, unsent, transient, in flight, answered again.
 */

let runsDir: string;
let cleanup: () => void;
beforeEach(() => ({ dir: runsDir, cleanup } = tempRunsDir()));
afterEach(() => cleanup());

const ITEMS = 80;
const refOf = (n: number): ItemRef => ({ n, source: { file: 'users.csv', line: n + 2 }, id: `u-${n}` });

/**
 * One attempt: some items sent (in a shuffled order, in batches), most answered, some withdrawn.
 * Items judged unchanged by an earlier attempt (`settled`) are kept, as a resume keeps them.
 */
async function attempt(
  journal: RunJournal,
  next: () => number,
  bigMessage: string,
  settled: Set<number>,
): Promise<void> {
  const chosen = Array.from({ length: ITEMS }, (_, n) => n).filter((n) => next() < 0.6 && !settled.has(n));
  for (let i = chosen.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [chosen[i], chosen[j]] = [chosen[j] as number, chosen[i] as number];
  }
  const unanswered: ItemRef[] = [];
  for (let i = 0; i < chosen.length; i += 7) {
    const batch = chosen.slice(i, i + 7).map(refOf);
    await journal.sent(batch);
    for (const ref of batch) {
      const roll = next();
      if (roll < 0.15) {
        unanswered.push(ref);
        continue;
      }
      const status = roll < 0.55 ? 'ok' : roll < 0.7 ? 'partial' : 'failed';
      // Some answers are long (a line spanning several read blocks), some transient.
      const message = next() < 0.1 ? bigMessage : `answer ${roll.toFixed(3)}`;
      const line: Omit<OutcomeLine, 't'> = {
        ...ref,
        status,
        errors: status === 'ok' ? [] : [{ field: 'Role', code: 214, message }],
        transient: roll > 0.9,
      };
      journal.outcome(status === 'ok' ? { ...line, action: 'updated', note: 'n', removed: ['H-A'] } : line);
    }
  }
  // Half of the unanswered ones never went out (withdrawn); the others stay in flight.
  journal.unsent(unanswered.filter(() => next() < 0.5).sort((a, b) => a.n - b.n));
  // --changed-only: some units this attempt did not pick are judged unchanged (compact lines that
  // take a position over from its earlier lines).
  const picked = new Set(chosen);
  for (let n = 0; n < ITEMS; n++) {
    if (picked.has(n) || settled.has(n) || next() >= 0.25) continue;
    journal.unchanged(n, next() < 0.5 ? 'run-A' : 'run-B');
    settled.add(n);
  }
}

async function showAll(
  runsDir: string,
  id: string,
): Promise<{ items: ReportItem[]; run: Awaited<ReturnType<typeof scanRun>> }> {
  const run = await scanRun(runsDir, id);
  const items: ReportItem[] = [];
  try {
    for await (const item of run.items()) items.push(item);
    return { items, run };
  } finally {
    await run.close();
  }
}

describe('scanRun (runs show, runs resume) against readRun (the whole journal)', () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`seed ${seed}: three attempts, the same report items in input order, the same counts`, async () => {
      const next = mulberry32(seed);
      // Over a megabyte of long answers: the read-back cache drops and reuses blocks.
      const bigMessage = `no such role ${'x'.repeat(150_000 + seed * 1000)}`;
      const journal = await RunJournal.start(runsDir, header({ units: ITEMS + 5 }));
      const settled = new Set<number>();
      await attempt(journal, next, bigMessage, settled);
      await journal.close();
      for (let resume = 0; resume < 2; resume++) {
        const held = await RunJournal.lockForResume(runsDir, journal.id);
        const again = await held.reopen((await readRun(runsDir, journal.id)).validLength);
        await attempt(again, next, bigMessage, settled);
        if (resume === 1 && seed % 2 === 0)
          await again.end('completed', { total: 0, ok: 0, partial: 0, failed: 0, skipped: 0 });
        else await again.close();
      }
      const record = await readRun(runsDir, journal.id);
      const { items, run } = await showAll(runsDir, journal.id);
      expect(items).toEqual(rebuildReport(record).items);
      expect(items.some((item) => item.errors.some((error) => error.message === bigMessage))).toBe(true);
      expect(summarize(run)).toEqual(summarize(record));
      expect(unjournaledCount(run)).toBe(unjournaledCount(record));
      expect(run.journaled).toBe(record.items.size);
      expect(run.end).toEqual(record.end);
      expect(run.validLength).toBe(record.validLength);

      // runs resume plans from the streamed index: the same decision for every unit, the same counts.
      const index = await scanRun(runsDir, journal.id);
      try {
        const fromIndex = planResume(index, null);
        const fromRecord = planResume(record, null);
        const decisions = Array.from({ length: ITEMS + 5 }, (_, n) => fromIndex.decide(refOf(n)));
        expect(decisions).toEqual(Array.from({ length: ITEMS + 5 }, (_, n) => fromRecord.decide(refOf(n))));
        for (const total of [0, 1, ITEMS / 2, ITEMS, ITEMS + 5])
          expect(fromIndex.keptBelow(total)).toBe(fromRecord.keptBelow(total));
        // The confirmation's "K settled, kept" is the units the resume keeps, unchanged ones once.
        expect(fromIndex.keptBelow(ITEMS + 5)).toBe(decisions.filter((decision) => decision.action === 'keep').length);
        // Every kind of decision is in these journals: kept, resent as possibly applied, resent fresh.
        expect(
          decisions.some(
            (decision) =>
              decision.action === 'keep' && decision.item.errors.some((error) => error.message === bigMessage),
          ),
        ).toBe(true);
        expect(decisions.some((decision) => decision.action === 'send' && decision.maybeApplied)).toBe(true);
        expect(decisions.some((decision) => decision.action === 'send' && !decision.maybeApplied)).toBe(true);
        const histories = Array.from({ length: ITEMS + 5 }, (_, n) => index.historyAt(n));
        expect(histories.some((history) => history?.outcome?.transient === true && !history.inFlight)).toBe(true);
        expect(histories.some((history) => history?.inFlight === true)).toBe(true);
        expect(decisions.some((decision) => decision.action === 'keep' && decision.item.action === 'unchanged')).toBe(
          true,
        );
      } finally {
        await index.close();
      }
    });
  }

  it('reads a header line longer than its read buffer, and items numbered far apart', async () => {
    const journal = await RunJournal.start(
      runsDir,
      header({ options: { file: 'users.csv', map: 'm'.repeat(3_000_000) } }),
    );
    const far = [0, 5, 70_000, 1_000_000];
    await journal.sent(far.map(refOf));
    for (const n of far.slice(0, 3)) journal.outcome({ ...refOf(n), status: 'ok', errors: [], transient: false });
    await journal.close();
    const { items, run } = await showAll(runsDir, journal.id);
    expect(run.header.options.map).toHaveLength(3_000_000);
    expect(items.map((item) => [item.id, item.status])).toEqual([
      ['u-0', 'ok'],
      ['u-5', 'ok'],
      ['u-70000', 'ok'],
      ['u-1000000', 'skipped'],
    ]);
    expect(items).toEqual(rebuildReport(await readRun(runsDir, journal.id)).items);
    expect(run.countFrom(6)).toBe(2);
    expect(run.historyAt(1)).toBeUndefined();
  });
});
