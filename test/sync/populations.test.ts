import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { examctlStep as examctl } from '../support/in-process.js';
import { encodeChecksummedLine } from '../../src/system/checksummed-line.js';
import { memoryFile } from '../../src/sync/memory-files.js';
import { SyncMemory } from '../../src/sync/sync-memory.js';
import { startUserSyncService, stopUserSyncService, type UserSyncService } from '../support/fault-server.js';

/**
 * Two exports, two populations (docs/sync.md): staff.csv and students.csv synced nightly to one
 * target, each with --disable-missing. Without --population each night's file is "the whole
 * population", so the students' night disables every staff member (under --max-disable's limit
 * once students outnumber staff). With --population each night disables only its own leavers; a
 * user who moves from one export to the other is moved, and enabled again if the other night
 * disabled it first.
 */

const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role';
const staff = Array.from({ length: 12 }, (_, i) => `st-${i}`);
const students = Array.from({ length: 200 }, (_, i) => `pu-${i}`);

let dir: string;
let env: Record<string, string>;

function writeUsers(name: string, ids: readonly string[]): void {
  writeFileSync(
    join(dir, name),
    `${[HEADER, ...ids.map((id) => `${id},First,Last ${id},${id}@example.test,${id},Candidate`)].join('\n')}\n`,
  );
}

interface Item {
  id: string;
  status: string;
  action?: string;
}

async function night(
  file: string,
  ...flags: string[]
): Promise<{ code: number | null; stderr: string; disabled: string[] }> {
  const run = await examctl(
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
      '--json',
      ...flags,
    ],
    dir,
    env,
  );
  const items = run.stdout === '' ? [] : (JSON.parse(run.stdout) as { items: Item[] }).items;
  return {
    code: run.code,
    stderr: run.stderr,
    disabled: items.filter((item) => item.action === 'disabled').map((item) => item.id),
  };
}

