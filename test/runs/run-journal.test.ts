import { COMMANDS } from '../../src/cli/program.js';
import { keptOptionNames } from '../../src/cli/command-declaration.js';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isRunId } from '../../src/domain/record-id.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunJournal, journalPath } from '../../src/runs/run-journal.js';
import { RunJournalError, RunJournalWriteError } from '../../src/runs/run-errors.js';
import { listRuns, pruneRuns, resolveRunId, runState, summarize } from '../../src/runs/read-run.js';
import { newRunId } from '../../src/runs/run-id.js';
import { planResume } from '../../src/runs/resume-plan.js';
import { recordedOptions } from '../../src/runs/recorded-options.js';
import { resolveRunsDir } from '../../src/runs/runs-dir.js';
import { readRun, rebuildReport } from './whole-record.js';
import { header, leaveStaleLock, ref, tempRunsDir } from './helpers.js';
import { BUILD_ID } from '../../src/version.js';
import { PRUNE_MAX_AGE_DAYS } from '../../src/defaults.js';
import type { RunHeaderLine } from '../../src/runs/journal-lines.js';
import { decodeChecksummedLine, encodeChecksummedLine } from '../../src/system/checksummed-line.js';

let runsDir: string;
let cleanup: () => void;
beforeEach(() => ({ dir: runsDir, cleanup } = tempRunsDir()));
afterEach(() => cleanup());

describe('run ids and the runs directory', () => {
  it('ids sort by start time as plain strings and are recognised', () => {
    const a = newRunId(new Date('2026-11-22T11:05:02.481Z'), () => 'ffff');
    const b = newRunId(new Date('2026-11-22T11:05:02.482Z'), () => '0000');
    expect(a).toBe('20261122T110502.481Z-ffff');
    expect([b, a].sort()).toEqual([a, b]);
    expect(isRunId(a)).toBe(true);
    expect(isRunId('../etc')).toBe(false);
  });

  it('flag, then EXAMCTL_RUNS_DIR, then the XDG state directory', () => {
    expect(resolveRunsDir('/x', { EXAMCTL_RUNS_DIR: '/y' }, 'linux', '/home/a')).toBe('/x');
    expect(resolveRunsDir(undefined, { EXAMCTL_RUNS_DIR: '/y' }, 'linux', '/home/a')).toBe('/y');
    expect(resolveRunsDir(undefined, { XDG_STATE_HOME: '/state' }, 'linux', '/home/a')).toBe('/state/examctl/runs');
    expect(resolveRunsDir(undefined, { XDG_STATE_HOME: 'relative' }, 'linux', '/home/a')).toBe(
      '/home/a/.local/state/examctl/runs',
    );
    expect(resolveRunsDir(undefined, {}, 'linux', '/home/a')).toBe('/home/a/.local/state/examctl/runs');
  });
});

describe('recorded options', () => {
  it('keeps only the named options with plain values: never a token or a password, whatever they are called', () => {
    const names = keptOptionNames(
      COMMANDS.find((declaration) => declaration.path.join(' ') === 'collection add')!,
    ).names;
    const kept = recordedOptions(
      {
        file: 'u.csv',
        concurrency: 8,
        upsert: true,
        taxonomy: ['TX-1'],
        tokenFile: '/home/a/.token',
        token: 'SECRET-1',
        eapiToken: 'SECRET-2',
        password: 'SECRET-3',
        debug: true,
        baseUrl: 'https://user:SECRET-4@api.example.test/base?token=SECRET-5#SECRET-6',
        report: { nested: 'SECRET-7' },
      },
      [...names, 'upsert'],
    );
    expect(kept).toEqual({
      file: 'u.csv',
      concurrency: 8,
      upsert: true,
      taxonomy: ['TX-1'],
      tokenFile: '/home/a/.token',
      baseUrl: 'https://api.example.test/base',
    });
    expect(JSON.stringify(kept)).not.toMatch(/SECRET/);
  });
});

