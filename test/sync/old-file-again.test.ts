import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineWith } from '../support/facts.js';
import { runCli } from '../../src/cli/run-cli.js';
import { memoryDir } from '../../src/context/target.js';
import { decodeChecksummedLine, encodeChecksummedLine } from '../../src/system/checksummed-line.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { startStateServer, type StateServer } from '../support/state-server.js';
import { startUserSyncService, stopUserSyncService } from '../support/fault-server.js';
import { examctlStep } from '../support/in-process.js';

/**
 * An old night's file run again (docs/sync.md, "Stale input"): a file byte for byte the one an
 * older run of the population read, while its newest run read another, is refused before
 * anything is sent (exit 2, a dry run too) naming both runs and --allow-old-file; the newest
 * night's own file again is accepted. Night 2's file holds the newest joiner, so the joiner
 * rule alone lets it enable night 3's leaver again (as a memory without recorded files does).
 */

const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role';
const write = (dir: string, name: string, ids: readonly string[]) =>
  writeFileSync(
    join(dir, name),
    `${[HEADER, ...ids.map((id) => `${id},F,L ${id},${id}@example.test,n-${id},Candidate`)].join('\n')}\n`,
  );

async function cli(dir: string, argv: string[], env: Record<string, string> = {}) {
  const io = testDeps(
    dir,
    {},
    {
      EXAMCTL_RUNS_DIR: join(dir, 'runs'),
      EXAMCTL_SYNC_DIR: join(dir, 'synced'),
      EXAMCTL_LOCK_TIMEOUT_MS: '0',
      ...env,
    },
  );
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

const nightly = (file: string, ...more: string[]) => [
  'user',
  'sync',
  '--file',
  file,
  '--target',
  'local',
  '--store',
  'store',
  '--population',
  'staff',
  '--changed-only',
  '--disable-missing',
  '--prune-memberships',
  '--require-memory',
  '--yes',
  '--json',
  ...more,
];
/** The store's users as `local export` gives them: what a refused run must leave as it was. */
const exported = async (dir: string) => (await cli(dir, ['local', 'export', '--store', 'store'])).stdout;
const disabled = async (dir: string) =>
  (
    JSON.parse((await cli(dir, ['local', 'export', '--store', 'store'])).stdout) as {
      Users: { ExternalId: string; DisableLogin?: boolean }[];
    }
  ).Users.filter((user) => user.DisableLogin === true)
    .map((user) => user.ExternalId)
    .sort();

/** Nights 1 to 3: a joiner (st-j2) on night 2, a leaver (st-0) on night 3. Returns the runs of nights 2 and 3. */
async function threeNights(dir: string, env: Record<string, string> = {}): Promise<{ night2: string; night3: string }> {
  const staff = Array.from({ length: 20 }, (_, i) => `st-${i}`);
  write(dir, 'night1.csv', staff);
  write(dir, 'night2.csv', [...staff, 'st-j2']);
  write(dir, 'night3.csv', [...staff.slice(1), 'st-j2']);
  const first = await cli(
    dir,
    nightly('night1.csv').filter((flag) => flag !== '--require-memory'),
    env,
  );
  expect(first.code, first.stderr).toBe(0);
  const runs: string[] = [];
  for (const night of ['night2.csv', 'night3.csv']) {
    const run = await cli(dir, nightly(night), env);
    expect(run.code, run.stderr).toBe(0);
    runs.push((JSON.parse(run.stdout) as { run: string }).run);
  }
  expect(await disabled(dir)).toEqual(['st-0']);
  return { night2: runs[0]!, night3: runs[1]! };
}

const refusal = (older: string, newest: string) =>
  `this file is byte for byte the one run ${older} read, while the newest run of --population staff (${newest}) read another: is it an old night's file run again? ` +
  `Sent now, it would undo what the later runs did (enable the leavers they disabled, revert the changes they sent). Nothing was sent. If it is meant, run again with --allow-old-file (docs/sync.md, "Stale input")`;

describe("an old night's file run again", () => {
  it("is refused, a dry run too, nothing changed, naming both runs and the flag; --allow-old-file runs it; the newest night's file again is accepted", () =>
    withTempDir(async (dir) => {
      const { night2, night3 } = await threeNights(dir);
      const before = await exported(dir);
      for (const dry of [['--dry-run'], []]) {
        const again = await cli(dir, nightly('night2.csv', ...dry));
        expect(again.code).toBe(2);
        expect(again.stderr).toContain(refusal(night2, night3));
      }
      expect(await exported(dir)).toBe(before);
      // Tonight's file again changes nothing: accepted.
      const same = await cli(dir, nightly('night3.csv'));
      expect(same.code, same.stderr).toBe(0);
      expect(await exported(dir)).toBe(before);
      // Meant: the old file is sent, st-0 enabled again (night 2's file holds the newest joiner: the joiner rule passes it).
      const allowed = await cli(dir, nightly('night2.csv', '--allow-old-file'));
      expect(allowed.code, allowed.stderr).toBe(0);
      expect(await disabled(dir)).toEqual([]);
    }));

  it("a plain send of a newer export records its file: the newest night's file after it is an old file (trial20 f02)", () =>
    withTempDir(async (dir) => {
      const { night3 } = await threeNights(dir);
      // Night 4's export (st-1's name changed) sent by hand, as a plain send.
      writeFileSync(
        join(dir, 'night4.csv'),
        readFileSync(join(dir, 'night3.csv'), 'utf8').replace('L st-1,', 'L st-1b,'),
      );
      const plain = await cli(dir, [
        'user',
        'sync',
        '--file',
        'night4.csv',
        '--target',
        'local',
        '--store',
        'store',
        '--population',
        'staff',
        '--yes',
        '--json',
      ]);
      expect(plain.code, plain.stderr).toBe(0);
      const before = await exported(dir);
      const again = await cli(dir, nightly('night3.csv'));
      expect(again.code, again.stderr).toBe(2);
      expect(again.stderr).toContain(refusal(night3, (JSON.parse(plain.stdout) as { run: string }).run));
      expect(await exported(dir)).toBe(before);
    }));

  it('students, then staff, then students again without --population: the words name --population as well as --allow-old-file (issue 81, item 8)', () =>
    withTempDir(async (dir) => {
      write(dir, 'students.csv', ['s-1', 's-2']);
      write(dir, 'staff.csv', ['t-1']);
      const plain = (file: string) => [
        'user',
        'sync',
        '--file',
        file,
        '--target',
        'local',
        '--store',
        'store',
        '--changed-only',
        '--yes',
      ];
      for (const file of ['students.csv', 'staff.csv']) expect((await cli(dir, plain(file))).code).toBe(0);
      const again = await cli(dir, plain('students.csv'));
      expect(again.code).toBe(2);
      expect(again.stderr).toContain('--allow-old-file');
      expect(lineWith(again.stderr, '(students, staff)', '--population')).toBeTruthy();
      // Named with --population, the old-file words name no other population.
      write(dir, 'night1.csv', ['u-1']);
      expect(
        (
          await cli(
            dir,
            nightly('night1.csv').filter((arg) => arg !== '--require-memory'),
          )
        ).stderr,
      ).not.toContain('give each export');
    }));

  it('a memory without recorded files (an older examctl) is not judged', () =>
    withTempDir(async (dir) => {
      await threeNights(dir);
      const file = join(memoryDir(join(dir, 'synced'), { kind: 'local', store: join(dir, 'store') }), 'users.ndjson');
      const lines = readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line !== '');
      expect(lines.some((line) => line.includes('"f":[['))).toBe(true);
      const withoutFiles = lines.map((line) => {
        const decoded = decodeChecksummedLine(Buffer.from(line));
        if (!decoded.ok) throw new Error(decoded.reason);
        const { f: _files, ...body } = decoded.body as { f?: unknown };
        return encodeChecksummedLine(JSON.stringify(body));
      });
      writeFileSync(file, withoutFiles.join(''));
      const again = await cli(dir, nightly('night2.csv'));
      expect(again.code, again.stderr).toBe(0);
      expect(await disabled(dir)).toEqual([]);
    }));

  it('is refused on a state service as on a local sync directory', () =>
    withTempDir(async (dir) => {
      const server: StateServer = await startStateServer();
      try {
        const env = { EXAMCTL_SYNC_DIR: server.address('nightly') };
        const { night2, night3 } = await threeNights(dir, env);
        const before = await exported(dir);
        const again = await cli(dir, nightly('night2.csv'), env);
        expect(again.code).toBe(2);
        expect(again.stderr).toContain(refusal(night2, night3));
        expect(await exported(dir)).toBe(before);
      } finally {
        await server.close();
      }
    }));

  it("a dry run's plan from the memory says a send re-enables a user examctl disabled", async () => {
    const applied: Record<string, unknown>[] = [];
    const setup = await startUserSyncService('examctl-old-file-', (user) => applied.push(user));
    try {
      const remote = (file: string, ...more: string[]) =>
        examctlStep(
          ['user', 'sync', '--file', file, ...setup.remote(), '--changed-only', '--disable-missing', ...more],
          setup.dir,
          setup.env,
        );
      const staff = Array.from({ length: 20 }, (_, i) => `st-${i}`);
      write(setup.dir, 'night1.csv', staff);
      write(setup.dir, 'night2.csv', staff.slice(1));
      write(setup.dir, 'night3.csv', staff.toReversed());
      // And st-5's last name changes: the plan names the field it knows from what examctl last sent.
      const night3 = join(setup.dir, 'night3.csv');
      writeFileSync(night3, readFileSync(night3, 'utf8').replace(',L st-5,', ',L2 st-5,'));
      expect((await remote('night1.csv')).code).toBe(0);
      expect((await remote('night2.csv')).code).toBe(0);
      expect(applied.filter((user) => user.DisableLogin === true).map((user) => user.ExternalId)).toEqual(['st-0']);
      const plan = await remote('night3.csv', '--dry-run');
      expect(plan.code, plan.stderr).toBe(0);
      expect(lineWith(plan.stderr, 'plan: ', '1 to update', '1 to enable', '18 unchanged')).toBeTruthy();
      expect(plan.stderr).toContain('  ~ st-0 (enable login)');
      expect(plan.stderr).toContain('  ~ st-5 (LastName)\n');
    } finally {
      await stopUserSyncService(setup);
    }
  });
});