/** DisableLogin of each user in the store, as `local export` shows it. */
async function loginDisabled(ids: readonly string[]): Promise<Record<string, boolean>> {
  const exported = await examctl(['local', 'export', '--store', 'store'], dir, env);
  const users = (JSON.parse(exported.stdout) as { Users: { ExternalId: string; DisableLogin?: boolean }[] }).Users;
  return Object.fromEntries(ids.map((id) => [id, users.find((user) => user.ExternalId === id)?.DisableLogin === true]));
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-populations-'));
  env = { EXAMCTL_RUNS_DIR: join(dir, 'state', 'runs') };
  writeUsers('staff.csv', staff);
  writeUsers('students.csv', students);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('user sync --population', () => {
  it('without it, the students night disables the staff (the hazard the flag is for)', async () => {
    // Both known to the memory (a first import of each), then the nightly job.
    expect(
      (await examctl(['user', 'sync', '--file', 'staff.csv', '--target', 'local', '--store', 'store'], dir, env)).code,
    ).toBe(0);
    expect(
      (await examctl(['user', 'sync', '--file', 'students.csv', '--target', 'local', '--store', 'store'], dir, env))
        .code,
    ).toBe(0);
    const students = await night('students.csv');
    expect(students.code, students.stderr).toBe(0);
    expect(students.disabled.sort()).toEqual([...staff].sort());
  });

  it('with it, each night disables only its own leavers, and says nothing of the other export', async () => {
    for (const [file, population] of [
      ['staff.csv', 'staff'],
      ['students.csv', 'students'],
    ] as const) {
      const first = await night(file, '--population', population);
      expect(first.code, first.stderr).toBe(0);
      expect(first.disabled).toEqual([]);
    }
    const staffNight = await night('staff.csv', '--population', 'staff');
    const studentNight = await night('students.csv', '--population', 'students');
    for (const run of [staffNight, studentNight]) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.disabled).toEqual([]);
      expect(run.stderr).not.toContain('--disable-missing:');
    }
    // Real leavers: one of each, each disabled by its own night only.
    writeUsers(
      'students.csv',
      students.filter((id) => id !== 'pu-7'),
    );
    writeUsers(
      'staff.csv',
      staff.filter((id) => id !== 'st-3'),
    );
    expect((await night('students.csv', '--population', 'students')).disabled).toEqual(['pu-7']);
    expect((await night('staff.csv', '--population', 'staff')).disabled).toEqual(['st-3']);
    expect(await loginDisabled(['pu-7', 'st-3', 'st-4', 'pu-8'])).toEqual({
      'pu-7': true,
      'st-3': true,
      'st-4': false,
      'pu-8': false,
    });
    // synced show counts each population.
    const shown = await examctl(['synced', 'show', '--json'], dir, env);
    expect(
      (JSON.parse(shown.stdout) as { memories: { populations?: Record<string, number> }[] }).memories[0]?.populations,
    ).toEqual({ staff: 12, students: 200 });
    expect((await examctl(['synced', 'show'], dir, env)).stdout).toContain(
      '212 users (by --population: staff 12, students 200) (2 disabled as leavers)',
    );
  });

  it('a user moving from one export to the other is moved; disabled by the old night first, the new one enables it', async () => {
    await night('staff.csv', '--population', 'staff');
    await night('students.csv', '--population', 'students');
    // pu-5 becomes staff: the students night runs first and disables it as its leaver...
    writeUsers(
      'students.csv',
      students.filter((id) => id !== 'pu-5'),
    );
    writeUsers('staff.csv', [...staff, 'pu-5']);
    expect((await night('students.csv', '--population', 'students')).disabled).toEqual(['pu-5']);
    // ...the staff night sends it (DisableLogin false: examctl disabled it), now staff.
    const staffNight = await night('staff.csv', '--population', 'staff');
    expect(staffNight.code, staffNight.stderr).toBe(0);
    expect(await loginDisabled(['pu-5'])).toEqual({ 'pu-5': false });
    // The next nights leave it alone.
    expect((await night('students.csv', '--population', 'students')).disabled).toEqual([]);
    expect((await night('staff.csv', '--population', 'staff')).disabled).toEqual([]);
    // pu-6 moves the other way round: the staff night first sends it (it is not unchanged: another population's), so the students night does not take it for a leaver.
    writeUsers(
      'students.csv',
      students.filter((id) => id !== 'pu-5' && id !== 'pu-6'),
    );
    writeUsers('staff.csv', [...staff, 'pu-5', 'pu-6']);
    const sent = await examctl(
      [
        'user',
        'sync',
        '--file',
        'staff.csv',
        '--target',
        'local',
        '--store',
        'store',
        '--changed-only',
        '--disable-missing',
        '--population',
        'staff',
        '--json',
      ],
      dir,
      env,
    );
    // Sent, not left out (--changed-only's note); the engine may find nothing to change in it.
    const pu6 = (JSON.parse(sent.stdout) as { items: (Item & { note?: string })[] }).items.find(
      (item) => item.id === 'pu-6',
    );
    expect(pu6?.status).toBe('ok');
    expect(pu6?.note).toBeUndefined();
    expect((await night('students.csv', '--population', 'students')).disabled).toEqual([]);
    expect(await loginDisabled(['pu-6'])).toEqual({ 'pu-6': false });
  });

  it('the first night of a population leaves the users synced without one alone, and says so; a run without one beside populations says so too', async () => {
    expect(
      (await examctl(['user', 'sync', '--file', 'staff.csv', '--target', 'local', '--store', 'store'], dir, env)).code,
    ).toBe(0);
    expect(
      (await examctl(['user', 'sync', '--file', 'students.csv', '--target', 'local', '--store', 'store'], dir, env))
        .code,
    ).toBe(0);
    writeUsers(
      'students.csv',
      students.filter((id) => id !== 'pu-9'),
    );
    const first = await night('students.csv', '--population', 'students');
    expect(first.code, first.stderr).toBe(0);
    expect(first.disabled).toEqual([]);
    expect(first.stderr).toContain(
      '--disable-missing: 13 users missing from the file were last synced with another --population or without one, so are not disabled by this run, which disables only users of --population students (docs/sync.md, "Two exports, two populations")',
    );
    // Without --population: its own (pu-9, synced without one and in neither file now) is a leaver; the students are not.
    // pu-9 was created by a run later than every user staff.csv holds: it really left, so the stale-input refusal is passed.
    // staff.csv, which the first plain run read, after students.csv: an older run's very file (docs/sync.md, "Stale input"), meant here.
    const unscoped = await night('staff.csv', '--allow-disable-recent', '--allow-old-file');
    expect(unscoped.stderr).toContain(
      '--disable-missing: 199 users missing from the file were last synced with a --population, so are not disabled by this run, which disables only users synced without --population',
    );
    expect(unscoped.disabled).toEqual(['pu-9']);
  });

  it('a killed run resumed keeps its population: the memory records it for every user, and the next night disables no other export', async () => {
    await night('staff.csv', '--population', 'staff');
    const killed = await examctl(
      [
        'user',
        'sync',
        '--file',
        'students.csv',
        '--target',
        'local',
        '--store',
        'store',
        '--disable-missing',
        '--population',
        'students',
      ],
      dir,
      {
        ...env,
        EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:40:SIGKILL',
      },
    );
    expect(killed.code).not.toBe(0);
    const resumed = await examctl(['runs', 'resume', '--yes'], dir, env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const synced = join(dir, 'state', 'synced');
    const lines = readFileSync(join(synced, readdirSync(synced)[0]!, 'users.ndjson'), 'utf8')
      .trim()
      .split('\n');
    const last = new Map<string, string>();
    // Entry lines by id (the population lines say which populations were synced).
    for (const line of lines.slice(1)) {
      const id = /"id":"([^"]+)"/.exec(line)?.[1];
      if (id !== undefined) last.set(id, line);
    }
    expect([...last.values()].filter((line) => line.includes('"id":"pu-') && !line.includes('"p":"students"'))).toEqual(
      [],
    );
    const next = await night('students.csv', '--population', 'students');
    expect(next.disabled).toEqual([]);
  });

  it('a population is a name: anything else, or no --file, is exit 2 before anything is read', async () => {
    for (const bad of ['', 'two words', '-staff', 'x'.repeat(65), 'staff/students']) {
      const run = await examctl(
        ['user', 'sync', '--file', 'staff.csv', '--target', 'local', '--store', 'store', `--population=${bad}`],
        dir,
        env,
      );
      expect(run.code, bad).toBe(2);
      // Empty, it is refused as every flag given empty is.
      expect(run.stderr).toContain(
        bad === '' ? '--population is empty' : '--population must be a name of 1 to 64 letters',
      );
    }
    const noFile = await examctl(
      ['user', 'sync', '--target', 'local', '--store', 'store', '--population', 'staff', '--no-input'],
      dir,
      env,
    );
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toContain('--population needs --file');
    expect(readdirSync(dir)).not.toContain('store');
  });

  it('the memory keeps it ("p") across opens; a "p" that is not a name is damage naming the file and line', async () => {
    const target = { kind: 'local', store: '/s' } as const;
    const plain = { lock: false, lockTimeoutMs: 0, readOnly: false };
    const memory = await SyncMemory.open(dir, target, 'users', plain);
    memory.record('u1', { digest: 'd', run: 'r', population: 'staff' });
    memory.record('u2', { digest: 'd', run: 'r' });
    await memory.close();
    const again = await SyncMemory.open(dir, target, 'users', { ...plain, readOnly: true });
    expect(again.entries.get('u1')?.population).toBe('staff');
    expect(again.entries.get('u2')?.population).toBeUndefined();
    await again.close();
    const file = memoryFile(dir, target, 'users');
    expect(readFileSync(file, 'utf8')).toContain('"p":"staff"');
    const header = encodeChecksummedLine(JSON.stringify({ t: 'sync-memory', v: 1, kind: 'users', target }));
    writeFileSync(file, header + encodeChecksummedLine(JSON.stringify({ id: 'u1', d: 'd', r: 'r', p: 7 })));
    const damaged = await SyncMemory.open(dir, target, 'users', { ...plain, readOnly: true });
    expect(() => damaged.entries.get('u1')).toThrow(
      /users\.ndjson:2: sync memory damaged: its population is not a name/,
    );
    await damaged.close();
  });
});

