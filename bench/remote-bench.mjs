// Issue 4: users/s of `examctl user sync --target remote` (spawned: start-up, reading the CSV
// twice, validation and the report included) for N users, against (a) a minimal loopback server
// and (b) `examctl local serve`, each as a ratio to a bare undici Pool loop sending the same
// users at the same concurrency to the same kind of server. Also the in-process client alone.
// The CLI's CPU time (user + system) per 1,000 users is reported too: on a shared machine it
// moves far less than wall time. Its run journals go to a temporary runs dir on the same disk as
// the default one (the bench must not fill the user's `runs list`).
// Run after `npm run build`:  node bench/remote-bench.mjs [users] [concurrency]
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { userRow, usersCsv, USER_HEADER } from './generate.mjs';
import { cliPath, root } from './paths.mjs';

const cpuProbePath = join(root, 'bench', 'cpu-probe.mjs');

const TOKEN = 'bench-token';
const DEMO_TOKEN = 'dev-token';

/** The JSON body the CLI sends for CSV row i (cells coerced as examctl does). */
export function userBody(i, prefix) {
  const cells = Object.fromEntries(USER_HEADER.map((name, k) => [name, userRow(i, prefix)[k]]));
  const body = { ...cells, SpecialNeeds: cells.SpecialNeeds === 'yes', Labels: cells.Labels.split('|') };
  if (cells.ReasonableAdjustmentPercentage === '') delete body.ReasonableAdjustmentPercentage;
  else body.ReasonableAdjustmentPercentage = Number(cells.ReasonableAdjustmentPercentage);
  return body;
}

// The minimal server runs in a process of its own, like `local serve`: the loop or CLI being
// measured never shares its event loop (or its core) with the server.
const MINIMAL_SERVER = `
import http from 'node:http';
// An ok answer naming the user sent (one naming another fails the record).
const replyTo = (body) => JSON.stringify({ Content: { User: { ExternalId: JSON.parse(body).ExternalId, FirstName: 'A', LastName: 'B' }, GroupErrors: [] }, Success: true, Errors: null });
const latency = Number(process.env.BENCH_LATENCY_MS ?? 0);
// The sending phase as the server saw it (first request in, last answer out), said on SIGTERM.
let first, last, requests = 0;
const answer = (res, reply) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) });
  res.end(reply);
  last = performance.now();
};
const server = http.createServer((req, res) => {
  first ??= performance.now();
  // A run's question for a served store's head, before its first write: answered as the platform answers a route it
  // does not know (docs/remote.md, "The local server").
  if (req.method === 'GET') return void res.writeHead(404, { 'content-length': 0 }).end();
  requests += 1;
  let body = '';
  req.setEncoding('utf8').on('data', (chunk) => (body += chunk));
  req.on('end', () => (latency > 0 ? setTimeout(answer, latency, res, replyTo(body)) : answer(res, replyTo(body))));
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => process.stderr.write('listening on http://127.0.0.1:' + server.address().port + '\\n'));
process.on('SIGTERM', () => {
  if (first !== undefined) process.stderr.write('sending ' + requests + ' ' + (last - first) + '\\n');
  process.exit(0);
});
`;

/** `latencyMs`: each answer held that long (a real platform's latency: the limit is then concurrency / latency). */
export function minimalServer(latencyMs = 0) {
  return spawnServer(['--input-type=module', '-e', MINIMAL_SERVER], TOKEN, { BENCH_LATENCY_MS: String(latencyMs) });
}

// The minimal server plus the one thing a store must do before it answers a create: make it
// durable. Each event-loop turn's request bodies are appended as one line to a file opened with
// O_DSYNC (the group commit of the local store, without anything else), then answered.
const MINIMAL_DURABLE_SERVER = `
import http from 'node:http';
import { closeSync, constants, openSync, writeSync } from 'node:fs';
const fd = openSync(process.env.BENCH_JOURNAL, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_DSYNC);
let turn = [];
function commit() {
  const answers = turn;
  turn = [];
  const line = Buffer.from(JSON.stringify(answers.map((a) => a.body)) + '\\n');
  let written = 0;
  while (written < line.length) written += writeSync(fd, line, written);
  for (const { res, body } of answers) {
    const reply = JSON.stringify({ Content: { User: { ExternalId: body.ExternalId, FirstName: 'A', LastName: 'B' }, GroupErrors: [] }, Success: true, Errors: null });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) });
    res.end(reply);
  }
}
const server = http.createServer((req, res) => {
  if (req.method === 'GET') return void res.writeHead(404, { 'content-length': 0 }).end();
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (turn.length === 0) setImmediate(commit);
    turn.push({ res, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => process.stderr.write('listening on http://127.0.0.1:' + server.address().port + '\\n'));
process.on('SIGTERM', () => { closeSync(fd); process.exit(0); });
`;

