import { hostname } from 'node:os';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps } from '../cli/helpers.js';
import type { LocalServer } from '../../src/server/index.js';
import { startStateServer, type StateServer } from '../support/state-server.js';
import { initServedStore, nightly, platformState, POPULATIONS, serve, writeNight, type Population } from './lost-memory-nights.js';

/**
 * Issue 59, "Proof in the suite": fifteen nights of two populations against `local serve` and a
 * Terraform-HTTP-style state service, in-process. The files of nights 1-6 (lost-memory-nights.ts)
 * then night 6's again; a control target runs them with no fault. The other meets, each on its
 * night, a fault a state service or CI causes, recovered only by what examctl's message says; at
 * each night's end its platform equals the control's, field by field.
 *
 * TODO(memory helper: write-ahead intents, adopt): a runner lost mid-night (kill -9, its runs
 * directory deleted), `synced adopt` over a memory and an older export imported on a fresh runner
 * belong here too; they depend on the intents written ahead to the service and on adopt's and
 * import's recoveries (issue 59, items 2, 5 and 6), and are not faked.
 */

const TIMEOUT = 900_000;
let dir: string;
const targets: { name: string; store: string; server?: LocalServer; state?: StateServer }[] = [];

/** The night's files: nights 1 to 6, then night 6's again (a steady week). */
const filesOf = (n: number) => writeNight(dir, Math.min(n, 6));

async function cli(argv: string[], env: Record<string, string>) {
  const io = testDeps(dir, {}, { EXAMCTL_TOKEN: 'dev-token', EXAMCTL_LOCK_TIMEOUT_MS: '0', ...env });
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

function step(target: (typeof targets)[number], n: number, population: Population, runner: string, file = filesOf(n)[population], extra: Record<string, string> = {}) {
  const env = { EXAMCTL_SYNC_DIR: target.state!.address(target.name), EXAMCTL_RUNS_DIR: join(dir, runner), ...extra };
  return cli(['user', 'sync', '--file', file, '--target', 'remote', '--base-url', target.server!.url, '--allow-insecure-http', ...nightly(population, n)], env);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-fifteen-'));
  for (const name of ['control', 'faults']) {
    const store = join(dir, `store-${name}`);
    await initServedStore(dir, store);
    targets.push({ name, store, server: await serve(store), state: await startStateServer() });
  }
}, TIMEOUT);

afterAll(async () => {
  for (const target of targets) {
    await target.server?.close();
    await target.state?.close();
  }
  await rm(dir, { recursive: true, force: true });
});

it('fifteen nights, a fault on each of its nights: every night ends as the control, zero differences', async () => {
  const [control, faulty] = targets as [(typeof targets)[number], (typeof targets)[number]];
  for (let n = 1; n <= 15; n++) {
    for (const population of POPULATIONS) {
      const clean = await step(control, n, population, `control-${n}`);
      expect(clean.code, `control night ${n} ${population}: ${clean.stderr}`).toBe(0);
      // Each night on a fresh runner: its runs directory is new.
      const runner = `runner-${n}-${population}`;
      const state = faulty.state!;
      const say = `night ${n} ${population}`;
      if (n === 7 && population === 'staff') {
        // The service answers 200 to the end store and keeps the start one: exit 3, not stored; the message's command stores it.
        state.fail('POST', 200, 1, '', 1);
        const dropped = await step(faulty, n, population, runner);
        expect(dropped.code, say).toBe(3);
        expect(dropped.stderr).toContain('but still holds another document: the memory was not stored');
        const kept = /examctl synced import (\S+) --sync-dir (\S+) stores it/.exec(dropped.stderr);
        expect(kept, dropped.stderr).not.toBeNull();
        const imported = await cli(['synced', 'import', kept![1]!, '--sync-dir', kept![2]!, '--target', 'remote', '--base-url', faulty.server!.url, '--allow-insecure-http'], {});
        expect(imported.code, imported.stderr).toBe(0);
        continue;
      }
      if (n === 8 && population === 'staff') {
        // A start store that fails sends nothing; the night run again is not refused for it.
        state.fail('POST', 500, 3);
        const failed = await step(faulty, n, population, runner);
        expect(failed.code, say).toBe(3);
        expect(failed.stderr).toContain('nothing was sent');
      }
      if (n === 9 && population === 'students') {
        // The service drips its answer: one failure within the request timeout, the lock released; run again.
        state.drip('GET');
        const dripped = await step(faulty, n, population, runner, undefined, { EXAMCTL_REQUEST_TIMEOUT_MS: '1000' });
        expect(dripped.code, say).toBe(3);
        expect(dripped.stderr).toContain('did not answer GET whole within the request timeout');
        expect(state.locks.size).toBe(0);
      }
      if (n === 10 && population === 'students') {
        // A lock left by a run of this host whose process is gone: taken over with a note.
        const pid = spawnSync(process.execPath, ['-e', '0']).pid!;
        state.locks.set(`/state/${faulty.name}`, { ID: 'dead', Who: `ci@${hostname()}`, Info: JSON.stringify({ pid, host: hostname(), token: 'dead' }) });
      }
      if (n === 11 && population === 'students') {
        // Night 4's file run again (a CI re-run): the joiners since would be leavers; refused, nothing sent. Tonight's file then.
        const stale = await step(faulty, n, population, runner, writeNight(dir, 4).students);
        expect(stale.code, say).toBe(2);
        expect(stale.stderr).toContain('is the file an older export run again? Nothing was sent.');
      }
      const run = await step(faulty, n, population, `${runner}-again`);
      expect(run.code, `${say}: ${run.stderr}`).toBe(0);
      if (n === 10 && population === 'students') expect(run.stderr).toContain('note: took over the lock of the sync memory');
    }
    expect(await platformState(dir, faulty.store), `night ${n}`).toEqual(await platformState(dir, control.store));
  }
  // The nights did what the files say: leavers disabled, movers moved (what was compared is not empty).
  const end = await platformState(dir, control.store);
  expect(end).toMatchObject({ 'pu-5': expect.stringContaining('|disabled|'), 'st-2': expect.stringContaining('|disabled|'), 'pu-22': 'Joiner pu-22|enabled|H-B', 'st-6': expect.stringContaining('H-A:') });
}, TIMEOUT);
