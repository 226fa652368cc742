import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { stateServerPerTest } from '../support/state-server.js';
import { privateTempRoot } from '../../src/system/private-temp.js';
import { deltaEndIds, dropEndDelta } from '../support/end-store.js';

/**
 * A state service that does not do what it says (docs/sync.md, "A state service"): a store
 * acknowledged and dropped (read back: exit 3, the memory not stored), a start store that failed
 * (no run that did anything), an answer that drips past the request timeout (one failure, not
 * tried again, the lock released), and a lock whose holder on this host is gone (taken over).
 */

const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role,Hierarchies';
const server = stateServerPerTest();

function writeUsers(dir: string, ids: readonly string[]): void {
  writeFileSync(
    join(dir, 'users.csv'),
    `${[HEADER, ...ids.map((id) => `${id},First,Last ${id},${id}@example.test,name-${id},Candidate,`)].join('\n')}\n`,
  );
}

async function cli(dir: string, argv: string[], env: Record<string, string> = {}) {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_LOCK_TIMEOUT_MS: '0', ...env });
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

const ids = deltaEndIds('vs');
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
const methods = () => server.requests.map((request) => request.method);
/** The requests to the memory's own address and its deltas (`delta`): a run's intents are written ahead to `<address>-intents-<n>`. */
const memoryMethods = () =>
  server.requests
    .filter((request) => !request.path.includes('-intents-'))
    .map((request) => `${request.method}${request.path.includes('-delta-') ? ' delta' : ''}`);
/** Night 1 stores the memory at the service's `name`; tonight's export adds a joiner, vs-new. */
async function joinerNight(dir: string, name: string) {
  const address = server.address(name);
  const env = { EXAMCTL_SYNC_DIR: address };
  writeUsers(dir, ids);
  expect((await sync(dir, env)).code).toBe(0);
  writeUsers(dir, [...ids, 'vs-new']);
  return { address, env };
}

describe('an end store that failed, on the same runner', () => {
  it('the next --require-memory night takes in what the run wrote ahead, not refused as a memory cut short (found by a trial)', () =>
    withTempDir(async (dir) => {
      const { env } = await joinerNight(dir, 'same');
      dropEndDelta(server);
      const failed = await sync(dir, env);
      expect(failed.code, failed.stderr).toBe(3);
      // Every record went, the memory's end was not stored: the run stays resumable, and says so.
      expectCoded(failed.stderr, 'E3050', 'examctl runs resume ');
      expect(JSON.parse((await cli(dir, ['runs', 'list', '--json'])).stdout).runs[0]).toMatchObject({
        state: 'interrupted',
      });
      // Tonight's export (other bytes than night 1's: not an old file run again).
      writeUsers(dir, [...ids].reverse());
      const next = await sync(dir, env, '--require-memory', '--allow-disable-recent');
      expect(next.code, next.stderr).toBe(0);
      expect(next.stderr).toContain('wrote ahead and never stored as its end');
      expect(next.stderr).not.toContain('cut short');
      // vs-new, created by the run whose end was not stored, left the file: disabled.
      expect(JSON.parse(next.stdout).items.find((item: { id: string }) => item.id === 'vs-new')).toMatchObject({
        action: 'disabled',
      });
    }));
});

describe("the run's copy of the memory", () => {
  it('removed under the run (its private temp folder cleared): exit 3, the memory not stored, the service keeps every user (found by a trial: it was stored empty)', () =>
    withTempDir(async (dir) => {
      const { env } = await joinerNight(dir, 'copy');
      const held = server.states.get('/state/copy');
      // At the first intents written ahead, the run's copy is gone: what it read from the service.
      const root = await privateTempRoot();
      server.onRequest((request) => {
        if (request.method !== 'POST' || !request.path.includes('-intents-')) return;
        server.onRequest(undefined);
        for (const entry of readdirSync(root))
          if (entry.startsWith(`${process.pid}@`) && entry.includes('@synced-'))
            rmSync(join(root, entry), { recursive: true, force: true });
      });
      const cut = await sync(dir, env);
      expect(cut.code, cut.stderr).toBe(3);
      expectCoded(cut.stderr, 'E3050', 'removed');
      expect(
        server.states.get('/state/copy')!.length,
        JSON.stringify(server.requests.map((r) => [r.method, r.path, r.body.length])),
      ).toBeGreaterThanOrEqual(held!.length);
      const shown = await cli(dir, ['synced', 'show', '--json'], env);
      // The 12 of night 1, and the joiner if its intent is taken in: never stored empty.
      expect(shown.stdout, shown.stderr).toMatch(/"remembered":1[23]\b/);
      // The next night on the same runner (its runs directory says the run finished) takes in what
      // the run wrote ahead: not refused as a memory cut short (found by a trial).
      const next = await sync(dir, env, '--require-memory');
      expect(next.code, next.stderr).toBe(0);
      expect(next.stderr).toContain('wrote ahead and never stored as its end');
      expect(next.stderr).not.toContain('cut short');
    }));
});

