import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { RunJournal } from '../../src/runs/run-journal.js';
import { BIN, PINNED_NOW, ROOT } from '../support/cli.js';
import { childEnv } from '../support/child-env.js';
import { spawnSync } from 'node:child_process';
import { examctlStep as examctl } from '../support/in-process.js';
import { lineWith } from '../support/facts.js';

let dir: string;
let env: Record<string, string>;
const runsDir = (): string => join(dir, 'runs');

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-runs-cli-'));
  env = { EXAMCTL_RUNS_DIR: runsDir(), EXAMCTL_STORE: join(dir, 'store'), EXAMCTL_TOKEN: 'SECRET-TOKEN-1' };
  cpSync(join(ROOT, 'fixtures/sittings.csv'), join(dir, 'sittings.csv'));
  expect((await examctl(['local', 'init'], dir, env)).code).toBe(0);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function journalText(id: string): string {
  return readFileSync(join(runsDir(), id, 'journal.ndjson'), 'utf8');
}

describe('a journaled run', () => {
  it('says its id on stderr and in the JSON report; the journal keeps a --pin only as its hash, never the token', async () => {
    const run = await examctl(['--json', 'schedule', 'push', '--file', 'sittings.csv', '--pin', '4821'], dir, env);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as { run: string };
    expect(lineWith(run.stderr, `run ${report.run} `, `examctl runs show ${report.run}`)).toBeTruthy();
    const header = JSON.parse(journalText(report.run).split('\n')[0] as string) as {
      b: { options: Record<string, unknown> };
    };
    expect(header.b.options.pin).toBeUndefined();
    expect(header.b.options.pinSha256).toBe(createHash('sha256').update('4821').digest('hex'));
    expect(header.b.options).toMatchObject({ file: 'sittings.csv', cwd: dir });
    expect(journalText(report.run)).not.toContain('SECRET-TOKEN-1');
  });

  it("runs resume of an id that is no run here (another runner's, a typo) says so with exit 2, as runs show does, and makes no run directory (found by a trial)", async () => {
    for (const [id, said] of [
      ['nonsense', 'not a run id: "nonsense"'],
      ['20261126T031146.099Z-9ea3', `no run 20261126T031146.099Z-9ea3 in ${runsDir()}`],
    ] as const) {
      const resumed = await examctl(['runs', 'resume', id, '--yes'], dir, env);
      expect(resumed.code, resumed.stderr).toBe(2);
      expect(resumed.stderr).toContain(said);
      expect(existsSync(join(runsDir(), id))).toBe(false);
    }
  });

  it('a run refused before it sends (its --report cannot be written) keeps no journal and names no run', async () => {
    const refused = await examctl(
      ['schedule', 'push', '--file', 'sittings.csv', '--report', join(dir, 'no-such-dir', 'r.csv')],
      dir,
      env,
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/cannot write report/);
    expect(refused.stderr).not.toMatch(/\brun \d{8}T/);
    // Refused before the runs directory is even made, or with it empty.
    expect(existsSync(runsDir()) ? readdirSync(runsDir()) : []).toEqual([]);
    const listed = JSON.parse((await examctl(['--json', 'runs', 'list'], dir, env)).stdout) as { runs: unknown[] };
    expect(listed.runs).toEqual([]);
  });

  it('a resumed run whose --report cannot be written stays as it was, resumable', async () => {
    const started = await RunJournal.start(runsDir(), {
      command: 'schedule push',
      options: { file: join(dir, 'sittings.csv'), report: join(dir, 'gone', 'r.csv') },
      target: { kind: 'local', store: join(dir, 'store') },
      input: null,
    });
    await started.close();
    const resumed = await examctl(['runs', 'resume'], dir, env);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(/cannot write report/);
    const listed = JSON.parse((await examctl(['--json', 'runs', 'list'], dir, env)).stdout) as {
      runs: { id: string; state: string }[];
    };
    expect(listed.runs).toEqual([expect.objectContaining({ id: started.id, state: 'interrupted' })]);
  });

  it('a dry run keeps no journal', async () => {
    expect((await examctl(['--dry-run', 'schedule', 'push', '--file', 'sittings.csv'], dir, env)).code).toBe(0);
    expect(readdirSync(dir)).not.toContain('runs');
  });
});

