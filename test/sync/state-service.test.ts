import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { startStateServer, type StateServer } from '../support/state-server.js';
import { okEnvelope, startFaultServer, type FaultServer } from '../support/fault-server.js';

/**
 * `--sync-dir` / EXAMCTL_SYNC_DIR as a state service speaking Terraform's HTTP backend protocol
 * (docs/sync.md, "A state service"): GitLab's form of the lock, a lock another run holds, a store
 * that fails (exit 3, the next night taking in what it wrote ahead), a run of exit 1 and a run stopped by
 * SIGTERM still storing, a document of another target refused, addresses and credentials that never
 * reach a sink, `synced unlock` and `synced forget` on it.
 */

const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role,Hierarchies';
let server: StateServer;

function writeUsers(dir: string, ids: readonly string[], bad: readonly string[] = []): void {
  writeFileSync(
    join(dir, 'users.csv'),
    `${[HEADER, ...ids.map((id) => `${id},First,Last ${id},${bad.includes(id) ? 'not-an-email' : `${id}@example.test`},name-${id},Candidate,`)].join('\n')}\n`,
  );
}

async function cli(dir: string, argv: string[], env: Record<string, string> = {}) {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_LOCK_TIMEOUT_MS: '0', ...env });
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

const ids = Array.from({ length: 6 }, (_, i) => `ss-${i}`);
const sync = (dir: string, env: Record<string, string>, ...flags: string[]) =>
  cli(
    dir,
    [
      'user',
      'sync',
      '--file',
      'users.csv',
      '--target',
      'local',
      '--store',
      'store',
      '--changed-only',
      '--disable-missing',
      '--json',
      ...flags,
    ],
    env,
  );

/** The requests to the memory's own address (and its lock): a run's intents written ahead go to `<address>-intents-<n>`. */
const memoryRequests = () => server.requests.filter((request) => !request.path.includes('-intents-'));

/** The command an E3021 prints to release a lock: its variables (`NAME=value ` before it) and its arguments. */
function releaseCommand(stderr: string): [Record<string, string>, string[]] {
  const words = /release its lock: (.*)$/m.exec(stderr)![1]!.split(' ');
  const at = words.indexOf('examctl');
  const variables = words.slice(0, at).map((word) => word.split(/=(.*)/s) as [string, string]);
  return [Object.fromEntries(variables), words.slice(at + 1)];
}

function itemsOf(stdout: string): { id: string; action?: string; status: string; note?: string }[] {
  return (JSON.parse(stdout) as { items: { id: string; action?: string; status: string; note?: string }[] }).items;
}

beforeEach(async () => {
  server = await startStateServer({ gitlab: true });
});

afterEach(async () => {
  await server.close();
});

