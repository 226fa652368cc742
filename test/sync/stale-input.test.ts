import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { memoryDir } from '../../src/context/target.js';
import { type MemoryEntry } from '../../src/sync/memory-lines.js';
import { StaleInput } from '../../src/sync/stale-input.js';
import { testDeps, withTempDir } from '../cli/helpers.js';

/**
 * Stale input (docs/sync.md, "Stale input"): an older night's file run again with the nightly
 * flags would disable the users examctl created since; refused, exit 2, nothing sent, a dry run
 * too, naming the count, the ids, the run that created them and --allow-disable-recent.
 */

const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role';
const write = (dir: string, name: string, ids: readonly string[]) =>
  writeFileSync(
    join(dir, name),
    `${[HEADER, ...ids.map((id) => `${id},F,L ${id},${id}@example.test,n-${id},Candidate`)].join('\n')}\n`,
  );

async function cli(dir: string, argv: string[]) {
  const io = testDeps(
    dir,
    {},
    { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'synced'), EXAMCTL_LOCK_TIMEOUT_MS: '0' },
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
  '--json',
  ...more,
];
const disabled = async (dir: string) =>
  (
    JSON.parse((await cli(dir, ['local', 'export', '--store', 'store'])).stdout) as {
      Users: { ExternalId: string; DisableLogin?: boolean }[];
    }
  ).Users.filter((user) => user.DisableLogin === true)
    .map((user) => user.ExternalId)
    .sort();

