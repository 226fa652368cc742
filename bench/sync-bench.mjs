// Issue 24, the nightly sync: `user sync` of N users (default 50,000), then the same export with
// 500 rows changed and 100 users gone, sent with --changed-only --disable-missing, against a
// loopback server that answers each POST /user after a fixed latency (default 20 ms) at
// concurrency 16. Prints the full run's time, the changed-only run's (goal: <= 1/20 of the
// full run), the requests the server counted for each, and the digest cost per 100k records
// (goal: <= 1 s). The CLI is spawned (start-up, both reads of the file, the journal and the
// sync memory included); its runs dir and sync memory go to a scratch directory.
// Run after `npm run build`:  node bench/sync-bench.mjs [users] [latencyMs] [concurrency]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { USER_HEADER, userRow } from './generate.mjs';
import { cliPath, root } from './paths.mjs';
import { userBody } from './remote-bench.mjs';

const CHANGED = 500;
const REMOVED = 100;

// Its own process, so the CLI being measured never shares its event loop with the server.
// GET /count answers how many POSTs it has answered (and how many disabled a login).
const LATENCY_SERVER = `
import http from 'node:http';
const latency = Number(process.env.BENCH_LATENCY_MS);
let posts = 0, disables = 0;
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ posts, disables }));
      return;
    }
    const user = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    setTimeout(() => {
      posts += 1;
      if (user.DisableLogin === true) disables += 1;
      const reply = JSON.stringify({ Content: { User: user, GroupErrors: [] }, Success: true, Errors: null });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) });
      res.end(reply);
    }, latency);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => process.stderr.write('listening on http://127.0.0.1:' + server.address().port + '\\n'));
process.on('SIGTERM', () => process.exit(0));
`;