/** The minimal server that also makes each turn's creates durable (a journal in a temp dir on the default disk). */
export function minimalDurableServer() {
  return inScratchDir('examctl-bench-durable-', (dir) =>
    spawnServer(['--input-type=module', '-e', MINIMAL_DURABLE_SERVER], TOKEN, { BENCH_JOURNAL: join(dir, 'journal') }),
  );
}

/** `examctl local serve` on a fresh store from the demo world; `cli`: another build's bin/examctl. */
export function localServe(cli = cliPath) {
  return inScratchDir('examctl-bench-serve-', (dir) =>
    spawnServer([cli, 'local', 'serve', '--port', '0', '--store', join(dir, 'store')], DEMO_TOKEN),
  );
}

/**
 * `measure` on a fresh minimal server, with the seconds of its sending phase as the server saw it
 * (first request in to last answer out): start-up and input passes of a spawned CLI left out.
 */
export async function withSendingPhase(latencyMs, measure) {
  const target = await minimalServer(latencyMs);
  let result;
  try {
    result = await measure(target);
  } finally {
    const match = /sending (\d+) ([\d.]+)/.exec(await target.close());
    if (result !== undefined) result = { result, sendingSeconds: match ? Number(match[2]) / 1000 : NaN };
  }
  return result;
}

/**
 * Lines in a durable server's journals so far (the durable minimal server's file, or the journal of
 * `local serve`'s store): a compaction between two counts makes their difference meaningless.
 */
export function journalLines(target) {
  const inStore = join(target.dir, 'store');
  const files = existsSync(inStore)
    ? readdirSync(inStore)
        .filter((name) => name.startsWith('journal'))
        .map((name) => join(inStore, name))
    : [join(target.dir, 'journal')];
  return files.reduce((lines, file) => lines + readFileSync(file, 'utf8').split('\n').length - 1, 0);
}

/** One measurement on a server of its own, started for it and stopped after. */
export async function onFresh(start, measure) {
  const target = await start();
  try {
    return await measure(target);
  } finally {
    await target.close();
  }
}

/** A server started with a temp dir of its own, removed when the server is closed. */
async function inScratchDir(prefix, start) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const server = await start(dir);
  return {
    ...server,
    dir,
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts a server process; resolves once it prints `listening on <url>` on stderr. Its stderr (the
 * per-request log of `local serve`) goes to a file, as it would to a terminal or a log collector:
 * read through a pipe by this process, it cost the measured client a share of its CPU (users/s of
 * the same server fell by up to a third) and measured the harness rather than the server.
 */
async function spawnServer(args, token, env = {}) {
  const logDir = mkdtempSync(join(tmpdir(), 'examctl-bench-log-'));
  const logFile = join(logDir, 'stderr.log');
  const logFd = openSync(logFile, 'w');
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'ignore', logFd],
    env: { ...process.env, CI: 'true', ...env },
  });
  closeSync(logFd);
  const seen = () => readFileSync(logFile, 'utf8');
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  let url;
  while (url === undefined) {
    await sleep(20);
    const match = /listening on (http:\/\/\S+)/.exec(seen());
    if (match) url = match[1];
    else if (exited) throw new Error(`server exited ${child.exitCode}: ${seen()}`);
  }
  return {
    url,
    token,
    pid: child.pid,
    /** Resolves with what the server wrote to stderr (the minimal server's `sending` line). */
    close: async () => {
      child.kill('SIGTERM');
      if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
      const log = seen();
      rmSync(logDir, { recursive: true, force: true });
      return log;
    },
  };
}

/**
 * A closed loop: `concurrency` callers, each sending the next of items 1..count as soon as its
 * last one was answered. Resolves with the seconds it took.
 */
