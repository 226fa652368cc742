import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { range, writeUsersCsv } from '../durability/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import {
  type FaultServer,
  startUserSyncService,
  stopUserSyncService,
  type UserSyncService,
} from '../support/fault-server.js';
import { checkedLineBodies } from '../support/checked-lines.js';
import { expectCoded } from '../support/coded-message.js';

/**
 * A --changed-only night journals its unchanged rows compactly (issue 37, docs/runs.md "The
 * journal"): one `unchanged` line per group commit, no outcome line per row. Killed at a marker
 * and resumed, it sends each remaining change exactly once and never an unchanged row, counted
 * by a loopback server; the resume's report, `runs show` (with the input, and without it) and
 * `runs list` still account for every input row.
 */

const USERS = 2_000;
const all = range('stu', USERS);
/** Every 10th row changed: changes on both sides of the kill. */
const changed = all.filter((_, i) => i % 10 === 7);

let dir: string;
let env: Record<string, string>;
let service: FaultServer;
let setup: UserSyncService;
let applied: string[];

beforeEach(async () => {
  setup = await startUserSyncService('examctl-night-journal-', (user) => {
    applied.push(user.ExternalId as string);
  });
  ({ dir, env, service } = setup);
  applied = [];
  await writeUsersCsv(join(dir, 'full.csv'), all);
  const lines = ['ExternalId,FirstName,LastName,Email,UserName,Role'];
  for (const id of all)
    lines.push(
      `${id},First ${id},${changed.includes(id) ? 'Moved' : 'Last'} ${id},${id}@example.test,name-${id},Candidate`,
    );
  writeFileSync(join(dir, 'tonight.csv'), `${lines.join('\n')}\n`);
});
afterEach(() => stopUserSyncService(setup));

const remote = () => setup.remote();

interface Report {
  run: string;
  summary: { total: number; ok: number; partial: number; failed: number; skipped: number; unchanged?: number };
  items: {
    id: string | null;
    status: string;
    action?: string;
    note?: string;
    source: { file: string; line: number };
  }[];
}

/** The journal's lines (decoded) of the one run not in `before`. */
function journalOf(before: Set<string>): { run: string; lines: Record<string, unknown>[]; bytes: number } {
  const runs = join(dir, 'state', 'runs');
  const run = readdirSync(runs).find((id) => !before.has(id))!;
  const bytes = readFileSync(join(runs, run, 'journal.ndjson'));
  const lines = checkedLineBodies(bytes.toString('utf8'));
  return { run, lines, bytes: bytes.length };
}

