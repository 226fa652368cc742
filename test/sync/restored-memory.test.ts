import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { okEnvelope, startFaultServer } from '../support/fault-server.js';
import { openStore } from '../../src/engine/store/index.js';

/**
 * A memory restored from an older copy, or cut short, against the store it fed (docs/sync.md,
 * "Where the store stands"): the store holds the memory's newest head and more after it, so what
 * the store changed since, of the memory's entries, is sent again, exactly that, runs directory or not.
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

describe('a memory restored from an older copy or cut short (the store is ahead of it)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'examctl-restored-memory-'));
    writeUsers(dir, 'all.csv');
    writeUsers(dir, 'left.csv', 'st-5');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a returning leaver the restored memory never knew was disabled is sent again, alone, on a fresh runner; the nights after are quiet', async () => {
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
    expect(sent(night3.stdout)).toEqual(['st-5']);
    expect(await disabled()).toBe(false);
    expect(night3.stderr).not.toContain('older');
    // Remembered as the file gives it: the next night finds every row unchanged, and sends nobody.
    const night4 = await sync('all.csv', '--changed-only');
    expect(night4.code).toBe(0);
    expect(new Set((JSON.parse(night4.stdout) as { items: Item[] }).items.map((item) => item.action))).toEqual(
      new Set(['unchanged']),
    );
  });

  it("a store compacted since the restored memory's newest run still names what it changed: that, alone, is sent again", async () => {
    const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'cache') };
    const night = (file: string) =>
      examctl(
        ['user', 'sync', '--file', file, '--target', 'local', '--store', 'store', '--changed-only', '--json'],
        dir,
        env,
      );
    const first = await night('all.csv');
    expect(first.code, first.stderr).toBe(0);
    cpSync(join(dir, 'cache'), join(dir, 'cache-night1'), { recursive: true });
    writeFileSync(
      join(dir, 'renamed.csv'),
      readFileSync(join(dir, 'all.csv'), 'utf8').replace('Last st-3,', 'Renamed,'),
    );
    const second = await night('renamed.csv');
    expect(sent(second.stdout)).toEqual(['st-3']);
    rmSync(join(dir, 'cache'), { recursive: true });
    cpSync(join(dir, 'cache-night1'), join(dir, 'cache'), { recursive: true });
    const store = await openStore(join(dir, 'store'));
    await store.compact();
    await store.close();

    const third = await night('all.csv');
    expect(third.code, third.stderr).toBe(0);
    expect(sent(third.stdout)).toEqual(['st-3']);
    expect(third.stderr).not.toContain('note:');
    const fourth = await night('all.csv');
    expect(sent(fourth.stdout)).toEqual([]);
  });

  it('--disable-missing: a user the store changed since the restored memory is sent again, enabled only if the store has it disabled', async () => {
    const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'cache') };
    const night = (file: string) =>
      examctl(
        ['user', 'sync', '--file', file, '--target', 'local', '--store', 'store', '--changed-only', '--json'].concat([
          '--disable-missing',
          '--max-disable',
          '5',
        ]),
        dir,
        env,
      );
    const stored = async () => {
      const exported = await examctl(['local', 'export', '--store', 'store'], dir, env);
      const users = (JSON.parse(exported.stdout) as { Users: { ExternalId: string; DisableLogin?: boolean }[] }).Users;
      return ['st-3', 'st-5'].map((id) => users.find((user) => user.ExternalId === id)?.DisableLogin);
    };
    expect((await night('all.csv')).code).toBe(0);
    cpSync(join(dir, 'cache'), join(dir, 'cache-night1'), { recursive: true });
    // Night 2: st-3 renamed, st-5 left (disabled).
    writeFileSync(
      join(dir, 'renamed.csv'),
      readFileSync(join(dir, 'left.csv'), 'utf8').replace('Last st-3,', 'Renamed,'),
    );
    const second = await night('renamed.csv');
    expect(sent(second.stdout)).toEqual(['st-3', 'st-5']);
    const before = await stored();
    expect(before).toEqual([undefined, true]);
    rmSync(join(dir, 'cache'), { recursive: true });
    cpSync(join(dir, 'cache-night1'), join(dir, 'cache'), { recursive: true });
    // The memory of night 1 distrusts both (the store changed them since): st-5 is enabled, st-3 left as it is.
    const third = await night('all.csv');
    expect(third.code, third.stderr).toBe(0);
    expect(sent(third.stdout)).toEqual(['st-3', 'st-5']);
    expect(await stored()).toEqual([undefined, false]);
  });

  it('cut short after a night began: the leaver that night disabled, back in the file, is sent again, alone; nothing is refused', async () => {
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

    // Night 2's lines cut off after its start: the disable of st-5 and the run's end are gone.
    const memoryDir = join(dir, 'cache', readdirSync(join(dir, 'cache'))[0]!);
    const file = join(memoryDir, 'users.ndjson');
    const lines = readFileSync(file, 'utf8').split('\n');
    const disabledAt = lines.findIndex((line) => line.includes('"x":true'));
    expect(disabledAt).toBeGreaterThan(0);
    writeFileSync(file, `${lines.slice(0, disabledAt).join('\n')}\n`);

    // all.csv after night 2's left.csv: an older run's very file (docs/sync.md, "Stale input"), meant here.
    const third = await night('all.csv', '--allow-old-file', '--require-memory');
    expect(third.code, third.stderr).toBe(0);
    expect(sent(third.stdout)).toEqual(['st-5']);
    const after = await night('all.csv', '--require-memory');
    expect(after.code, after.stderr).toBe(0);
    expect(sent(after.stdout)).toEqual([]);
  });
});

describe('a memory restored from an older copy, on the platform (its store cannot say where it stands)', () => {
  it('is told by the runs directory alone: --require-memory refuses it naming the later run, a night without it warns in its report', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'examctl-restored-remote-'));
    const service = await startFaultServer();
    service.fallback = (request) => okEnvelope({ User: JSON.parse(request.body) as unknown, GroupErrors: [] });
    try {
      writeUsers(dir, 'all.csv');
      const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'cache'), EXAMCTL_TOKEN: 't' };
      const night = (...flags: string[]) =>
        examctl(
          ['user', 'sync', '--file', 'all.csv', '--target', 'remote', '--base-url', service.url].concat([
            '--allow-insecure-http',
            '--yes',
            '--changed-only',
            '--json',
            ...flags,
          ]),
          dir,
          env,
        );
      expect((await night()).code).toBe(0);
      cpSync(join(dir, 'cache'), join(dir, 'cache-night1'), { recursive: true });
      const second = await night('--require-memory');
      expect(second.code, second.stderr).toBe(0);
      const run = (JSON.parse(second.stdout) as { run: string }).run;
      rmSync(join(dir, 'cache'), { recursive: true });
      cpSync(join(dir, 'cache-night1'), join(dir, 'cache'), { recursive: true });
      const refused = await night('--require-memory');
      expect(refused.code).toBe(2);
      expectCoded(refused.stderr.replace(/\s+/g, ' '), 'E2508', `older than run ${run}`);
      const warned = await night();
      expect(warned.code, warned.stderr).toBe(0);
      expect((JSON.parse(warned.stdout) as { syncMemory: { missesRun?: unknown } }).syncMemory.missesRun).toMatchObject(
        { run, later: true },
      );
    } finally {
      await service.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** The ids a night's JSON report says were sent (not unchanged). */
function sent(stdout: string): string[] {
  return (JSON.parse(stdout) as { items: Item[] }).items
    .filter((item) => item.action !== 'unchanged')
    .map((item) => item.id)
    .sort();
}
