import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { range, writeUsersCsv } from '../durability/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { okEnvelope, startFaultServer } from '../support/fault-server.js';

/** A report row's run column: the run's id. */
const RUN = expect.stringMatching(/^\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{4}$/) as unknown as string;

/**
 * The leavers of `user sync --disable-missing` in the run report of a table input (docs/sync.md,
 * "Leavers"): a leaver's row is a row of the report, its ExternalId in the ExternalId column, so
 * `--only-failed` sends a failed disable again; and `runs list` counts an interrupted run's
 * leavers and unreached rows as `runs show` does (docs/runs.md, "The journal").
 */

const USERS = 200;
const all = range('stu', USERS);
const leaver = all[7]!;

/** A loopback service: POST /user answered ok, except a 400 (code 202) for the ids in `failing`; every body kept. */
async function startServer(): Promise<{
  url: string;
  bodies: Record<string, unknown>[];
  failing: Set<string>;
  close: () => Promise<void>;
}> {
  const bodies: Record<string, unknown>[] = [];
  const failing = new Set<string>();
  const service = await startFaultServer();
  service.fallback = (request) => {
    const user = JSON.parse(request.body) as Record<string, unknown>;
    bodies.push(user);
    return failing.has(String(user.ExternalId))
      ? { status: 400, body: { Content: null, Success: false, Errors: [{ Code: 202, Message: 'User not found' }] } }
      : okEnvelope({ User: user, GroupErrors: [] });
  };
  return { url: service.url, bodies, failing, close: () => service.close() };
}

let dir: string;
let env: Record<string, string>;
let server: Awaited<ReturnType<typeof startServer>>;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-leaver-'));
  env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'synced'), EXAMCTL_TOKEN: 'dev-token' };
  await writeUsersCsv(join(dir, 'full.csv'), all);
  await writeUsersCsv(
    join(dir, 'tonight.csv'),
    all.filter((id) => id !== leaver),
  );
  server = await startServer();
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const remote = () => ['--target', 'remote', '--base-url', server.url, '--allow-insecure-http', '--yes'];
const sync = (file: string, ...flags: string[]) =>
  examctl(['user', 'sync', '--file', file, ...remote(), ...flags], dir, env);

/** Parses a plain CSV report (no quoted cells in these files). */
function csvRows(file: string): string[][] {
  return readFileSync(join(dir, file), 'utf8')
    .trimEnd()
    .split(/\r?\n/)
    .map((line) => line.split(','));
}

describe('a leaver in the report of a table input', () => {
  for (const report of ['report.csv', 'report.xlsx']) {
    it(`${report}: a well-formed row; fed back with --only-failed it sends the disable again`, async () => {
      expect((await sync('full.csv')).code).toBe(0);
      server.failing.add(leaver);
      const night = await sync('tonight.csv', '--changed-only', '--disable-missing', '--report', report);
      expect(night.code, night.stderr).toBe(1);
      if (report.endsWith('.csv')) {
        const [header, ...rows] = csvRows(report);
        // The input has no DisableLogin column: the report adds one, so the leaver's row can say it.
        expect(header).toEqual([
          'ExternalId',
          'FirstName',
          'LastName',
          'Email',
          'UserName',
          'Role',
          'DisableLogin',
          'status',
          'error_codes',
          'error_messages',
          'action',
          'note',
          'run',
        ]);
        expect(rows.every((row) => row.length === header!.length)).toBe(true);
        expect(rows.at(-1)).toEqual([
          leaver,
          `First ${leaver}`,
          `Last ${leaver}`,
          '',
          '',
          '',
          'true',
          'failed',
          '202',
          'User not found',
          '',
          '',
          RUN,
        ]);
        expect(rows[0]).toEqual([
          all[0],
          `First ${all[0]}`,
          `Last ${all[0]}`,
          `${all[0]}@example.test`,
          `name-${all[0]}`,
          'Candidate',
          '',
          'ok',
          '',
          '',
          'unchanged',
          expect.stringMatching(/^unchanged since run \S+: not sent \(--changed-only\)$/),
          RUN,
        ]);
      }
      server.failing.clear();
      server.bodies.length = 0;
      const retry = await sync(report, '--only-failed', '--json');
      expect(retry.code, retry.stderr).toBe(0);
      expect(server.bodies).toEqual([
        { ExternalId: leaver, FirstName: `First ${leaver}`, LastName: `Last ${leaver}`, DisableLogin: true },
      ]);
    });
  }

  it('a leaver that went ok keeps the column; the unchanged rows are not sent again from the report', async () => {
    expect((await sync('full.csv')).code).toBe(0);
    const night = await sync('tonight.csv', '--changed-only', '--disable-missing', '--report', 'report.csv');
    expect(night.code, night.stderr).toBe(0);
    const rows = csvRows('report.csv');
    expect(rows.at(-1)).toEqual([
      leaver,
      `First ${leaver}`,
      `Last ${leaver}`,
      '',
      '',
      '',
      'true',
      'ok',
      '',
      '',
      'disabled',
      '',
      RUN,
    ]);
    server.bodies.length = 0;
    const retry = await sync('report.csv', '--only-failed');
    expect(retry.code, retry.stderr).toBe(0);
    expect(server.bodies).toEqual([]);
  });
});

describe('runs list of an interrupted --disable-missing run', () => {
  it('counts every unit, as runs show does', async () => {
    expect((await sync('full.csv')).code).toBe(0);
    // Every row changed, so every row is sent; killed after the 5th answer is journaled.
    writeFileSync(
      join(dir, 'moved.csv'),
      readFileSync(join(dir, 'tonight.csv'), 'utf8').replace(/Candidate/g, 'Student'),
    );
    const killed = await examctl(
      ['user', 'sync', '--file', 'moved.csv', ...remote(), '--changed-only', '--disable-missing'],
      dir,
      { ...env, EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:5:SIGKILL' },
    );
    expect(killed.code).not.toBe(0);
    const listed = await examctl(['runs', 'list', '--json'], dir, env);
    expect(listed.code, listed.stderr).toBe(0);
    const run = (
      JSON.parse(listed.stdout) as { runs: { state: string; summary: { total: number; skipped: number } }[] }
    ).runs[0]!;
    expect(run.state).toBe('interrupted');
    // The file's rows and the one leaver.
    expect(run.summary.total).toBe(USERS);
    const shown = await examctl(['runs', 'show', 'last', '--json'], dir, env);
    const report = JSON.parse(shown.stdout) as {
      summary: { total: number; ok: number; skipped: number };
      unlisted?: { count: number };
    };
    // runs list counts by status; runs show's summary adds the items' actions and the ok ones' created and
    // updated counts (docs/plan.md, "Actions"), present once an ok item has an action.
    const {
      actions: _actions,
      created: _created,
      updated: _updated,
      ...byStatus
    } = report.summary as typeof report.summary & { actions?: unknown; created?: number; updated?: number };
    expect(run.summary).toEqual(byStatus);
    // The leaver was not reached: counted, not listed (the journal does not name it).
    expect(report.unlisted?.count).toBe(1);
  });
});