describe("an older night's file run again", () => {
  it('is refused (dry run too) naming the joiners, the run that created them and the flag; --allow-disable-recent disables them', () =>
    withTempDir(async (dir) => {
      const staff = Array.from({ length: 20 }, (_, i) => `st-${i}`);
      write(dir, 'monday.csv', staff);
      write(dir, 'tuesday.csv', [...staff, 'st-new-1', 'st-new-2']);
      expect((await cli(dir, nightly('monday.csv'))).code).toBe(0);
      const tuesday = await cli(dir, nightly('tuesday.csv'));
      expect(tuesday.code, tuesday.stderr).toBe(0);
      const run = (JSON.parse(tuesday.stdout) as { run: string }).run;
      // The memory records the run that created each user.
      expect(
        readFileSync(
          join(memoryDir(join(dir, 'synced'), { kind: 'local', store: join(dir, 'store') }), 'users.ndjson'),
          'utf8',
        ),
      ).toContain(`"j":"${run}"`);

      const words = `--disable-missing would disable 2 users examctl created as --population staff in a run later than every user this file holds (st-new-1, st-new-2; created by run ${run}): is the file an older export run again? Nothing was sent. If they really left, run again with --allow-disable-recent (docs/sync.md, "Stale input")`;
      // Monday's users exported again (another order, so not Monday's very file: old-file-again.test.ts).
      write(dir, 'monday-again.csv', staff.toReversed());
      for (const dry of [['--dry-run'], []]) {
        const again = await cli(dir, nightly('monday-again.csv', ...dry));
        expect(again.code).toBe(2);
        expect(again.stderr).toContain(words);
      }
      expect(await disabled(dir)).toEqual([]);
      const allowed = await cli(dir, nightly('monday-again.csv', '--allow-disable-recent'));
      expect(allowed.code, allowed.stderr).toBe(0);
      expect(await disabled(dir)).toEqual(['st-new-1', 'st-new-2']);
    }));

  it("one file adopted alone into an empty memory: every user is the adoption's joiner, whatever run journals the runs directory keeps", () =>
    withTempDir(async (dir) => {
      write(dir, 'n1.csv', ['st-1', 'st-2']);
      write(dir, 'n2.csv', ['st-1', 'st-2', 'st-new']);
      const runs: string[] = [];
      for (const night of ['n1.csv', 'n2.csv']) {
        const ran = await cli(dir, nightly(night));
        expect(ran.code, ran.stderr).toBe(0);
        runs.push((JSON.parse(ran.stdout) as { run: string }).run);
      }
      rmSync(join(dir, 'synced'), { recursive: true });
      const adopt = ['synced', 'adopt', '--file', 'n2.csv', '--target', 'local', '--store', 'store'];
      const adopted = await cli(dir, [...adopt, '--population', 'staff']);
      expect(adopted.code, adopted.stderr).toBe(0);
      const memory = readFileSync(
        join(memoryDir(join(dir, 'synced'), { kind: 'local', store: join(dir, 'store') }), 'users.ndjson'),
        'utf8',
      );
      const joined = [...memory.matchAll(/"j":"([^"]+)"/g)].map((match) => match[1]);
      expect(joined).toHaveLength(3);
      expect(new Set(joined).size).toBe(1);
      expect(runs).not.toContain(joined[0]);
    }));

  it("a joiner a morning retry created is its row's night's joiner: an older export run again is refused naming it (trial32 F03); really gone, it goes with the flag", () =>
    withTempDir(async (dir) => {
      const staff = Array.from({ length: 20 }, (_, i) => `r-${i}`);
      write(dir, 'n0.csv', staff);
      const n0 = await cli(dir, nightly('n0.csv'));
      expect(n0.code).toBe(0);
      write(dir, 'n1.csv', [...staff, 'r-new']);
      writeFileSync(
        join(dir, 'n1.csv'),
        readFileSync(join(dir, 'n1.csv'), 'utf8').replace('r-new@example.test', 'not-an-email'),
      );
      const n1 = await cli(dir, nightly('n1.csv', '--report', 'n1-report.csv'));
      expect(n1.code).toBe(1);
      const n1Run = (JSON.parse(n1.stdout) as { run: string }).run;
      writeFileSync(
        join(dir, 'fixed.csv'),
        readFileSync(join(dir, 'n1-report.csv'), 'utf8').replace('not-an-email', 'r-new@example.test'),
      );
      const retry = await cli(dir, [
        'user',
        'sync',
        '--file',
        'fixed.csv',
        '--only-failed',
        '--target',
        'local',
        '--store',
        'store',
        '--population',
        'staff',
      ]);
      expect(retry.code, retry.stderr).toBe(0);
      // Recorded as night 1's joiner, marked a retry's: no sign of how new a file is, however many runs later (trial29 F05, trial30 F01).
      const memory = readFileSync(
        join(memoryDir(join(dir, 'synced'), { kind: 'local', store: join(dir, 'store') }), 'users.ndjson'),
        'utf8',
      );
      expect(
        memory
          .split('\n')
          .filter((line) => line.includes('"id":"r-new"'))
          .at(-1),
      ).toContain(`"j":"${n1Run}","y":true`);
      write(dir, 'n2.csv', [...staff, 'r-new']);
      expect((await cli(dir, nightly('n2.csv'))).code).toBe(0);
      // Night 0's users exported again: r-new, created after every user it holds, is not disabled.
      write(dir, 'n0-again.csv', staff.toReversed());
      const stale = await cli(dir, nightly('n0-again.csv'));
      expect(stale.code, stale.stderr).toBe(2);
      expectCoded(stale.stderr, 'E2502', 'r-new', n1Run);
      expect(await disabled(dir)).toEqual([]);
      // Really gone (a joiner who left the next night looks the same): it goes with the flag.
      const left = await cli(dir, nightly('n0-again.csv', '--allow-disable-recent'));
      expect(left.code, left.stderr).toBe(0);
      expect(await disabled(dir)).toEqual(['r-new']);
    }));

  it('a leaver created no later than users the file holds is disabled as ever (the file is newer than its run); the flag goes with --disable-missing', () =>
    withTempDir(async (dir) => {
      const staff = Array.from({ length: 20 }, (_, i) => `a-${i}`);
      write(dir, 'first.csv', staff);
      write(dir, 'joiner.csv', [...staff, 'a-new']);
      // A leaver of the first night's users, the later joiner still in the file; then a joiner gone beside another of its run.
      write(dir, 'leaver.csv', [...staff.slice(1), 'a-new']);
      expect((await cli(dir, nightly('first.csv'))).code).toBe(0);
      expect((await cli(dir, nightly('joiner.csv'))).code).toBe(0);
      const night = await cli(dir, nightly('leaver.csv'));
      expect(night.code, night.stderr).toBe(0);
      expect(await disabled(dir)).toEqual(['a-0']);
      write(dir, 'two.csv', [...staff.slice(1), 'a-new', 'b-1', 'b-2']);
      write(dir, 'one-left.csv', [...staff.slice(1), 'a-new', 'b-1']);
      expect((await cli(dir, nightly('two.csv'))).code).toBe(0);
      const gone = await cli(dir, nightly('one-left.csv'));
      expect(gone.code, gone.stderr).toBe(0);
      expect(await disabled(dir)).toEqual(['a-0', 'b-2']);
      // One joiner alone, gone the next night: refused as an older file would be (nothing sent); a genuine leaver goes with the flag.
      write(dir, 'c.csv', [...staff.slice(1), 'a-new', 'b-1', 'c-1']);
      expect((await cli(dir, nightly('c.csv'))).code).toBe(0);
      // Not one-left.csv itself: an older run's very file is refused before this rule (old-file-again.test.ts).
      write(dir, 'one-left-again.csv', [...staff.slice(1), 'b-1', 'a-new']);
      const single = await cli(dir, nightly('one-left-again.csv'));
      expect(single.code, single.stderr).toBe(2);
      expectCoded(
        single.stderr,
        'E2502',
        '--disable-missing',
        '1 user',
        '--population staff',
        '(c-1; created by run ',
        '--allow-disable-recent',
      );
      expect(await disabled(dir)).toEqual(['a-0', 'b-2']);
      const left = await cli(dir, nightly('one-left-again.csv', '--allow-disable-recent'));
      expect(left.code, left.stderr).toBe(0);
      expect(await disabled(dir)).toEqual(['a-0', 'b-2', 'c-1']);
      const alone = await cli(dir, [
        'user',
        'sync',
        '--file',
        'all.csv',
        '--target',
        'local',
        '--store',
        'store',
        '--allow-disable-recent',
      ]);
      expect(alone.code).toBe(2);
      expect(alone.stderr).toContain('--allow-disable-recent needs --disable-missing');
    }));
});

