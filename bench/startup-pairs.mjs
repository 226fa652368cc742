// Issue 82 item 4, a user's own paired timing: `node -e 0` and each build's `--version`, `--help` and
// three-user `user sync --dry-run`, round by round (the order rotating, so no one always runs on a
// warmer machine), each run timed by bash's `time` (the child's user + system CPU), `env` holding
// only `HOME` (a fresh empty folder each run) and `CI=true`. Prints per build and command the median
// CPU ms, its ratio to `node -e 0`'s median, and the load average before and after. Not a part of
// `npm run bench` (startup-bench.mjs's executable part measures the same ratios for the build here).
// node bench/startup-pairs.mjs [rounds] [bin/examctl of a build]...   (default: 15 rounds, this build)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cliPath, root } from './paths.mjs';

const [rounds = '15', ...given] = process.argv.slice(2);
const bins = given.length > 0 ? given.map((bin) => resolve(bin)) : [cliPath];
const scratch = mkdtempSync(join(tmpdir(), 'examctl-startup-pairs-'));
const three = join(scratch, 'three-users.csv');
writeFileSync(
  three,
  `${readFileSync(join(root, 'fixtures', 'users.csv'), 'utf8')
    .split('\n')
    .slice(0, 4)
    .join('\n')}\n`,
);
const cases = {
  '--version': ['--version'],
  '--help': ['--help'],
  'dry run, 3 users': ['user', 'sync', '--dry-run', '--file', three, '--no-input'],
};

/** The child's user + system CPU ms of `node args`, in a fresh empty HOME. */
function cpuOf(args) {
  const home = mkdtempSync(join(scratch, 'home-'));
  const script = 'TIMEFORMAT="%3U %3S"; time "$@" >/dev/null 2>&1 </dev/null';
  const result = spawnSync('/bin/bash', ['-c', script, 'bash', process.execPath, ...args], {
    cwd: home,
    env: { PATH: '', HOME: home, CI: 'true' },
    encoding: 'utf8',
  });
  rmSync(home, { recursive: true, force: true });
  if (result.status !== 0) throw new Error(`${args.join(' ')}: exit ${result.status} ${result.stderr}`);
  const [user, system] = result.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  return (user + system) * 1000;
}

const subjects = [['node -e 0', ['-e', '0']]];
for (const [b, bin] of bins.entries())
  for (const [name, args] of Object.entries(cases)) subjects.push([`${b}: ${name}`, [bin, ...args]]);
const times = new Map(subjects.map(([label]) => [label, []]));
const loadBefore = loadavg()[0];
for (let r = 0; r < Number(rounds); r++) {
  const shift = r % subjects.length;
  for (const [label, args] of [...subjects.slice(shift), ...subjects.slice(0, shift)])
    times.get(label).push(cpuOf(args));
}
rmSync(scratch, { recursive: true, force: true });
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const bare = median(times.get('node -e 0'));
for (const [b, bin] of bins.entries()) console.log(`${b}: ${bin}`);
console.table(
  subjects.map(([label]) => ({
    run: label,
    'CPU ms': Math.round(median(times.get(label))),
    'vs node -e 0': Number((median(times.get(label)) / bare).toFixed(2)),
  })),
);
console.log(`${rounds} rounds, load average ${loadBefore.toFixed(1)} -> ${loadavg()[0].toFixed(1)}`);