export async function closedLoop(count, concurrency, send) {
  let next = 1;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next <= count) await send(next++);
    }),
  );
  return (performance.now() - started) / 1000;
}

export async function bareLoop(target, users, concurrency, prefix) {
  const pool = new Pool(target.url, { connections: concurrency, pipelining: 1 });
  const headers = {
    authorization: `EAPI ${target.token}`,
    'content-type': 'application/json',
    accept: 'application/json',
  };
  const seconds = await closedLoop(users, concurrency, async (i) => {
    const res = await pool.request({
      method: 'POST',
      path: '/api/v1/integrations/user',
      headers,
      body: JSON.stringify(userBody(i, prefix)),
    });
    const envelope = JSON.parse(await res.body.text());
    if (!envelope.Success) throw new Error(`bare loop: unexpected failure ${JSON.stringify(envelope.Errors)}`);
  });
  await pool.close();
  return users / seconds;
}

/** users/s of the bare loop started as a process of its own (bare-loop-process.mjs), and its CPU time in ms per 1,000 users. */
export function spawnedBareLoop(target, users, concurrency, prefix) {
  const script = join(root, 'bench', 'bare-loop-process.mjs');
  return spawnedRate(users, 'bare loop', (cpuFile) =>
    spawn(
      process.execPath,
      ['--import', cpuProbePath, script, target.url, target.token, String(users), String(concurrency), prefix],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, EXAMCTL_BENCH_CPU_FILE: cpuFile },
      },
    ),
  );
}

/**
 * The same as a process with examctl's guarantees (durable-loop-process.mjs: intents durable before each batch, answers
 * after); its journal in the run's scratch dir. `examctlWrites`: as examctl keeps them, in two files, answers within 20 ms.
 */
export function spawnedDurableLoop(target, users, concurrency, prefix, examctlWrites = false) {
  const script = join(root, 'bench', 'durable-loop-process.mjs');
  return spawnedRate(users, 'durable loop', (cpuFile, scratch) =>
    spawn(
      process.execPath,
      [
        '--import',
        cpuProbePath,
        script,
        target.url,
        target.token,
        String(users),
        String(concurrency),
        prefix,
        join(scratch, 'journal.ndjson'),
        ...(examctlWrites ? [join(scratch, 'memory.ndjson'), '20'] : []),
      ],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, EXAMCTL_BENCH_CPU_FILE: cpuFile },
      },
    ),
  );
}

/**
 * CPU ms (user + system, cpu-probe.mjs) and wall seconds of `args` run by Node to its end, in a
 * scratch dir of its own (its runs dir, no config; `env` beside), exit 0 or a throw.
 */
