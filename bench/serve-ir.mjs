// Issue 82 item 3: `local serve`'s instructions per create, which a loaded machine does not move (CPU time does).
// Each build's server runs under `valgrind --tool=callgrind` with V8's --predictable, instrumentation off;
// after `warm` creates (bench/remote-bench.mjs's bare undici loop, concurrency 8) it is switched on
// (`callgrind_control -i on`) for `users` creates, then the server stops: the instructions (user space, every
// thread) of those creates only, start-up and compiling left out. The builds run at once, so both see the same load.
// Run after `npm run build`:  node bench/serve-ir.mjs <bin/examctl A> <bin/examctl B> [users=1000] [warm=1000]
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bareLoop } from './remote-bench.mjs';

const [a, b, users = '1000', warm = '1000'] = process.argv.slice(2);

async function count(bin, name) {
  const dir = mkdtempSync(join(tmpdir(), 'examctl-serve-ir-'));
  const out = join(dir, 'callgrind.out');
  const log = join(dir, 'log');
  const fd = openSync(log, 'w');
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      `--callgrind-out-file=${out}`,
      process.execPath,
      '--predictable',
      bin,
      'local',
      'serve',
      '--port',
      '0',
      '--store',
      join(dir, 'store'),
    ],
    { stdio: ['ignore', 'ignore', fd], env: { ...process.env, NODE_EXTRA_CA_CERTS: undefined, CI: 'true' } },
  );
  closeSync(fd);
  let url;
  while (!url) {
    await sleep(100);
    url = /listening on (http:\/\/\S+)/.exec(readFileSync(log, 'utf8'))?.[1];
  }
  const target = { url, token: 'dev-token' };
  await bareLoop(target, Number(warm), 8, `w${name}`);
  execFileSync('callgrind_control', ['-i', 'on', String(child.pid)], { stdio: 'ignore' });
  await bareLoop(target, Number(users), 8, `t${name}`);
  execFileSync('callgrind_control', ['-i', 'off', String(child.pid)], { stdio: 'ignore' });
  child.kill('SIGTERM');
  await once(child, 'exit');
  const summary = /totals:\s*(\d+)/.exec(readFileSync(out, 'utf8'))?.[1];
  rmSync(dir, { recursive: true, force: true });
  return Number(summary) / Number(users);
}

const [ia, ib] = await Promise.all([count(a, 'a'), count(b, 'b')]);
console.log(
  `instructions per create: A ${(ia / 1000).toFixed(0)}k, B ${(ib / 1000).toFixed(0)}k, B/A ${(ib / ia).toFixed(3)} (load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]})`,
);
