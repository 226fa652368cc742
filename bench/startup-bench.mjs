// Start-up: wall and CPU time of `examctl --help`, `examctl user sync --help` and a 20-user `user sync --dry-run`, each
// spawned 20 times; then a remote `user sync` against a loopback server in this process: the CPU
// of a one-user run (start-up is most of it) and, at 3,000 users, the time from spawn to the
// server's first request (each spawned 7 times). EXAMCTL_BENCH_AGAINST=<another checkout's
// bin/examctl> times that build too, interleaved run by run (the same load for both), to compare
// before and after a change; EXAMCTL_BENCH_RUNS=N spawns each N times.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { crowdedState } from './crowded-state.mjs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { usersCsv } from './generate.mjs';
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
  const result = spawnSync(process.execPath, ['--import', probe, bin, ...args], {
    cwd,
    env: { ...process.env, CI: 'true', EXAMCTL_BENCH_CPU_FILE: cpuFile },
    stdio: 'ignore',
  });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${bin} ${args.join(' ')}: exit ${result.status}`);
  const { userCPUTime, systemCPUTime } = JSON.parse(readFileSync(cpuFile, 'utf8'));
  return { wall, cpu: (userCPUTime + systemCPUTime) / 1000 };
}

/** An ok answer naming the user sent (one naming another fails the record). */
const replyTo = (body) =>
  JSON.stringify({
    Content: { User: { ExternalId: JSON.parse(body).ExternalId, FirstName: 'A', LastName: 'B' }, GroupErrors: [] },
    Success: true,
    Errors: null,
  });

/** A loopback server answering every request at once, noting when (this process's clock) the first one came. */
async function firstRequestServer() {
  const server = http.createServer((req, res) => {
    server.firstRequestAt ??= performance.now();
    // The run's first request, its question for a served store's head: answered as the platform does (docs/remote.md).
    if (req.method === 'GET') return void res.writeHead(404, { 'content-length': 0 }).end();
    let body = '';
    req.setEncoding('utf8').on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const reply = replyTo(body);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) });
      res.end(reply);
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

/** `user sync --target remote` of `file`, spawned: CPU ms (user + system) and ms from spawn to the first request. */
async function remoteRunOnce(bin, file, cwd) {
  const server = await firstRequestServer();
  const cpuFile = join(cwd, 'cpu.json');
  try {
    const probe = pathToFileURL(join(root, 'bench', 'cpu-probe.mjs')).href;
    const args = [
      '--import',
      probe,
      bin,
      'user',
      'sync',
      '--target',
      'remote',
      '--base-url',
      `http://127.0.0.1:${server.address().port}`,
      '--yes',
      '--no-input',
      '--concurrency',
      '16',
      '--file',
      file,
    ];
    const env = {
      ...process.env,
      CI: 'true',
      EXAMCTL_TOKEN: 'bench-token',
      EXAMCTL_CONFIG_DIR: join(cwd, 'no-config'),
      EXAMCTL_RUNS_DIR: join(cwd, 'runs'),
      EXAMCTL_BENCH_CPU_FILE: cpuFile,
    };
    const start = performance.now();
    const child = spawn(process.execPath, args, { cwd, env, stdio: 'ignore' });
    const [code] = await once(child, 'exit');
    if (code !== 0) throw new Error(`${bin} user sync --target remote: exit ${code}`);
    const { userCPUTime, systemCPUTime } = JSON.parse(readFileSync(cpuFile, 'utf8'));
    return { firstRequest: server.firstRequestAt - start, cpu: (userCPUTime + systemCPUTime) / 1000 };
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

async function remoteStartRows(builds, dir) {
  const runs = Math.min(RUNS, 7);
  const rows = [];
  const cases = [
    ['user sync --target remote, 1 user', await usersCsv(1, 's'), 'CPU median ms', (time) => time.cpu],
    [
      'user sync --target remote, 3,000 users: spawn -> first request',
      await usersCsv(3000, 's'),
      'spawn -> first request median ms',
      (time) => time.firstRequest,
    ],
  ];
  for (const [name, file, figure, pick] of cases) {
    const times = Object.fromEntries(Object.keys(builds).map((build) => [build, []]));
    for (let i = 0; i < runs; i++) {
      const order = i % 2 === 0 ? Object.keys(builds) : Object.keys(builds).reverse();
      for (const build of order) times[build].push(await remoteRunOnce(builds[build], file, dir));
    }
    for (const build of Object.keys(builds))
      rows.push({
        command: name,
        build,
        [figure]: Math.round(median(times[build].map(pick))),
        'CPU median ms': Math.round(median(times[build].map((time) => time.cpu))),
      });
  }
  return rows;
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
      rows.push({
        command: name,
        build,
        'wall median ms': Math.round(median(wall)),
        'wall min ms': Math.round(Math.min(...wall)),
        'CPU median ms': Math.round(median(cpu)),
      });
    }
  }
  return [...rows, ...(await remoteStartRows(builds, dir))];
}

