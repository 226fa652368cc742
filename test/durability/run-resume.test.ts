import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, ROOT, range, startExamctl, writeUsersCsv } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { mulberry32 as random } from '../../src/system/seeded-random.js';
import { serveLocalStore } from '../../src/server/index.js';
import { startFaultServer } from '../support/fault-server.js';
import { expectCoded } from '../support/coded-message.js';
import { lineWith } from '../support/facts.js';
import { APPLIED_BEFORE_INTERRUPT } from '../../src/runs/journal-lines.js';

/**
 * Runs killed (SIGKILL) at seeded random moments, their resumes killed too, then finished by
 * `runs resume`: the target holds every row once, and `runs show` reports every row once.
 */

let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-resume-'));
  env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_STORE: join(dir, 'store') };
  expect((await examctl(['local', 'init', '--seed', join(ROOT, 'fixtures/world.json')], dir, env)).code).toBe(0);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * Runs `args` until the run sends itself SIGKILL at `marker` (EXAMCTL_TEST_SIGNAL_AFTER, e.g.
 * `outcome:120`): a point the run reaches, never a delay, so the kill lands mid-run on a machine
 * of any speed. Resolves true when the kill ended it (false: it finished before the marker).
 */
async function killAt(args: string[], marker: string): Promise<boolean> {
  const ended = await examctl(args, dir, { ...env, EXAMCTL_TEST_SIGNAL_AFTER: `${marker}:SIGKILL` });
  return ended.signal === 'SIGKILL';
}

interface ShownReport {
  run: string;
  summary: { total: number; ok: number; failed: number; skipped: number };
  items: {
    source: { line: number };
    id: string | null;
    status: string;
    errors: { code: number | null; message: string }[];
    note?: string;
  }[];
}

async function showLast(): Promise<ShownReport> {
  const shown = await examctl(['--json', 'runs', 'show', 'last'], dir, env);
  return JSON.parse(shown.stdout) as ShownReport;
}

async function resumeUntilFinished(): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const resumed = await examctl(['--yes', 'runs', 'resume'], dir, env);
    if (/no interrupted run to resume/.test(resumed.stderr)) return;
    expect(resumed.stderr).not.toMatch(/internal error/);
  }
}

function storeRecords(kind: 'Users' | 'Schedules'): { ExternalId?: string; ScheduleExtId?: string }[] {
  const world = readFileSync(join(dir, 'world.json'), 'utf8');
  return (JSON.parse(world) as Record<string, { ExternalId?: string; ScheduleExtId?: string }[]>)[kind] ?? [];
}

describe('a killed user sync, resumed (also killed), holds every row once', () => {
  for (const seed of [11, 29]) {
    it(`seed ${seed}`, async () => {
      const next = random(seed);
      const ids = range(`k${seed}`, 1000);
      await writeUsersCsv(join(dir, 'users.csv'), ids);
      // Any of the 1,000 outcomes but the last: the kill always finds the run sending.
      expect(
        await killAt(
          ['user', 'sync', '--file', 'users.csv', '--report', 'r.csv'],
          `outcome:${1 + Math.floor(next() * 999)}`,
        ),
      ).toBe(true);
      const killedRun = JSON.parse((await examctl(['--json', 'runs', 'list'], dir, env)).stdout) as {
        runs: { state: string }[];
      };
      expect(killedRun.runs[0]?.state).toBe('interrupted');
      // The resume is killed too when it has that many left to send (else it finishes).
      await killAt(['runs', 'resume'], `outcome:${1 + Math.floor(next() * 300)}`);
      await resumeUntilFinished();

      const report = await showLast();
      expect(report.summary).toMatchObject({ total: 1000, ok: 1000, failed: 0, skipped: 0 });
      expect(new Set(report.items.map((item) => item.source.line)).size).toBe(1000);
      // The killed writers' report temp files were cleaned up by the resume that wrote r.csv.
      expect(readdirSync(dir).filter((name) => name.startsWith('.atomic-'))).toEqual([]);
      expect(existsSync(join(dir, 'r.csv'))).toBe(true);
      writeFileSync(join(dir, 'world.json'), (await examctl(['local', 'export'], dir, env)).stdout);
      const synced = storeRecords('Users').filter((user) => user.ExternalId?.startsWith(`k${seed}-`));
      expect(synced.map((user) => user.ExternalId).sort()).toEqual(ids);
    });
  }
});

