// Paired A/B of local serve's CPU per 1,000 creates (bare undici loop, concurrency 8, after 2,000
// warm-up creates; a fresh store each): two builds, their order alternating round by round.
// node bench/ab-serve.mjs <binA> <binB> [rounds] [users] [get|night]
// With `get`: GETs of a review session instead of creates (a serve that only reads: no lock lease is held,
// so each request's token check catches the store up from its files).
// With `night`: a first night through each build's server, no warm-up: `user sync --target remote` of `users`
// new users (bench/.data/users-n-<users>.csv) by this checkout's bin/examctl, the same CLI for both; the server's
// CPU during the night, the CLI's, and the night's wall time.
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { bareLoop, closedLoop, spawnedCpu } from './remote-bench.mjs';
import { usersCsv } from './generate.mjs';
import { cliPath } from './paths.mjs';

const [a, b, rounds = '5', users = '5000', mode = 'create'] = process.argv.slice(2);

/** `count` GETs of the demo world's review session at concurrency 8. */
async function getLoop(target, count) {
  const pool = new Pool(target.url, { connections: 8, pipelining: 1 });
  const headers = { authorization: `EAPI ${target.token}`, accept: 'application/json' };
  await closedLoop(count, 8, async () => {
    const res = await pool.request({
      method: 'GET',
      path: '/api/v1/integrations/external/review-sessions/RS-MATH1-OCT',
      headers,
    });
    if (!JSON.parse(await res.body.text()).Success) throw new Error('GET review session: unexpected failure');
  });
  await pool.close();
}
const loop = mode === 'get' ? (t, count) => getLoop(t, count) : (t, count, prefix) => bareLoop(t, count, 8, prefix);
const nightCsv = mode === 'night' ? await usersCsv(Number(users), 'n') : undefined;
const cpuMs = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
};
async function serve(bin) {
  const dir = mkdtempSync(join(tmpdir(), 'hserve-ab-'));
  const log = join(dir, 'log');
  const fd = openSync(log, 'w');
  const child = spawn(process.execPath, [bin, 'local', 'serve', '--port', '0', '--store', join(dir, 'store')], {
    stdio: ['ignore', 'ignore', fd],
    env: { ...process.env, CI: 'true' },
  });
  closeSync(fd);
  let url;
  while (!url) {
    await sleep(20);
    url = /listening on (http:\/\/\S+)/.exec(readFileSync(log, 'utf8'))?.[1];
  }
  return {
    url,
    token: 'dev-token',
    pid: child.pid,
    close: async () => {
      child.kill('SIGTERM');
      await once(child, 'exit');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
const got = { a: [], b: [] };
const loads = [];
for (let r = 0; r < Number(rounds); r++) {
  loads.push(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  const order =
    r % 2
      ? [
          ['b', b],
          ['a', a],
        ]
      : [
          ['a', a],
          ['b', b],
        ];
  for (const [k, bin] of order) {
    const t = await serve(bin);
    try {
      if (nightCsv !== undefined) {
        const before = cpuMs(t.pid);
        const cli = spawnedCpu(
          [
            cliPath,
            '--target',
            'remote',
            '--base-url',
            t.url,
            'user',
            'sync',
            '--yes',
            '--no-input',
            '--file',
            nightCsv,
          ],
          { EXAMCTL_TOKEN: t.token },
        );
        got[k].push({
          cpu: ((cpuMs(t.pid) - before) / Number(users)) * 1000,
          rate: Number(users) / cli.seconds,
          cli: (cli.cpu / Number(users)) * 1000,
          seconds: cli.seconds,
        });
        continue;
      }
      await loop(t, 2000, 'warm');
      const before = cpuMs(t.pid);
      const started = performance.now();
      await loop(t, Number(users), 't');
      got[k].push({
        cpu: ((cpuMs(t.pid) - before) / Number(users)) * 1000,
        rate: Number(users) / ((performance.now() - started) / 1000),
      });
    } finally {
      await t.close();
    }
  }
}
const med = (v) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)];
for (const k of ['a', 'b'])
  console.log(
    k,
    'cpu ms/1000:',
    got[k].map((x) => x.cpu.toFixed(0)).join(', '),
    'median',
    med(got[k].map((x) => x.cpu)).toFixed(0),
    '| users/s median',
    med(got[k].map((x) => x.rate)).toFixed(0),
  );
console.log('ratio b/a cpu (per-round):', got.a.map((x, i) => (got.b[i].cpu / x.cpu).toFixed(2)).join(', '));
if (mode === 'night')
  for (const k of ['a', 'b'])
    console.log(
      k,
      "the CLI's cpu ms/1000:",
      got[k].map((x) => x.cli.toFixed(0)).join(', '),
      '| night s:',
      got[k].map((x) => x.seconds.toFixed(1)).join(', '),
    );
console.log('load 1-min at each round start:', loads.join(', '));
