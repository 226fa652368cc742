import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { range, writeUsersCsv } from '../durability/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import {
  type FaultServer,
  startUserSyncService,
  stopUserSyncService,
  type UserSyncService,
} from '../support/fault-server.js';

/**
 * An older interrupted night resumed after a newer night finished on the same target
 * (docs/runs.md, "runs resume"): it would send its older rows over the newer night's, and
 * disable as its leavers users the newer export still has, with exit 0. Refused (exit 2, nothing
 * sent) unless --over-later-runs; counted by a loopback server.
 */

const USERS = 600;
const all = range('stu', USERS);
const leavers = all.slice(100, 103);

let dir: string;
let env: Record<string, string>;
let service: FaultServer;
let setup: UserSyncService;
let applied: { id: string; disabled: boolean }[];

beforeEach(async () => {
  setup = await startUserSyncService('examctl-later-run-', (user) => {
    applied.push({ id: user.ExternalId as string, disabled: user.DisableLogin === true });
  });
  ({ dir, env, service } = setup);
  applied = [];
  await writeUsersCsv(join(dir, 'full.csv'), all);
  // The older night's export: three users gone (its leavers), exported under a dated name.
  await writeUsersCsv(
    join(dir, 'night-12.csv'),
    all.filter((id) => !leavers.includes(id)),
  );
});
afterEach(() => stopUserSyncService(setup));

const remote = () => setup.remote();
const night = (file: string) => ['user', 'sync', '--file', file, ...remote(), '--changed-only', '--disable-missing'];

describe('runs resume after a later run on the same target', () => {
  it('is refused (exit 2, nothing sent) naming the later run; --over-later-runs resumes it', async () => {
    expect((await examctl(['user', 'sync', '--file', 'full.csv', ...remote()], dir, env)).code).toBe(0);
    // The older night, killed before it reached its leavers (they go after the file's rows).
    const killed = await examctl(night('night-12.csv'), dir, {
      ...env,
      EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:300:SIGKILL',
    });
    expect(killed.signal).toBe('SIGKILL');
    expect(applied.filter((user) => user.disabled)).toEqual([]);
    // The newer night (everyone back in the export) finishes.
    // full.csv, which the first run read, after night-12.csv: the file an older run read (docs/sync.md, "Stale input"), meant here.
    const newer = await examctl([...night('full.csv'), '--json', '--allow-old-file'], dir, env);
    expect(newer.code, newer.stderr).toBe(0);
    const newerRun = (JSON.parse(newer.stdout) as { run: string }).run;

    applied = [];
    // The older night by its id (without one, runs resume takes only the newest run, which finished).
    const older = /run (\S+) \(examctl runs show/.exec(killed.stderr)![1]!;
    const refused = await examctl(
      ['--base-url', service.url, '--allow-insecure-http', '--yes', 'runs', 'resume', older],
      dir,
      env,
    );
    expect(refused.code, refused.stderr).toBe(2);
    expectCoded(refused.stderr, 'E2202', 'user sync', newerRun);
    expect(refused.stderr.replace(/\s+/g, ' ')).toContain(
      "If a later run was this run's own retry (its report with --only-failed) and ended ok, this run's work is done",
    );
    expect(refused.stderr).toContain('--over-later-runs');
    expect(applied).toEqual([]);

    // Asked for in so many words, the older night goes on: its leavers are disabled.
    const forced = await examctl(
      ['--base-url', service.url, '--allow-insecure-http', '--yes', 'runs', 'resume', older, '--over-later-runs'],
      dir,
      env,
    );
    expect(forced.code, forced.stderr).toBe(0);
    expect(
      applied
        .filter((user) => user.disabled)
        .map((user) => user.id)
        .sort(),
    ).toEqual([...leavers].sort());
  });
});