describe("GitLab's managed state: the lock at <address>/lock, POST and DELETE", () => {
  const gitlab = (address: string) => ({
    EXAMCTL_SYNC_DIR: address,
    EXAMCTL_SYNC_LOCK_ADDRESS: `${address}/lock`,
    EXAMCTL_SYNC_LOCK_METHOD: 'POST',
    EXAMCTL_SYNC_UNLOCK_ADDRESS: `${address}/lock`,
    EXAMCTL_SYNC_UNLOCK_METHOD: 'DELETE',
  });

  it('a real run locks, reads (204: none yet), stores under its lock, unlocks; the next night finds it and sends nothing', () =>
    withTempDir(async (dir) => {
      const env = gitlab(server.address('nightly'));
      writeUsers(dir, ids);
      const first = await sync(dir, env);
      expect(first.code, first.stderr).toBe(0);
      // Its start and intents written ahead beside it, then the memory stored at its end (what it held read first, to put back if the store does not take) and read back.
      expect(memoryRequests().map((request) => `${request.method} ${request.path}`)).toEqual([
        'POST /state/nightly/lock',
        'GET /state/nightly',
        'GET /state/nightly',
        'POST /state/nightly',
        'GET /state/nightly',
        'DELETE /state/nightly/lock',
      ]);
      const ahead = server.requests.findIndex(
        (request) => request.method === 'POST' && request.path === '/state/nightly-intents-0',
      );
      expect(ahead).toBeGreaterThan(0);
      expect(ahead).toBeLessThan(
        server.requests.findIndex((request) => request.method === 'POST' && request.path === '/state/nightly'),
      );
      const [lock, , , store, , unlock] = memoryRequests();
      const info = JSON.parse(lock!.body) as Record<string, string>;
      expect(Object.keys(info).sort()).toEqual(['Created', 'ID', 'Info', 'Operation', 'Path', 'Version', 'Who']);
      expect(info.Operation).toBe('examctl user sync');
      expect(store!.query.ID).toBe(info.ID);
      expect((JSON.parse(unlock!.body) as { ID: string }).ID).toBe(info.ID);
      expect(server.locks.size).toBe(0);
      const document = JSON.parse(server.states.get('/state/nightly')!) as {
        format: string;
        serial: number;
        identity: string;
        newestRun: string;
        sha256: string;
      };
      expect(document).toMatchObject({
        format: 'examctl-sync-memory',
        serial: 1,
        identity: `local ${join(dir, 'store')}`,
      });
      expect(document).not.toHaveProperty('inFlight');
      const next = await sync(dir, env, '--require-memory');
      expect(next.code, next.stderr).toBe(0);
      expect(itemsOf(next.stdout).every((item) => item.action === 'unchanged')).toBe(true);
      // The night's population is on record with its newest run: what it added was stored at its end, as a delta beside the document.
      expect((JSON.parse(server.states.get('/state/nightly')!) as { serial: number }).serial).toBe(1);
      expect(JSON.parse(server.states.get('/state/nightly-delta-1')!) as object).toMatchObject({
        format: 'examctl-sync-delta',
        serial: 2,
        base: document.sha256,
      });
    }));

  it("a lock another run holds (409 with its info): waits, then exit 3 naming the holder and how to release a killed run's lock; synced unlock releases it", () =>
    withTempDir(async (dir) => {
      const address = server.address('nightly');
      const env = gitlab(address);
      writeUsers(dir, ids);
      server.locks.set('/state/nightly', {
        ID: 'f00d',
        Operation: 'examctl user sync --population staff',
        Who: 'runner@other',
        Created: '2026-11-21T02:00:00Z',
      });
      const locked = await sync(dir, env);
      expect(locked.code).toBe(3);
      expectCoded(
        locked.stderr,
        'E3021',
        address,
        'runner@other (examctl user sync --population staff, lock f00d)',
        '2026-11-21T02:00:00Z',
        '0 ms (EXAMCTL_LOCK_TIMEOUT_MS)',
      );
      expect(server.requests.some((request) => request.method === 'GET')).toBe(false);
      // The release command as printed, run where the job's variables are not set (found by a trial: GitLab answered 405).
      const [variables, argv] = releaseCommand(locked.stderr);
      expect(argv).toEqual(['synced', 'unlock', 'f00d', '--sync-dir', address]);
      const released = await cli(dir, argv, variables);
      expect(released.code, released.stderr).toBe(0);
      expect(server.locks.size).toBe(0);
      expect((await sync(dir, env)).code).toBe(0);
    }));
  it('a lock its holder releases while the run waits: the run says whom it waits for, then locks and runs', () =>
    withTempDir(async (dir) => {
      const address = server.address('nightly');
      writeUsers(dir, ids);
      server.locks.set('/state/nightly', {
        ID: 'beef',
        Operation: 'examctl user sync --population students',
        Who: 'runner@other',
        Created: '2026-11-21T02:00:00Z',
      });
      // The holder ends after refusing this run twice: the run waits within EXAMCTL_LOCK_TIMEOUT_MS.
      server.releaseAfter('/state/nightly', 2);
      const waited = await sync(dir, { ...gitlab(address), EXAMCTL_LOCK_TIMEOUT_MS: '600000' });
      expect(waited.code, waited.stderr).toBe(0);
      expect(waited.stderr).toContain(
        `waiting for runner@other (examctl user sync --population students, lock beef) since 2026-11-21T02:00:00Z: it holds the lock of the sync memory at ${address}`,
      );
      expect(
        server.requests.filter((request) => request.path === '/state/nightly/lock' && request.method === 'POST'),
      ).toHaveLength(3);
      expect(server.states.has('/state/nightly')).toBe(true);
      expect(server.locks.size).toBe(0);
    }));
});