describe('a killed schedule push with Upsert false, resumed', () => {
  it('the store says what the killed attempt applied: every schedule once, none sent again, nothing "already exists", exit 0', async () => {
    const lines = [
      'ScheduleExtId,AssessmentExtId,Title,StartDateTime,EndDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email',
    ];
    for (let s = 0; s < 300; s++) {
      lines.push(
        `S-K-${s},A-MATH-1,Sitting ${s},2026-12-14T09:00:00Z,2026-12-14T12:00:00Z,H-K-${s},Group ${s},stu-k${s},Ann,Lee,ann${s}@students.example.test`,
      );
    }
    writeFileSync(join(dir, 'sittings.csv'), `${lines.join('\n')}\n`);
    expect(await killAt(['schedule', 'push', '--file', 'sittings.csv'], 'outcome:100')).toBe(true);
    // Killed, before any resume: every schedule listed once (the input is read again).
    const killed = await showLast();
    expect(killed.items).toHaveLength(300);
    expect(new Set(killed.items.map((item) => item.source.line)).size).toBe(300);
    expect(killed.items.filter((item) => item.status === 'failed')).toEqual([]);
    writeFileSync(join(dir, 'world.json'), (await examctl(['local', 'export'], dir, env)).stdout);
    const held = storeRecords('Schedules').filter((schedule) => schedule.ScheduleExtId?.startsWith('S-K-')).length;
    const resumed = await examctl(['--json', '--yes', 'runs', 'resume'], dir, env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const report = await showLast();
    expect(report.summary).toMatchObject({ total: 300, ok: 300, failed: 0, skipped: 0 });
    // What the store changed after the run began was applied by the killed attempt: not sent again.
    const applied = report.items.filter((item) => item.note?.startsWith(`${APPLIED_BEFORE_INTERRUPT}${killed.run} `));
    const answeredBefore = killed.items.filter((item) => item.status === 'ok').length;
    expect(applied.length).toBe(held - answeredBefore);
    expect(report.items.filter((item) => item.errors.length > 0)).toEqual([]);
    // The resumed attempts name the input file as the run was given it.
    expect(new Set(report.items.map((item) => (item.source as { file?: string }).file))).toEqual(
      new Set(['sittings.csv']),
    );
    writeFileSync(join(dir, 'world.json'), (await examctl(['local', 'export'], dir, env)).stdout);
    const created = storeRecords('Schedules').filter((schedule) => schedule.ScheduleExtId?.startsWith('S-K-'));
    expect(created).toHaveLength(300);
  });
});

describe('a killed user sync on a local store, resumed', () => {
  it('what the store changed since the run began is done, not sent again; the next --changed-only night sends nothing', async () => {
    await writeUsersCsv(join(dir, 'users.csv'), range('ap', 300));
    expect(await killAt(['user', 'sync', '--file', 'users.csv', '--changed-only'], 'outcome:100')).toBe(true);
    const answeredBefore = (await showLast()).items.filter((item) => item.status === 'ok').length;
    writeFileSync(join(dir, 'world.json'), (await examctl(['local', 'export'], dir, env)).stdout);
    const held = storeRecords('Users').filter((user) => user.ExternalId?.startsWith('ap-')).length;
    expect((await examctl(['--yes', 'runs', 'resume'], dir, env)).code).toBe(0);
    const report = await showLast();
    expect(report.summary).toMatchObject({ total: 300, ok: 300, failed: 0, skipped: 0 });
    const applied = report.items.filter((item) => item.note?.startsWith(APPLIED_BEFORE_INTERRUPT));
    expect(applied.length).toBe(held - answeredBefore);
    const night = await examctl(['--json', 'user', 'sync', '--file', 'users.csv', '--changed-only'], dir, env);
    expect(night.code, night.stderr).toBe(0);
    const items = (JSON.parse(night.stdout) as { items: { action?: string }[] }).items;
    expect(items.filter((item) => item.action !== 'unchanged')).toEqual([]);
  });
});

describe('another writer between a kill and its resume, on a local store', () => {
  it('a key it changed is sent again (on record but never applied, or applied and answered): the store holds the run file’s values; what the attempt applied is not sent again', async () => {
    const ids = range('aw', 600);
    await writeUsersCsv(join(dir, 'users.csv'), ids);
    // Killed once 500 rows are on record as sent (the answers before them written with them): the first
    // rows answered, some applied since with no answer recorded, the rest sent ahead, not applied.
    expect(await killAt(['user', 'sync', '--file', 'users.csv'], 'sent:500')).toBe(true);
    const killed = await showLast();
    const answeredBefore = killed.items.filter((item) => item.status === 'ok').length;
    writeFileSync(join(dir, 'world.json'), (await examctl(['local', 'export'], dir, env)).stdout);
    const held = new Set(
      storeRecords('Users').flatMap((user) => (user.ExternalId?.startsWith('aw-') ? [user.ExternalId] : [])),
    );
    // Put on record as sent ahead of the kill (docs/runs.md, "Sent ahead"), not applied: the other writer's.
    const other = ids.find((id, i) => i > answeredBefore + 20 && !held.has(id))!;
    // No definite answer (9026), its resume named.
    expect(killed.items.find((item) => item.id === other)?.errors[0]).toMatchObject({
      code: 9026,
      message: expect.stringContaining(`examctl runs resume ${killed.run}`),
    });
    // Applied and answered before the kill: its outcome is kept, though the other writer changed it.
    const answered = ids[0]!;
    expect(killed.items.find((item) => item.id === answered)?.status).toBe('ok');
    const row = (id: string) => `${id},Other,Writer,${id}@example.test,name-${id},Candidate`;
    writeFileSync(
      join(dir, 'other.csv'),
      `ExternalId,FirstName,LastName,Email,UserName,Role\n${row(other)}\n${row(answered)}\n`,
    );
    const written = await examctl(
      ['user', 'sync', '--file', 'other.csv', '--sync-dir', join(dir, 'other-memory')],
      dir,
      env,
    );
    expect(written.code, written.stderr).toBe(0);
    const resumed = await examctl(['--yes', 'runs', 'resume', killed.run, '--over-later-runs'], dir, env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const report = JSON.parse((await examctl(['--json', 'runs', 'show', killed.run], dir, env)).stdout) as ShownReport;
    expect(report.summary).toMatchObject({ total: 600, ok: 600, failed: 0 });
    const notes = (id: string) => report.items.find((item) => item.id === id)?.note ?? '';
    expect(notes(other)).not.toContain(APPLIED_BEFORE_INTERRUPT);
    expect(notes(answered)).toMatch(/sent again: the store holds other values than the row's/);
    expect(notes(ids[1]!)).not.toMatch(/sent again/);
    // The keys the killed attempt applied after its last answer stand, not sent again.
    const applied = report.items.filter((item) => item.note?.startsWith(APPLIED_BEFORE_INTERRUPT));
    expect(applied.length).toBe(held.size - answeredBefore);
    writeFileSync(join(dir, 'world.json'), (await examctl(['local', 'export'], dir, env)).stdout);
    for (const id of [other, answered]) {
      const user = storeRecords('Users').find((one) => one.ExternalId === id) as { FirstName?: string };
      expect(user.FirstName).toBe(`First ${id}`);
    }
  });
});

describe('another writer creates a schedule a killed schedule push (Upsert false) had on record but never applied', () => {
  it('the resume does not take it for the run’s: its create is refused as existing and reported so, exit 1', async () => {
    const header =
      'ScheduleExtId,AssessmentExtId,Title,StartDateTime,EndDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email';
    const row = (s: number, title: string) =>
      `S-W-${s},A-MATH-1,${title} ${s},2026-12-14T09:00:00Z,2026-12-14T12:00:00Z,H-W-${s},Group ${s},stu-w${s},Ann,Lee,ann${s}@students.example.test`;
    const count = 400;
    writeFileSync(
      join(dir, 'sittings.csv'),
      `${[header, ...Array.from({ length: count }, (_, s) => row(s, 'Sitting'))].join('\n')}\n`,
    );
    expect(await killAt(['schedule', 'push', '--file', 'sittings.csv'], 'sent:350')).toBe(true);
    const killed = await showLast();
    writeFileSync(join(dir, 'world.json'), (await examctl(['local', 'export'], dir, env)).stdout);
    const held = new Set(storeRecords('Schedules').map((schedule) => schedule.ScheduleExtId));
    const other = Array.from({ length: count }, (_, s) => s).find((s) => s > 20 && !held.has(`S-W-${s}`))!;
    expect(killed.items.find((item) => item.id === `S-W-${other}`)?.errors[0]).toMatchObject({
      code: 9026,
      message: expect.stringContaining(`examctl runs resume ${killed.run}`),
    });
    writeFileSync(join(dir, 'other.csv'), `${header}\n${row(other, 'Another')}\n`);
    const written = await examctl(['schedule', 'push', '--file', 'other.csv'], dir, env);
    expect(written.code, written.stderr).toBe(0);
    const resumed = await examctl(['--yes', 'runs', 'resume', killed.run, '--over-later-runs'], dir, env);
    expect(resumed.code, resumed.stderr).toBe(1);
    const report = JSON.parse((await examctl(['--json', 'runs', 'show', killed.run], dir, env)).stdout) as ShownReport;
    const failed = report.items.filter((item) => item.status === 'failed');
    expect(failed.map((item) => item.id)).toEqual([`S-W-${other}`]);
    // In doubt, naming the attempt: created by it, or there before.
    expect(failed[0]!.note).toMatch(new RegExp(`run ${killed.run} .*created`));
  });
});

describe('honest ends', () => {
  it('a closed stdout (EPIPE) ends like Ctrl-C: exit 141, the report written, the run resumable', async () => {
    await writeUsersCsv(join(dir, 'big.csv'), range('p', 2000));
    const ended = await new Promise<{ status: string; stderr: string }>((resolve) =>
      execFile(
        'bash',
        [
          '-c',
          `"${process.execPath}" "${BIN}" --json user sync --file big.csv --report r.json | head -c 100 >/dev/null; echo "\${PIPESTATUS[0]}"`,
        ],
        { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, ...env } },
        (_error, stdout, stderr) => resolve({ status: stdout.trim(), stderr }),
      ),
    );
    expect(ended.status).toBe('141');
    // stderr, still open, says how the run ended.
    const report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as ShownReport;
    expect(report.run).toMatch(/^\d{8}T/);
    expectCoded(ended.stderr, 'E1410', `examctl runs resume ${report.run}`);
    expect(report.summary.total).toBeGreaterThan(0);
    expect(readFileSync(join(dir, 'runs', report.run, 'journal.ndjson'), 'utf8')).toContain('"reason":"closed-pipe"');
    await resumeUntilFinished();
    expect((await showLast()).summary).toMatchObject({ total: 2000, ok: 2000 });
  });

  it.skipIf(!existsSync('/dev/full'))(
    'stdout on a full disk (/dev/full) ends like a closed pipe: exit 141, no stack trace, stderr says why, the report written, the run resumable',
    async () => {
      await writeUsersCsv(join(dir, 'big.csv'), range('f', 2000));
      const ended = await new Promise<{ status: string; stderr: string }>((resolve) =>
        execFile(
          'bash',
          [
            '-c',
            `"${process.execPath}" "${BIN}" --json user sync --file big.csv --report r.json >/dev/full; echo "$?"`,
          ],
          { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, ...env } },
          (_error, stdout, stderr) => resolve({ status: stdout.trim(), stderr }),
        ),
      );
      expect(ended.status).toBe('141');
      expectCoded(ended.stderr, 'E1410', 'standard output', 'ENOSPC');
      expect(ended.stderr).not.toMatch(/\n\s+at /);
      // The other stream still tells how the run ended.
      expect(ended.stderr).toMatch(/items: \d+ ok/);
      const report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as ShownReport;
      expect(readFileSync(join(dir, 'runs', report.run, 'journal.ndjson'), 'utf8')).toContain('"reason":"closed-pipe"');
      expect(readdirSync(dir).filter((name) => name.startsWith('.atomic'))).toEqual([]);
      await resumeUntilFinished();
      expect((await showLast()).summary).toMatchObject({ total: 2000, ok: 2000 });
    },
  );

  /**
   * A full disk, made with a file size limit (EFBIG) on the CLI alone: `user sync` of `file` to a
   * `local serve` in this process (its store is not limited), then, once the limited run ended,
   * resumed without the limit until finished; `check` is given how the limited run ended.
   */
  async function limitedRunThenResume(
    file: string,
    limitKiB: number,
    extra: string[],
    check: (ended: { status: string; stdout: string; stderr: string }) => void,
  ): Promise<void> {
    const server = await serveLocalStore({ storeDir: join(dir, 'served') });
    try {
      const args = [
        ...extra,
        '--json',
        '--yes',
        'user',
        'sync',
        '--file',
        file,
        '--target',
        'remote',
        '--base-url',
        server.url,
      ].join(' ');
      const ended = await new Promise<{ status: string; stdout: string; stderr: string }>((resolve) =>
        execFile(
          'bash',
          ['-c', `trap '' XFSZ; ulimit -f ${limitKiB}; "${process.execPath}" "${BIN}" ${args}; echo "exit $?" >&2`],
          {
            cwd: dir,
            env: { PATH: process.env.PATH ?? '', HOME: dir, ...env, EXAMCTL_TOKEN: 'dev-token' },
            maxBuffer: 64 * 1024 * 1024,
          },
          (_error, stdout, stderr) => resolve({ status: /exit (\d+)\s*$/.exec(stderr)?.[1] ?? '', stdout, stderr }),
        ),
      );
      check(ended);
      // The run named its --base-url on the command line: the resume is given the same one, as a CI job would (docs/security.md).
      env = { ...env, EXAMCTL_TOKEN: 'dev-token', EXAMCTL_BASE_URL: server.url };
      await resumeUntilFinished();
    } finally {
      await server.close();
    }
  }

  it('a run journal that cannot be written mid-run stops the run: exit 3, one whole JSON document, the run resumable', async () => {
    // The file's name is in every journal line, not in the sync memory's: a long one makes the
    // journal, not the memory (which also grows, by an intent and an answer a user), meet the limit.
    const big = `big-${'x'.repeat(150)}.csv`;
    await writeUsersCsv(join(dir, big), range('j', 1000));
    await limitedRunThenResume(big, 64, [], (ended) => {
      expect(ended.status, ended.stderr).toBe('3');
      expect(ended.stderr).toMatch(
        /cannot write the run journal \S+: the file would grow past the largest size allowed .*\(EFBIG\): the run stopped, in-flight work finished \(see the report\) \(examctl runs resume \S+ sends the rest\)/,
      );
      const report = JSON.parse(ended.stdout) as ShownReport;
      expect(report.summary.total).toBe(1000);
      // How many answers were journaled before the limit depends on when they came (a loaded machine: none):
      // what is fixed is that the run stopped short and left the rest for the resume.
      expect(report.summary.ok).toBeLessThan(1000);
      expect(report.summary.skipped).toBeGreaterThan(0);
      // The journal closed and the run let go (its units sent ahead withdrawn or not): no LOCK left for the resume to break.
      expect(existsSync(join(dir, 'runs', report.run, 'LOCK'))).toBe(false);
    });
    expect((await showLast()).summary).toMatchObject({ total: 1000, ok: 1000 });
  });

  it('a sync memory that cannot be written mid-run (an intent before a request) stops the run: exit 3, one whole JSON document, the run resumable', async () => {
    // Long names are in the memory's lines (a disable needs them), not in the journal's: the memory meets the limit first.
    const name = 'n'.repeat(400);
    const lines = ['ExternalId,FirstName,LastName,Role'];
    for (const id of range('m', 1000)) lines.push(`${id},${name},${name},Candidate`);
    writeFileSync(join(dir, 'named.csv'), `${lines.join('\n')}\n`);
    await limitedRunThenResume('named.csv', 64, [], (ended) => {
      expect(ended.status, ended.stderr).toBe('3');
      expect(ended.stderr).toMatch(
        /cannot write the sync memory \S+: the file would grow past .*\(EFBIG\) .*: the run stopped, in-flight work finished \(see the report\) \(examctl runs resume \S+ sends the rest\)/,
      );
      const report = JSON.parse(ended.stdout) as ShownReport;
      expect(report.summary.total).toBe(1000);
      expect(report.summary.skipped).toBeGreaterThan(0);
    });
    expect((await showLast()).summary).toMatchObject({ total: 1000, ok: 1000 });
  });

  it('a --report file that cannot be written mid-run stops the run: exit 3, the file not left half-written, stdout whole, the run resumable', async () => {
    // About 1.5 KB a report row of an invalid user (its long addresses shown, never sent nor
    // remembered) against 300 bytes a journal item and a short valid user's memory line: the
    // report's first 1 MiB write meets the limit while the journal and the memory are far from it.
    const address = 'x'.repeat(480);
    const lines = ['ExternalId,FirstName,LastName,Email,UserName,Role,PostalAddress,AddressLine1,AddressLine2'];
    for (const id of range('r', 2000)) {
      lines.push(`${id},F,L,${id}@example.test,name-${id},Candidate,,,`);
      lines.push(`bad-${id},F,L,not-an-email,name-bad-${id},Candidate,${address},${address},${address}`);
    }
    writeFileSync(join(dir, 'long.csv'), `${lines.join('\n')}\n`);
    await limitedRunThenResume('long.csv', 1024, ['--report', 'r.csv'], (ended) => {
      expect(ended.status, ended.stderr).toBe('3');
      expect(ended.stderr).toMatch(
        /cannot write report r\.csv: the file would grow past .*\(EFBIG\): the run stopped, in-flight work finished, the report file was not kept \(examctl runs resume \S+ sends the rest\); examctl runs show \S+ --report r\.csv writes the report again/,
      );
      const report = JSON.parse(ended.stdout) as ShownReport;
      expect(report.summary.total).toBe(4000);
      expect(report.summary.ok).toBeGreaterThan(0);
      expect(report.summary.skipped).toBeGreaterThan(0);
      expect(ended.stderr).not.toContain('report written to');
      expect(readdirSync(dir).filter((name) => name === 'r.csv' || name.startsWith('.atomic'))).toEqual([]);
      expect(readFileSync(join(dir, 'runs', report.run, 'journal.ndjson'), 'utf8')).toContain(
        '"reason":"target-error"',
      );
    });
    expect((await showLast()).summary).toMatchObject({ total: 4000, ok: 2000, failed: 2000 });
  });

  it('a dry run with invalid rows into a closed pipe is not exit 0', async () => {
    const lines = ['ExternalId,FirstName,LastName,Email,UserName,Role'];
    for (let i = 0; i < 3000; i++) lines.push(`d-${i},F,L,not-an-email,n-${i},Candidate`);
    writeFileSync(join(dir, 'bad.csv'), `${lines.join('\n')}\n`);
    const status = await new Promise<string>((resolve) =>
      execFile(
        'bash',
        [
          '-c',
          `"${process.execPath}" "${BIN}" --json --dry-run user sync --file bad.csv | head -c 10 >/dev/null; echo "\${PIPESTATUS[0]}"`,
        ],
        { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, ...env } },
        (_error, stdout) => resolve(stdout.trim()),
      ),
    );
    expect(status).not.toBe('0');
  });

  // SIGHUP: a closed terminal or ssh session, which by default would kill the run with no report and no end line.
  it.each(['SIGTERM', 'SIGHUP'] as const)(
    '%s ends like Ctrl-C: exit 130, the report written, no temp files left, the run interrupted',
    async (signal) => {
      await writeUsersCsv(join(dir, 'users.csv'), range('t', 2000));
      // The run signals itself after its 100th outcome, as the terminal or the session would mid-run.
      const finished = await examctl(['user', 'sync', '--file', 'users.csv', '--report', 'r.csv'], dir, {
        ...env,
        EXAMCTL_TEST_SIGNAL_AFTER: `outcome:100:${signal}`,
      });
      expect(finished.signal).toBeNull();
      expect(finished.code).toBe(130);
      expect(existsSync(join(dir, 'r.csv'))).toBe(true);
      expect(readdirSync(dir).filter((name) => name.includes('.tmp') || name.includes('.atomic-'))).toEqual([]);
      const listed = await examctl(['runs', 'list'], dir, env);
      expect(listed.stdout).toMatch(/ interrupted /);
    },
  );
});

