// Issue 82 item 3: `local serve`'s instructions per create, which a loaded machine does not move (CPU time does).
// Each build's server runs under `valgrind --tool=callgrind` with V8's --predictable, instrumentation off;
// after `warm` creates (bench/remote-bench.mjs's bare undici loop, concurrency 8) it is switched on
// (`callgrind_control -i on`) for `users` creates, then the server stops: the instructions (user space, every
// thread) of those creates only, start-up left out. The builds run at once, so both see the same load. Printed: all
// of them, and those executed (less TurboFan and GC: callgrind-kinds.mjs), which a change to a create's own work moves;
// after 1,000 creates TurboFan is still compiling (~60 % of the total until ~3,000), so the totals of two runs of one
// build differ by up to 8 %, their executed counts by ~3 % (bench/README.md, hserve6).
// Run after `npm run build`:  node bench/serve-ir.mjs <bin/examctl A> <bin/examctl B> [users=1000] [warm=1000]
// With SERVE_IR_KEEP=<dir>, each build's callgrind out file is kept there (callgrind.a.out, callgrind.b.out) for
// `callgrind_annotate --inclusive=yes <file>`: where a create's instructions go, per function.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, copyFileSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { instructionsByKind } from './callgrind-kinds.mjs';
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
  const { total, executed } = instructionsByKind(out);
  if (process.env.SERVE_IR_KEEP) copyFileSync(out, join(process.env.SERVE_IR_KEEP, `callgrind.${name}.out`));
  rmSync(dir, { recursive: true, force: true });
  return { total: total / Number(users), executed: executed / Number(users) };
}

const [ia, ib] = await Promise.all([count(a, 'a'), count(b, 'b')]);
const shown = (kind) =>
  `A ${(ia[kind] / 1000).toFixed(0)}k, B ${(ib[kind] / 1000).toFixed(0)}k, B/A ${(ib[kind] / ia[kind]).toFixed(3)}`;
console.log(
  `instructions per create: ${shown('total')}; executed ${shown('executed')} (load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]})`,
);