describe('writing and reading a journal', () => {
  it('a finished run: header, sent, outcomes, end; files 0600 in a 0700 directory', async () => {
    const journal = await RunJournal.start(runsDir, header({ units: 3 }));
    await journal.sent([ref(0), ref(1)]);
    journal.outcome({ ...ref(0), status: 'ok', errors: [], transient: false });
    journal.outcome({
      ...ref(1),
      status: 'failed',
      errors: [{ field: 'Email', code: 209, message: 'bad' }],
      transient: false,
    });
    await journal.end('completed', { total: 3, ok: 1, partial: 0, failed: 1, skipped: 1 });

    expect(statSync(journal.file).mode & 0o777).toBe(0o600);
    expect(statSync(join(runsDir, journal.id)).mode & 0o777).toBe(0o700);
    const record = await readRun(runsDir, journal.id);
    expect(await runState(runsDir, record)).toBe('finished');
    const report = rebuildReport(record, [ref(0), ref(1), ref(2)]);
    expect(report.run).toBe(journal.id);
    expect(report.items.map((item) => item.status)).toEqual(['ok', 'failed', 'skipped']);
    expect(report.items[2]?.errors[0]?.code).toBe(9025);
    expect(report.summary).toEqual({ total: 3, ok: 1, partial: 0, failed: 1, skipped: 1 });
  });

  it("the header names the examctl build that ran it, a resume line the one that resumed; an older examctl's header without one reads as before", async () => {
    const journal = await RunJournal.start(runsDir, header({ units: 1 }));
    await journal.end('completed', { total: 1, ok: 0, partial: 0, failed: 0, skipped: 1 });
    expect((await readRun(runsDir, journal.id)).header.build).toBe(BUILD_ID);
    expect(BUILD_ID).toMatch(/^(dev|[0-9a-f]{12})$/);
    const file = journalPath(runsDir, journal.id);
    const [first, ...rest] = readFileSync(file, 'utf8').split('\n');
    const { build, ...older } = (decodeChecksummedLine(Buffer.from(first!)) as { body: RunHeaderLine }).body;
    expect(build).toBe(BUILD_ID);
    writeFileSync(file, [encodeChecksummedLine(JSON.stringify(older)).trimEnd(), ...rest].join('\n'));
    const record = await readRun(runsDir, journal.id);
    expect(record.header.build).toBeUndefined();
    expect(await runState(runsDir, record)).toBe('finished');
    expect(rebuildReport(record, [ref(0)]).summary.skipped).toBe(1);
    // A resume records the build that resumed (another build may take a run over).
    await (await (await RunJournal.lockForResume(runsDir, journal.id)).reopen(statSync(file).size)).close();
    const last = readFileSync(file, 'utf8').trimEnd().split('\n').at(-1)!;
    expect((decodeChecksummedLine(Buffer.from(last)) as { body: object }).body).toMatchObject({
      t: 'resume',
      build: BUILD_ID,
    });
  });

  it('a run whose header has no count (a schedule push) takes its total from the end line of an interrupted attempt', async () => {
    const journal = await RunJournal.start(runsDir, header({ command: 'schedule push' }));
    await journal.sent([ref(0), ref(1)]);
    journal.outcome({ ...ref(0), status: 'ok', errors: [], transient: false });
    journal.outcome({ ...ref(1), status: 'ok', errors: [], transient: false });
    await journal.end('interrupted', { total: 40, ok: 2, partial: 0, failed: 0, skipped: 38 });
    expect(summarize(await readRun(runsDir, journal.id))).toEqual({
      total: 40,
      ok: 2,
      partial: 0,
      failed: 0,
      skipped: 38,
    });
    // Killed before any end line: only what the journal holds.
    const killed = await RunJournal.start(runsDir, header({ command: 'schedule push' }));
    await killed.sent([ref(0)]);
    await killed.close();
    expect(summarize(await readRun(runsDir, killed.id))).toEqual({
      total: 1,
      ok: 0,
      partial: 0,
      failed: 0,
      skipped: 1,
    });
  });

  it('an unfinished run: an item sent but not answered is skipped with "no answer recorded"; the header total counts the rest', async () => {
    const journal = await RunJournal.start(runsDir, header({ units: 5 }));
    await journal.sent([ref(0), ref(1)]);
    journal.outcome({ ...ref(0), status: 'ok', errors: [], transient: false });
    await journal.flush();
    await journal.close();
    const record = await readRun(runsDir, journal.id);
    expect(await runState(runsDir, record)).toBe('interrupted');
    const report = rebuildReport(record);
    expect(report.items.map((item) => item.status)).toEqual(['ok', 'skipped']);
    expect(report.items[1]?.errors[0]?.code).toBe(9026);
    expect(report.summary).toEqual({ total: 5, ok: 1, partial: 0, failed: 0, skipped: 4 });
    expect(summarize(record)).toEqual(report.summary);
  });

  it('an item on record as sent, then withdrawn (unsent) when the attempt stopped, is "not sent", and a resume sends it as never reached', async () => {
    const journal = await RunJournal.start(runsDir, header({ units: 4 }));
    await journal.sent([ref(0), ref(1), ref(2), ref(3)]);
    journal.outcome({ ...ref(0), status: 'ok', errors: [], transient: false });
    journal.outcome({
      ...ref(1),
      status: 'failed',
      errors: [{ field: '', code: null, message: 'HTTP 503' }],
      transient: true,
    });
    // The next attempt put 1 on record again, ahead; 1 and 3 never went out; 2 was in flight when it stopped.
    await journal.sent([ref(1)]);
    journal.unsent([ref(1), ref(3)]);
    await journal.end('interrupted', { total: 4, ok: 1, partial: 0, failed: 0, skipped: 3 });
    const record = await readRun(runsDir, journal.id);
    const report = rebuildReport(record, [ref(0), ref(1), ref(2), ref(3)]);
    expect(report.items.map((item) => item.status)).toEqual(['ok', 'skipped', 'skipped', 'skipped']);
    expect(report.items[1]?.errors[0]).toMatchObject({ code: 9026, message: expect.stringContaining('(HTTP 503)') });
    expect(report.items[2]?.errors[0]?.code).toBe(9026);
    expect(report.items[3]?.errors[0]?.code).toBe(9025);
    const plan = planResume(record, null);
    expect([0, 1, 2, 3].map((n) => plan.decide(ref(n)))).toEqual([
      { action: 'keep', item: expect.objectContaining({ status: 'ok' }) },
      { action: 'send', maybeApplied: true },
      { action: 'send', maybeApplied: true },
      { action: 'send', maybeApplied: false },
    ]);
  });

  it('a torn last line is ignored, and a resume cuts it off before appending', async () => {
    const journal = await RunJournal.start(runsDir, header());
    await journal.sent([ref(0)]);
    await journal.close();
    const file = journalPath(runsDir, journal.id);
    const whole = statSync(file).size;
    appendFileSync(file, '{"crc":"00000000","b":{"t":"outcome","n":0');
    const torn = await readRun(runsDir, journal.id);
    expect(statSync(file).size).toBeGreaterThan(whole);
    expect(torn.validLength).toBe(whole);
    expect(torn.items.get(0)?.inFlight).toBe(true);

    const held = await RunJournal.lockForResume(runsDir, journal.id);
    const resumed = await held.reopen(torn.validLength);
    resumed.outcome({ ...ref(0), status: 'ok', errors: [], transient: false });
    await resumed.end('completed', { total: 1, ok: 1, partial: 0, failed: 0, skipped: 0 });
    const after = await readRun(runsDir, journal.id);
    expect(after.validLength).toBe(statSync(file).size);
    expect(readFileSync(file, 'utf8').match(/"t":"resume"/g)).toHaveLength(1);
    expect(after.items.get(0)?.outcome?.status).toBe('ok');
  });

  it('a bad checksum in the middle is damage: refused naming the file and the line', async () => {
    const journal = await RunJournal.start(runsDir, header());
    await journal.sent([ref(0)]);
    await journal.sent([ref(1)]);
    await journal.close();
    const file = journalPath(runsDir, journal.id);
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[1] = (lines[1] as string).replace('"n":0', '"n":7');
    writeFileSync(file, lines.join('\n'));
    const error = await readRun(runsDir, journal.id).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(RunJournalError);
    expect((error as RunJournalError).exitCode).toBe(2);
    expect((error as RunJournalError).code).toBe('E2200');
    expect((error as Error).message).toContain(`${file}:2:`);
    expect((error as Error).message).toContain('checksum mismatch');
  });

  it('a runs directory that cannot be made (a file in the way, a full disk) is exit 3, not an internal error, and leaves no run behind', async () => {
    mkdirSync(runsDir, { recursive: true });
    const blocker = join(runsDir, 'not-a-dir');
    writeFileSync(blocker, 'x');
    for (const dir of [blocker, join(blocker, 'runs')]) {
      const error = await RunJournal.start(dir, header()).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(RunJournalWriteError);
      expect((error as RunJournalWriteError).exitCode).toBe(3);
      expect((error as RunJournalWriteError).code).toBe('E3050');
      expect((error as Error).message).toMatch(/run journal .*\((EEXIST|ENOTDIR)\)$/);
    }
    expect(readdirSync(runsDir)).toEqual(['not-a-dir']);
  });

  it('a journal killed before its header reached the disk is reported as never started', async () => {
    const journal = await RunJournal.start(runsDir, header());
    await journal.close();
    truncateSync(journal.file, 10);
    await expect(readRun(runsDir, journal.id)).rejects.toThrow(/stopped before it started \(nothing was sent\)/);
  });
});