describe('every store is read back', () => {
  it('a store answered 200 and dropped is exit 3 saying the memory was not stored; on a fresh runner the next --require-memory night takes in what it wrote ahead, never runs on the old memory alone', () =>
    withTempDir(async (dir) => {
      const { address, env } = await joinerNight(dir, 'n');
      // Tonight's run with the joiner: the service takes what is written ahead (the start, the joiner's batch), acknowledges the end store (its delta) and drops it.
      server.requests.length = 0;
      dropEndDelta(server);
      const dropped = await sync(dir, env);
      expect(dropped.code).toBe(3);
      expectCoded(dropped.stderr, 'E3050', address, `${address}-delta-1`, 'POST', 'removed again');
      // Said once: the refusal is the run's error, not also a note before it (found by a trial).
      expect(dropped.stderr.split('the sync memory was not saved to').length, dropped.stderr).toBe(2);
      expect(memoryMethods()).toEqual([
        'LOCK',
        'GET',
        'GET delta',
        'POST delta',
        'GET delta',
        'POST delta',
        'GET delta',
        'DELETE delta',
        'GET delta',
        'UNLOCK',
      ]);
      const fresh = await sync(dir, { ...env, EXAMCTL_RUNS_DIR: join(dir, 'fresh-runner') }, '--require-memory');
      expect(fresh.code, fresh.stderr).toBe(0);
      expect(fresh.stderr).toContain(`note: the sync memory at ${address} holds what run `);
      expect(
        (JSON.parse(fresh.stdout) as { items: { id: string; status: string }[] }).items.every(
          (item) => item.status === 'ok',
        ),
      ).toBe(true);
    }));

  it('a start store dropped stops the run before it sends (exit 3)', () =>
    withTempDir(async (dir) => {
      const address = server.address('n');
      writeUsers(dir, ids);
      server.fail('POST', 200, 2, '');
      const run = await sync(dir, { EXAMCTL_SYNC_DIR: address });
      expect(run.code).toBe(3);
      expectCoded(run.stderr, 'E3050', address, `${address}-intents-0`, 'POST', 'removed again', 'nothing was sent');
      expect(
        JSON.parse((await cli(dir, ['local', 'export', '--store', 'store'])).stdout).Users.some(
          (user: { ExternalId: string }) => user.ExternalId === 'vs-0',
        ),
      ).toBe(false);
    }));
});

describe('a start store that fails is not a run that did anything', () => {
  it('the service down for the whole run: later --require-memory nights, on this runner and a fresh one, are not refused for it', () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_SYNC_DIR: server.address('n') };
      writeUsers(dir, ids);
      expect((await sync(dir, env)).code).toBe(0);
      // Down after the run's reads (the memory, its first delta: none, the first batch of intents: the last run's, read again to put it back): its start written ahead, and its look for it to take back, fail.
      server.fail('POST', 500, 3);
      server.fail('GET', 500, 3, undefined, 4);
      const failed = await sync(dir, env);
      expect(failed.code).toBe(3);
      expect(failed.stderr).toContain('nothing was sent');
      // Nothing was stored, and nothing kept for synced import: there is nothing this run did.
      expect(failed.stderr).not.toContain('was not saved');
      for (const runsDir of ['runs', 'fresh-runner']) {
        const next = await sync(dir, { ...env, EXAMCTL_RUNS_DIR: join(dir, runsDir) }, '--require-memory');
        expect(next.code, next.stderr).toBe(0);
        expect(next.stderr).not.toContain('misses what');
      }
    }));

  it('its answer lost (the service took it, then dripped): the mark it took is taken out again', () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_SYNC_DIR: server.address('n'), EXAMCTL_REQUEST_TIMEOUT_MS: '1000' };
      writeUsers(dir, ids);
      expect((await sync(dir, env)).code).toBe(0);
      server.drip('POST');
      const failed = await sync(dir, env);
      expect((JSON.parse(server.states.get('/state/n')!) as { inFlight?: unknown }).inFlight).toBeUndefined();
      expect(failed.code).toBe(3);
      expect(failed.stderr).toContain('nothing was sent');
      expect(server.locks.size).toBe(0);
      for (const runsDir of ['runs', 'fresh-runner']) {
        const next = await sync(dir, { ...env, EXAMCTL_RUNS_DIR: join(dir, runsDir) }, '--require-memory');
        expect(next.code, next.stderr).toBe(0);
        expect(next.stderr).not.toContain('misses what');
      }
    }));
});