export async function latencyServer(latencyMs) {
  const child = spawn(process.execPath, ['--input-type=module', '-e', LATENCY_SERVER], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, BENCH_LATENCY_MS: String(latencyMs) },
  });
  let log = '';
  child.stderr.setEncoding('utf8').on('data', (text) => (log += text));
  while (!/listening on (http:\/\/\S+)/.test(log)) {
    if (child.exitCode !== null) throw new Error(`server exited: ${log}`);
    await sleep(20);
  }
  const url = /listening on (http:\/\/\S+)/.exec(log)[1];
  return {
    url,
    counts: async () => (await fetch(`${url}/count`)).json(),
    close: async () => {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

export function writeUsers(file, users, change = () => false, drop = () => false, hierarchies = undefined) {
  const lines = [[...USER_HEADER, ...(hierarchies ? ['Hierarchies'] : [])].join(',')];
  for (let i = 1; i <= users; i++) {
    if (drop(i)) continue;
    const row = userRow(i, 's');
    if (change(i)) row[2] = `${row[2]}-Moved`;
    if (hierarchies) row.push(hierarchies(i));
    lines.push(row.map((cell) => (/[",\n\r]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell)).join(','));
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
}

export async function cli(scratch, server, file, concurrency, flags) {
  const cpuFile = join(scratch, 'cpu.json');
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      '--import',
      join(root, 'bench', 'cpu-probe.mjs'),
      cliPath,
      'user',
      'sync',
      '--target',
      'remote',
      '--base-url',
      server.url,
      '--yes',
      '--no-input',
      '--concurrency',
      String(concurrency),
      '--file',
      file,
      ...flags,
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...process.env,
        CI: 'true',
        EXAMCTL_TOKEN: 'bench-token',
        EXAMCTL_CONFIG_DIR: join(scratch, 'config'),
        EXAMCTL_RUNS_DIR: join(scratch, 'state', 'runs'),
        EXAMCTL_BENCH_CPU_FILE: cpuFile,
      },
    },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text) => (stderr = (stderr + text).slice(-4000)));
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`examctl user sync exited ${code}: ${stderr}`);
  const { userCPUTime, systemCPUTime } = JSON.parse(readFileSync(cpuFile, 'utf8'));
  return { seconds: (performance.now() - started) / 1000, cpu: (userCPUTime + systemCPUTime) / 1e6 };
}

/**
 * Seconds requestDigest takes over 100k user requests (canonical JSON + SHA-256), in process:
 * wall time, and CPU time (what a loaded shared machine does not inflate).
 */
async function digestSecondsPer100k() {
  const { requestDigest } = await import(pathToFileURL(join(root, 'dist', 'sync', 'sync-memory.js')).href);
  const bodies = Array.from({ length: 100_000 }, (_, i) => userBody(i + 1, 's'));
  for (let i = 0; i < 5_000; i++) requestDigest(bodies[i]);
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (const body of bodies) requestDigest(body);
  const used = process.cpuUsage(cpu);
  return { seconds: (performance.now() - started) / 1000, cpu: (used.user + used.system) / 1e6 };
}

export async function runSyncBench(users = 50_000, latencyMs = 20, concurrency = 16) {
  const scratch = mkdtempSync(join(tmpdir(), 'examctl-bench-sync-'));
  const server = await latencyServer(latencyMs);
  try {
    const full = join(scratch, 'full.csv');
    const tonight = join(scratch, 'tonight.csv');
    writeUsers(full, users);
    // Every (users / CHANGED)th row changed, REMOVED rows gone from the middle.
    const step = Math.floor(users / CHANGED);
    writeUsers(
      tonight,
      users,
      (i) => i % step === 0 && i / step <= CHANGED,
      (i) => i > users / 2 && i <= users / 2 + REMOVED,
    );
    const fullRun = await cli(scratch, server, full, concurrency, []);
    const afterFull = await server.counts();
    const changedRun = await cli(scratch, server, tonight, concurrency, ['--changed-only', '--disable-missing']);
    const afterChanged = await server.counts();
    const digest = await digestSecondsPer100k();
    const memoryBytes = readFileSync(
      join(
        scratch,
        'state',
        'synced',
        (await import('node:fs')).readdirSync(join(scratch, 'state', 'synced'))[0],
        'users.ndjson',
      ),
    ).length;
    // The requests alone, at that latency and concurrency: what a run takes on an idle machine, plus its CPU time.
    const requestSeconds = (n) => (n * latencyMs) / 1000 / concurrency;
    const changedRequests = afterChanged.posts - afterFull.posts;
    const idle = (run, n) => run.cpu + requestSeconds(n);
    return [
      {
        run: `full sync, ${users} users`,
        seconds: +fullRun.seconds.toFixed(2),
        'cpu s': +fullRun.cpu.toFixed(2),
        requests: afterFull.posts,
      },
      {
        run: `--changed-only --disable-missing (${CHANGED} changed, ${REMOVED} gone)`,
        seconds: +changedRun.seconds.toFixed(2),
        'cpu s': +changedRun.cpu.toFixed(2),
        requests: changedRequests,
        disables: afterChanged.disables - afterFull.disables,
        'ratio to full (goal <= 0.05)': +(changedRun.seconds / fullRun.seconds).toFixed(3),
        'idle-machine ratio (cpu + requests)': +(
          idle(changedRun, changedRequests) / idle(fullRun, afterFull.posts)
        ).toFixed(3),
      },
      {
        run: 'requestDigest, 100k user requests',
        seconds: +digest.seconds.toFixed(3),
        'cpu s': +digest.cpu.toFixed(3),
        'goal <= 1 s': digest.cpu <= 1,
      },
      { run: 'sync memory file', bytes: memoryBytes },
    ];
  } finally {
    await server.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * One spawned `user sync --target remote` of `cliFile` (another build's bin/examctl with
 * EXAMCTL_BENCH_AGAINST): wall, CPU (user + system) and peak RSS, and the bytes of the journal it
 * wrote (the newest run in its runs dir).
 */
export async function timedSync(cliFile, scratch, server, file, flags) {
  const cpuFile = join(scratch, 'cpu.json');
  const rssFile = join(scratch, 'rss.txt');
  const runsDir = join(scratch, 'state', 'runs');
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      '--import',
      join(root, 'bench', 'cpu-probe.mjs'),
      '--import',
      join(root, 'bench', 'rss-probe.mjs'),
      cliFile,
      'user',
      'sync',
      '--target',
      'remote',
      '--base-url',
      server.url,
      '--yes',
      '--no-input',
      '--concurrency',
      '16',
      '--file',
      file,
      ...flags,
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...process.env,
        CI: 'true',
        EXAMCTL_TOKEN: 'bench-token',
        EXAMCTL_CONFIG_DIR: join(scratch, 'config'),
        EXAMCTL_RUNS_DIR: runsDir,
        EXAMCTL_BENCH_CPU_FILE: cpuFile,
        EXAMCTL_BENCH_RSS_FILE: rssFile,
      },
    },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text) => (stderr = (stderr + text).slice(-4000)));
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`examctl user sync exited ${code}: ${stderr}`);
  const seconds = (performance.now() - started) / 1000;
  const { userCPUTime, systemCPUTime } = JSON.parse(readFileSync(cpuFile, 'utf8'));
  const { readdirSync, statSync } = await import('node:fs');
  const newest = readdirSync(runsDir).sort().at(-1);
  return {
    'wall s': +seconds.toFixed(2),
    'cpu s': +((userCPUTime + systemCPUTime) / 1e6).toFixed(2),
    'peak MB': Math.round(Number(readFileSync(rssFile, 'utf8')) / 1024),
    'journal MB': +(statSync(join(runsDir, newest, 'journal.ndjson')).size / 1e6).toFixed(3),
  };
}