describe('runs list, show, prune', () => {
  it('lists the run finished, shows its report with every item once, prunes nothing recent', async () => {
    const run = await examctl(['--json', 'schedule', 'push', '--file', 'sittings.csv'], dir, env);
    const report = JSON.parse(run.stdout) as { run: string; items: unknown[]; summary: unknown };
    const listed = JSON.parse((await examctl(['--json', 'runs', 'list'], dir, env)).stdout) as {
      runs: { id: string; state: string }[];
    };
    expect(listed.runs).toEqual([expect.objectContaining({ id: report.run, state: 'finished' })]);
    const human = await examctl(['runs', 'list'], dir, env);
    expect(human.stdout).toMatch(new RegExp(`^${report.run.replace('.', '\\.')}\\s+finished\\s+schedule push`));
    const shown = await examctl(['--json', 'runs', 'show', 'last', '--report', 'again.csv'], dir, env);
    expect(shown.code).toBe(0);
    const rebuilt = JSON.parse(shown.stdout) as { run: string; items: unknown[]; summary: unknown };
    expect(rebuilt.run).toBe(report.run);
    expect(rebuilt.summary).toEqual(report.summary);
    expect(rebuilt.items).toHaveLength(report.items.length);
    expect(readFileSync(join(dir, 'again.csv'), 'utf8')).toMatch(/status/);
    const pruned = JSON.parse((await examctl(['--json', 'runs', 'prune'], dir, env)).stdout) as { removed: string[] };
    expect(pruned.removed).toEqual([]);
    const week = JSON.parse((await examctl(['--json', 'runs', 'prune', '--older-than', '1w'], dir, env)).stdout) as {
      removed: string[];
    };
    expect(week.removed).toEqual([]);
    // A duration without its unit is refused (days? seconds?), naming the flag, and nothing is removed.
    const bare = await examctl(['runs', 'prune', '--older-than', '30'], dir, env);
    expect(bare.code).toBe(2);
    expectCoded(bare.stderr, 'E2001', '--older-than', '30');
    // The run started before the commands above ran: older than no time at all.
    const all = JSON.parse((await examctl(['--json', 'runs', 'prune', '--older-than', '0s'], dir, env)).stdout) as {
      removed: string[];
    };
    expect(all.removed).toEqual([report.run]);
  });

  it('show refuses an unknown id with exit 2', async () => {
    const shown = await examctl(['runs', 'show', '20201122T110502.481Z-3f9a'], dir, env);
    expect(shown.code).toBe(2);
    expect(shown.stderr).toMatch(/no run 20201122T110502\.481Z-3f9a/);
  });
});

describe('runs resume of a run started with --pin', () => {
  it('refuses without --pin or with another one (exit 2), resumes with the same one', async () => {
    const started = await RunJournal.start(runsDir(), {
      command: 'schedule push',
      options: { file: join(dir, 'sittings.csv'), pinSha256: createHash('sha256').update('4821').digest('hex') },
      target: { kind: 'local', store: join(dir, 'store') },
      input: null,
    });
    await started.close();
    const missing = await examctl(['runs', 'resume'], dir, env);
    expect(missing.code).toBe(2);
    expectCoded(missing.stderr, 'E2200', 'PIN', '--pin-file', 'EXAMCTL_PIN', '--pin');
    const other = await examctl(['runs', 'resume', '--pin', '1111'], dir, env);
    expect(other.code).toBe(2);
    expectCoded(other.stderr, 'E2200', 'PIN');
    expect(other.stderr).not.toContain('1111');
    const same = await examctl(['--json', 'runs', 'resume', '--pin', '4821'], dir, env);
    expect(same.stderr).toContain(`resuming run ${started.id}`);
    expect(same.code).toBe(0);
    expect((JSON.parse(same.stdout) as { run: string }).run).toBe(started.id);
  });

  it('a run started without one ignores EXAMCTL_PIN: it sends no PIN (trial29 F04)', async () => {
    const started = await RunJournal.start(runsDir(), {
      command: 'schedule push',
      options: { file: join(dir, 'sittings.csv') },
      target: { kind: 'local', store: join(dir, 'store') },
      input: null,
    });
    await started.close();
    expect((await examctl(['runs', 'resume'], dir, { ...env, EXAMCTL_PIN: '4711' })).code).toBe(0);
    expect((await examctl(['local', 'export', '--out', 'w.json'], dir, env)).code).toBe(0);
    const world = JSON.parse(readFileSync(join(dir, 'w.json'), 'utf8')) as { Schedules: Record<string, unknown>[] };
    const sent = world.Schedules.filter((schedule) =>
      ['S-MATH1-DEC', 'S-PHYS2-JAN'].includes(schedule.ScheduleExtId as string),
    );
    expect(sent.map((schedule) => [schedule.ScheduleExtId, schedule.PIN])).toEqual([
      ['S-MATH1-DEC', undefined],
      ['S-PHYS2-JAN', undefined],
    ]);
  });
});