describe('an answer that drips past the request timeout', () => {
  // The bound is asserted by what it did (one failure, no retry, the lock released), not by how long it took.
  const env = (address: string) => ({ EXAMCTL_SYNC_DIR: address, EXAMCTL_REQUEST_TIMEOUT_MS: '1000' });

  it.each(['GET', 'POST'])('%s: one failure, not tried again (exit 3), and the lock is released', (method) =>
    withTempDir(async (dir) => {
      const address = server.address('n');
      writeUsers(dir, ids);
      // The read as the run starts; the store at its end.
      server.drip(method, 1, method === 'POST' ? 1 : 0);
      const run = await sync(dir, env(address));
      expect(run.code).toBe(3);
      expect(run.stderr).toMatch(
        new RegExp(
          `the state service at ${address}\\S* did not answer ${method} whole within the request timeout \\(1 s, EXAMCTL_REQUEST_TIMEOUT_MS\\): not tried again`,
        ),
      );
      // POST: the start written ahead, then the dripping batch of joiners, not tried again, and the store at its end.
      expect(methods().filter((each) => each === method)).toHaveLength(method === 'POST' ? 3 : 1);
      expect(methods().at(-1)).toBe('UNLOCK');
      expect(server.locks.size).toBe(0);
    }),
  );

  it('LOCK: released all the same (the service took it before it dripped)', () =>
    withTempDir(async (dir) => {
      writeUsers(dir, ids);
      server.drip('LOCK');
      const run = await sync(dir, env(server.address('n')));
      expect(run.code).toBe(3);
      expectCoded(run.stderr, 'E3000', 'LOCK', 'EXAMCTL_REQUEST_TIMEOUT_MS');
      expect(methods()).toEqual(['LOCK', 'UNLOCK']);
      expect(server.locks.size).toBe(0);
    }));
});

describe('a lock whose holder on this host is gone', () => {
  const deadPid = (): number => spawnSync(process.execPath, ['-e', '0']).pid!;
  const held = (pid: number, host: string) => ({
    ID: 'dead-1',
    Operation: 'examctl user sync',
    Who: `ci@${host}`,
    Created: '2026-11-21T02:00:00Z',
    Info: JSON.stringify({ pid, host, token: 'dead-1', command: 'examctl user sync', since: '2026-11-21T02:00:00Z' }),
  });

  it('is taken over with a note; the run goes ahead', () =>
    withTempDir(async (dir) => {
      const address = server.address('n');
      writeUsers(dir, ids);
      const pid = deadPid();
      server.locks.set('/state/n', held(pid, hostname()));
      const run = await sync(dir, { EXAMCTL_SYNC_DIR: address });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain(
        `note: took over the lock of the sync memory at ${address} held by ci@${hostname()} (examctl user sync, lock dead-1) since 2026-11-21T02:00:00Z: its process (pid ${pid} on host ${hostname()}`,
      );
      expect(run.stderr).toContain('no longer runs on this host');
      expect(methods().slice(0, 3)).toEqual(['LOCK', 'UNLOCK', 'LOCK']);
      expect(server.locks.size).toBe(0);
    }));

  it('a holder on another host, or alive here, is not: exit 3 naming it', () =>
    withTempDir(async (dir) => {
      writeUsers(dir, ids);
      for (const holder of [held(deadPid(), 'another-host.example'), held(process.ppid, hostname())]) {
        server.locks.set('/state/n', holder);
        const run = await sync(dir, { EXAMCTL_SYNC_DIR: server.address('n') });
        expect(run.code).toBe(3);
        expect(run.stderr).toContain('is locked by ci@');
        expect(server.locks.get('/state/n')?.ID).toBe('dead-1');
      }
    }));
});