describe('user sync --population, remote', () => {
  let setup: UserSyncService;
  const sent: Record<string, unknown>[] = [];

  beforeEach(async () => {
    sent.length = 0;
    setup = await startUserSyncService('examctl-populations-remote-', (user) => sent.push(user));
    writeFileSync(join(setup.dir, 'staff.csv'), readFileSync(join(dir, 'staff.csv')));
    writeFileSync(join(setup.dir, 'students.csv'), readFileSync(join(dir, 'students.csv')));
  });

  afterEach(async () => {
    await stopUserSyncService(setup);
  });

  const remoteNight = (file: string, population: string) =>
    examctl(
      [
        'user',
        'sync',
        '--file',
        file,
        ...setup.remote(),
        '--changed-only',
        '--disable-missing',
        '--population',
        population,
      ],
      setup.dir,
      setup.env,
    );

  it("each night sends no disable for the other export, and its own leaver's once", async () => {
    for (const [file, population] of [
      ['staff.csv', 'staff'],
      ['students.csv', 'students'],
      ['staff.csv', 'staff'],
      ['students.csv', 'students'],
    ] as const) {
      const run = await remoteNight(file, population);
      expect(run.code, run.stderr).toBe(0);
    }
    expect(sent.filter((user) => user.DisableLogin === true)).toEqual([]);
    // Only the first nights sent anyone.
    expect(sent).toHaveLength(staff.length + students.length);
    writeFileSync(
      join(setup.dir, 'staff.csv'),
      `${[HEADER, ...staff.filter((id) => id !== 'st-1').map((id) => `${id},First,Last ${id},${id}@example.test,${id},Candidate`)].join('\n')}\n`,
    );
    sent.length = 0;
    expect((await remoteNight('students.csv', 'students')).code).toBe(0);
    expect((await remoteNight('staff.csv', 'staff')).code).toBe(0);
    expect(sent).toEqual([{ ExternalId: 'st-1', FirstName: 'First', LastName: 'Last st-1', DisableLogin: true }]);
  });
});
