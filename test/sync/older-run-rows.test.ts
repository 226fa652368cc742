import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { itemLine } from '../support/coded-message.js';
import { examctlStep as examctl } from '../support/in-process.js';
import {
  startUserSyncService,
  stopUserSyncService,
  type RecordedRequest,
  type ScriptedReply,
  type UserSyncService,
} from '../support/fault-server.js';
import { summaryOf } from '../support/facts.js';

/**
 * Rows of an older run sent after a later one (docs/sync.md, "Stale input"): a run report fed
 * back (its `run` column) or a resumed run's rows whose ids a later run left with another request
 * fail, unsent, naming that run (exit 1); --allow-old-file (a resume: --over-later-runs) sends
 * them; a row equal to what the later run sent goes. A run report fed back records no file, so
 * the next night's unchanged export is not "an old night's file". Counted by a loopback service.
 */

let setup: UserSyncService;
let dir: string;
let env: Record<string, string>;
/** The users the service accepted, as sent. */
let applied: Record<string, unknown>[];
/** Ids the service refuses (202). */
let failing: Set<string>;

beforeEach(async () => {
  setup = await startUserSyncService('examctl-older-rows-', (user) => void applied.push(user));
  ({ dir, env } = setup);
  applied = [];
  failing = new Set();
  const ok = setup.service.fallback as (request: RecordedRequest) => ScriptedReply;
  setup.service.fallback = (request) =>
    failing.has(String((JSON.parse(request.body) as { ExternalId: unknown }).ExternalId))
      ? { status: 400, body: { Content: null, Success: false, Errors: [{ Code: 202, Message: 'refused' }] } }
      : ok(request);
});
afterEach(() => stopUserSyncService(setup));

/** A users file: each id, with `.v` after its email's name where given (`u1=v2`). */
const users = (name: string, ...ids: string[]) =>
  writeFile(
    join(dir, name),
    `ExternalId,FirstName,LastName,Email,Role\n${ids
      .map((given) => {
        const [id, v] = given.split('=');
        return `${id},F${id},L${id},${id}${v === undefined ? '' : `.${v}`}@example.test,Candidate`;
      })
      .join('\n')}\n`,
  );
const sync = (...args: string[]) => examctl(['user', 'sync', ...setup.remote(), ...args], dir, env);
const nightly = (file: string, ...more: string[]) =>
  sync('--file', file, '--changed-only', '--disable-missing', '--max-disable', '50%', ...more);