describe("a run on a state service (Terraform's LOCK and UNLOCK)", () => {
  beforeEach(async () => {
    await server.close();
    server = await startStateServer();
  });

  it('stores what it did also when a record failed (exit 1)', () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_SYNC_DIR: server.address('n') };
      writeUsers(dir, ids, ['ss-2']);
      const run = await sync(dir, env);
      expect(run.code).toBe(1);
      expect(memoryRequests().map((request) => request.method)).toEqual([
        'LOCK',
        'GET',
        'GET',
        'POST',
        'GET',
        'UNLOCK',
      ]);
      writeUsers(dir, ids);
      const next = await sync(dir, env, '--require-memory');
      expect(next.code, next.stderr).toBe(0);
      expect(
        itemsOf(next.stdout)
          .filter((item) => item.action !== 'unchanged')
          .map((item) => item.id),
      ).toEqual(['ss-2']);
    }));

  it('stores what it did also when the target stops it after sending (exit 3): the next night sends only the rest', () =>
    withTempDir(async (dir) => {
      const api = await startFaultServer();
      try {
        // The platform acknowledges three users, then refuses the token (a revoked token mid-night).
        let revoked = true;
        revokingPlatform(api, (answered) => revoked && answered > 3);
        const env = { EXAMCTL_SYNC_DIR: server.address('n'), EXAMCTL_TOKEN: 'dev-token' };
        const remote = [
          '--target',
          'remote',
          '--base-url',
          api.url,
          '--allow-insecure-http',
          '--yes',
          '--concurrency',
          '1',
        ];
        writeUsers(dir, ids);
        const stopped = await cli(
          dir,
          ['user', 'sync', '--file', 'users.csv', ...remote, '--changed-only', '--json'],
          env,
        );
        expect(stopped.code, stopped.stderr).toBe(3);
        expect(memoryRequests().map((request) => request.method)).toEqual([
          'LOCK',
          'GET',
          'GET',
          'POST',
          'GET',
          'UNLOCK',
        ]);
        expect(JSON.parse(server.states.get('/state/n')!)).toMatchObject({ format: 'examctl-sync-memory', serial: 1 });
        revoked = false;
        const next = await cli(
          dir,
          ['user', 'sync', '--file', 'users.csv', ...remote, '--changed-only', '--require-memory', '--json'],
          env,
        );
        expect(next.code, next.stderr).toBe(0);
        // The three acknowledged are left out; the refused one and the two never sent go.
        expect(
          itemsOf(next.stdout)
            .filter((item) => item.action !== 'unchanged')
            .map((item) => item.id),
        ).toEqual(['ss-3', 'ss-4', 'ss-5']);
      } finally {
        await api.close();
      }
    }));

  it('--sync-dir <address> given as a flag is journaled as given: runs resume uses the service, never a directory named after the address', () =>
    withTempDir(async (dir) => {
      const api = await startFaultServer();
      try {
        revokingPlatform(api, (answered) => answered === 3);
        const address = server.address('flagged');
        const remote = [
          '--target',
          'remote',
          '--base-url',
          api.url,
          '--allow-insecure-http',
          '--yes',
          '--concurrency',
          '1',
        ];
        writeUsers(dir, ids);
        const stopped = await cli(
          dir,
          ['user', 'sync', '--file', 'users.csv', ...remote, '--changed-only', '--sync-dir', address, '--json'],
          { EXAMCTL_TOKEN: 'dev-token' },
        );
        expect(stopped.code, stopped.stderr).toBe(3);
        const [run] = readdirSync(join(dir, 'runs')).filter((name) => name !== 'synced');
        const header = JSON.parse(readFileSync(join(dir, 'runs', run!, 'journal.ndjson'), 'utf8').split('\n')[0]!) as {
          b: { options: { syncDir: string } };
        };
        expect(header.b.options.syncDir).toBe(address);
        const resumed = await cli(
          dir,
          ['runs', 'resume', '--base-url', api.url, '--allow-insecure-http', '--yes', '--json'],
          { EXAMCTL_TOKEN: 'dev-token' },
        );
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(resumed.stderr).not.toContain('no sync memory');
        // The resume read the service's memory (its newest run, then under the lock, each with its deltas: none) and stored it (a memory this small whole: a delta would outweigh half of it).
        expect(
          memoryRequests().map((request) => `${request.method}${request.path.includes('-delta-') ? ' delta' : ''}`),
        ).toEqual([
          'LOCK',
          'GET',
          'GET',
          'POST',
          'GET',
          'UNLOCK',
          'GET',
          'GET delta',
          'LOCK',
          'GET',
          'GET delta',
          'GET',
          'POST',
          'GET',
          'UNLOCK',
        ]);
        expect(readdirSync(dir).filter((name) => name.startsWith('http'))).toEqual([]);
        const next = await cli(
          dir,
          [
            'user',
            'sync',
            '--file',
            'users.csv',
            ...remote,
            '--changed-only',
            '--sync-dir',
            address,
            '--require-memory',
            '--json',
          ],
          { EXAMCTL_TOKEN: 'dev-token' },
        );
        expect(next.code, next.stderr).toBe(0);
        expect(itemsOf(next.stdout).every((item) => item.action === 'unchanged')).toBe(true);
      } finally {
        await api.close();
      }
    }));

  it('a store that fails is exit 3 saying what the next night does; that night, on this runner or another, takes in what the run wrote ahead', () =>
    withTempDir(async (dir) => {
      const address = server.address('n');
      const env = { EXAMCTL_SYNC_DIR: address };
      writeUsers(dir, ids);
      // Written ahead (its start, its one batch of joiners); the store at its end fails (every retry).
      server.fail('POST', 500, 3, undefined, 2);
      const run = await sync(dir, env);
      expect(run.code).toBe(3);
      expectCoded(run.stderr, 'E3050', address, 'POST with 500');
      expect(run.stderr).toContain(
        'the service holds it as it was before this run plus what this run wrote ahead, which the next night takes in (its requests as tentative, checked again).',
      );
      expect(run.stderr).not.toContain('is kept in');
      expect(readdirSync(dir).filter((name) => name.startsWith('sync-memory-'))).toEqual([]);
      expect(server.locks.size).toBe(0);
      // Tonight's file lacks ss-5, which the failed run created: the memory knows it from the intents, so it is a leaver.
      const left = ids.slice(0, 5);
      const held = new Map(server.states);
      for (const runsDir of ['runs', 'another-runner']) {
        server.states.clear();
        for (const [path, text] of held) server.states.set(path, text);
        writeUsers(dir, left);
        const next = await sync(dir, { ...env, EXAMCTL_RUNS_DIR: join(dir, runsDir) }, '--require-memory');
        expect(next.code, next.stderr).toBe(0);
        expect(next.stderr).toContain(`note: the sync memory at ${address} holds what run `);
        const items = itemsOf(next.stdout);
        // The second runner's night finds ss-5 disabled by the first's (the store is one): sent, and unchanged.
        expect(items.find((item) => item.id === 'ss-5')).toMatchObject({
          status: 'ok',
          action: runsDir === 'runs' ? 'disabled' : 'unchanged',
        });
        // The rest are sent again (tentative: their answers were not stored), none left out as unchanged since a run.
        expect(items.filter((item) => item.id !== 'ss-5').map((item) => [item.id, item.status, item.note])).toEqual(
          left.map((id) => [id, 'ok', undefined]),
        );
        const third = await sync(dir, { ...env, EXAMCTL_RUNS_DIR: join(dir, runsDir) }, '--require-memory');
        expect(third.code, third.stderr).toBe(0);
        expect(itemsOf(third.stdout).map((item) => item.note?.startsWith('unchanged since run'))).toEqual(
          left.map(() => true),
        );
      }
    }));

  it('a store that fails as the run starts stops it before it sends anything (exit 3), its lock released', () =>
    withTempDir(async (dir) => {
      const address = server.address('n');
      writeUsers(dir, ids);
      server.fail('POST', 500, 3);
      const run = await sync(dir, { EXAMCTL_SYNC_DIR: address });
      expect(run.code).toBe(3);
      expectCoded(run.stderr, 'E3050', address, 'before the requests');
      expect(run.stderr).toContain('nothing was sent');
      expect(
        JSON.parse((await cli(dir, ['local', 'export', '--store', 'store'])).stdout).Users.some(
          (user: { ExternalId: string }) => user.ExternalId === 'ss-0',
        ),
      ).toBe(false);
      expect(server.locks.size).toBe(0);
    }));

  it('a run killed wrote its intents ahead: the next night takes them in as tentative, needs no refusal (--require-memory), and knows the joiner', () =>
    withTempDir(async (dir) => {
      const address = server.address('killed');
      const env = { EXAMCTL_SYNC_DIR: address };
      writeUsers(dir, ids);
      expect((await sync(dir, env)).code).toBe(0);
      // Tonight's export adds a joiner; the run is killed after its answer (the 7th outcome), before it could store its memory.
      writeUsers(dir, [...ids, 'ss-new']);
      const killed = await examctl(
        [
          'user',
          'sync',
          '--file',
          'users.csv',
          '--target',
          'local',
          '--store',
          'store',
          '--changed-only',
          '--disable-missing',
        ],
        dir,
        {
          ...env,
          EXAMCTL_RUNS_DIR: join(dir, 'runs'),
          EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:7:SIGKILL',
        },
      );
      expect(killed.signal).toBe('SIGKILL');
      expect(
        [...server.states].some(([path, text]) => path.startsWith('/state/killed-intents-') && text.includes('ss-new')),
      ).toBe(true);
      // Its lock is left behind: the next run takes it over (its process is gone from this host).
      const next = await sync(dir, env, '--require-memory');
      expect(next.code, next.stderr).toBe(0);
      expect(next.stderr).toContain(`note: the sync memory at ${address} holds what run `);
      expect(next.stderr).not.toContain('misses what run');
      // What it acknowledged is known (its answer was written ahead with a later batch, or the joiner goes again as tentative).
      expect(itemsOf(next.stdout).every((item) => item.status === 'ok')).toBe(true);
      const third = await sync(dir, env, '--require-memory');
      expect(third.code, third.stderr).toBe(0);
      expect(third.stderr).not.toContain('holds what run');
      expect(itemsOf(third.stdout).every((item) => item.action === 'unchanged')).toBe(true);
    }));

  it('a document of another target is refused (exit 2 naming both); a dry run reads without locking', () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_SYNC_DIR: server.address('n') };
      writeUsers(dir, ids);
      expect((await sync(dir, env)).code).toBe(0);
      const other = await cli(
        dir,
        [
          'user',
          'sync',
          '--file',
          'users.csv',
          '--target',
          'local',
          '--store',
          'other-store',
          '--changed-only',
          '--json',
        ],
        env,
      );
      expect(other.code).toBe(2);
      expectCoded(other.stderr, 'E2504', `local ${join(dir, 'store')}`, `local ${join(dir, 'other-store')}`);
      expect(server.locks.size).toBe(0);
      server.requests.length = 0;
      const dry = await sync(dir, env, '--dry-run');
      expect(dry.code, dry.stderr).toBe(0);
      expect(server.requests.every((request) => request.method === 'GET')).toBe(true);
    }));

  it('forget removes the document under the lock; show says there is none', () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_SYNC_DIR: server.address('n') };
      writeUsers(dir, ids);
      expect((await sync(dir, env)).code).toBe(0);
      const forgot = await cli(dir, ['synced', 'forget', '--target', 'local', '--store', 'store'], env);
      expect(forgot.code, forgot.stderr).toBe(0);
      expect(forgot.stderr).toContain('forgot 6 remembered ids');
      expect(server.states.size).toBe(0);
      const shown = await cli(dir, ['synced', 'show'], env);
      expect(shown.stderr).toContain(
        `no sync memory in ${server.address('n')}; if a nightly sync kept one here, it was lost`,
      );
    }));

  it('a document removed on the service (a state deleted, an address changed) reads as no memory yet: --require-memory refuses that night, without it the night sends everything (exit 0), so the nightly recipe needs both (found by a trial)', () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_SYNC_DIR: server.address('n') };
      writeUsers(dir, ids);
      expect((await sync(dir, env)).code).toBe(0);
      for (const path of [...server.states.keys()]) server.states.delete(path);
      const required = await sync(dir, env, '--require-memory');
      expect(required.code, required.stderr).toBe(2);
      expectCoded(required.stderr, 'E2501', server.address('n'));
      expect(itemsOf(required.stdout).every((item) => item.status === 'skipped')).toBe(true);
      const unguarded = await sync(dir, env);
      expect(unguarded.code, unguarded.stderr).toBe(0);
      expect((JSON.parse(unguarded.stdout) as { syncMemory: { found: boolean } }).syncMemory.found).toBe(false);
      expect(itemsOf(unguarded.stdout).filter((item) => item.note?.includes('--changed-only'))).toEqual([]);
    }));

  it.each(['SIGTERM', 'SIGINT'])('stores at %s: the run stopped after sending keeps what was acknowledged', (signal) =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_SYNC_DIR: server.address('n'), EXAMCTL_RUNS_DIR: join(dir, 'runs') };
      writeUsers(
        dir,
        Array.from({ length: 500 }, (_, i) => `tm-${i}`),
      );
      // The run signals itself after its 100th outcome, as a CI cancel would mid-run.
      const stopped = await examctl(
        ['user', 'sync', '--file', 'users.csv', '--target', 'local', '--store', 'store', '--changed-only', '--json'],
        dir,
        { ...env, EXAMCTL_TEST_SIGNAL_AFTER: `outcome:100:${signal}` },
      );
      expect(stopped.code, stopped.stderr).toBe(130);
      expect(server.locks.size).toBe(0);
      const document = JSON.parse(server.states.get('/state/n')!) as { populations: { users: { count: number }[] } };
      expect(document.populations.users[0]!.count).toBeGreaterThanOrEqual(100);
      const next = await examctl(
        [
          'user',
          'sync',
          '--file',
          'users.csv',
          '--target',
          'local',
          '--store',
          'store',
          '--changed-only',
          '--require-memory',
          '--json',
        ],
        dir,
        env,
      );
      expect(next.code, next.stderr).toBe(0);
      expect(itemsOf(next.stdout).filter((item) => item.action === 'unchanged').length).toBeGreaterThanOrEqual(100);
    }),
  );
});

