// Where a first night's CPU goes through `local serve` and on the local store (issue 82 item 3): the
// same `user sync` of N new users (bench/.data/users-n-N.csv) once on a local store and once through
// a fresh `local serve`, every process under `node --cpu-prof`; each process's CPU (user+sys) from
// /proc or its probe, and its profile's samples (wall time of the main thread, idle left out) grouped
// by the function that ran (self) and the source file it is in. Run after `npm run build`:
//   node bench/night-profile.mjs [users=5000] [top=25]
// Profiles stay in the printed directory (open them in Chrome's DevTools).
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { usersCsv } from './generate.mjs';
import { cliPath } from './paths.mjs';

const users = Number(process.argv[2] ?? 5000);
const top = Number(process.argv[3] ?? 25);
const out = mkdtempSync(join(tmpdir(), 'examctl-night-profile-'));
const csv = await usersCsv(users, 'n');
const sync = ['user', 'sync', '--yes', '--no-input', '--file', csv];
const env = (dir) => ({
  ...process.env,
  CI: 'true',
  EXAMCTL_CONFIG_DIR: join(dir, 'no-config'),
  EXAMCTL_RUNS_DIR: join(dir, 'runs'),
});
const cpuOf = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};

/** A CLI run under --cpu-prof; its CPU ms by `time`'s rusage (spawnSync's child). */
function cli(name, args, extraEnv = {}) {
  const dir = join(out, name);
  mkdirSync(dir);
  const started = performance.now();
  const run = spawnSync(
    '/usr/bin/time',
    ['-f', '%U %S', process.execPath, '--cpu-prof', '--cpu-prof-dir', dir, cliPath, ...args],
    {
      cwd: dir,
      env: { ...env(dir), ...extraEnv },
      encoding: 'utf8',
    },
  );
  if (run.status !== 0) throw new Error(`${name}: exit ${run.status}: ${run.stderr.slice(-2000)}`);
  const [user, sys] = run.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  return { name, dir, cpu: (user + sys) * 1000, seconds: (performance.now() - started) / 1000 };
}

async function throughServe() {
  const dir = join(out, 'server');
  mkdirSync(dir);
  const log = join(dir, 'stderr.log');
  const fd = openSync(log, 'w');
  const child = spawn(
    process.execPath,
    ['--cpu-prof', '--cpu-prof-dir', dir, cliPath, 'local', 'serve', '--port', '0', '--store', join(dir, 'store')],
    { stdio: ['ignore', 'ignore', fd], env: env(dir) },
  );
  closeSync(fd);
  let url;
  while (!url) {
    await sleep(20);
    url = /listening on (http:\/\/\S+)/.exec(readFileSync(log, 'utf8'))?.[1];
  }
  const before = cpuOf(child.pid);
  const night = cli('cli-remote', ['--target', 'remote', '--base-url', url, ...sync], { EXAMCTL_TOKEN: 'dev-token' });
  const server = { name: 'server', dir, cpu: cpuOf(child.pid) - before, seconds: night.seconds };
  child.kill('SIGTERM');
  await once(child, 'exit');
  return [night, server];
}

/** Self time by function and by file of a .cpuprofile (ms; idle and the program's own `(program)` kept apart). */
function profileOf(dir) {
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  const files = new Map();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]);
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') continue;
    total += ms;
    const where = url.replace(/^.*\/(dist|node_modules)\//, '$1/').replace(/^node:/, 'node:');
    const key = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + ms);
    const fileKey = where || functionName;
    files.set(fileKey, (files.get(fileKey) ?? 0) + ms);
  }
  const sorted = (map) => [...map].sort((x, y) => y[1] - x[1]).slice(0, top);
  return { total, functions: sorted(self), files: sorted(files) };
}

const local = cli('cli-local', ['--store', 'store', ...sync]);
const [remote, server] = await throughServe();
const per = (ms) => ((ms / users) * 1000).toFixed(0);
console.log(`profiles in ${out}; load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
for (const run of [local, remote, server]) {
  const p = profileOf(run.dir);
  console.log(
    `\n== ${run.name}: CPU ${run.cpu.toFixed(0)} ms (${per(run.cpu)} per 1,000 users), wall ${run.seconds.toFixed(1)} s; profile not idle ${p.total.toFixed(0)} ms`,
  );
  console.log('-- by file (self ms per 1,000 users)');
  for (const [key, ms] of p.files) console.log(`${per(ms).padStart(6)}  ${key}`);
  console.log('-- by function (self ms per 1,000 users)');
  for (const [key, ms] of p.functions) console.log(`${per(ms).padStart(6)}  ${key}`);
}