/**
 * Issue 62: the linux-x64 one-file executable (scripts/build-release.mjs --host: built once for
 * this checkout's inputs) against a bare `node -e 0` of the very Node inside it, and the npm
 * install (this Node running bin/examctl: the code-cached script) against this Node's
 * `node -e 0`; each pair spawned in turn (the same load for both), EXAMCTL_BENCH_RUNS times.
 * Each run is timed by bash's `time` (wall, and the child's user + system CPU from getrusage, in
 * ms): medians of both and both ratios. On a shared machine wall time swings with the load, CPU
 * time much less: the CPU ratio is the one to judge by there (the load average is printed).
 */
export async function runExecutableStartupBench() {
  const { hostExecutable, hostNode } = await import('../scripts/build-release.mjs');
  const [executable, node] = [await hostExecutable(), hostNode()];
  const dir = join(root, 'bench', '.data', 'startup-executable');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const timeOf = (file, args) => {
    const script = 'TIMEFORMAT="%3R %3U %3S"; time "$@" >/dev/null 2>&1 </dev/null';
    const result = spawnSync('/bin/bash', ['-c', script, 'bash', file, ...args], {
      cwd: dir,
      env: { PATH: '', HOME: dir, CI: 'true' },
      encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(`${file} ${args.join(' ')}: exit ${result.status} ${result.stderr}`);
    const [wall, user, system] = result.stderr
      .trim()
      .split('\n')
      .at(-1)
      .split(' ')
      .map((seconds) => Number(seconds) * 1000);
    return { wall, cpu: user + system };
  };
  // Issue 82's dry run: a three-user file.
  const three = join(dir, 'three-users.csv');
  writeFileSync(
    three,
    readFileSync(join(root, 'fixtures', 'users.csv'), 'utf8')
      .split('\n')
      .slice(0, 4)
      .join('\n') + '\n',
  );
  const cases = {
    '--version': ['--version'],
    '--help': ['--help'],
    'user sync --dry-run, 3 users': ['user', 'sync', '--dry-run', '--file', three],
  };
  const subjects = [
    { name: 'examctl-linux-x64', node, run: (args) => timeOf(executable, args) },
    {
      name: 'npm install: node bin/examctl',
      node: process.execPath,
      run: (args) => timeOf(process.execPath, [join(root, 'bin', 'examctl'), ...args]),
    },
  ];
  const rows = [];
  const ms = (values) => Math.round(median(values));
  for (const subject of subjects) {
    for (const [name, args] of Object.entries(cases)) {
      const bare = [];
      const own = [];
      for (let i = 0; i < RUNS; i++) {
        bare.push(timeOf(subject.node, ['-e', '0']));
        own.push(subject.run(args));
      }
      const figure = (pick) => [median(own.map(pick)), median(bare.map(pick))];
      const [cpu, bareCpu] = figure((time) => time.cpu);
      const [wall, bareWall] = figure((time) => time.wall);
      rows.push({
        command: `${subject.name} ${name}`,
        'CPU ms': ms(own.map((time) => time.cpu)),
        'node -e 0 CPU ms': ms(bare.map((time) => time.cpu)),
        'CPU ratio': Number((cpu / bareCpu).toFixed(2)),
        'wall ms': ms(own.map((time) => time.wall)),
        'node -e 0 wall ms': ms(bare.map((time) => time.wall)),
        'wall ratio': Number((wall / bareWall).toFixed(2)),
        load: loadavg()[0].toFixed(1),
      });
    }
  }
  // Issue 82: start-up does not grow with what other targets left in the state folder (a runner's:
  // 104 runs and 25 other targets' memories, bench/crowded-state.mjs): the same dry run with that
  // folder as the default state and with an empty one, in turn.
  const crowdedHome = join(dir, 'crowded-home');
  await crowdedState(join(crowdedHome, '.local', 'state', 'examctl'));
  const emptyHome = join(dir, 'empty-home');
  mkdirSync(emptyHome);
  const inHome = (home) => {
    const script = 'TIMEFORMAT="%3R %3U %3S"; time "$@" >/dev/null 2>&1 </dev/null';
    const args = [join(root, 'bin', 'examctl'), ...cases['user sync --dry-run, 3 users']];
    const result = spawnSync('/bin/bash', ['-c', script, 'bash', process.execPath, ...args], {
      cwd: home,
      env: { PATH: '', HOME: home, CI: 'true' },
      encoding: 'utf8',
    });
    const [, user, system] = result.stderr.trim().split('\n').at(-1).split(' ').map(Number);
    return (user + system) * 1000;
  };
  const [crowded, empty] = [[], []];
  for (let i = 0; i < RUNS; i++) {
    crowded.push(inHome(crowdedHome));
    empty.push(inHome(emptyHome));
  }
  rows.push({
    command: 'npm install: user sync --dry-run, 3 users, a state folder of 104 runs and 25 memories / an empty one',
    'CPU ms': ms(crowded),
    'node -e 0 CPU ms': '',
    'CPU ratio': Number((median(crowded) / median(empty)).toFixed(2)),
    'wall ms': '',
    'node -e 0 wall ms': '',
    'wall ratio': '',
    load: loadavg()[0].toFixed(1),
  });
  return rows;
}
