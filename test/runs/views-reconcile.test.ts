import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { range, writeUsersCsv } from '../durability/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import {
  type FaultServer,
  okEnvelope,
  startUserSyncService,
  stopUserSyncService,
  type UserSyncService,
} from '../support/fault-server.js';

/**
 * Every view of one run says the same counts (docs/runs.md, "runs show"): the run's own report
 * (its --json and --report), `runs list`, `runs show` (its summary line, --json, --report). A
 * `--disable-missing` night killed before its leavers and resumed with --over-later-runs after
 * a later night changed who the leavers are: the resumed attempt counts the leavers it found,
 * the header of the journal those of the first attempt. Counted by a loopback server.
 */

const USERS = 600;
const all = range('stu', USERS);
const leavers = all.slice(100, 103);

type Summary = { total: number; ok: number; partial: number; failed: number; skipped: number };
const counts = ({ total, ok, partial, failed, skipped }: Summary): Summary => ({ total, ok, partial, failed, skipped });

let dir: string;
let env: Record<string, string>;
let service: FaultServer;
let setup: UserSyncService;
let disabled: string[];

beforeEach(async () => {
  setup = await startUserSyncService('examctl-views-', (user) => {
    if (user.DisableLogin === true) disabled.push(user.ExternalId as string);
  });
  ({ dir, env, service } = setup);
  disabled = [];
  await writeUsersCsv(join(dir, 'full.csv'), all);
  await writeUsersCsv(
    join(dir, 'night-12.csv'),
    all.filter((id) => !leavers.includes(id)),
  );
});
afterEach(() => stopUserSyncService(setup));

const remote = () => setup.remote();
const night = (file: string) => ['user', 'sync', '--file', file, ...remote(), '--changed-only', '--disable-missing'];

/** The counts of a CSV report: one per row, by its status cell (these files hold no quoted cells). */
function csvCounts(file: string): { summary: Summary; widths: Set<number> } {
  const [header, ...rows] = readFileSync(join(dir, file), 'utf8')
    .trimEnd()
    .split(/\r?\n/)
    .map((line) => line.split(','));
  const status = header!.indexOf('status');
  const summary: Summary = { total: 0, ok: 0, partial: 0, failed: 0, skipped: 0 };
  for (const row of rows) {
    summary.total += 1;
    summary[row[status] as 'ok'] += 1;
  }
  return { summary, widths: new Set([header!.length, ...rows.map((row) => row.length)]) };
}