export function spawnedCpu(args, env = {}) {
  const scratch = mkdtempSync(join(tmpdir(), 'examctl-bench-cpu-'));
  try {
    const cpuFile = join(scratch, 'cpu.json');
    const started = performance.now();
    const run = spawnSync(process.execPath, ['--import', cpuProbePath, ...args], {
      cwd: scratch,
      stdio: 'ignore',
      env: {
        ...process.env,
        CI: 'true',
        EXAMCTL_TOKEN: 'bench-token',
        EXAMCTL_CONFIG_DIR: join(scratch, 'no-config'),
        EXAMCTL_RUNS_DIR: join(scratch, 'runs'),
        EXAMCTL_BENCH_CPU_FILE: cpuFile,
        ...env,
      },
    });
    if (run.status !== 0) throw new Error(`node ${args.join(' ')}: exit ${run.status}`);
    const { userCPUTime, systemCPUTime } = JSON.parse(readFileSync(cpuFile, 'utf8'));
    return { cpu: (userCPUTime + systemCPUTime) / 1000, seconds: (performance.now() - started) / 1000 };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** users/s of the spawned CLI, and its CPU time (user + system) in ms per 1,000 users. */
export function cliSync(target, file, users, concurrency, cli = cliPath) {
  return spawnedRate(users, 'examctl user sync', (cpuFile, scratch) =>
    spawn(
      process.execPath,
      [
        '--import',
        cpuProbePath,
        cli,
        'user',
        'sync',
        '--target',
        'remote',
        '--base-url',
        target.url,
        '--yes',
        '--no-input',
        '--concurrency',
        String(concurrency),
        '--file',
        file,
      ],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: {
          ...process.env,
          CI: 'true',
          EXAMCTL_TOKEN: target.token,
          EXAMCTL_CONFIG_DIR: join(tmpdir(), 'examctl-bench-no-config'),
          EXAMCTL_RUNS_DIR: join(scratch, 'runs'),
          EXAMCTL_BENCH_CPU_FILE: cpuFile,
        },
      },
    ),
  );
}

/** Spawns `start(cpuFile, scratch)` and measures it from spawn to exit: users/s, CPU ms per 1,000 users and of it the main thread's (from the CPU probe; NaN off Linux). */
async function spawnedRate(users, name, start) {
  const scratch = mkdtempSync(join(tmpdir(), 'examctl-bench-cli-'));
  const cpuFile = join(scratch, 'cpu.json');
  try {
    const started = performance.now();
    const child = start(cpuFile, scratch);
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text) => (stderr = (stderr + text).slice(-4000)));
    const [code] = await once(child, 'exit');
    const seconds = (performance.now() - started) / 1000;
    if (code !== 0) throw new Error(`${name} exited ${code}: ${stderr}`);
    const { userCPUTime, systemCPUTime, mainThreadCPUTime, firstWriteCPUTime } = JSON.parse(
      readFileSync(cpuFile, 'utf8'),
    );
    const cpu = userCPUTime + systemCPUTime;
    return {
      rate: users / seconds,
      cpuMsPer1000: cpu / users,
      mainMsPer1000: (mainThreadCPUTime ?? NaN) / users,
      sendingCpuMsPer1000: (cpu - (firstWriteCPUTime ?? NaN)) / users,
      beforeFirstRequestMs: (firstWriteCPUTime ?? NaN) / 1000,
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function inProcessClient(target, users, concurrency, prefix) {
  const { createRemoteClient } = await import(pathToFileURL(join(root, 'dist', 'api', 'remote-client.js')).href);
  const api = createRemoteClient({ baseUrl: target.url, token: target.token, concurrency });
  const seconds = await closedLoop(users, concurrency, async (i) => {
    const result = await api.upsertUser(userBody(i, prefix));
    if (!result.envelope.Success) throw new Error('client: unexpected failure');
  });
  await api.close();
  return users / seconds;
}

/**
 * One row per server. Each figure is the best of `rounds` (a fresh `local serve` store for every
 * measurement, so bare loop and CLI both create `users` users into the same demo world).
 */
export async function runRemoteBench({ users = 10_000, concurrency = 8, rounds = 3 } = {}) {
  const file = await usersCsv(users, 'r');
  // Warm this process's JIT and undici (both loops run here) so neither measured loop pays for it.
  const warm = await minimalServer();
  try {
    await bareLoop(warm, Math.min(users, 2000), concurrency, 'w');
    await inProcessClient(warm, Math.min(users, 2000), concurrency, 'w');
  } finally {
    await warm.close();
  }
  const rows = [];
  for (const [name, start] of [
    ['minimal loopback server', minimalServer],
    ['examctl local serve', localServe],
  ]) {
    const bare = [];
    const cli = [];
    const client = [];
    for (let round = 0; round < rounds; round += 1) {
      for (const [list, measure] of [
        [bare, (t) => bareLoop(t, users, concurrency, 'r')],
        [cli, (t) => cliSync(t, file, users, concurrency)],
        [client, (t) => inProcessClient(t, users, concurrency, 'r')],
      ]) {
        const target = await start();
        try {
          list.push(await measure(target));
        } finally {
          await target.close();
        }
      }
    }
    const best = (values) => Math.max(...values);
    const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const cliRates = cli.map((run) => run.rate);
    rows.push({
      server: name,
      users,
      concurrency,
      'bare undici users/s': Math.round(best(bare)),
      'examctl CLI users/s': Math.round(best(cliRates)),
      'CLI ratio': +(best(cliRates) / best(bare)).toFixed(2),
      'CLI CPU ms/1k users (median)': Math.round(median(cli.map((run) => run.cpuMsPer1000))),
      'in-process client users/s': Math.round(best(client)),
      'client ratio': +(best(client) / best(bare)).toFixed(2),
    });
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const users = Number(process.argv[2] ?? 10_000);
  const concurrency = Number(process.argv[3] ?? 8);
  console.table(await runRemoteBench({ users, concurrency }));
}
