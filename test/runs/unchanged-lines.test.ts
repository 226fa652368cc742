import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunJournal } from '../../src/runs/run-journal.js';
import { planResume } from '../../src/runs/resume-plan.js';
import { summarize, unjournaledCount } from '../../src/runs/read-run.js';
import { readRun, rebuildReport } from './whole-record.js';
import { UnchangedPositions } from '../../src/runs/read-run.js';
import { encodeChecksummedLine } from '../../src/system/checksummed-line.js';
import { checkedLineBodies } from '../support/checked-lines.js';
import { header, ref, tempRunsDir } from './helpers.js';

/**
 * The `unchanged` journal line (docs/runs.md, "The journal"): a --changed-only run's unchanged
 * units as runs of positions with the run they matched; read back as items that are ok,
 * `unchanged`, with their note; kept by a resume; an older journal's outcome line per unchanged
 * unit still read the same.
 */

let runsDir: string;
let cleanup: () => void;
beforeEach(() => ({ dir: runsDir, cleanup } = tempRunsDir()));
afterEach(() => cleanup());

const note = (run: string) => `unchanged since run ${run}: not sent (--changed-only)`;

describe('UnchangedPositions', () => {
  it('joins runs, finds a position, counts below a total; a line covering a position in a run already is refused', () => {
    const positions = new UnchangedPositions();
    expect(positions.addLine({ t: 'unchanged', r: [0, 3, 0, 3, 2, 1, 7, 4, 0], since: ['A', 'B'] })).toBe(true);
    expect(positions.count).toBe(9);
    expect([0, 2, 3, 4, 5, 6, 7, 10, 11].map((n) => positions.since(n) ?? '-')).toEqual([
      'A',
      'A',
      'B',
      'B',
      '-',
      '-',
      'A',
      'A',
      '-',
    ]);
    expect(positions.countBelow(9)).toBe(7);
    expect(positions.addLine({ t: 'unchanged', r: [5, 2, 0], since: ['C'] })).toBe(true);
    expect([4, 5, 6, 7].map((n) => positions.since(n) ?? '-')).toEqual(['B', 'C', 'C', 'A']);
    expect(positions.addLine({ t: 'unchanged', r: [10, 3, 0], since: ['C'] })).toBe(false);
    expect(Array.from({ length: 12 }, (_, n) => positions.since(n) ?? '-')).toEqual([
      'A',
      'A',
      'A',
      'B',
      'B',
      'C',
      'C',
      'A',
      'A',
      'A',
      'A',
      '-',
    ]);
    expect(positions.count).toBe(11);
    // A resume sent position 8 again: taken out of its run, the rest of the run kept.
    expect(positions.release(8)).toBe(true);
    expect(positions.release(11)).toBe(false);
    expect([7, 8, 9].map((n) => positions.since(n) ?? '-')).toEqual(['A', '-', 'A']);
    expect(positions.count).toBe(10);
  });

  it('a journal line for a position an unchanged line settled, or a second unchanged line over it, is refused as damage (before any resume)', async () => {
    const journal = await RunJournal.start(runsDir, header({ units: 2 }));
    journal.unchanged(0, 'OLD');
    await journal.flush();
    await journal.close();
    const lines = readFileSync(journal.file, 'utf8');
    writeFileSync(
      journal.file,
      `${lines}${encodeChecksummedLine(JSON.stringify({ t: 'outcome', ...ref(0), status: 'ok', errors: [], transient: false }))}`,
    );
    await expect(readRun(runsDir, journal.id)).rejects.toThrow(
      /:3: run journal damaged: a line for item 0, settled unchanged before/,
    );
    writeFileSync(
      journal.file,
      `${lines}${encodeChecksummedLine(JSON.stringify({ t: 'unchanged', r: [0, 1, 0], since: ['NEW'] }))}`,
    );
    await expect(readRun(runsDir, journal.id)).rejects.toThrow(
      /:3: run journal damaged: unchanged positions an earlier line settled/,
    );
    // After a resume line: the resume sent it again (the store lost what it matched), and its outcome decides.
    writeFileSync(
      journal.file,
      `${lines}${encodeChecksummedLine(JSON.stringify({ t: 'resume', at: '2026-11-29T06:00:00.000Z', pid: 1, host: 'h' }))}${encodeChecksummedLine(JSON.stringify({ t: 'outcome', ...ref(0), status: 'failed', errors: [], transient: false }))}`,
    );
    const run = await readRun(runsDir, journal.id);
    expect(run.unchanged.count).toBe(0);
    expect([...run.statuses()]).toEqual(['failed']);
  });
});