const runOf = (stderr: string) => /run (\S+) \(examctl runs show/.exec(stderr)![1]!;
const sentIds = () =>
  applied.map((user) => `${String(user.ExternalId)}${user.DisableLogin === true ? ' disabled' : ''}`).sort();

/** Night 0 (u1, u2), then night 1 (u1's email v1) refused for u1, its report `report`. */
async function failedNight1(report: string): Promise<void> {
  await users('n0.csv', 'u1', 'u2');
  expect((await nightly('n0.csv')).code).toBe(0);
  failing = new Set(['u1']);
  await users('n1.csv', 'u1=v1', 'u2');
  expect((await nightly('n1.csv', '--report', report)).code).toBe(1);
  failing = new Set();
}

describe('rows of an older run after a later one', () => {
  it('an old report fed back fails the rows a later night changed, its own report names the old run again; --allow-old-file sends them', async () => {
    await users('n0.csv', 'u1', 'u2', 'u3', 'u5');
    expect((await nightly('n0.csv')).code).toBe(0);
    // Night 1: u5 left, u1's email changed; the service refuses both.
    failing = new Set(['u1', 'u5']);
    await users('n1.csv', 'u1=v1', 'u2', 'u3');
    const night1 = await nightly('n1.csv', '--report', 'n1-report.csv');
    expect(night1.code, night1.stderr).toBe(1);
    const n1 = runOf(night1.stderr);
    failing = new Set();
    // Night 2: u5 back, u1 with a newer email.
    await users('n2.csv', 'u1=v2', 'u2', 'u3', 'u5');
    const night2 = await nightly('n2.csv');
    expect(night2.code, night2.stderr).toBe(0);
    const n2 = runOf(night2.stderr);
    applied = [];
    // Day 3: night 1's report fed back as a retry: neither row goes, the run says so (exit 1).
    const retry = await sync('--file', 'n1-report.csv', '--only-failed', '--report', 'retry.csv');
    expect(retry.code, retry.stderr).toBe(1);
    expect(applied).toEqual([]);
    // 9021, naming the row's run and the later one.
    for (const line of [2, 5])
      expect(itemLine(retry.stderr, `u${line === 2 ? 1 : 5}`, 'ExternalId')).toMatch(
        new RegExp(`^ {2}n1-report\\.csv:${line} .* 9021 .*run ${n1}\\b.*\\b${n2}\\b`),
      );
    expect(retry.stderr).toContain('run again with --allow-old-file');
    // The retry's own report names night 1 for them: fed back again, still refused.
    expect(
      (await readFile(join(dir, 'retry.csv'), 'utf8'))
        .split(/\r?\n/)
        .filter((line) => line.startsWith('u'))
        .map((line) => line.split(',').at(-1)),
    ).toEqual([n1, n1]);
    // The CSV report's error_codes cell: examctl's own code for a stale row.
    const [header, ...rows] = (await readFile(join(dir, 'retry.csv'), 'utf8')).split(/\r?\n/).filter(Boolean);
    const codes = header!.split(',').indexOf('error_codes');
    expect(rows.map((row) => [row.split(',')[0], row.split(',')[codes]])).toEqual([
      ['u1', '9021'],
      ['u5', '9021'],
    ]);
    const again = await sync('--file', 'retry.csv', '--only-failed');
    expect(again.code, again.stderr).toBe(1);
    expect(applied).toEqual([]);
    // Meant: sent.
    const allowed = await sync('--file', 'n1-report.csv', '--only-failed', '--allow-old-file');
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(sentIds()).toEqual(['u1', 'u5 disabled']);
  });

  it('an old .xlsx report fed back after a later night: its rows fail too, nothing sent', async () => {
    await failedNight1('n1-report.xlsx');
    await users('n2.csv', 'u1=v2', 'u2');
    expect((await nightly('n2.csv')).code).toBe(0);
    applied = [];
    const retry = await sync('--file', 'n1-report.xlsx', '--only-failed');
    expect(retry.code, retry.stderr).toBe(1);
    expect(retry.stderr).toContain('left this user with another request');
    expect(applied).toEqual([]);
  });

  it("a retry of a night's report goes, a second retry of it too, and the next night's unchanged export is not an old file", async () => {
    await users('n0.csv', 'u1', 'u2', 'u3');
    expect((await nightly('n0.csv')).code).toBe(0);
    failing = new Set(['u3']);
    await users('n1.csv', 'u1', 'u2', 'u3=v1', 'u4');
    expect((await nightly('n1.csv', '--report', 'n1-report.csv')).code).toBe(1);
    failing = new Set();
    for (const attempt of [1, 2]) {
      applied = [];
      const retry = await sync('--file', 'n1-report.csv', '--only-failed', '--report', 'retry.csv');
      expect(retry.code, `${attempt}: ${retry.stderr}`).toBe(0);
      expect(sentIds()).toEqual(['u3']);
    }
    // The retry's report, nothing left in it (a header only), fed back records no file either.
    expect((await readFile(join(dir, 'retry.csv'), 'utf8')).trim().split(/\r?\n/)).toHaveLength(1);
    expect((await sync('--file', 'retry.csv', '--only-failed')).code).toBe(0);
    // The export has not changed since night 1 (same bytes): the newest deciding run's own file again.
    await writeFile(join(dir, 'n2.csv'), await readFile(join(dir, 'n1.csv')));
    const night2 = await nightly('n2.csv');
    expect(night2.code, night2.stderr).toBe(0);
  });

  it('an .xlsx retry loop: its last report (a header only) fed back records no file, the next unchanged export goes (trial21 f05)', async () => {
    await failedNight1('n1-report.xlsx');
    expect((await sync('--file', 'n1-report.xlsx', '--only-failed', '--report', 'retry.xlsx')).code).toBe(0);
    expect((await sync('--file', 'retry.xlsx', '--only-failed')).code).toBe(0);
    const night2 = await nightly('n1.csv');
    expect(night2.code, night2.stderr).toBe(0);
  });

  it("a joiner's row of a --population night retried without it is not sent, naming the flag; retried with it, it goes (trial27 f02)", async () => {
    await users('p0.csv', 'u1');
    expect((await nightly('p0.csv', '--population', 'students')).code).toBe(0);
    failing = new Set(['u3']);
    await users('p1.csv', 'u1', 'u3');
    const night = await nightly('p1.csv', '--population', 'students', '--report', 'p1-report.csv');
    expect(night.code, night.stderr).toBe(1);
    failing = new Set();
    applied = [];
    const plain = await sync('--file', 'p1-report.csv', '--only-failed', '--json');
    expect(plain.code, plain.stderr).toBe(1);
    const [refused] = JSON.parse(plain.stdout).items;
    expect(refused).toMatchObject({ id: 'u3', status: 'failed', errors: [{ field: 'ExternalId', code: 9022 }] });
    expect(plain.stderr).toContain(
      `not sent: this row is of run ${runOf(night.stderr)}, which ran with --population students: retry its report with --population students`,
    );
    expect(applied).toEqual([]);
    expect((await sync('--file', 'p1-report.csv', '--only-failed', '--population', 'students')).code).toBe(0);
    expect(sentIds()).toEqual(['u3']);
  });

  it("a row a later night failed too, or one that lacks only the night's --population: still not sent, the words name the way on (trial20 f01, f05)", async () => {
    await users('n0.csv', 'u1', 'u2');
    expect((await nightly('n0.csv')).code).toBe(0);
    failing = new Set(['u1']);
    await users('n1.csv', 'u1=v1', 'u2');
    const runs: string[] = [];
    for (const night of ['n1', 'n2']) {
      const failed = await nightly('n1.csv', '--report', `${night}-report.csv`);
      expect(failed.code, failed.stderr).toBe(1);
      runs.push(runOf(failed.stderr));
    }
    failing = new Set();
    applied = [];
    const old = await sync('--file', 'n1-report.csv', '--only-failed');
    expect(old.code, old.stderr).toBe(1);
    expect(old.stderr).toContain(
      `a later run, ${runs[1]}, left this user with another request; sent now, this older row would undo it. If run ${runs[1]} failed this row too, retry its report instead (the newest)`,
    );
    expect(applied).toEqual([]);
    expect((await sync('--file', 'n2-report.csv', '--only-failed')).code).toBe(0);
    expect(sentIds()).toEqual(['u1']);
    // Nights of --population students: night 1 fails u1's email, night 2 sends it.
    failing = new Set(['u2']);
    await users('p1.csv', 'u1=v1', 'u2=v1');
    expect(
      (await nightly('p1.csv', '--population', 'students', '--allow-old-file', '--report', 'p1-report.csv')).code,
    ).toBe(1);
    failing = new Set();
    expect((await nightly('p1.csv', '--population', 'students', '--allow-old-file')).code).toBe(0);
    applied = [];
    const plain = await sync('--file', 'p1-report.csv', '--only-failed');
    expect(plain.code, plain.stderr).toBe(1);
    expect(plain.stderr).toContain(
      'left this user with this very request with --population students: only the population differs. Run the retry with --population students',
    );
    const own = await sync('--file', 'p1-report.csv', '--only-failed', '--population', 'students');
    expect(own.code, own.stderr).toBe(0);
    expect(sentIds()).toEqual(['u2']);
  });

  it("a dry run's report names the run it was planned against: sent whole after a later night, the rows that night changed fail (trial21 f06)", async () => {
    await users('n0.csv', 'u1', 'u2', 'u5');
    const n0 = runOf((await nightly('n0.csv')).stderr);
    await users('a.csv', 'u1=v1', 'u2', 'u5');
    for (const report of ['dry.csv', 'dry.xlsx'])
      expect((await sync('--dry-run', '--file', 'a.csv', '--report', report)).code).toBe(0);
    expect(
      (await readFile(join(dir, 'dry.csv'), 'utf8'))
        .split(/\r?\n/)
        .filter((line) => line.startsWith('u'))
        .map((line) => line.split(',').at(-1)),
    ).toEqual([n0, n0, n0]);
    // Night 1: u1's email v2, u5 left.
    await users('n1.csv', 'u1=v2', 'u2');
    const n1 = runOf((await nightly('n1.csv')).stderr);
    const xlsx = await sync('--file', 'dry.xlsx');
    expect(xlsx.code, xlsx.stderr).toBe(1);
    expect(itemLine(xlsx.stderr, 'u1', 'ExternalId')).toMatch(new RegExp(` 9021 .*dry run.*\\brun ${n0}\\b`));
    applied = [];
    const whole = await sync('--file', 'dry.csv');
    expect(whole.code, whole.stderr).toBe(1);
    expect(sentIds()).toEqual(['u2']);
    expect(itemLine(whole.stderr, 'u1', 'ExternalId')).toMatch(
      new RegExp(`^ {2}dry\\.csv:2 .* 9021 .*dry run.*\\brun ${n0}\\b.*\\b${n1}\\b`),
    );
  });

  it("a report tidied in a spreadsheet (error_messages deleted) is still a report judged by its run; a dry run without the night's --population plans against the newest run of any (trial22 f02, f03)", async () => {
    await failedNight1('n1r.csv');
    await users('n2.csv', 'u1=v2', 'u2');
    expect((await nightly('n2.csv')).code).toBe(0);
    const [header, ...rows] = (await readFile(join(dir, 'n1r.csv'), 'utf8')).trim().split(/\r?\n/);
    const drop = header!.split(',').indexOf('error_messages');
    const tidy = (line: string) =>
      line
        .split(',')
        .filter((_, at) => at !== drop)
        .join(',');
    await writeFile(join(dir, 'tidy.csv'), `${[header!, ...rows].map(tidy).join('\n')}\n`);
    applied = [];
    const tidied = await sync('--file', 'tidy.csv', '--only-failed');
    expect(tidied.code, tidied.stderr).toBe(1);
    expect(itemLine(tidied.stderr, 'u1', 'ExternalId')).toContain(' 9021 ');
    expect(applied).toEqual([]);
    await users('p0.csv', 'u7', 'u8');
    const p0 = runOf((await nightly('p0.csv', '--population', 'students')).stderr);
    await users('a.csv', 'u7=v1', 'u8');
    expect((await sync('--dry-run', '--file', 'a.csv', '--report', 'dry.csv')).code).toBe(0);
    expect((await readFile(join(dir, 'dry.csv'), 'utf8')).trim().split(/\r?\n/)[1]!.split(',').at(-1)).toBe(p0);
  });

  it('a report trimmed or rearranged in a spreadsheet (error columns or status deleted, run dragged left) is judged by its run column still (trial23 f01, f02)', async () => {
    await failedNight1('n1r.csv');
    await users('n2.csv', 'u1=v2', 'u2');
    expect((await nightly('n2.csv')).code).toBe(0);
    const [header, ...rows] = (await readFile(join(dir, 'n1r.csv'), 'utf8'))
      .trim()
      .split(/\r?\n/)
      .map((line) => line.split(','));
    const forms: [string, (cells: string[]) => string[]][] = [
      ['errors.csv', (cells) => cells.filter((_, at) => !['error_codes', 'error_messages'].includes(header![at]!))],
      ['status.csv', (cells) => cells.filter((_, at) => header![at] !== 'status')],
      ['moved.csv', (cells) => [cells.at(-1)!, ...cells.slice(0, -1)]],
    ];
    for (const [name, trim] of forms) {
      await writeFile(join(dir, name), `${[header!, ...rows].map((cells) => trim(cells).join(',')).join('\n')}\n`);
      applied = [];
      const fed = await sync('--file', name, ...(name === 'errors.csv' ? ['--only-failed'] : []));
      expect(fed.code, fed.stderr).toBe(1);
      expect(itemLine(fed.stderr, 'u1', 'ExternalId')).toContain(' 9021 ');
      expect(applied.map((user) => user.ExternalId)).not.toContain('u1');
    }
  });

  it("an older examctl's report (no run column) of an export with its own Run column reads that Run as the export's (trial22 f05)", async () => {
    await writeFile(
      join(dir, 'old.csv'),
      'ExternalId,FirstName,LastName,Email,Role,Run,status,error_codes,error_messages,action,note\nu1,F,L,u1@example.test,Candidate,RUN-B,failed,300,refused,,\n',
    );
    applied = [];
    const retry = await sync('--file', 'old.csv', '--only-failed', '--map', 'Run=Labels');
    expect(retry.code, retry.stderr).toBe(0);
    expect(applied.map((user) => user.Labels)).toEqual([['RUN-B']]);
  });

  it("after synced adopt (a lost memory rebuilt), the refusal of the failed night's retry names the adoption as a way on (trial21 f02)", async () => {
    await failedNight1('n1-report.csv');
    await rm(join(dir, 'state', 'synced'), { recursive: true });
    const adopt = await examctl(
      ['synced', 'adopt', '--file', 'n0.csv', '--base-url', setup.service.url, '--allow-insecure-http'],
      dir,
      env,
    );
    expect(adopt.code, adopt.stderr).toBe(0);
    applied = [];
    const retry = await sync('--file', 'n1-report.csv', '--only-failed');
    expect(retry.code, retry.stderr).toBe(1);
    expect(retry.stderr).toMatch(
      /or run \S+ is a synced adopt \(it sent nothing: this row undoes nothing\), run again with --allow-old-file/,
    );
    expect((await sync('--file', 'n1-report.csv', '--only-failed', '--allow-old-file')).code).toBe(0);
    expect(sentIds()).toEqual(['u1']);
  });

  /** Night 0 plain; night 1 (the last user's email v1) killed after its first answer; night 2 with --population students (v2). Returns night 1's and night 2's runs. */
  async function killedThenOtherPopulation(): Promise<{ n1: string; n2: string; last: string }> {
    const ids = Array.from({ length: 200 }, (_, i) => `u${String(i).padStart(3, '0')}`);
    const last = ids.at(-1)!;
    await users('n0.csv', ...ids);
    expect((await sync('--file', 'n0.csv')).code).toBe(0);
    await users('n1.csv', ...ids.slice(0, -1), `${last}=v1`);
    const killed = await examctl(['user', 'sync', ...setup.remote(), '--file', 'n1.csv'], dir, {
      ...env,
      EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:1:SIGKILL',
    });
    expect(killed.signal).toBe('SIGKILL');
    await users('n2.csv', ...ids.slice(0, -1), `${last}=v2`);
    const night2 = await sync('--file', 'n2.csv', '--population', 'students', '--changed-only');
    expect(night2.code, night2.stderr).toBe(0);
    applied = [];
    return { n1: runOf(killed.stderr), n2: runOf(night2.stderr), last };
  }
  const resume = (run: string, ...more: string[]) =>
    examctl(
      ['--base-url', setup.service.url, '--allow-insecure-http', '--yes', 'runs', 'resume', run, ...more],
      dir,
      env,
    );

  it('a resume of a night after a later night took its users into another population sends none of the rows that night left otherwise; its report with --allow-old-file does', async () => {
    const { n1, n2, last } = await killedThenOtherPopulation();
    const resumed = await resume(n1, '--report', 'n1.report.csv');
    expect(resumed.code, resumed.stderr).toBe(1);
    expect(applied).toEqual([]);
    expect(summaryOf(resumed.stderr)).toMatchObject({ total: 200, ok: 0, partial: 0, failed: 200, skipped: 0 });
    expect(resumed.stderr).toContain(`, ${n2}, `);
    expect(resumed.stderr).toContain("send it from this run's report with --only-failed --allow-old-file");
    const forced = await sync('--file', 'n1.report.csv', '--only-failed', '--allow-old-file');
    expect(forced.code, forced.stderr).toBe(0);
    expect(applied.find((user) => user.ExternalId === last)?.Email).toBe(`${last}.v1@example.test`);
  });

  it('runs resume --over-later-runs sends them', async () => {
    const { n1, last } = await killedThenOtherPopulation();
    const forced = await resume(n1, '--over-later-runs');
    expect(forced.code, forced.stderr).toBe(0);
    expect(applied.find((user) => user.ExternalId === last)?.Email).toBe(`${last}.v1@example.test`);
  });
});