describe('addresses and credentials', () => {
  it('a password in the address, a query, or plain http to another host is refused; the password never reaches a sink, also when the service quotes it', () =>
    withTempDir(async (dir) => {
      writeUsers(dir, ids);
      for (const [address, words] of [
        [
          'https://ci:secret@state.example.test/s',
          'must not contain a user name or password; give them with EXAMCTL_SYNC_USERNAME and EXAMCTL_SYNC_PASSWORD',
        ],
        ['https://state.example.test/s?token=abc', 'must not contain a query string or fragment'],
        ['http://state.example.test/s', 'refusing plain http:// to state.example.test'],
      ] as const) {
        const refused = await sync(dir, { EXAMCTL_SYNC_DIR: address });
        expect(refused.code, address).toBe(2);
        expect(refused.stderr).toContain(words);
      }
      await server.close();
      const password = 'quoted-back-S3cret-password';
      server = await startStateServer({ credentials: { username: 'ci', password: 'another-one-S3cret' } });
      const refused = await sync(dir, {
        EXAMCTL_SYNC_DIR: server.address('n'),
        EXAMCTL_SYNC_USERNAME: 'ci',
        EXAMCTL_SYNC_PASSWORD: password,
      });
      expect(refused.code).toBe(3);
      expectCoded(refused.stderr, 'E3011', 'LOCK', '(401)', 'EXAMCTL_SYNC_USERNAME', 'EXAMCTL_SYNC_PASSWORD');
      // A service that quotes the credentials back in its error: the message keeps none of them.
      server.fail(
        'LOCK',
        500,
        3,
        `no lock for ci:another-one-S3cret (Basic ${Buffer.from('ci:another-one-S3cret').toString('base64')})`,
      );
      const quoted = await sync(dir, {
        EXAMCTL_SYNC_DIR: server.address('n'),
        EXAMCTL_SYNC_USERNAME: 'ci',
        EXAMCTL_SYNC_PASSWORD: 'another-one-S3cret',
      });
      expect(quoted.code).toBe(3);
      expectCoded(quoted.stderr, 'E3000', 'LOCK', '500');
      expect(quoted.stderr).toContain('[redacted]');
      for (const text of [quoted.stdout, quoted.stderr])
        expect(text).not.toMatch(/another-one-S3cret|S3cret|Y2k6YW5vdGhlci1vbmUtUzNjcmV0/);
      for (const text of [refused.stdout, refused.stderr]) expect(text).not.toContain(password);
      const journals = existsSync(join(dir, 'runs'))
        ? readdirSync(join(dir, 'runs'), { recursive: true })
            .map(String)
            .filter((name) => name.endsWith('.ndjson'))
        : [];
      for (const journal of journals) expect(readFileSync(join(dir, 'runs', journal), 'utf8')).not.toContain(password);
    }));
});

/** The platform acknowledges each user it is sent, but refuses the token (401) at the requests `revoked` names (a token revoked mid-night). */
function revokingPlatform(api: FaultServer, revoked: (answered: number) => boolean): void {
  let answered = 0;
  api.fallback = (request) => {
    answered += 1;
    if (revoked(answered))
      return {
        status: 401,
        body: { Content: null, Success: false, Errors: [{ Code: 401, Message: 'token revoked' }] },
      };
    return okEnvelope({
      User: { ExternalId: (JSON.parse(request.body) as { ExternalId: string }).ExternalId },
      GroupErrors: [],
    });
  };
}