describe('--changed-only: unchanged rows journaled compactly', () => {
  it('killed at a marker and resumed: each remaining change sent exactly once, no unchanged row sent, every row accounted for', async () => {
    const full = await examctl(['user', 'sync', '--file', 'full.csv', ...remote(), '--json'], dir, env);
    expect(full.code, full.stderr).toBe(0);
    const runsDir = join(dir, 'state', 'runs');
    const before = new Set(readdirSync(runsDir));
    applied = [];
    // Killed once 1,000 outcomes (unchanged rows included) were handed to the journal: mid-file.
    const killed = await examctl(['user', 'sync', '--file', 'tonight.csv', ...remote(), '--changed-only'], dir, {
      ...env,
      EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:1000:SIGKILL',
    });
    expect(killed.signal).toBe('SIGKILL');
    const first = [...applied];
    expect(first.length).toBeGreaterThan(0);
    expect(first.every((id) => changed.includes(id))).toBe(true);

    // The journal holds no outcome line for an unchanged row: runs of positions instead.
    const journal = journalOf(before);
    const outcomes = journal.lines.filter((line) => line.t === 'outcome');
    expect(outcomes.some((line) => line.action === 'unchanged')).toBe(false);
    const compact = journal.lines.filter((line) => line.t === 'unchanged') as { r: number[]; since: string[] }[];
    expect(compact.length).toBeGreaterThan(0);
    const fullRun = [...readdirSync(runsDir)].find((id) => before.has(id))!;
    expect(compact.every((line) => line.since.length === 1 && line.since[0] === fullRun)).toBe(true);
    const journaledUnchanged = compact.reduce(
      (sum, line) => sum + line.r.filter((_, k) => k % 3 === 1).reduce((a, b) => a + b, 0),
      0,
    );
    expect(journaledUnchanged).toBeGreaterThan(0);
    // What the first attempt has on record as acknowledged is never sent again.
    const acknowledged = new Set(outcomes.filter((line) => line.status === 'ok').map((line) => line.id as string));

    applied = [];
    const resumed = await examctl(
      ['--json', '--base-url', service.url, '--allow-insecure-http', '--yes', 'runs', 'resume', journal.run],
      dir,
      env,
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    const again = [...applied];
    // Each remaining change exactly once; nothing unchanged, nothing acknowledged before.
    expect(new Set(again).size).toBe(again.length);
    expect(again.every((id) => changed.includes(id) && !acknowledged.has(id))).toBe(true);
    expect(new Set([...first, ...again])).toEqual(new Set(changed));
    for (const id of changed) if (!first.includes(id)) expect(again).toContain(id);

    // The resume's report: every input row, the unchanged ones with the note naming the full run.
    const report = JSON.parse(resumed.stdout) as Report;
    expect(report.summary).toMatchObject({ total: USERS, ok: USERS, failed: 0, skipped: 0 });
    expect(report.items).toHaveLength(USERS);
    const unchanged = report.items.filter(
      (item) => item.note === `unchanged since run ${fullRun}: not sent (--changed-only)`,
    );
    expect(new Set(unchanged.map((item) => item.id))).toEqual(new Set(all.filter((id) => !changed.includes(id))));
    expect(unchanged.every((item) => item.action === 'unchanged')).toBe(true);
    // A change the killed attempt had acknowledged (the memory kept it, its journal line was lost
    // with the kill): applied once, by this very run, and not sent again: `sent`, so noted.
    const own = report.items.filter((item) =>
      item.note?.startsWith('acknowledged to the interrupted attempt of this run'),
    );
    expect(own.every((item) => item.action === 'sent' && first.includes(item.id!) && !again.includes(item.id!))).toBe(
      true,
    );
    expect(
      report.items.some((item) => item.note === `unchanged since run ${journal.run}: not sent (--changed-only)`),
    ).toBe(false);
    const notSent = unchanged.length;
    expect(resumed.stderr).toContain(`${notSent.toLocaleString('en-US')} unchanged (not sent)`);

    // runs show rebuilds the same items in input order, with their lines.
    const shown = await examctl(['--json', 'runs', 'show', journal.run], dir, env);
    expect(shown.code, shown.stderr).toBe(0);
    const rebuilt = JSON.parse(shown.stdout) as Report;
    expect(rebuilt.summary).toMatchObject({ total: USERS, ok: USERS, skipped: 0 });
    expect(
      rebuilt.items.map((item) => [item.id, item.status, item.action ?? '', item.note ?? '', item.source.line]),
    ).toEqual(report.items.map((item) => [item.id, item.status, item.action ?? '', item.note ?? '', item.source.line]));
    expect(shown.stderr).toContain(`${notSent.toLocaleString('en-US')} unchanged (not sent)`);
    const listed = await examctl(['--json', 'runs', 'list'], dir, env);
    const listing = (JSON.parse(listed.stdout) as { runs: { id: string; summary: Report['summary'] }[] }).runs.find(
      (run) => run.id === journal.run,
    );
    expect(listing?.summary).toMatchObject({ total: USERS, ok: USERS, skipped: 0 });

    // The export replaced (the next night's): the unchanged rows cannot be named, so they are counted, and said.
    renameSync(join(dir, 'tonight.csv'), join(dir, 'gone.csv'));
    const blind = await examctl(['--json', 'runs', 'show', journal.run], dir, env);
    expect(blind.code, blind.stderr).toBe(0);
    const counted = JSON.parse(blind.stdout) as Report;
    expect(counted.summary).toMatchObject({ total: USERS, ok: USERS, skipped: 0 });
    expect(counted.items).toHaveLength(USERS - notSent);
    expect(blind.stderr).toContain(
      `${notSent.toLocaleString('en-US')} unchanged items (not sent, --changed-only) counted as ok but not listed`,
    );
    // The document reconciles on its own (QA): its items and the unchanged it counts without listing make the total.
    const unlistedUnchanged = (JSON.parse(blind.stdout) as { unlistedUnchanged?: { count: number; reason: string } })
      .unlistedUnchanged;
    expect(unlistedUnchanged?.count).toBe(notSent);
    expect(unlistedUnchanged?.reason).toMatch(/\S/);
    expect(counted.items.length + unlistedUnchanged!.count).toBe(counted.summary.total);
  });

  it('resumed after synced forget (refused without --force): as a first night, the rows judged unchanged are sent, and the next night sends none', async () => {
    expect((await examctl(['user', 'sync', '--file', 'full.csv', ...remote()], dir, env)).code).toBe(0);
    const before = new Set(readdirSync(join(dir, 'state', 'runs')));
    const killed = await examctl(['user', 'sync', '--file', 'tonight.csv', ...remote(), '--changed-only'], dir, {
      ...env,
      EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:1000:SIGKILL',
    });
    expect(killed.signal).toBe('SIGKILL');
    const { run, lines } = journalOf(before);
    expect(lines.some((line) => line.t === 'unchanged')).toBe(true);
    const forgot = await examctl(
      ['synced', 'forget', '--target', 'remote', '--base-url', service.url, '--allow-insecure-http'],
      dir,
      env,
    );
    expect(forgot.code, forgot.stderr).toBe(0);
    // The memory this run decided from is gone: without --force the resume is refused, nothing sent.
    applied = [];
    const refused = await examctl(
      ['--base-url', service.url, '--allow-insecure-http', '--yes', 'runs', 'resume', run],
      dir,
      env,
    );
    expect(refused.code).toBe(2);
    // No sync memory for a run that needs it (E2501), as --require-memory's refusal.
    expectCoded(refused.stderr, 'E2501', `run ${run}`, '--changed-only', '--force');
    expect(applied).toEqual([]);
    const resumed = await examctl(
      ['--json', '--base-url', service.url, '--allow-insecure-http', '--yes', 'runs', 'resume', run, '--force'],
      dir,
      env,
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    // The killed attempt judged them unchanged from the memory now forgotten: none stands on that judgement.
    const items = (JSON.parse(resumed.stdout) as Report).items;
    expect(items.filter((item) => item.action === 'unchanged')).toEqual([]);
    expect(applied.length).toBeGreaterThan(0);
    applied = [];
    const next = await examctl(['user', 'sync', '--file', 'tonight.csv', ...remote(), '--changed-only'], dir, env);
    expect(next.code, next.stderr).toBe(0);
    expect(applied).toEqual([]);
  });

  it("a whole night: the journal is a small fraction of the full run's, and the next night sends nothing", async () => {
    const runsDir = join(dir, 'state', 'runs');
    expect((await examctl(['user', 'sync', '--file', 'full.csv', ...remote()], dir, env)).code).toBe(0);
    const afterFull = new Set(readdirSync(runsDir));
    const fullBytes = journalOf(new Set()).bytes;
    applied = [];
    const night = await examctl(
      ['user', 'sync', '--file', 'tonight.csv', ...remote(), '--changed-only', '--json'],
      dir,
      env,
    );
    expect(night.code, night.stderr).toBe(0);
    expect(applied.sort()).toEqual([...changed].sort());
    const journal = journalOf(afterFull);
    // 200 rows sent (a sent and an outcome line each) and a few lines for 1,800 unchanged: not 1,800 outcome lines.
    expect(journal.lines.filter((line) => line.t === 'outcome')).toHaveLength(changed.length);
    expect(journal.bytes).toBeLessThan(fullBytes / 5);
    applied = [];
    const next = await examctl(
      ['user', 'sync', '--file', 'tonight.csv', ...remote(), '--changed-only', '--json'],
      dir,
      env,
    );
    expect(next.code, next.stderr).toBe(0);
    expect(applied).toEqual([]);
    const report = JSON.parse(next.stdout) as Report;
    expect(report.items.filter((item) => item.action === 'unchanged')).toHaveLength(USERS);
  });
});