describe('a journal with unchanged units', () => {
  it('one line per group commit, not per unit; read back ok/unchanged with the note, counted, kept by a resume', async () => {
    const journal = await RunJournal.start(runsDir, header({ units: 6 }));
    journal.unchanged(0, 'RUN-A');
    journal.unchanged(1, 'RUN-A');
    await journal.sent([ref(2)]);
    journal.outcome({ ...ref(2), status: 'ok', errors: [], transient: false });
    journal.unchanged(3, 'RUN-A');
    journal.unchanged(4, 'RUN-B');
    await journal.close();
    const text = readFileSync(journal.file, 'utf8');
    // One line per group commit: the sent line's write carried the first two, the close the rest.
    expect(text.match(/"t":"unchanged"/g)).toHaveLength(2);
    expect(text).not.toMatch(/"action":"unchanged"/);

    const record = await readRun(runsDir, journal.id);
    expect(record.unchanged.count).toBe(4);
    expect(summarize(record)).toEqual({ total: 6, ok: 5, partial: 0, failed: 0, skipped: 1 });
    expect(unjournaledCount(record)).toBe(1);
    const report = rebuildReport(record, [0, 1, 2, 3, 4, 5].map(ref));
    expect(report.items.map((item) => [item.id, item.status, item.action ?? '', item.note ?? ''])).toEqual([
      ['u-0', 'ok', 'unchanged', note('RUN-A')],
      ['u-1', 'ok', 'unchanged', note('RUN-A')],
      ['u-2', 'ok', '', ''],
      ['u-3', 'ok', 'unchanged', note('RUN-A')],
      ['u-4', 'ok', 'unchanged', note('RUN-B')],
      ['u-5', 'skipped', '', ''],
    ]);
    // Without the input: counted, not listed.
    expect(rebuildReport(record).summary).toEqual({ total: 6, ok: 5, partial: 0, failed: 0, skipped: 1 });

    const plan = planResume(record, null);
    expect(plan.keptBelow(Infinity)).toBe(5);
    const kept = plan.decide(ref(4));
    expect(kept).toMatchObject({
      action: 'keep',
      item: { status: 'ok', action: 'unchanged', note: note('RUN-B'), id: 'u-4' },
    });
    expect(plan.decide(ref(5))).toEqual({ action: 'send', maybeApplied: false });
  });

  it('a unit in flight when an attempt died, judged against its own acknowledgement by the next attempt, is sent by this run (the later line wins)', async () => {
    const journal = await RunJournal.start(runsDir, header({ units: 2 }));
    await journal.sent([ref(0), ref(1)]);
    await journal.close();
    const { openResume } = await import('../../src/runs/resume-plan.js');
    const resumed = await openResume(runsDir, journal.id);
    resumed.journal.unchanged(0, resumed.record.id);
    resumed.journal.outcome({ ...ref(1), status: 'ok', errors: [], transient: false });
    await resumed.journal.end('completed', { total: 2, ok: 2, partial: 0, failed: 0, skipped: 0 });
    // Closed after the journal, as runs resume does: else its handle is closed by the collector, with a warning.
    await resumed.record.close();
    const record = await readRun(runsDir, journal.id);
    expect(record.items.has(0)).toBe(false);
    expect(record.unchanged.since(0)).toBe(journal.id);
    expect(summarize(record)).toEqual({ total: 2, ok: 2, partial: 0, failed: 0, skipped: 0 });
    // Judged against its own run's entry: what the interrupted attempt did, sent, never "unchanged since" itself.
    expect(rebuildReport(record, [ref(0)]).items[0]).toMatchObject({
      status: 'ok',
      action: 'sent',
      note: expect.stringMatching(/^acknowledged to the interrupted attempt of this run/),
    });
    // The end line stays the journal's last.
    const lines = readFileSync(journal.file, 'utf8').trim().split('\n');
    expect(lines.at(-1)).toMatch(/"t":"end"/);
  });

  it('an older journal (an outcome line per unchanged unit) is read as before', async () => {
    const journal = await RunJournal.start(runsDir, header({ units: 2 }));
    journal.outcome({ ...ref(0), status: 'ok', errors: [], action: 'unchanged', note: note('OLD'), transient: false });
    await journal.close();
    const record = await readRun(runsDir, journal.id);
    expect(record.unchanged.count).toBe(0);
    expect(summarize(record)).toEqual({ total: 2, ok: 1, partial: 0, failed: 0, skipped: 1 });
    const plan = planResume(record, null);
    expect(plan.decide(ref(0))).toMatchObject({ action: 'keep', item: { action: 'unchanged', note: note('OLD') } });
  });
});

