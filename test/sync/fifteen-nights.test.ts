import { hostname } from 'node:os';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { examctl } from '../durability/helpers.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps } from '../cli/helpers.js';
import type { LocalServer } from '../../src/server/serve-local.js';
import { startStateServer, type StateServer } from '../support/state-server.js';
import {
  initServedStore,
  nightly,
  platformState,
  POPULATIONS,
  serve,
  writeNight,
  type Population,
} from './lost-memory-nights.js';
import { dropEndStore } from '../support/end-store.js';

/**
 * Issue 59, "Proof in the suite": fifteen nights of two populations against `local serve` and a
 * Terraform-HTTP-style state service, in-process. The files of nights 1-6 (lost-memory-nights.ts)
 * then night 6's again; a control target runs them with no fault. The other meets, each on its
 * night, a fault a state service or CI causes, recovered only by what examctl's message says (or,
 * for an older export forced in, the one recovery docs/sync.md names); at each night's end its
 * platform equals the control's, field by field. Night 5: a runner lost mid-night (kill -9 at a
 * marker, its runs directory deleted); night 6: `synced adopt` over the memory; nights 7 to 11: a
 * dropped store, a failed start store, a drip, a dead lock holder, an old file run again; night
 * 12: an older export imported on a fresh runner.
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

const remote = (target: (typeof targets)[number]) => [
  '--target',
  'remote',
  '--base-url',
  target.server!.url,
  '--allow-insecure-http',
];
const placeOf = (target: (typeof targets)[number], runner: string) => ({
  EXAMCTL_SYNC_DIR: target.state!.address(target.name),
  EXAMCTL_RUNS_DIR: join(dir, runner),
});

function step(
  target: (typeof targets)[number],
  n: number,
  population: Population,
  runner: string,
  file = filesOf(n)[population],
  extra: Record<string, string> = {},
) {
  return cli(['user', 'sync', '--file', file, ...remote(target), ...nightly(population, n)], {
    ...placeOf(target, runner),
    ...extra,
  });
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

it(
  'fifteen nights, a fault on each of its nights: every night ends as the control, zero differences',
  async () => {
    const [control, faulty] = targets as [(typeof targets)[number], (typeof targets)[number]];
    for (let n = 1; n <= 15; n++) {
      for (const population of POPULATIONS) {
        const clean = await step(control, n, population, `control-${n}`);
        expect(clean.code, `control night ${n} ${population}: ${clean.stderr}`).toBe(0);
        // Each night on a fresh runner: its runs directory is new.
        const runner = `runner-${n}-${population}`;
        const state = faulty.state!;
        const say = `night ${n} ${population}`;
        const place = placeOf(faulty, runner);
        if (n === 5 && population === 'students') {
          // A runner lost mid-night: killed (kill -9) once its joiner is on record as sent, its runs directory deleted. The next run needs no refusal.
          const argv = ['user', 'sync', '--file', filesOf(n)[population], ...remote(faulty), ...nightly(population, n)];
          const killed = await examctl(argv, dir, {
            ...place,
            EXAMCTL_TOKEN: 'dev-token',
            EXAMCTL_LOCK_TIMEOUT_MS: '0',
            EXAMCTL_TEST_SIGNAL_AFTER: 'sent:1:SIGKILL',
          });
          expect(killed.signal, `${say}: ${killed.stderr}`).toBe('SIGKILL');
          rmSync(join(dir, runner), { recursive: true, force: true });
        }
        if (n === 6 && population === 'staff') {
          // `synced adopt` over the memory, of the last file fully synced: it keeps what examctl knows (st-2 disabled), so tonight is exact.
          const adopted = await cli(
            ['synced', 'adopt', '--file', filesOf(5).staff, '--population', 'staff', ...remote(faulty)],
            place,
          );
          expect(adopted.code, `${say}: ${adopted.stderr}`).toBe(0);
        }
        if (n === 12 && population === 'students') {
          // An older export (after night 4) imported on a fresh runner: refused, nothing written. Forced in, the one recovery
          // docs/sync.md names: the files of the nights since that export adopted in order, then tonight.
          const refused = await cli(['synced', 'import', join(dir, 'night-4.json'), ...remote(faulty)], place);
          expect(refused.code, say).toBe(2);
          expectCoded(refused.stderr, 'E2506', 'night-4.json', '--force');
          const forced = await cli(
            ['synced', 'import', join(dir, 'night-4.json'), '--force', ...remote(faulty)],
            place,
          );
          expect(forced.code, say).toBe(0);
          // Forced, its cost and the way back are said: the recovery below is what it prints.
          expect(forced.stderr).toContain('warning: the memory replaced was newer');
          expect(forced.stderr).toContain(
            "adopt each night's file since, in order: examctl synced adopt --file <night>",
          );
          // Night by night, each population's file of that night (a user moves from one export to the other: pu-11 on night 6).
          for (const night of [5, 6]) {
            for (const each of POPULATIONS) {
              const adopted = await cli(
                ['synced', 'adopt', '--file', filesOf(night)[each], '--population', each, ...remote(faulty)],
                place,
              );
              expect(adopted.code, `${say}: ${adopted.stderr}`).toBe(0);
            }
          }
        }
        if (n === 7 && population === 'staff') {
          // The service answers 200 to the end store (a delta or the memory whole: the POST after the night's one batch of
          // intents) and keeps the start one: exit 3, not stored; the next night takes in what it wrote ahead.
          dropEndStore(state);
          const dropped = await step(faulty, n, population, runner);
          expect(dropped.code, say).toBe(3);
          expect(dropped.stderr).toMatch(/but still holds (no|another) document: the memory was not stored/);
          expect(dropped.stderr).toContain('plus what this run wrote ahead, which the next night takes in');
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
          expectCoded(dripped.stderr, 'E3000', 'GET', 'EXAMCTL_REQUEST_TIMEOUT_MS');
          expect(state.locks.size).toBe(0);
        }
        if (n === 10 && population === 'students') {
          // A lock left by a run of this host whose process is gone: taken over with a note.
          const pid = spawnSync(process.execPath, ['-e', '0']).pid!;
          state.locks.set(`/state/${faulty.name}`, {
            ID: 'dead',
            Who: `ci@${hostname()}`,
            Info: JSON.stringify({ pid, host: hostname(), token: 'dead' }),
          });
        }
        if (n === 11 && population === 'students') {
          // Night 4's file run again (a CI re-run): refused as the file an older run read, nothing sent. Tonight's file then.
          const stale = await step(faulty, n, population, runner, writeNight(dir, 4).students);
          expect(stale.code, say).toBe(2);
          expectCoded(stale.stderr, 'E2502', '--population students', '--allow-old-file');
        }
        const run = await step(faulty, n, population, `${runner}-again`);
        expect(run.code, `${say}: ${run.stderr}`).toBe(0);
        if (n === 10 && population === 'students')
          expect(run.stderr).toContain('note: took over the lock of the sync memory');
        if (n === 5 && population === 'students')
          expect(run.stderr).toMatch(
            /note: took over the lock of the sync memory[\s\S]*holds what run \S+ wrote ahead and never stored as its end/,
          );
      }
      if (n === 4)
        expect(
          (
            await cli(
              ['synced', 'export', ...remote(faulty), '--out', join(dir, 'night-4.json')],
              placeOf(faulty, 'export-4'),
            )
          ).code,
        ).toBe(0);
      expect(await platformState(dir, faulty.store), `night ${n}`).toEqual(await platformState(dir, control.store));
    }
    // The nights did what the files say: leavers disabled, movers moved (what was compared is not empty).
    const end = await platformState(dir, control.store);
    expect(end).toMatchObject({
      'pu-5': expect.stringContaining('|disabled|'),
      'st-2': expect.stringContaining('|disabled|'),
      'pu-22': 'Joiner pu-22|enabled|H-B',
      'st-6': expect.stringContaining('H-A:'),
    });
  },
  TIMEOUT,
);
