// Start-up: wall and CPU time of `examctl --help`, `examctl user sync --help` and a 20-user `user sync --dry-run`, each
// spawned 20 times. EXAMCTL_BENCH_AGAINST=<another checkout's bin/examctl> times that build too,
// interleaved run by run (the same load for both), to compare before and after a change;
// EXAMCTL_BENCH_RUNS=N spawns each N times.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './paths.mjs';

const RUNS = Number(process.env.EXAMCTL_BENCH_RUNS ?? 20);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Wall ms of one spawned run, and its CPU ms (user + system, from cpu-probe.mjs): CPU moves far less with the machine's load. */
function timeOnce(bin, args, cwd) {
  const cpuFile = join(cwd, 'cpu.json');
  const probe = pathToFileURL(join(root, 'bench', 'cpu-probe.mjs')).href;
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, ['--import', probe, bin, ...args], { cwd, env: { ...process.env, CI: 'true', EXAMCTL_BENCH_CPU_FILE: cpuFile }, stdio: 'ignore' });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${bin} ${args.join(' ')}: exit ${result.status}`);
  const { userCPUTime, systemCPUTime } = JSON.parse(readFileSync(cpuFile, 'utf8'));
  return { wall, cpu: (userCPUTime + systemCPUTime) / 1000 };
}

export async function runStartupBench() {
  const dir = join(root, 'bench', '.data', 'startup');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const builds = { current: join(root, 'bin', 'examctl') };
  if (process.env.EXAMCTL_BENCH_AGAINST) builds.against = process.env.EXAMCTL_BENCH_AGAINST;
  spawnSync(process.execPath, [builds.current, 'local', 'init'], { cwd: dir, stdio: 'ignore' });
  const cases = {
    '--help': ['--help'],
    'user sync --help': ['user', 'sync', '--help'],
    'user sync --dry-run, 20 users': ['user', 'sync', '--dry-run', '--file', join(root, 'fixtures', 'users.csv')],
  };
  const rows = [];
  for (const [name, args] of Object.entries(cases)) {
    const times = Object.fromEntries(Object.keys(builds).map((build) => [build, []]));
    for (let i = 0; i < RUNS; i++) {
      // Alternate which build goes first, so neither always runs on a warmer cache.
      const order = i % 2 === 0 ? Object.keys(builds) : Object.keys(builds).reverse();
      for (const build of order) times[build].push(timeOnce(builds[build], args, dir));
    }
    for (const build of Object.keys(builds)) {
      const wall = times[build].map((time) => time.wall);
      const cpu = times[build].map((time) => time.cpu);
      rows.push({ command: name, build, 'wall median ms': Math.round(median(wall)), 'wall min ms': Math.round(Math.min(...wall)), 'CPU median ms': Math.round(median(cpu)) });
    }
  }
  return rows;
}