/** Resolves once `running` has said its run id on stderr: its journal and report are open. */
async function runNamed(running: ReturnType<typeof startExamctl>): Promise<void> {
  let stderr = '';
  running.child.stderr!.on('data', (chunk: string) => (stderr += chunk));
  await new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      if (/run \S+ \(examctl runs show/.test(stderr)) {
        clearInterval(poll);
        resolve();
      }
    }, 5);
  });
}

describe('a second Ctrl-C', () => {
  it('quits at once (exit 130) and still leaves no half-written report temp file beside the report', async () => {
    // A server that never answers: the run cannot finish before the signals, however fast the machine,
    // and the first Ctrl-C alone would wait for the requests in flight.
    const server = await startFaultServer();
    server.fallback = { hold: new Promise<void>(() => undefined) };
    try {
      await writeUsersCsv(join(dir, 'users.csv'), range('q', 50));
      const running = startExamctl(
        [
          '--target',
          'remote',
          '--base-url',
          server.url,
          '--yes',
          'user',
          'sync',
          '--file',
          'users.csv',
          '--report',
          'r.csv',
        ],
        dir,
        { ...env, EXAMCTL_TOKEN: 'dev-token' },
      );
      await runNamed(running);
      // The report's temp file is open from the start of the run.
      expect(readdirSync(dir).some((name) => name.startsWith('.atomic-') && name.endsWith('-r.csv'))).toBe(true);
      running.child.kill('SIGINT');
      running.child.kill('SIGINT');
      const finished = await running.done;
      expect(finished.code).toBe(130);
      expect(readdirSync(dir).filter((name) => name.startsWith('.atomic-'))).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe('runs resume refuses, exit 2 with the reason', () => {
  it('a changed --schedule file (it shapes every request, as the input does)', async () => {
    const schedule = {
      AssessmentExtId: 'A-MATH-1',
      StartDateTime: '2026-12-14T09:00:00Z',
      EndDateTime: '2026-12-14T12:00:00Z',
    };
    writeFileSync(join(dir, 'schedule.json'), JSON.stringify(schedule));
    const lines = ['ScheduleExtId,Title,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email'];
    for (let s = 0; s < 1500; s++)
      lines.push(`S-F-${s},Sitting ${s},H-F-${s},Group ${s},stu-f${s},Ann,Lee,annf${s}@students.example.test`);
    writeFileSync(join(dir, 'sittings.csv'), `${lines.join('\n')}\n`);
    // --upsert: a resend of what the killed attempt made is an update, so the resume ends all ok.
    expect(
      await killAt(
        ['schedule', 'push', '--file', 'sittings.csv', '--schedule', 'schedule.json', '--upsert'],
        'outcome:100',
      ),
    ).toBe(true);
    writeFileSync(join(dir, 'schedule.json'), JSON.stringify({ ...schedule, EndDateTime: '2026-12-14T13:00:00Z' }));
    const changed = await examctl(['runs', 'resume'], dir, env);
    expect(changed.code).toBe(2);
    expectCoded(changed.stderr, 'E2200', `--schedule file ${join(dir, 'schedule.json')}`, 'SHA-256');
    const shown = JSON.parse((await examctl(['--json', 'runs', 'show', 'last'], dir, env)).stdout) as {
      unlisted?: { reason: string };
    };
    expect(shown.unlisted?.reason).toMatch(/--schedule file \S*schedule\.json changed/);

    writeFileSync(join(dir, 'schedule.json'), JSON.stringify(schedule));
    const resumed = await examctl(['runs', 'resume'], dir, env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await showLast()).summary).toMatchObject({ total: 1500, ok: 1500 });
  });

  it('a changed --map-file (its value tables shape every request, as the input does)', async () => {
    const map = { 'Student ID': 'ExternalId', Given: 'FirstName', Family: 'LastName', Mail: 'Email', Role: 'Role' };
    writeFileSync(join(dir, 'map.json'), JSON.stringify(map));
    const lines = ['Student ID,Given,Family,Mail,Role'];
    for (let n = 0; n < 1500; n++) lines.push(`mf-${n},Ann,Lee,mf${n}@students.example.test,Candidate`);
    writeFileSync(join(dir, 'export.csv'), `${lines.join('\n')}\n`);
    expect(await killAt(['user', 'sync', '--file', 'export.csv', '--map-file', 'map.json'], 'outcome:100')).toBe(true);
    writeFileSync(join(dir, 'map.json'), JSON.stringify({ ...map, Given: 'LastName', Family: 'FirstName' }));
    const changed = await examctl(['runs', 'resume'], dir, env);
    expect(changed.code).toBe(2);
    expectCoded(changed.stderr, 'E2200', `--map-file file ${join(dir, 'map.json')}`, 'SHA-256');

    writeFileSync(join(dir, 'map.json'), JSON.stringify(map));
    const resumed = await examctl(['runs', 'resume'], dir, env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await showLast()).summary).toMatchObject({ total: 1500, ok: 1500 });
  });

  it('a local store replaced since the run started (local init --force, or deleted): nothing sent, no store made', async () => {
    await writeUsersCsv(join(dir, 'users.csv'), range('rs', 700));
    expect(await killAt(['user', 'sync', '--file', 'users.csv'], 'outcome:50')).toBe(true);
    expect((await examctl(['local', 'init', '--force'], dir, env)).code).toBe(0);
    const replaced = await examctl(['runs', 'resume'], dir, env);
    expect(replaced.code).toBe(2);
    // The store the run recorded, and the two ways on: put it back, or a new run.
    expectCoded(replaced.stderr, 'E2200', join(dir, 'store'), 'not --store', 'run the file again');
    // runs show cannot tell a store replaced from one moved: its rows keep naming the resume, whose
    // refusal says to put the store back; never "run the file again", which at a moved store makes a
    // create in doubt twice (trial37 F03).
    const shown = (await examctl(['--json', 'runs', 'show', 'last'], dir, env)).stdout;
    expect(shown).toContain('not sent: the run stopped before it (examctl runs resume');
    expect(shown).not.toContain('run the file again');
    writeFileSync(join(dir, 'world.json'), (await examctl(['local', 'export'], dir, env)).stdout);
    expect(storeRecords('Users').filter((user) => user.ExternalId?.startsWith('rs-'))).toEqual([]);
    await rm(join(dir, 'store'), { recursive: true });
    // Moved (trial 12, F06): the words name the recorded path; --store is not used, said once.
    const moved = (await examctl(['runs', 'resume', '--store', 'store2'], dir, env)).stderr;
    expectCoded(moved, 'E2200', `no store of the run's at ${join(dir, 'store')}`);
    expect(moved.match(/--store/g)).toHaveLength(1);
    expect(existsSync(join(dir, 'store'))).toBe(false);
  });

  it('a finished run, a changed input', async () => {
    await writeUsersCsv(join(dir, 'users.csv'), range('r', 5));
    expect((await examctl(['user', 'sync', '--file', 'users.csv'], dir, env)).code).toBe(0);
    // Run twice, a resume ends as the run did: nothing sent, its report, its exit status (docs/runs.md, "runs resume").
    const finished = await examctl(['--json', 'runs', 'resume', 'last'], dir, env);
    expect(finished.code).toBe(0);
    const { run, summary } = JSON.parse(finished.stdout) as ShownReport;
    expect(summary).toMatchObject({ total: 5, ok: 5 });
    expect(lineWith(finished.stderr, `run ${run} `, 'nothing to resume', '--only-failed')).toBeTruthy();
    const none = await examctl(['--json', 'runs', 'resume'], dir, env);
    expect(none.code).toBe(0);
    expect(lineWith(none.stderr, 'no interrupted run', join(dir, 'runs'), 'examctl runs list')).toBeTruthy();
    expect(JSON.parse(none.stdout)).toMatchObject({ run: null, resumed: false });

    await writeUsersCsv(join(dir, 'more.csv'), range('m', 2000));
    expect(await killAt(['user', 'sync', '--file', 'more.csv'], 'outcome:100')).toBe(true);
    await writeUsersCsv(join(dir, 'more.csv'), range('x', 2000));
    const changed = await examctl(['runs', 'resume'], dir, env);
    expect(changed.code).toBe(2);
    expectCoded(changed.stderr, 'E2200', join(dir, 'more.csv'), 'SHA-256');
  });
});