/**
 * Issue 37: a night at 1 % changed against its full run, and what the memory costs a small run.
 * N users (EXAMCTL_BENCH_NIGHT_USERS, default 200,000: the figure) are synced in full to
 * a loopback server answering at once (its own process, concurrency 16), then the same export
 * with every 100th row changed goes with --changed-only: wall, CPU, peak RSS and journal bytes of
 * each, and the night's share of the full run. Then a 1,000-user run (the first 1,000 rows, all
 * sent and remembered) against that memory of N and against an empty one (another --sync-dir):
 * what reading the memory costs a run that needs 1,000 of its entries. With EXAMCTL_BENCH_AGAINST=<bin/examctl>
 * the same sequence runs with that build too (its own scratch directory), for a before/after.
 */
export async function runNightBench(users = Number(process.env.EXAMCTL_BENCH_NIGHT_USERS) || 200_000) {
  const builds = [
    ['this build', cliPath],
    ...(process.env.EXAMCTL_BENCH_AGAINST ? [['against', process.env.EXAMCTL_BENCH_AGAINST]] : []),
  ];
  const rows = [];
  const data = mkdtempSync(join(tmpdir(), 'examctl-bench-night-'));
  const server = await latencyServer(0);
  try {
    const full = join(data, 'full.csv');
    const tonight = join(data, 'tonight.csv');
    const small = join(data, 'small.csv');
    writeUsers(full, users);
    writeUsers(tonight, users, (i) => i % 100 === 0);
    writeUsers(small, 1_000);
    // Interleaved: each step runs with every build before the next step, so both see the same minutes of the machine.
    const runs = builds.map(([build, cliFile]) => ({
      build,
      cliFile,
      scratch: mkdtempSync(join(tmpdir(), 'examctl-bench-night-run-')),
      rows: [],
    }));
    const { readdirSync, statSync } = await import('node:fs');
    const step = async (each) => {
      for (const run of runs) await each(run);
    };
    try {
      await step(async (run) => {
        run.full = await timedSync(run.cliFile, run.scratch, server, full, []);
      });
      await step(async (run) => {
        const posts = (await server.counts()).posts;
        run.night = await timedSync(run.cliFile, run.scratch, server, tonight, ['--changed-only']);
        run.sent = (await server.counts()).posts - posts;
        const synced = join(run.scratch, 'state', 'synced');
        run.memoryMB = +(statSync(join(synced, readdirSync(synced)[0], 'users.ndjson')).size / 1e6).toFixed(1);
      });
      // The same work both times (1,000 requests, each remembered): only the memory read differs.
      await step(async (run) => {
        run.against = await timedSync(run.cliFile, run.scratch, server, small, []);
      });
      await step(async (run) => {
        run.empty = await timedSync(run.cliFile, run.scratch, server, small, [
          '--sync-dir',
          join(run.scratch, 'empty-sync'),
        ]);
      });
      for (const { build, full: fullRun, night, sent, memoryMB, against, empty } of runs) {
        const unchanged = users - sent;
        rows.push({ build, run: `full sync, ${users} users`, ...fullRun, requests: users });
        rows.push({
          build,
          run: `--changed-only night, 1 % changed`,
          ...night,
          requests: sent,
          'share of full: wall / cpu / journal': `${(night['wall s'] / fullRun['wall s']).toFixed(3)} / ${(night['cpu s'] / fullRun['cpu s']).toFixed(3)} / ${(night['journal MB'] / fullRun['journal MB']).toFixed(4)}`,
          // What an unchanged row costs beyond the night's fixed part: its CPU less what its 1 % sent cost at the full run's rate per row.
          'us cpu per unchanged row': Math.round(
            ((night['cpu s'] - (fullRun['cpu s'] * sent) / users) * 1e6) / unchanged,
          ),
        });
        rows.push({ build, run: `1,000-user run, memory of ${users} (${memoryMB} MB)`, ...against });
        rows.push({ build, run: '1,000-user run, empty memory', ...empty });
      }
    } finally {
      for (const run of runs) rmSync(run.scratch, { recursive: true, force: true });
    }
    return rows;
  } finally {
    await server.close();
    rmSync(data, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv[2] === 'night') console.table(await runNightBench());
  else {
    const [users, latency, concurrency] = process.argv.slice(2).map(Number);
    console.table(await runSyncBench(users || undefined, latency || undefined, concurrency || undefined));
  }
}
