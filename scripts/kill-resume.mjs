#!/usr/bin/env node
/**
 * The kill harness of docs/runs.md ("Proving it: the kill harness"): run by hand, not by `npm test`.
 *
 *   npm run build && node scripts/kill-resume.mjs [--seed N] [--users 20000] [--schedules 3000]
 *                                                [--faults lost:5%,reset:5%,503:5%] [--rounds 1]
 *
 * For each phase (a remote `user sync` of --users users, then a remote `schedule push` of
 * --schedules schedules without --upsert), against `examctl local serve` on 127.0.0.1 with a
 * temp store (and --faults, if given):
 *   1. starts the run and SIGKILLs it at a seeded random moment once its run id is on stderr,
 *      then checks that `runs show --json` of the killed run lists every input unit once, none failed;
 *   2. starts `runs resume` and SIGKILLs it too;
 *   3. `runs resume` until it exits 0 (with faults, an attempt may end with exit 3: resumed again);
 *   4. stops the server, exports the store, and checks that every row is there exactly once, and
 *      that `runs show --json` lists every input unit exactly once, none failed, all ok.
 * Prints the seed, the figures (rows, kills that hit a live process, attempts, time) and exits 1
 * when a check fails. Loopback only; everything lives in a temp directory removed at the end
 * (kept with --keep).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { mulberry32 } from '../dist/system/seeded-random.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'examctl');
const TOKEN = 'dev-token';

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    users: { type: 'string', default: '20000' },
    schedules: { type: 'string', default: '3000' },
    faults: { type: 'string' },
    rounds: { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '8' },
    keep: { type: 'boolean', default: false },
  },
});
const seed = values.seed === undefined ? Math.floor(Math.random() * 0xffffffff) : Number(values.seed);
const users = Number(values.users);
const schedules = Number(values.schedules);
const rounds = Number(values.rounds);

const random = mulberry32(seed);

const dir = mkdtempSync(join(tmpdir(), 'examctl-kill-resume-'));
const env = { ...process.env, EXAMCTL_TOKEN: TOKEN, EXAMCTL_RUNS_DIR: join(dir, 'runs'), CI: 'true', NO_COLOR: '1' };
delete env.EXAMCTL_TARGET;
delete env.EXAMCTL_BASE_URL;
delete env.EXAMCTL_STORE;

/** Runs examctl to its end: { code, signal, stdout, stderr }. */
function examctl(args) {
  return started(args).done;
}

function started(args) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  const done = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done, stderr: () => stderr };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts `args`, waits for its run id on stderr ("run <id>" or "resuming run <id>"), waits a
 * random moment drawn from [0, maxDelayMs), then SIGKILLs it. `hit`: the kill found it running.
 */