describe('the per-run lock', () => {
  it('a run held by a live process is running and cannot be taken; concurrent takers: exactly one wins', async () => {
    const journal = await RunJournal.start(runsDir, header());
    await journal.sent([ref(0)]);
    const record = await readRun(runsDir, journal.id);
    expect(await runState(runsDir, record)).toBe('running');
    await expect(RunJournal.lockForResume(runsDir, journal.id)).rejects.toThrow(
      new RegExp(`run ${journal.id} is being run by pid ${process.pid}`),
    );
    await journal.close();

    const attempts = await Promise.allSettled(
      Array.from({ length: 8 }, () => RunJournal.lockForResume(runsDir, journal.id)),
    );
    const won = attempts.filter((attempt) => attempt.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const attempt of attempts)
      if (attempt.status === 'rejected') expect(attempt.reason).toBeInstanceOf(RunJournalError);
    await (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof RunJournal.lockForResume>>>).value.release();
  });

  it('the lock of a killed process (dead pid) is recovered: the run is interrupted and can be taken', async () => {
    const journal = await RunJournal.start(runsDir, header());
    await journal.close();
    leaveStaleLock(join(runsDir, journal.id));
    expect(await runState(runsDir, await readRun(runsDir, journal.id))).toBe('interrupted');
    const held = await RunJournal.lockForResume(runsDir, journal.id);
    await held.release();
  });
});