/** The older night killed before its leavers, a later night, then the older one resumed anyway: its live report's summary and run id. */
async function resumedOverLaterNight(later: string): Promise<{ run: string; live: Summary }> {
  expect((await examctl(['user', 'sync', '--file', 'full.csv', ...remote()], dir, env)).code).toBe(0);
  // Every row changed (so every row is sent), killed at the 300th answer, long before the leavers.
  writeFileSync(
    join(dir, 'night-12.csv'),
    readFileSync(join(dir, 'night-12.csv'), 'utf8').replace(/Candidate/g, 'Student'),
  );
  const killed = await examctl(night('night-12.csv'), dir, {
    ...env,
    EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:300:SIGKILL',
  });
  expect(killed.signal).toBe('SIGKILL');
  expect(disabled).toEqual([]);
  const newer = await examctl(night(later), dir, env);
  expect(newer.code, newer.stderr).toBe(0);
  const resumed = await examctl(
    [
      '--base-url',
      service.url,
      '--allow-insecure-http',
      '--yes',
      'runs',
      'resume',
      /run (\S+) \(examctl runs show/.exec(killed.stderr)![1]!,
      '--over-later-runs',
      '--json',
      '--report',
      'live.csv',
    ],
    dir,
    env,
  );
  expect(resumed.code, resumed.stderr).toBe(0);
  const document = JSON.parse(resumed.stdout) as { run: string; summary: Summary; items: unknown[] };
  expect(document.items).toHaveLength(document.summary.total);
  return { run: document.run, live: counts(document.summary) };
}

/** runs list, runs show (summary line, --json, --report): each one's counts of `run`. */
async function viewsOf(run: string): Promise<Record<string, Summary>> {
  const listed = await examctl(['runs', 'list', '--json'], dir, env);
  expect(listed.code, listed.stderr).toBe(0);
  const listing = (JSON.parse(listed.stdout) as { runs: { id: string; summary: Summary }[] }).runs.find(
    (entry) => entry.id === run,
  )!;
  const shown = await examctl(['runs', 'show', run, '--json'], dir, env);
  const document = JSON.parse(shown.stdout) as { summary: Summary; items: unknown[]; unlisted?: unknown };
  // Nothing counted without being listed: the items are the summary.
  expect(document.unlisted).toBeUndefined();
  expect(document.items).toHaveLength(document.summary.total);
  const line = /^([\d,]+) items?: ([\d,]+) ok, ([\d,]+) partial, ([\d,]+) failed, ([\d,]+) skipped$/m.exec(
    shown.stderr,
  )!;
  const [total, ok, partial, failed, skipped] = line.slice(1).map((cell) => Number(cell.replace(/,/g, '')));
  expect((await examctl(['runs', 'show', run, '--report', 'shown.csv'], dir, env)).code).toBe(shown.code);
  return {
    list: counts(listing.summary),
    showJson: counts(document.summary),
    showSummary: { total: total!, ok: ok!, partial: partial!, failed: failed!, skipped: skipped! },
    showReport: csvCounts('shown.csv').summary,
    liveReport: csvCounts('live.csv').summary,
  };
}

describe('every view of a resumed --disable-missing run says the same counts', () => {
  it('the later night disabled the same leavers: the resumed attempt has none, and no view counts them', async () => {
    const { run, live } = await resumedOverLaterNight('night-12.csv');
    expect(disabled.sort()).toEqual([...leavers].sort());
    expect(live).toEqual({ total: USERS - 3, ok: USERS - 3, partial: 0, failed: 0, skipped: 0 });
    const views = await viewsOf(run);
    for (const [view, summary] of Object.entries(views)) expect({ view, summary }).toEqual({ view, summary: live });
  });

  it('the later night synced joiners: the resumed attempt disables them too (--over-later-runs), and every view counts them', async () => {
    const joiners = range('new', 10);
    await writeUsersCsv(join(dir, 'night-13.csv'), [...all, ...joiners]);
    const { run, live } = await resumedOverLaterNight('night-13.csv');
    expect(live.total).toBe(USERS - 3 + 3 + 10);
    const views = await viewsOf(run);
    for (const [view, summary] of Object.entries(views)) expect({ view, summary }).toEqual({ view, summary: live });
    // Every row of both reports has the header's columns, the leavers' too.
    expect(csvCounts('live.csv').widths.size).toBe(1);
    expect(csvCounts('shown.csv').widths.size).toBe(1);
    // runs show --report: the live report's header, a leaver's ExternalId and DisableLogin where the live one has them; its names are not in the journal (said).
    const lines = (file: string) => readFileSync(join(dir, file), 'utf8').trimEnd().split(/\r?\n/);
    expect(lines('shown.csv')[0]).toBe(lines('live.csv')[0]);
    expect(lines('shown.csv').at(-1)).toBe(`${leavers.at(-1)},,,,,,true,ok,,,disabled,,${run}`);
    expect(lines('live.csv').at(-1)).toBe(
      `${leavers.at(-1)},First ${leavers.at(-1)},Last ${leavers.at(-1)},,,,true,ok,,,disabled,,${run}`,
    );
    const shown = await examctl(['runs', 'show', run, '--report', 'shown.csv'], dir, env);
    expect(shown.stderr).toContain(
      "the report's 13 leaver rows have ExternalId and DisableLogin only: the run journal does not keep leavers' FirstName and LastName",
    );
  });
});

describe("a stopped run's own report and runs show say the same of every item", () => {
  const failing = new Set([all[3]!, all[5]!]);
  /** 400 (code 202) for `failing`, or 503 (try again later, for ever) for the ids of `unavailable`. */
  const serve = (unavailable: Set<string>) => {
    service.fallback = (request) => {
      const user = JSON.parse(request.body) as { ExternalId: string };
      if (unavailable.has(user.ExternalId)) return { status: 503, headers: { 'retry-after': '0' }, body: {} };
      return failing.has(user.ExternalId)
        ? { status: 400, body: { Content: null, Success: false, Errors: [{ Code: 202, Message: 'User not found' }] } }
        : okEnvelope({ User: { ExternalId: user.ExternalId }, GroupErrors: [] });
    };
  };

  const stops: [string, string[], Record<string, string>, Set<string>, number][] = [
    ['--max-errors', ['--max-errors', '2'], {}, new Set(), 1],
    [
      'an interrupt (SIGTERM at the 20th answer)',
      [],
      { EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:20:SIGTERM' },
      new Set(),
      130,
    ],
    ['a 503 that retries did not cure (no definite answer)', [], {}, new Set([all[7]!]), 3],
  ];
  for (const [stop, flags, extra, unavailable, code] of stops) {
    it(`${stop}: the same items, reasons and counts, in --json and in the CSV report`, async () => {
      serve(unavailable);
      const live = await examctl(
        [
          'user',
          'sync',
          '--file',
          'full.csv',
          ...remote(),
          '--concurrency',
          '1',
          ...flags,
          '--json',
          '--report',
          'live.csv',
        ],
        dir,
        { ...env, ...extra },
      );
      expect(live.code, live.stderr).toBe(code);
      const document = JSON.parse(live.stdout) as {
        run: string;
        items: { status: string; errors: { message: string }[] }[];
        summary: Summary;
      };
      const skipped = document.items.filter((item) => item.status === 'skipped');
      expect(skipped.length).toBeGreaterThan(500);
      // Every skipped item says why, as runs show says it.
      for (const item of skipped)
        expect(item.errors.map((error) => error.message)).toEqual([
          expect.stringMatching(
            /^not (sent: the run stopped|done: the service gave no definite answer .*; it may have been applied)/,
          ),
        ]);
      const shown = await examctl(['runs', 'show', document.run, '--json', '--report', 'shown.csv'], dir, env);
      const rebuilt = JSON.parse(shown.stdout) as typeof document;
      expect(rebuilt.items).toEqual(document.items);
      expect(counts(rebuilt.summary)).toEqual(counts(document.summary));
      expect(readFileSync(join(dir, 'shown.csv'), 'utf8')).toBe(readFileSync(join(dir, 'live.csv'), 'utf8'));
      // The human summaries list the same errors: the items' own, never one line per item the run did not reach (those are tallied).
      const listed = (stderr: string) => stderr.split('\n').filter((line) => /^ {2}full\.csv:\d+ /.test(line));
      expect(listed(shown.stderr)).toEqual(listed(live.stderr));
      expect(listed(live.stderr).some((line) => line.includes('not sent'))).toBe(false);
      expect(live.stderr).toMatch(/^ {2}9025 x [\d,]+ /m);
    });
  }
});

describe('the service refuses the token (403) mid-run', () => {
  it('runs show gives the refused item the live report\'s status and words, never "may have been applied"', async () => {
    service.fallback = (request) => {
      const user = JSON.parse(request.body) as { ExternalId: string };
      return user.ExternalId === all[4]
        ? { status: 403, body: {} }
        : okEnvelope({ User: { ExternalId: user.ExternalId }, GroupErrors: [] });
    };
    const live = await examctl(
      ['user', 'sync', '--file', 'full.csv', ...remote(), '--concurrency', '1', '--json'],
      dir,
      env,
    );
    expect(live.code, live.stderr).toBe(3);
    const document = JSON.parse(live.stdout) as {
      run: string;
      items: { id: string; status: string; errors: { message: string }[] }[];
      summary: Summary;
    };
    expect(document.items[4]!.errors[0]!.message).toContain('refused the token (403)');
    const shown = await examctl(['runs', 'show', document.run, '--json'], dir, env);
    const rebuilt = JSON.parse(shown.stdout) as typeof document;
    // The item that met the refusal: the live report's status and words (the journal's unsent line carries them).
    expect(rebuilt.items[4]).toEqual(document.items[4]);
    expect(shown.stdout).not.toContain('may have been applied');
    expect(counts(rebuilt.summary)).toEqual(counts(document.summary));
    // A resume still sends the refused item again.
    const sent: string[] = [];
    service.fallback = (request) => {
      const user = JSON.parse(request.body) as { ExternalId: string };
      sent.push(user.ExternalId);
      return okEnvelope({ User: { ExternalId: user.ExternalId }, GroupErrors: [] });
    };
    const resumed = await examctl(
      ['--base-url', service.url, '--allow-insecure-http', '--yes', 'runs', 'resume', document.run],
      dir,
      env,
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(sent[0]).toBe(all[4]);
  });

  it('a 404 without an API envelope: runs show gives its item the live report\'s status and words, not "its answer was lost"', async () => {
    service.fallback = (request) => {
      const user = JSON.parse(request.body) as { ExternalId: string };
      return user.ExternalId === all[4]
        ? { status: 404, body: {} }
        : okEnvelope({ User: { ExternalId: user.ExternalId }, GroupErrors: [] });
    };
    const live = await examctl(
      ['user', 'sync', '--file', 'full.csv', ...remote(), '--concurrency', '1', '--json'],
      dir,
      env,
    );
    expect(live.code, live.stderr).toBe(3);
    const document = JSON.parse(live.stdout) as {
      run: string;
      items: { id: string; status: string; errors: { message: string }[] }[];
      summary: Summary;
    };
    expect(document.items[4]!.errors[0]!.message).toContain('without an API envelope');
    const rebuilt = JSON.parse(
      (await examctl(['runs', 'show', document.run, '--json'], dir, env)).stdout,
    ) as typeof document;
    expect(rebuilt.items[4]).toEqual(document.items[4]);
    expect(counts(rebuilt.summary)).toEqual(counts(document.summary));
  });
});