describe('which runs the rule knows recorded no file (a retry): the population keeps its last 30 files', () => {
  const run = (n: number) => `20261101T${String(n).padStart(6, '0')}.000Z-0000`;
  const files = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => [run(from + i), 'sha'] as const);
  const judged = (kept: readonly (readonly [string, string])[], held: string[], leaver: string) => {
    const stale = new StaleInput(kept);
    for (const joined of held) stale.see({ digest: 'd', run: joined, joined }, false);
    const leavers: [string, MemoryEntry][] = [['u-left', { digest: 'd', run: leaver, joined: leaver }]];
    return () => stale.refuse(leavers, false, 'staff');
  };

  it("a joiner of a night older than the kept files is judged as ever (trial29 F01: an export a month old was taken for a retry's)", () => {
    expect(judged(files(3, 32), [run(1)], run(2))).toThrow(
      /would disable 1 user examctl created as --population staff .*\(u-left; created by run 20261101T000002/,
    );
    // One the kept files cover and do not list was a retry's: not judged.
    expect(judged(files(3, 32), [run(1)], `${run(10)}-retry`)).not.toThrow();
  });

  it("a user a retry created is no sign of how new the file is (trial29 F05: the night before's joiner was disabled)", () => {
    // Night 1 (file), night 2 (file: the joiner), the morning's retry (no file) created a user the stale file holds.
    expect(
      judged(
        [
          [run(1), 'a'],
          [run(2), 'b'],
        ],
        [run(1), run(3)],
        run(2),
      ),
    ).toThrow(/created by run 20261101T000002/);
    // A user a later night created, the file holds: the file is newer than night 2, as ever.
    expect(
      judged(
        [
          [run(1), 'a'],
          [run(2), 'b'],
          [run(3), 'c'],
        ],
        [run(1), run(3)],
        run(2),
      ),
    ).not.toThrow();
  });
});