describe('runs resume of a run with --clear-pin', () => {
  it("an older examctl's run that recorded --clear-pin beside EXAMCTL_PIN's digest resumes: it sends what it sent (trial40 F02)", async () => {
    const options = {
      file: join(dir, 'sittings.csv'),
      clearPin: true,
      pinSha256: createHash('sha256').update('4821').digest('hex'),
    };
    const started = await RunJournal.start(runsDir(), {
      command: 'schedule push',
      options,
      target: { kind: 'local', store: join(dir, 'store') },
      input: null,
    });
    await started.close();
    const resumed = await examctl(['runs', 'resume'], dir, { ...env, EXAMCTL_PIN: '4821' });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await examctl(['local', 'export', '--out', 'w.json'], dir, env)).code).toBe(0);
    const world = JSON.parse(readFileSync(join(dir, 'w.json'), 'utf8')) as { Schedules: Record<string, unknown>[] };
    expect(world.Schedules.find((schedule) => schedule.ScheduleExtId === 'S-MATH1-DEC')?.PIN).toBe('4821');
  });
});

describe('runs resume of a run that read stdin', () => {
  it('a run from stdin interrupted says runs resume cannot send the rest, and how to (not the resume it would refuse)', () => {
    const users = ['ExternalId,FirstName,LastName,Email,Role'];
    for (let i = 0; i < 600; i++) users.push(`p-${i},F,L,p${i}@example.test,Candidate`);
    const run = spawnSync(process.execPath, [BIN, 'user', 'sync', '--file', '-', '--target', 'local', '--json'], {
      cwd: dir,
      env: { ...childEnv(dir), ...env, EXAMCTL_NOW: PINNED_NOW, EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:1:SIGINT' },
      input: `${users.join('\n')}\n`,
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(130);
    const id = /^run (\S+) /m.exec(run.stderr)![1]!;
    const { error, items } = JSON.parse(run.stdout) as { error: { code: string; message: string }; items: unknown[] };
    expect(error.code).toBe('E1300');
    expect(error.message).not.toContain(`runs resume ${id}`);
    expect(error.message).toContain(`examctl runs show ${id}`);
    expect(items.length).toBe(600);
    // The run's own items it did not send say so too, not the resume it would refuse.
    const unsent = (items as { status: string; errors: { message: string }[] }[])
      .filter((item) => item.status === 'skipped')
      .map((item) => item.errors[0]!.message);
    expect(unsent.length).toBeGreaterThan(0);
    expect(unsent.filter((message) => message.includes('runs resume'))).toEqual([]);
    expect(unsent[0]).toContain('cannot be read again');
    // runs show names the same way on for each item the run did not send.
    const shown = spawnSync(process.execPath, [BIN, 'runs', 'show', id, '--json'], {
      cwd: dir,
      env: { ...childEnv(dir), ...env },
      encoding: 'utf8',
    });
    const skipped = (JSON.parse(shown.stdout) as { items: { status: string; errors: { message: string }[] }[] }).items
      .filter((item) => item.status === 'skipped')
      .map((item) => item.errors[0]!.message);
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped.filter((message) => message.includes('runs resume'))).toEqual([]);
    expect(skipped[0]).toContain('cannot be read again');
  });

  it('refuses with exit 2 saying stdin cannot be read again', async () => {
    const started = await RunJournal.start(runsDir(), {
      command: 'user sync',
      options: { file: '-' },
      target: { kind: 'local', store: join(dir, 'store') },
      input: null,
    });
    await started.close();
    const resumed = await examctl(['runs', 'resume'], dir, env);
    expect(resumed.code).toBe(2);
    expectCoded(resumed.stderr, 'E2200', `run ${started.id} `, '--file -');
  });
});
