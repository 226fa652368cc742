// Issue 79: a 50,000-user plan (`user sync --dry-run --plan-out`) against the same dry run without
// it, on the local engine over a store holding those users (every row an update: one field changed,
// so every item carries its before and after). Wall time, CPU time (user + system) and peak RSS of
// the spawned CLI, measured by /usr/bin/time, best of EXAMCTL_BENCH_ROUNDS (default 2) alternating
// runs. The goal: the plan within 1.5x the dry run's time and memory. The machine's load average is
// printed beside the figures (a shared CPU disturbs wall time; CPU time much less).
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { dataDir, usersCsv } from './generate.mjs';
import { cliPath } from './paths.mjs';

const ROWS = Number(process.env.EXAMCTL_BENCH_PLAN_ROWS ?? 50_000);
const ROUNDS = Number(process.env.EXAMCTL_BENCH_ROUNDS ?? 2);

// A sync memory of its own, made anew with the store: one left from an earlier round names a store no longer there.
const env = {
  ...process.env,
  EXAMCTL_RUNS_DIR: join(dataDir, 'plan-runs'),
  EXAMCTL_SYNC_DIR: join(dataDir, 'plan-synced'),
  CI: 'true',
};

function timed(args) {
  const out = join(dataDir, 'plan-time.txt');
  const result = spawnSync('/usr/bin/time', ['-o', out, '-f', '%e %U %S %M', process.execPath, cliPath, ...args], {
    env,
    cwd: dataDir,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (result.status !== 0 && result.status !== 1)
    throw new Error(`examctl ${args.join(' ')}: exit ${result.status}\n${result.stderr}`);
  const [wall, user, system, rssKb] = readFileSync(out, 'utf8').trim().split(/\s+/).slice(-4).map(Number);
  return { wall, cpu: user + system, rssMb: rssKb / 1024 };
}

const file = await usersCsv(ROWS, 'plan');
const store = join(dataDir, 'plan-store');
rmSync(store, { recursive: true, force: true });
rmSync(env.EXAMCTL_RUNS_DIR, { recursive: true, force: true });
rmSync(env.EXAMCTL_SYNC_DIR, { recursive: true, force: true });
// The store holds every user; tonight's file changes each one's last name.
timed(['user', 'sync', '--file', file, '--target', 'local', '--store', store]);
const changed = join(dataDir, `plan-${ROWS}-changed.csv`);
const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
writeFileSync(
  changed,
  `${[lines[0], ...lines.slice(1).map((line) => line.replace(/^([^,]*,[^,]*,)([^,]*)/, '$1$2x'))].join('\n')}\n`,
);
const dry = ['user', 'sync', '--file', changed, '--target', 'local', '--store', store, '--dry-run'];
const best = { dry: undefined, plan: undefined };
const keep = (name, m) => {
  const b = best[name];
  best[name] =
    b === undefined
      ? m
      : { wall: Math.min(b.wall, m.wall), cpu: Math.min(b.cpu, m.cpu), rssMb: Math.min(b.rssMb, m.rssMb) };
};
const load = loadavg()[0];
const pairRatio = (a, b, key) => (b[key] / a[key]).toFixed(2);
for (let round = 0; round < ROUNDS; round++) {
  // Each round's pair, run back to back: on a shared machine its ratios are the ones to compare.
  const a = timed(dry);
  const b = timed([...dry, '--plan-out', join(dataDir, 'plan.json')]);
  keep('dry', a);
  keep('plan', b);
  console.log(
    `round ${round + 1} (load ${loadavg()[0].toFixed(1)}): ratio wall ${pairRatio(a, b, 'wall')}x, CPU ${pairRatio(a, b, 'cpu')}x, RSS ${pairRatio(a, b, 'rssMb')}x`,
  );
}
const ratio = (key) => (best.plan[key] / best.dry[key]).toFixed(2);
console.log(
  `plan bench: ${ROWS} users, ${ROUNDS} rounds, load average ${load.toFixed(2)} (1 min, at start) on ${process.env.EXAMCTL_BENCH_CPUS ?? 'this machine'}`,
);
console.log(
  `dry run:   wall ${best.dry.wall.toFixed(2)} s, CPU ${best.dry.cpu.toFixed(2)} s, peak RSS ${best.dry.rssMb.toFixed(0)} MB`,
);
console.log(
  `with plan: wall ${best.plan.wall.toFixed(2)} s, CPU ${best.plan.cpu.toFixed(2)} s, peak RSS ${best.plan.rssMb.toFixed(0)} MB`,
);
console.log(`ratio:     wall ${ratio('wall')}x, CPU ${ratio('cpu')}x, RSS ${ratio('rssMb')}x (goal: at most 1.5x)`);
