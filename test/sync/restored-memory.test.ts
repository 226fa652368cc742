import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { examctlStep as examctl } from '../support/in-process.js';

/**
 * What a memory restored from an older copy, or cut short, may not know (docs/sync.md, "Drift",
 * "When the memory is lost").
 *
 * A memory restored from before a night that disabled a leaver (a CI cache restored from an older
 * entry, on a fresh runner with no runs directory to compare with) does not know it disabled
 * them. The leaver comes back: the nights judge the row unchanged, as far as that memory knows.
 * The weekly full run with --disable-missing enables every user of the file, so the user is not
 * left disabled for good (docs/sync.md, "Drift"); a --changed-only night still sends nobody.
 */
const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role';
const ids = Array.from({ length: 12 }, (_, i) => `st-${i}`);

function writeUsers(dir: string, name: string, without?: string): void {
  writeFileSync(
    join(dir, name),
    `${[HEADER, ...ids.filter((id) => id !== without).map((id) => `${id},First,Last ${id},${id}@example.test,${id},Candidate`)].join('\n')}\n`,
  );
}

interface Item {
  id: string;
  action?: string;
}

describe('a memory restored from an older copy or cut short', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'examctl-restored-memory-'));
    writeUsers(dir, 'all.csv');
    writeUsers(dir, 'left.csv', 'st-5');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a returning leaver the memory never knew was disabled stays disabled through the nights, and is enabled by the full run with --disable-missing', async () => {
    const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'cache') };
    const sync = (file: string, ...flags: string[]) =>
      examctl(
        [
          'user',
          'sync',
          '--file',
          file,
          '--target',
          'local',
          '--store',
          'store',
          '--disable-missing',
          '--max-disable',
          '5',
          '--json',
          ...flags,
        ],
        dir,
        env,
      );
    const disabled = async () => {
      const exported = await examctl(['local', 'export', '--store', 'store'], dir, env);
      return (
        (JSON.parse(exported.stdout) as { Users: { ExternalId: string; DisableLogin?: boolean }[] }).Users.find(
          (user) => user.ExternalId === 'st-5',
        )?.DisableLogin === true
      );
    };
    expect((await sync('all.csv', '--changed-only')).code).toBe(0);
    cpSync(join(dir, 'cache'), join(dir, 'cache-night1'), { recursive: true });
    const night2 = await sync('left.csv', '--changed-only');
    expect(
      (JSON.parse(night2.stdout) as { items: Item[] }).items
        .filter((item) => item.action === 'disabled')
        .map((item) => item.id),
    ).toEqual(['st-5']);
    expect(await disabled()).toBe(true);

    // A fresh runner: the cache of night 1 restored, no runs directory.
    rmSync(join(dir, 'cache'), { recursive: true });
    rmSync(join(dir, 'runs'), { recursive: true });
    cpSync(join(dir, 'cache-night1'), join(dir, 'cache'), { recursive: true });
    const night3 = await sync('all.csv', '--changed-only');
    expect(night3.code, night3.stderr).toBe(0);
    expect(await disabled()).toBe(true);

    const weekly = await sync('all.csv');
    expect(weekly.code, weekly.stderr).toBe(0);
    expect(await disabled()).toBe(false);
    // Remembered as the file gives it: the next night finds every row unchanged, and sends nobody.
    const night4 = await sync('all.csv', '--changed-only');
    expect(night4.code).toBe(0);
    expect(new Set((JSON.parse(night4.stdout) as { items: Item[] }).items.map((item) => item.action))).toEqual(
      new Set(['unchanged']),
    );
  });

  it('a lost memory is not called "not made yet" where a run of the runs directory fed it', async () => {
    const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'cache') };
    const night = (file: string) =>
      examctl(
        ['user', 'sync', '--file', file, '--target', 'local', '--store', 'store', '--changed-only', '--json'],
        dir,
        env,
      );
    const first = await night('all.csv');
    expect(first.stderr).toContain('no sync memory for local store');
    expect(first.stderr).toContain('yet, so every record is sent (this run starts it)');
    const run1 = (JSON.parse(first.stdout) as { run: string }).run;
    rmSync(join(dir, 'cache'), { recursive: true });
    const lost = await night('all.csv');
    expect(lost.code).toBe(0);
    expect(lost.stderr.replace(/\s+/g, ' ')).toContain(`though run ${run1} of this runs directory fed one`);
    expect(lost.stderr.replace(/\s+/g, ' ')).toContain(
      'it was lost, or forgotten (synced forget, a store made anew), so every record is sent (this run starts it again)',
    );
  });

  // A memory cut short at a line boundary (a partial restore, a copy interrupted, a full disk)
  // reads as one a kill left; each run marks its end, and the runs directory says which finished.

  it('cut short is refused by --require-memory and said by every night without it, naming the run whose end it lacks; a whole memory is not', async () => {
    const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'cache') };
    const night = (file: string, ...flags: string[]) =>
      examctl(
        [
          'user',
          'sync',
          '--file',
          file,
          '--target',
          'local',
          '--store',
          'store',
          '--changed-only',
          '--disable-missing',
          '--max-disable',
          '5',
          '--json',
          ...flags,
        ],
        dir,
        env,
      );
    expect((await night('all.csv')).code).toBe(0);
    const second = await night('left.csv', '--require-memory');
    expect(second.code, second.stderr).toBe(0);
    const run2 = (JSON.parse(second.stdout) as { run: string }).run;

    // Night 2's lines cut off after its start: the disable of st-5 and the run's end are gone.
    const memoryDir = join(dir, 'cache', readdirSync(join(dir, 'cache'))[0]!);
    const file = join(memoryDir, 'users.ndjson');
    const lines = readFileSync(file, 'utf8').split('\n');
    const disabledAt = lines.findIndex((line) => line.includes('"x":true'));
    expect(disabledAt).toBeGreaterThan(0);
    writeFileSync(file, `${lines.slice(0, disabledAt).join('\n')}\n`);

    const refused = await night('all.csv', '--require-memory');
    expect(refused.code).toBe(2);
    expect(refused.stderr.replace(/\s+/g, ' ')).toMatch(
      new RegExp(`lacks the end of run ${run2} .*which finished .*cut short`),
    );
    // all.csv after night 2's left.csv: an older run's very file (docs/sync.md, "Stale input"), meant here.
    const said = await night('all.csv', '--allow-old-file');
    expect(said.code, said.stderr).toBe(0);
    expect(
      (JSON.parse(said.stdout) as { syncMemory: { missesRun?: { cut?: boolean } } }).syncMemory.missesRun,
    ).toMatchObject({ cut: true });
    expect(said.stderr).toContain('was cut short');
    // That night stored its own end: the memory is whole again as far as its runs go.
    const after = await night('all.csv', '--require-memory');
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).not.toContain('cut short');
  });
});