describe('the journal format a run says it is written in', () => {
  const headerBody = (file: string): Record<string, unknown> => checkedLineBodies(readFileSync(file, 'utf8'))[0]!;

  it('a --changed-only run (which may write unchanged lines) is format 2, any other run format 1', async () => {
    const night = await RunJournal.start(runsDir, header({ options: { file: 'users.csv', changedOnly: true } }));
    await night.close();
    const plain = await RunJournal.start(runsDir, header());
    await plain.close();
    expect(headerBody(night.file).v).toBe(2);
    expect(headerBody(plain.file).v).toBe(1);
    // Both are read by this examctl.
    await expect(readRun(runsDir, night.id)).resolves.toBeDefined();
    await expect(readRun(runsDir, plain.id)).resolves.toBeDefined();
  });

  it('a served run keeps its start head in its header (format 1); the head line of a format 3 journal reads as it', async () => {
    const served = await RunJournal.start(runsDir, { ...header(), storeHead: 'AAAAAAAAAAAAAAAAAAAAAA' });
    await served.close();
    expect(headerBody(served.file)).toMatchObject({ v: 1, storeHead: 'AAAAAAAAAAAAAAAAAAAAAA' });
    expect((await readRun(runsDir, served.id)).header.storeHead).toBe('AAAAAAAAAAAAAAAAAAAAAA');
    // A journal that may hold a head line (format 3): the head it holds is the run's start head.
    const older = await RunJournal.start(runsDir, header());
    await older.close();
    const lines = readFileSync(older.file, 'utf8').split('\n');
    writeFileSync(
      older.file,
      [
        encodeChecksummedLine(JSON.stringify({ ...headerBody(older.file), v: 3 })).replace(/\n$/, ''),
        ...lines.slice(1, -1),
        encodeChecksummedLine(JSON.stringify({ t: 'head', head: 'BBBBBBBBBBBBBBBBBBBBBB' })).replace(/\n$/, ''),
        '',
      ].join('\n'),
    );
    expect((await readRun(runsDir, older.id)).header.storeHead).toBe('BBBBBBBBBBBBBBBBBBBBBB');
  });

  it('a newer format is refused as written by a newer examctl, not read', async () => {
    const journal = await RunJournal.start(runsDir, header({ options: { file: 'users.csv', changedOnly: true } }));
    await journal.close();
    const rest = readFileSync(journal.file, 'utf8').split('\n').slice(1);
    const body = headerBody(journal.file);
    writeFileSync(
      journal.file,
      [encodeChecksummedLine(JSON.stringify({ ...body, v: 4 })).replace(/\n$/, ''), ...rest].join('\n'),
    );
    await expect(readRun(runsDir, journal.id)).rejects.toThrow(
      /written by a newer examctl \(journal format 4; this one reads 3\): show or resume the run with that examctl$/,
    );
    // Not called damaged, nor advised aside: the newer examctl resumes it.
    await expect(readRun(runsDir, journal.id)).rejects.not.toThrow(/damaged|aside/);
  });
});
