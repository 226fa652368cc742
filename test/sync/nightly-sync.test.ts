import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { ROOT, range, startExamctl, writeUsersCsv } from '../durability/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { answeredAsPlatform } from '../support/platform-store-route.js';

/**
 * The nightly sync (issue 24, docs/sync.md): a full sync, then the same export with some rows
 * changed and some users gone. With --changed-only --disable-missing exactly the changed rows
 * and the leavers reach the target, counted by the server; a killed run resumed sends each
 * remaining change once; a half file trips the threshold before anything is sent.
 */

const USERS = 1_000;
const CHANGED = 20;
const REMOVED = 5;

interface Applied {
  id: string;
  disableLogin: unknown;
  lastName: unknown;
}

/**
 * A loopback service that answers POST /user ok and counts what it applied (answered). With
 * `holdAfter` set, requests past that many are held unanswered: a run made slow by construction.
 */
async function startCountingServer(): Promise<{
  url: string;
  applied: Applied[];
  received: () => number;
  holdAfter: (n: number) => void;
  close: () => Promise<void>;
}> {
  const applied: Applied[] = [];
  let received = 0;
  let hold = Infinity;
  const server = http.createServer((req, res) => {
    if (answeredAsPlatform(req, res)) return;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received += 1;
      if (received > hold) return; // held: never answered, never applied
      const user = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      applied.push({ id: String(user.ExternalId), disableLogin: user.DisableLogin, lastName: user.LastName });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ Content: { User: user, GroupErrors: [] }, Success: true, Errors: null }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    applied,
    received: () => received,
    holdAfter: (n) => (hold = received + n),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let dir: string;
let env: Record<string, string>;
const all = range('stu', USERS);
const leavers = all.slice(100, 100 + REMOVED);
const changed = all.slice(600, 600 + CHANGED);

/** The export of tonight: CHANGED rows with a new LastName, REMOVED users gone. */
function tonight(file: string): void {
  const lines = ['ExternalId,FirstName,LastName,Email,UserName,Role'];
  for (const id of all) {
    if (leavers.includes(id)) continue;
    lines.push(
      `${id},First ${id},${changed.includes(id) ? 'Married' : 'Last'} ${id},${id}@example.test,name-${id},Candidate`,
    );
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
}

interface Item {
  id: string;
  status: string;
  action?: string;
  note?: string;
  source: { file: string };
}

function itemsOf(stdout: string): Item[] {
  return (JSON.parse(stdout) as { items: Item[] }).items;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-sync-'));
  env = { EXAMCTL_RUNS_DIR: join(dir, 'state', 'runs'), EXAMCTL_TOKEN: 'dev-token' };
  await writeUsersCsv(join(dir, 'full.csv'), all);
  tonight(join(dir, 'tonight.csv'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('remote target: requests counted by the server', () => {
  let server: Awaited<ReturnType<typeof startCountingServer>>;
  beforeEach(async () => {
    server = await startCountingServer();
  });
  afterEach(async () => {
    await server.close();
  });
  const sync = (file: string, ...flags: string[]) =>
    examctl(
      [
        'user',
        'sync',
        '--file',
        file,
        '--target',
        'remote',
        '--base-url',
        server.url,
        '--allow-insecure-http',
        '--yes',
        '--json',
        ...flags,
      ],
      dir,
      env,
    );

  it('sends exactly the changed rows and the leavers; the next night nothing; a leaver back is enabled', async () => {
    // A first night that decides (records its file: docs/sync.md, "Stale input").
    const first = await sync('full.csv', '--changed-only');
    expect(first.code, first.stderr).toBe(0);
    expect(server.applied).toHaveLength(USERS);
    const firstRun = /run (\S+) \(examctl runs show/.exec(first.stderr)![1]!;

    server.applied.length = 0;
    const second = await sync('tonight.csv', '--changed-only', '--disable-missing');
    expect(second.code, second.stderr).toBe(0);
    expect(
      server.applied
        .filter((a) => a.disableLogin === undefined)
        .map((a) => a.id)
        .sort(),
    ).toEqual(changed);
    expect(
      server.applied
        .filter((a) => a.disableLogin === true)
        .map((a) => a.id)
        .sort(),
    ).toEqual(leavers);
    expect(server.applied).toHaveLength(CHANGED + REMOVED);
    const items = itemsOf(second.stdout);
    const unchanged = items.filter((item) => item.action === 'unchanged');
    expect(unchanged).toHaveLength(USERS - CHANGED - REMOVED);
    expect(unchanged.every((item) => item.status === 'ok' && item.note?.includes(firstRun))).toBe(true);
    const disabled = items.filter((item) => item.action === 'disabled');
    expect(disabled.map((item) => item.id).sort()).toEqual(leavers);
    expect(disabled[0]!.source.file).toBe(`<synced by run ${firstRun}>`);
    expect(second.stderr).toContain(
      `${(USERS - CHANGED - REMOVED).toLocaleString('en-US')} unchanged (not sent), ${REMOVED} disabled`,
    );
    // The run's report rebuilt from its journal says the same.
    const shown = await examctl(['runs', 'show', 'last', '--json'], dir, env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(
      itemsOf(shown.stdout).filter((item) => item.action === 'unchanged' && item.note?.includes(firstRun)),
    ).toHaveLength(USERS - CHANGED - REMOVED);
    expect(shown.stderr).toContain(
      `${(USERS - CHANGED - REMOVED).toLocaleString('en-US')} unchanged (not sent), ${REMOVED} disabled`,
    );

    // The same file again: nothing changed, and a leaver already disabled is not sent again.
    server.applied.length = 0;
    const third = await sync('tonight.csv', '--changed-only', '--disable-missing');
    expect(third.code, third.stderr).toBe(0);
    expect(server.applied).toEqual([]);

    // The leavers are back: sent with DisableLogin false (the file says nothing of it); the changed rows go back too.
    // The first night's very file: refused as an old night's file unless meant (docs/sync.md, "Stale input").
    const old = await sync('full.csv', '--changed-only', '--disable-missing');
    expect(old.code).toBe(2);
    expect(server.applied).toEqual([]);
    const fourth = await sync('full.csv', '--changed-only', '--disable-missing', '--allow-old-file');
    expect(fourth.code, fourth.stderr).toBe(0);
    expect(
      server.applied
        .filter((a) => a.disableLogin === false)
        .map((a) => a.id)
        .sort(),
    ).toEqual(leavers);
    expect(server.applied).toHaveLength(CHANGED + REMOVED);

    // The night after, one row changed: only that row goes. The users enabled again are
    // remembered by the request as the file gives it, not with the DisableLogin false examctl added.
    writeFileSync(
      join(dir, 'one.csv'),
      readFileSync(join(dir, 'full.csv'), 'utf8').replace(/Last stu-00007\b/, 'Wed stu-00007'),
    );
    server.applied.length = 0;
    const fifth = await sync('one.csv', '--changed-only', '--disable-missing');
    expect(fifth.code, fifth.stderr).toBe(0);
    expect(server.applied.map((a) => a.id)).toEqual(['stu-00007']);
  });

  it('--disable-missing without --changed-only disables the leavers and sends everything else, each user of the file with DisableLogin false (docs/sync.md, "Drift")', async () => {
    expect((await sync('full.csv')).code).toBe(0);
    server.applied.length = 0;
    const run = await sync('tonight.csv', '--disable-missing');
    expect(run.code, run.stderr).toBe(0);
    expect(
      server.applied
        .filter((a) => a.disableLogin === true)
        .map((a) => a.id)
        .sort(),
    ).toEqual(leavers);
    expect(server.applied.filter((a) => a.disableLogin === false)).toHaveLength(USERS - REMOVED);
    // Without --disable-missing a full run leaves login as the platform has it.
    server.applied.length = 0;
    expect((await sync('tonight.csv')).code).toBe(0);
    expect(server.applied.filter((a) => a.disableLogin !== undefined)).toEqual([]);
  });

  it('the dry run shows the plan from the memory without asking the service', async () => {
    expect((await sync('full.csv')).code).toBe(0);
    const before = server.received();
    const plan = await examctl(
      [
        'user',
        'sync',
        '--file',
        'tonight.csv',
        '--target',
        'remote',
        '--base-url',
        server.url,
        '--allow-insecure-http',
        '--changed-only',
        '--disable-missing',
        '--dry-run',
      ],
      dir,
      env,
    );
    expect(plan.code, plan.stderr).toBe(0);
    expect(server.received()).toBe(before);
    expect(plan.stderr).toContain(
      `plan: ${CHANGED} to update, ${REMOVED} to disable, ${(USERS - CHANGED - REMOVED).toLocaleString('en-US')} unchanged`,
    );
    expect(plan.stderr).toContain(`- ${leavers[0]} (disable login)`);
  });

  it('a half file trips the threshold: exit 2 before anything is sent, naming the count and the flag', async () => {
    expect((await sync('full.csv')).code).toBe(0);
    await writeUsersCsv(join(dir, 'half.csv'), all.slice(0, USERS / 2));
    const before = server.received();
    const refused = await sync('half.csv', '--changed-only', '--disable-missing');
    expect(refused.code).toBe(2);
    expectCoded(refused.stderr, 'E2503', '500 of the 1,000 users', '--max-disable');
    expect(server.received()).toBe(before);
    // Said plainly that it is meant: it goes.
    const meant = await sync('half.csv', '--changed-only', '--disable-missing', '--max-disable', '50%');
    expect(meant.code, meant.stderr).toBe(0);
    expect(server.applied.slice(USERS).filter((a) => a.disableLogin === true)).toHaveLength(USERS / 2);
  });

  it('a killed changed-only run, resumed, sends each remaining change once', async () => {
    expect((await sync('full.csv')).code).toBe(0);
    // 200 changed rows; the server answers 100 of them, then holds every request.
    const many = all.slice(500, 700);
    const lines = ['ExternalId,FirstName,LastName,Email,UserName,Role'];
    for (const id of all)
      lines.push(
        `${id},First ${id},${many.includes(id) ? 'Moved' : 'Last'} ${id},${id}@example.test,name-${id},Candidate`,
      );
    writeFileSync(join(dir, 'moved.csv'), `${lines.join('\n')}\n`);
    const earlier = new Set(readdirSync(join(dir, 'state', 'runs')));
    server.applied.length = 0;
    server.holdAfter(100);
    const running = startExamctl(
      [
        'user',
        'sync',
        '--file',
        'moved.csv',
        '--target',
        'remote',
        '--base-url',
        server.url,
        '--allow-insecure-http',
        '--yes',
        '--changed-only',
      ],
      dir,
      env,
    );
    // Killed at a marker: the journal holds the outcomes of the 100 answered requests.
    await new Promise<void>((resolve, reject) => {
      const poll = setInterval(() => {
        try {
          const run = readdirSync(join(dir, 'state', 'runs')).find((id) => !earlier.has(id));
          if (run === undefined) return;
          const journal = readFileSync(join(dir, 'state', 'runs', run, 'journal.ndjson'), 'utf8');
          const answered = journal
            .split('\n')
            .filter((line) => line.includes('"t":"outcome"') && !line.includes('"action":"unchanged"')).length;
          if (answered >= 100) {
            clearInterval(poll);
            resolve();
          }
        } catch {
          // not started yet
        }
        if (running.child.exitCode !== null) {
          clearInterval(poll);
          reject(new Error('the run ended before the marker'));
        }
      }, 5);
    });
    running.child.kill('SIGKILL');
    await running.done;
    expect(server.applied).toHaveLength(100);
    server.holdAfter(Infinity);
    // As the CI job gives it again: the same target, so --yes is enough (no --target-from-run).
    const resumed = await examctl(
      ['--yes', '--json', '--base-url', server.url, '--allow-insecure-http', 'runs', 'resume'],
      dir,
      env,
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    const counts = new Map<string, number>();
    for (const a of server.applied) counts.set(a.id, (counts.get(a.id) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual(many);
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
    // The resume's summary and `runs show` count the unchanged items of the whole run alike.
    const unchanged = itemsOf(resumed.stdout).filter((item) => item.action === 'unchanged').length;
    expect(unchanged).toBe(USERS - many.length);
    const said = `${unchanged.toLocaleString('en-US')} unchanged (not sent)`;
    expect(resumed.stderr).toContain(said);
    const shown = await examctl(['runs', 'show', 'last', '--json'], dir, env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(itemsOf(shown.stdout).filter((item) => item.action === 'unchanged')).toHaveLength(unchanged);
    expect(shown.stderr).toContain(said);
    const human = await examctl(['runs', 'show', 'last'], dir, env);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr).toContain(said);
    // And the memory has all of them: the next night sends nothing.
    server.applied.length = 0;
    const next = await sync('moved.csv', '--changed-only');
    expect(next.code, next.stderr).toBe(0);
    expect(server.applied).toEqual([]);
  });
  it('a deciding run while another run feeds the memory waits (stderr says so), refuses after the lock timeout, and goes on once the feeder is gone', async () => {
    // The feeder is held by the server after 50 answers: running by construction, its marker in
    // place, all 4 of its requests in flight received and held (its request timeout an hour: none
    // is sent again), and (waited for) the 50 acknowledged users remembered on disk.
    const acknowledged = (): number => {
      try {
        const synced = join(dir, 'state', 'synced');
        // Acknowledged user entries only: not the intents written before each request (their
        // digest is empty), nor the memory's header or population lines.
        const text = readFileSync(join(synced, readdirSync(synced)[0]!, 'users.ndjson'), 'utf8');
        return new Set(Array.from(text.matchAll(/"id":"(stu-\d+)","d":"[^"]/g), (match) => match[1])).size;
      } catch {
        return 0;
      }
    };
    server.holdAfter(50);
    const feeder = startExamctl(
      [
        'user',
        'sync',
        '--file',
        'full.csv',
        '--target',
        'remote',
        '--base-url',
        server.url,
        '--allow-insecure-http',
        '--yes',
        '--concurrency',
        '4',
      ],
      dir,
      { ...env, EXAMCTL_REQUEST_TIMEOUT_MS: '3600000' },
    );
    const held = 50 + 4;
    await new Promise<void>((resolve, reject) => {
      const poll = setInterval(() => {
        if (server.received() === held && acknowledged() === 50) {
          clearInterval(poll);
          resolve();
        } else if (feeder.child.exitCode !== null) {
          clearInterval(poll);
          reject(new Error('the feeder ended before the marker'));
        }
      }, 5);
    });
    const refused = await examctl(
      [
        'user',
        'sync',
        '--file',
        'tonight.csv',
        '--target',
        'remote',
        '--base-url',
        server.url,
        '--allow-insecure-http',
        '--yes',
        '--changed-only',
        '--disable-missing',
      ],
      dir,
      { ...env, EXAMCTL_LOCK_TIMEOUT_MS: '200' },
    );
    // Refused, naming the feeder, whether the 200 ms ran out before or after it said it waits.
    expect(refused.code, refused.stderr).toBe(3);
    expectCoded(refused.stderr, 'E3021', 'EXAMCTL_LOCK_TIMEOUT_MS', `pid ${feeder.child.pid} `);
    expect(server.received()).toBe(held);

    // A second one waits, and goes on when the feeder is gone (killed: its marker is stale).
    const waiting = startExamctl(
      [
        'user',
        'sync',
        '--file',
        'tonight.csv',
        '--target',
        'remote',
        '--base-url',
        server.url,
        '--allow-insecure-http',
        '--yes',
        '--json',
        '--changed-only',
        '--disable-missing',
      ],
      dir,
      { ...env, EXAMCTL_LOCK_TIMEOUT_MS: '120000' },
    );
    const said = await new Promise<string>((resolve) => {
      let err = '';
      waiting.child.stderr!.on('data', (chunk: string) => {
        err += chunk;
        if (err.includes('this run decides from it')) resolve(err);
      });
    });
    expect(said).toMatch(new RegExp(`waiting for pid ${feeder.child.pid} .*feeding the sync memory of this target`));
    expect(server.received()).toBe(held);
    feeder.child.kill('SIGKILL');
    await feeder.done;
    server.holdAfter(Infinity);
    server.applied.length = 0;
    const done = await waiting.done;
    expect(done.code, done.stderr).toBe(0);
    // It decided from the memory the feeder left: the 50 acknowledged users unchanged, the rest sent.
    const unchanged = itemsOf(done.stdout).filter((item) => item.action === 'unchanged');
    expect(unchanged).toHaveLength(50);
    expect(server.applied).toHaveLength(
      USERS - REMOVED - unchanged.length + itemsOf(done.stdout).filter((item) => item.action === 'disabled').length,
    );
  });
});

describe('local target', () => {
  const sync = (file: string, ...flags: string[]) =>
    examctl(['user', 'sync', '--file', file, '--target', 'local', '--store', 'store', '--json', ...flags], dir, env);

  it('updates exactly the changed rows and disables the leavers in the store', async () => {
    expect((await examctl(['local', 'init', '--store', 'store'], dir, env)).code).toBe(0);
    expect((await sync('full.csv')).code).toBe(0);
    const second = await sync('tonight.csv', '--changed-only', '--disable-missing');
    expect(second.code, second.stderr).toBe(0);
    const items = itemsOf(second.stdout);
    expect(
      items
        .filter((item) => item.action === 'updated')
        .map((item) => item.id)
        .sort(),
    ).toEqual(changed);
    expect(
      items
        .filter((item) => item.action === 'disabled')
        .map((item) => item.id)
        .sort(),
    ).toEqual(leavers);
    expect(items.filter((item) => item.action === 'unchanged' && item.note !== undefined)).toHaveLength(
      USERS - CHANGED - REMOVED,
    );
    // The store itself says the leavers can no longer log in.
    const exported = await examctl(['local', 'export', '--store', 'store'], dir, env);
    expect(exported.code, exported.stderr).toBe(0);
    const users = (JSON.parse(exported.stdout) as { Users: { ExternalId: string; DisableLogin?: boolean }[] }).Users;
    for (const id of leavers) expect(users.find((user) => user.ExternalId === id)?.DisableLogin).toBe(true);
    // Nothing changed since: nothing is sent.
    const third = await sync('tonight.csv', '--changed-only', '--disable-missing');
    expect(itemsOf(third.stdout).filter((item) => item.action !== 'unchanged')).toEqual([]);
  });

  it('a damaged memory is exit 2 naming it, never silently empty; synced forget starts over', async () => {
    expect((await examctl(['local', 'init', '--store', 'store'], dir, env)).code).toBe(0);
    expect((await sync('full.csv')).code).toBe(0);
    const shown = JSON.parse((await examctl(['synced', 'show', '--json'], dir, env)).stdout) as {
      memories: { remembered: number; file: string }[];
    };
    expect(shown.memories).toHaveLength(1);
    expect(shown.memories[0]!.remembered).toBe(USERS);
    const file = shown.memories[0]!.file;
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('"stu-00007"', '"stu-0000X"'));
    const refused = await sync('tonight.csv', '--changed-only');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${file}:`);
    expect(refused.stderr).toContain('sync memory damaged');
    const forgot = await examctl(['synced', 'forget', '--target', 'local', '--store', 'store'], dir, env);
    expect(forgot.code, forgot.stderr).toBe(0);
    const again = await sync('tonight.csv', '--changed-only');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('no sync memory');
    expect(itemsOf(again.stdout).filter((item) => item.note !== undefined)).toEqual([]);
  });

  it('never stores a password: a Password column is part of the digest only', async () => {
    expect((await examctl(['local', 'init', '--store', 'store'], dir, env)).code).toBe(0);
    writeFileSync(
      join(dir, 'pw.csv'),
      'ExternalId,FirstName,LastName,Email,UserName,Role,Password\nsecret-1,A,B,a@example.test,sec1,Candidate,Hunter2-Sesame!\n',
    );
    expect((await sync('pw.csv')).code).toBe(0);
    const { memories } = JSON.parse((await examctl(['synced', 'show', '--json'], dir, env)).stdout) as {
      memories: { file: string }[];
    };
    expect(readFileSync(memories[0]!.file, 'utf8')).not.toContain('Hunter2');
    // A new password is a change.
    writeFileSync(
      join(dir, 'pw.csv'),
      'ExternalId,FirstName,LastName,Email,UserName,Role,Password\nsecret-1,A,B,a@example.test,sec1,Candidate,Other-Sesame-9!\n',
    );
    const changedPassword = await sync('pw.csv', '--changed-only');
    expect(itemsOf(changedPassword.stdout)[0]!.note).toBeUndefined();
  });
});

describe('schedule push --changed-only (with --upsert)', () => {
  it('sends only the schedule whose request changed; refuses without --upsert', async () => {
    const pinned = { ...env, EXAMCTL_NOW: '2026-11-21T10:00:00Z' };
    expect((await examctl(['local', 'init', '--store', 'store'], dir, pinned)).code).toBe(0);
    const sittings = readFileSync(join(ROOT, 'fixtures', 'sittings.csv'), 'utf8');
    writeFileSync(join(dir, 'sittings.csv'), sittings);
    const push = (...flags: string[]) =>
      examctl(
        [
          'schedule',
          'push',
          '--file',
          'sittings.csv',
          '--target',
          'local',
          '--store',
          'store',
          '--upsert',
          '--json',
          ...flags,
        ],
        dir,
        pinned,
      );
    expect((await push()).code).toBe(0);
    const same = await push('--changed-only');
    expect(same.code, same.stderr).toBe(0);
    expect(itemsOf(same.stdout).every((item) => item.action === 'unchanged' && item.note !== undefined)).toBe(true);
    // One candidate of one schedule changes: that schedule's request changes, the other's does not.
    writeFileSync(join(dir, 'sittings.csv'), sittings.replace('stu-2002,Ben,Okafor', 'stu-2002,Ben,Okafor-Smith'));
    const one = await push('--changed-only');
    expect(one.code, one.stderr).toBe(0);
    const items = itemsOf(one.stdout);
    expect(items.filter((item) => item.note === undefined).map((item) => item.id)).toEqual(['S-MATH1-DEC']);
    expect(items.filter((item) => item.note !== undefined)).toHaveLength(items.length - 1);
    const refused = await examctl(
      ['schedule', 'push', '--file', 'sittings.csv', '--target', 'local', '--store', 'store', '--changed-only'],
      dir,
      pinned,
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--changed-only needs --upsert');
  });

  it('a user sync after it sends the users the store changed since its last night, no guess from the schedule memory', async () => {
    const sittings = readFileSync(join(ROOT, 'fixtures', 'sittings.csv'), 'utf8');
    const users = readFileSync(join(ROOT, 'fixtures', 'users.csv'), 'utf8');
    const night = async (sittingsText: string, usersText: string) => {
      writeFileSync(join(dir, 'sittings.csv'), sittingsText);
      writeFileSync(join(dir, 'users.csv'), usersText);
      const local = ['--target', 'local', '--store', 'store', '--json', '--changed-only'];
      const push = await examctl(['schedule', 'push', '--file', 'sittings.csv', '--upsert', ...local], dir, env);
      expect(push.code, push.stderr).toBe(0);
      const sync = await examctl(['user', 'sync', '--file', 'users.csv', ...local], dir, env);
      expect(sync.code, sync.stderr).toBe(0);
      expect(sync.stderr).not.toContain('as a candidate after run');
      // Sent: no note, or the one of a row the store changed since (its file row unchanged).
      return itemsOf(sync.stdout)
        .filter((item) => item.note === undefined || item.note.includes('the store changed it after'))
        .map((item) => item.id);
    };
    expect(await night(sittings, users)).toHaveLength(20);
    // The push rewrites S-PHYS2-JAN's four candidates as the users file has them: the store changes none of them.
    const retitled = sittings.replaceAll('Physics 2 - January sitting', 'Physics 2 - January sitting (rev 2)');
    const cohen = users.replace('Cohen', 'Cohen-2');
    expect(await night(retitled, cohen)).toEqual(['stu-2013']);
    // A candidate row that gives its user another name changes that user: sent again, as the users file gives it.
    expect(await night(retitled.replace('Greta,Berg', 'Greta,Berg-Smith'), cohen)).toEqual(['stu-2007']);
  });
});