describe('list, last and prune', () => {
  it('lists newest first with states and counts; resolves last; the latest unfinished run only when it is the newest', async () => {
    const old = await RunJournal.start(
      runsDir,
      header({ command: 'schedule push' }),
      undefined,
      new Date('2026-01-01T00:00:00Z'),
    );
    await old.close();
    const done = await RunJournal.start(runsDir, header(), undefined, new Date('2026-02-01T00:00:00Z'));
    await done.end('completed', { total: 0, ok: 0, partial: 0, failed: 0, skipped: 0 });
    const { runs } = await listRuns(runsDir);
    expect(runs.map((run) => [run.id, run.state])).toEqual([
      [done.id, 'finished'],
      [old.id, 'interrupted'],
    ]);
    expect(await resolveRunId(runsDir, 'last')).toBe(done.id);
    // The newest run finished: an older interrupted one is named, never taken without its id.
    await expect(resolveRunId(runsDir, 'unfinished')).rejects.toThrow(`the newest interrupted one is ${old.id}`);
    expect(await resolveRunId(runsDir, old.id)).toBe(old.id);
  });

  it('prunes finished runs past the default age (src/defaults.ts) or past the newest N; keeps unfinished ones unless all', async () => {
    const now = new Date('2026-06-01T00:00:00Z');
    const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000);
    const oldFinished = await RunJournal.start(runsDir, header(), undefined, daysAgo(PRUNE_MAX_AGE_DAYS + 1));
    await oldFinished.end('completed', { total: 0, ok: 0, partial: 0, failed: 0, skipped: 0 });
    const oldUnfinished = await RunJournal.start(runsDir, header(), undefined, daysAgo(PRUNE_MAX_AGE_DAYS + 0.5));
    await oldUnfinished.close();
    const recent = await RunJournal.start(runsDir, header(), undefined, daysAgo(PRUNE_MAX_AGE_DAYS - 1));
    await recent.end('completed', { total: 0, ok: 0, partial: 0, failed: 0, skipped: 0 });

    const first = await pruneRuns(runsDir, {}, now);
    expect(first).toEqual({ removed: [oldFinished.id], keptUnfinished: [oldUnfinished.id], leftAlone: [] });
    const second = await pruneRuns(runsDir, { keepFinished: 0, all: true }, now);
    expect(second.removed.sort()).toEqual([oldUnfinished.id, recent.id].sort());
    expect((await listRuns(runsDir)).runs).toEqual([]);
  });
});
