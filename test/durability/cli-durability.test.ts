import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT, fingerprint, range, reportItems, startExamctl, writeUsersCsv, type Finished } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';

// Issue 3, "Store": the durability promises checked at the level a user sees them, through the
// real binary (bin/examctl over dist/, built by the global setup).

let dir: string;
let store: string;
const spawned: ChildProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-durability-'));
  store = join(dir, 'store');
});
afterEach(async () => {
  for (const child of spawned.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

async function exportedUsers(): Promise<Map<string, Record<string, unknown>>> {
  const exported = await examctl(['local', 'export', '--store', store], dir);
  expect(exported.code, exported.stderr).toBe(0);
  const world = JSON.parse(exported.stdout) as { Users: Record<string, unknown>[] };
  return new Map(world.Users.map((user) => [user['ExternalId'] as string, user]));
}

async function journalLines(): Promise<string[]> {
  const text = await readFile(join(store, 'journal-1.ndjson'), 'utf8');
  return text.split('\n').filter((line) => line !== '');
}

describe('kill -9 in the middle of a bulk user sync', () => {
  it('leaves a store that loads, keeps every user reported ok, and a re-run completes with every user', async () => {
    const csv = join(dir, 'users.csv');
    const ids = range('k', 6_000);
    await writeUsersCsv(csv, ids);
    expect((await examctl(['local', 'init', '--store', store], dir)).code).toBe(0);

    // Killed at a point the run reaches (its 2,000th outcome, committed before it is reported),
    // long before the 6,000 are through (docs/runs.md, "Rehearsing a crash").
    const killed = await examctl(
      ['user', 'sync', '--file', csv, '--target', 'local', '--store', store, '--json'],
      dir,
      { EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:2000:SIGKILL' },
    );
    expect(killed.signal, killed.stderr).toBe('SIGKILL');

    // The items the report had already shown as ok were committed before they were shown.
    const shownOk = reportItems(killed.stdout).filter((item) => item.status === 'ok');
    const afterKill = await exportedUsers();
    const committed = ids.filter((id) => afterKill.has(id));
    expect(committed.length).toBeGreaterThan(0);
    expect(committed.length).toBeLessThan(ids.length);
    expect(shownOk.filter((item) => !afterKill.has(item.id))).toEqual([]);

    const rerun = await examctl(['user', 'sync', '--file', csv, '--target', 'local', '--store', store, '--json'], dir);
    expect(rerun.code, rerun.stderr).toBe(0);
    const report = JSON.parse(rerun.stdout) as {
      items: { id: string; status: string; action: string }[];
      summary: { ok: number };
    };
    expect(report.summary.ok).toBe(ids.length);
    const actions = new Map(report.items.map((item) => [item.id, item.action]));
    // Exactly the users that survived the kill are unchanged; the rest are created now.
    for (const id of committed) expect(actions.get(id)).toBe('unchanged');
    expect([...actions.values()].filter((action) => action === 'created')).toHaveLength(ids.length - committed.length);

    const final = await exportedUsers();
    expect(ids.filter((id) => !final.has(id))).toEqual([]);
    expect(final.get('k-05999')).toMatchObject({ UserName: 'name-k-05999', Role: 'Candidate' });
  });
});

describe('kill -9 while a compaction writes the next snapshot', () => {
  it('leaves a store that loads with every user reported ok; a re-run completes', async () => {
    const csv = join(dir, 'users.csv');
    // About 10 MB of journal: the sync crosses the 4 MiB compaction threshold on the way, twice
    // (long addresses make a user's line ~1 KB, so 10,000 users write what 40,000 short ones would).
    const ids = range('c', 10_000);
    const address = 'x'.repeat(300);
    const lines = ['ExternalId,FirstName,LastName,Email,UserName,Role,PostalAddress,AddressLine1,AddressLine2'];
    for (const id of ids)
      lines.push(`${id},F,L,${id}@example.test,name-${id},Candidate,${address},${address},${address}`);
    await writeFile(csv, `${lines.join('\n')}\n`);
    expect((await examctl(['local', 'init', '--store', store], dir)).code).toBe(0);
    const run = startExamctl(['user', 'sync', '--file', csv, '--target', 'local', '--store', store, '--json'], dir);
    spawned.push(run.child);
    let finished: Finished | undefined;
    void run.done.then((result) => (finished = result));
    // A compaction writes its snapshot and journal to `.atomic-*` temp files before the rename.
    const { readdir } = await import('node:fs/promises');
    for (;;) {
      if (finished) throw new Error(`the sync ended before a compaction was seen: ${finished.stderr}`);
      if ((await readdir(store)).some((name) => name.startsWith('.atomic-'))) break;
      await sleep(1);
    }
    run.child.kill('SIGKILL');
    const killed = await run.done;
    expect(killed.signal).toBe('SIGKILL');

    const shownOk = reportItems(killed.stdout).filter((item) => item.status === 'ok');
    const afterKill = await exportedUsers();
    expect(shownOk.length).toBeGreaterThan(0);
    expect(shownOk.filter((item) => !afterKill.has(item.id))).toEqual([]);

    const rerun = await examctl(['user', 'sync', '--file', csv, '--target', 'local', '--store', store, '--json'], dir);
    expect(rerun.code, rerun.stderr).toBe(0);
    const final = await exportedUsers();
    expect(ids.filter((id) => !final.has(id))).toEqual([]);
    // One live generation: the killed compaction's files were temp files (ignored, removed by the next compaction).
    const names = await readdir(store);
    expect(names.filter((name) => /^(snapshot|journal)-\d+\.ndjson$/.test(name))).toHaveLength(2);
  });
});

describe('four examctl processes syncing into one store at once', () => {
  it('all succeed and every user is present; the user all four send is created exactly once', async () => {
    expect((await examctl(['local', 'init', '--store', store], dir)).code).toBe(0);
    const writers = ['a', 'b', 'c', 'd'];
    const files = await Promise.all(
      writers.map(async (prefix) => {
        const file = join(dir, `${prefix}.csv`);
        // The shared user sits in the middle, so the four reach it while all are writing.
        const own = range(prefix, 2_000);
        await writeUsersCsv(file, [...own.slice(0, 1_000), 'shared-1', ...own.slice(1_000)]);
        return file;
      }),
    );
    const runs = files.map((file) => {
      const run = startExamctl(['user', 'sync', '--file', file, '--target', 'local', '--store', store, '--json'], dir);
      spawned.push(run.child);
      return run.done;
    });
    const results = await Promise.all(runs);
    const sharedActions: string[] = [];
    for (const result of results) {
      expect(result.code, result.stderr).toBe(0);
      const report = JSON.parse(result.stdout) as { items: { id: string; action: string }[]; summary: { ok: number } };
      expect(report.summary.ok).toBe(2_001);
      sharedActions.push(report.items.find((item) => item.id === 'shared-1')!.action);
    }
    // The create-or-update decision runs under the lock on the caught-up state: one process
    // creates the user, the three others find it and change nothing.
    expect(sharedActions.sort()).toEqual(['created', 'unchanged', 'unchanged', 'unchanged']);

    const users = await exportedUsers();
    for (const prefix of writers) expect(range(prefix, 2_000).filter((id) => !users.has(id))).toEqual([]);
    expect(users.get('shared-1')).toMatchObject({ UserName: 'name-shared-1' });
  });
});

describe('a store examctl cannot use: exit 3, and nothing written', () => {
  async function storeWithJournal(lines: number): Promise<void> {
    expect((await examctl(['local', 'init', '--store', store], dir)).code).toBe(0);
    // One sync per journal line: each run commits its single user in its own batch.
    for (let i = 0; i < lines; i += 1) {
      const csv = join(dir, `one-${i}.csv`);
      await writeUsersCsv(csv, [`one-${i}`]);
      const run = await examctl(['user', 'sync', '--file', csv, '--store', store], dir);
      expect(run.code, run.stderr).toBe(0);
    }
    expect(await journalLines()).toHaveLength(lines);
  }

  it('a damaged middle line of the journal: exit 3 naming the file and line; every file byte-identical', async () => {
    await storeWithJournal(3);
    const journal = join(store, 'journal-1.ndjson');
    const lines = await journalLines();
    // Change one character inside the body of line 2: the line still parses, its checksum does not match.
    lines[1] = lines[1]!.replace('"one-1"', '"one-X"');
    await writeFile(journal, `${lines.join('\n')}\n`);
    const before = await fingerprint(store);

    const csv = join(dir, 'more.csv');
    await writeUsersCsv(csv, ['more-1']);
    const write = await examctl(['user', 'sync', '--file', csv, '--store', store], dir);
    expect(write.code).toBe(3);
    expect(write.stderr).toContain(`${journal}:2`);
    const exported = await examctl(['local', 'export', '--store', store], dir);
    expect(exported.code).toBe(3);
    expect(exported.stderr).toContain(`${journal}:2`);
    expect(exported.stdout).toBe('');
    const init = await examctl(['local', 'init', '--store', store], dir);
    expect(init.code).not.toBe(0);

    expect(await fingerprint(store)).toEqual(before);
  });

  it('a damaged middle line of the snapshot: exit 3 naming the file and line; every file byte-identical', async () => {
    await storeWithJournal(1);
    const snapshot = join(store, 'snapshot-1.ndjson');
    const lines = (await readFile(snapshot, 'utf8')).split('\n');
    const target = lines.findIndex((line) => line.includes('"scheduler-1"'));
    expect(target).toBeGreaterThan(0);
    lines[target] = lines[target]!.replace('"scheduler-1"', '"scheduler-X"');
    await writeFile(snapshot, lines.join('\n'));
    const before = await fingerprint(store);

    const exported = await examctl(['local', 'export', '--store', store], dir);
    expect(exported.code).toBe(3);
    // The checksum is chained over all entity lines: the mismatch shows at the end line.
    expect(exported.stderr).toMatch(
      new RegExp(`${snapshot.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${lines.length - 1}: checksum mismatch`),
    );
    const csv = join(dir, 'more.csv');
    await writeUsersCsv(csv, ['more-1']);
    expect((await examctl(['user', 'sync', '--file', csv, '--store', store], dir)).code).toBe(3);

    expect(await fingerprint(store)).toEqual(before);
  });

  it('a half-written last journal line (a torn write) is not damage: it is ignored, then cut off by the next writer', async () => {
    await storeWithJournal(2);
    const journal = join(store, 'journal-1.ndjson');
    const whole = await readFile(journal, 'utf8');
    const lines = await journalLines();
    // Line 2 (user one-1) loses its second half and its newline, as a kill in the middle of a write leaves it.
    const torn = `${lines[0]}\n${lines[1]!.slice(0, Math.floor(lines[1]!.length / 2))}`;
    await writeFile(journal, torn);

    const users = await exportedUsers();
    expect(users.has('one-0')).toBe(true);
    expect(users.has('one-1')).toBe(false);
    const csv = join(dir, 'more.csv');
    await writeUsersCsv(csv, ['more-1']);
    const write = await examctl(['user', 'sync', '--file', csv, '--store', store], dir);
    expect(write.code, write.stderr).toBe(0);
    const after = await journalLines();
    expect(after).toHaveLength(2);
    expect(after[0]).toBe(lines[0]);
    expect(after[1]).toContain('"more-1"');
    expect(whole).not.toBe(await readFile(journal, 'utf8'));
    const final = await exportedUsers();
    expect(final.has('one-0') && final.has('more-1') && !final.has('one-1')).toBe(true);
  });

  it('a store written by a newer examctl (format in CURRENT): exit 3 saying so; nothing written', async () => {
    await storeWithJournal(1);
    const current = join(store, 'CURRENT');
    const manifest = JSON.parse(await readFile(current, 'utf8')) as { format: number };
    await writeFile(current, `${JSON.stringify({ ...manifest, format: manifest.format + 1 })}\n`);
    const before = await fingerprint(store);

    const csv = join(dir, 'more.csv');
    await writeUsersCsv(csv, ['more-1']);
    const write = await examctl(['user', 'sync', '--file', csv, '--store', store], dir);
    expect(write.code).toBe(3);
    expect(write.stderr).toMatch(/newer than this examctl/);
    const exported = await examctl(['local', 'export', '--store', store], dir);
    expect(exported.code).toBe(3);

    expect(await fingerprint(store)).toEqual(before);
  });

  it('a lock held by a live process beyond EXAMCTL_LOCK_TIMEOUT_MS: exit 3 naming the holder', async () => {
    await storeWithJournal(1);
    const lockModule = join(ROOT, 'dist/system/lock.js');
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { StoreLock } = await import(${JSON.stringify(lockModule)});
         await new StoreLock(${JSON.stringify(store)}, 10000).acquire();
         process.stdout.write('locked\\n');
         setInterval(() => {}, 1 << 30);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    spawned.push(holder);
    await new Promise<void>((resolveLocked, reject) => {
      holder.stdout!.once('data', () => resolveLocked());
      holder.once('exit', (code) => reject(new Error(`lock holder exited with ${code}`)));
    });

    const csv = join(dir, 'more.csv');
    await writeUsersCsv(csv, ['more-1']);
    const write = await examctl(['user', 'sync', '--file', csv, '--store', store], dir, {
      EXAMCTL_LOCK_TIMEOUT_MS: '300',
    });
    expect(write.code).toBe(3);
    expectCoded(write.stderr, 'E3020', `pid ${holder.pid}`, '300 ms');

    // Once the holder is gone (killed: its lock file stays behind), the next writer takes over.
    holder.kill('SIGKILL');
    await new Promise((resolveExit) => holder.once('close', resolveExit));
    const again = await examctl(['user', 'sync', '--file', csv, '--store', store], dir, {
      EXAMCTL_LOCK_TIMEOUT_MS: '300',
    });
    expect(again.code, again.stderr).toBe(0);
    expect((await exportedUsers()).has('more-1')).toBe(true);
  });
});

describe('secrets in the world', () => {
  it('local export shows no API token and no password; the export seeds a new store', async () => {
    expect((await examctl(['local', 'init', '--store', store], dir)).code).toBe(0);
    const csv = join(dir, 'with-password.csv');
    await writeFile(
      csv,
      'ExternalId,FirstName,LastName,Email,Role,Password\npw-1,Pat,Word,pw-1@example.test,Candidate,Plain-Secret-77\n',
    );
    const sync = await examctl(['user', 'sync', '--file', csv, '--store', store], dir);
    expect(sync.code, sync.stderr).toBe(0);

    const exported = await examctl(['local', 'export', '--store', store], dir);
    expect(exported.code).toBe(0);
    for (const secret of ['dev-token', 'Plain-Secret-77']) {
      expect(exported.stdout).not.toContain(secret);
      expect(exported.stderr).not.toContain(secret);
      for (const [name] of Object.entries(await fingerprint(store))) {
        expect(await readFile(join(store, name), 'utf8')).not.toContain(secret);
      }
    }
    const world = JSON.parse(exported.stdout) as {
      Settings: { ApiTokens: string[] };
      Users: { ExternalId: string; PasswordHash?: string }[];
    };
    expect(world.Settings.ApiTokens).toEqual([expect.stringMatching(/^sha256:[0-9a-f]{64}$/)]);
    expect(world.Users.find((user) => user.ExternalId === 'pw-1')?.PasswordHash).toMatch(/^scrypt\$/);

    const file = join(dir, 'export.json');
    await writeFile(file, exported.stdout);
    const reseeded = await examctl(['local', 'init', '--seed', file, '--store', join(dir, 'copy')], dir);
    expect(reseeded.code, reseeded.stderr).toBe(0);
    const again = await examctl(['local', 'export', '--store', join(dir, 'copy')], dir);
    expect(again.stdout).toBe(exported.stdout);
  });
});