async function killAtRandom(args, maxDelayMs) {
  const run = started(args);
  const delay = Math.floor(random() * maxDelayMs);
  let id;
  while (run.child.exitCode === null && run.child.signalCode === null) {
    id = /(?:^|\n)(?:resuming )?run (\S+) \(/.exec(run.stderr())?.[1];
    if (id !== undefined) break;
    await sleep(5);
  }
  await sleep(delay);
  const hit = run.child.exitCode === null && run.child.signalCode === null;
  if (hit) run.child.kill('SIGKILL');
  const result = await run.done;
  return { hit: hit && result.signal === 'SIGKILL', delay, id, result };
}

/** `local serve` on 127.0.0.1, any free port, over `store`; resolves with its URL and a stop(). */
async function serve(store) {
  const args = ['local', 'serve', '--store', store, '--port', '0'];
  if (values.faults !== undefined) args.push('--faults', values.faults, '--faults-seed', String(seed));
  const server = started(args);
  let url;
  while (url === undefined) {
    if (server.child.exitCode !== null) throw new Error(`local serve ended: ${server.stderr()}`);
    url = /listening on (\S+)/.exec(server.stderr())?.[1];
    await sleep(10);
  }
  return {
    url,
    async stop() {
      server.child.kill('SIGTERM');
      await server.done;
    },
  };
}

function writeUsers(file, count, tag) {
  const lines = ['ExternalId,FirstName,LastName,Email,Role'];
  for (let i = 0; i < count; i++) lines.push(`${tag}-${i},Ann,Lee,${tag}-${i}@example.test,Candidate`);
  writeFileSync(file, `${lines.join('\n')}\n`);
}

function writeSittings(file, count, tag) {
  const lines = [
    'ScheduleExtId,AssessmentExtId,Title,StartDateTime,EndDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email',
  ];
  for (let i = 0; i < count; i++) {
    lines.push(
      `${tag}-${i},A-MATH-1,Kill ${i},2027-01-14T09:00:00Z,2027-01-14T12:00:00Z,H-NORTH-DEC,North,${tag}-c-${i},Ann,Lee,${tag}-c-${i}@example.test`,
    );
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/** What is wrong with a `runs show --json` report that should list each of `rows` input rows once, all ok. */
function everyRowOnce(report, rows, when) {
  const problems = [];
  const lines = new Map();
  for (const item of report.items) lines.set(item.source.line, (lines.get(item.source.line) ?? 0) + 1);
  const twice = [...lines.values()].filter((count) => count > 1).length;
  const notOk = report.items.filter((item) => item.status !== 'ok');
  if (report.items.length !== rows) problems.push(`runs show ${when} lists ${report.items.length} items, not ${rows}`);
  if (twice > 0) problems.push(`runs show ${when} lists ${twice} input lines more than once`);
  if (report.items.some((item) => item.status === 'failed')) problems.push(`runs show ${when}: failed items`);
  if (notOk.length > 0) problems.push(`runs show ${when}: ${notOk.length} not ok, e.g. ${JSON.stringify(notOk[0])}`);
  if (report.unlisted !== undefined) problems.push(`runs show ${when}: unlisted ${JSON.stringify(report.unlisted)}`);
  return problems;
}

/** One phase: run, killed; resume, killed; resume until done; then the checks. */
async function phase({ round, name, rows, command, write, exported, maxKillDelayMs }) {
  const tag = `k${round}${name[0]}`;
  const store = join(dir, `store-${name}-${round}`);
  const input = join(dir, `${name}-${round}.csv`);
  write(input, rows, tag);
  const began = performance.now();
  const server = await serve(store);
  const remote = [
    '--target',
    'remote',
    '--base-url',
    server.url,
    '--yes',
    '--no-input',
    '--concurrency',
    values.concurrency,
  ];
  const kills = [];
  const problems = [];
  let attempts = 0;
  let runId;
  try {
    const first = await killAtRandom([...remote, ...command, '--file', input], maxKillDelayMs);
    attempts += 1;
    runId = first.id;
    kills.push({ what: 'run', delay: first.delay, hit: first.hit });
    if (runId === undefined) throw new Error(`${name}: the run never said its id: ${first.result.stderr.slice(-500)}`);
    if (first.hit) {
      // Killed: its report already lists every input row once (the input is read again).
      problems.push(
        ...everyRowOnce(
          JSON.parse((await examctl(['--json', 'runs', 'show', runId])).stdout),
          rows,
          'after the kill',
        ).filter((p) => !/not ok/.test(p)),
      );
      const resume = await killAtRandom(
        ['--base-url', server.url, '--yes', '--no-input', 'runs', 'resume', runId],
        maxKillDelayMs,
      );
      attempts += 1;
      kills.push({ what: 'resume', delay: resume.delay, hit: resume.hit });
      for (let more = 0; more < 10; more++) {
        const listed = JSON.parse((await examctl(['--json', 'runs', 'list'])).stdout).runs.find(
          (run) => run.id === runId,
        );
        if (listed?.state === 'finished') break;
        const again = await examctl(['--base-url', server.url, '--yes', '--no-input', 'runs', 'resume', runId]);
        attempts += 1;
        if (again.code !== 0 && again.code !== 3 && again.code !== 1)
          problems.push(`runs resume exited ${again.code}: ${again.stderr.slice(-400)}`);
      }
    }
  } finally {
    await server.stop();
  }
  const seconds = (performance.now() - began) / 1000;

  const report = JSON.parse((await examctl(['--json', 'runs', 'show', runId])).stdout);
  problems.push(...everyRowOnce(report, rows, 'at the end'));
  const notes = report.items.filter((item) =>
    item.errors.some((problem) => /interrupted attempt|lost first attempt/.test(problem.message)),
  ).length;

  const exportedRun = await examctl(['--target', 'local', '--store', store, 'local', 'export']);
  if (exportedRun.code !== 0)
    problems.push(`local export exited ${exportedRun.code}: ${exportedRun.stderr.slice(-300)}`);
  else {
    const ids = exported(JSON.parse(exportedRun.stdout)).filter(
      (id) => id.startsWith(`${tag}-`) && !id.startsWith(`${tag}-c-`),
    );
    const distinct = new Set(ids);
    if (ids.length !== distinct.size) problems.push(`the service holds ${ids.length - distinct.size} rows twice`);
    if (distinct.size !== rows) problems.push(`the service holds ${distinct.size} of the ${rows} rows`);
  }
  const hits = kills.filter((kill) => kill.hit).length;
  console.log(
    `${name}${rounds > 1 ? ` (round ${round + 1})` : ''}: ${rows} rows, kills ${kills.map((kill) => `${kill.what}@${kill.delay}ms${kill.hit ? '' : ' (had ended)'}`).join(', ')}, ` +
      `${hits} hit, ${attempts} attempts, ${seconds.toFixed(1)} s, run ${runId}: ${report.summary.ok} ok, ${report.summary.failed} failed, ` +
      `${report.summary.skipped} skipped, ${notes} ok with the lost-attempt note` +
      (problems.length === 0 ? ' -- OK' : `\n  FAILED: ${problems.join('\n  FAILED: ')}`),
  );
  return problems.length === 0;
}

const PHASES = [
  {
    name: 'users',
    rows: users,
    command: ['user', 'sync'],
    write: writeUsers,
    exported: (world) => world.Users.map((user) => user.ExternalId),
    maxKillDelayMs: 6000,
  },
  {
    name: 'schedules',
    rows: schedules,
    command: ['schedule', 'push'],
    write: writeSittings,
    exported: (world) => world.Schedules.map((schedule) => schedule.ScheduleExtId),
    maxKillDelayMs: 4000,
  },
];

console.log(`kill-resume: seed ${seed}${values.faults === undefined ? '' : `, faults ${values.faults}`}, ${dir}`);
let ok = true;
try {
  for (let round = 0; round < rounds; round++) {
    for (const one of PHASES) ok = (await phase({ round, ...one })) && ok;
  }
} finally {
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
}
console.log(ok ? 'kill-resume: every row once' : 'kill-resume: FAILED');
process.exit(ok ? 0 : 1);
