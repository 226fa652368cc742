// Where the CPU of a remote `user sync` goes, by stage: the CLI (the ES module bundle, whose
// source maps name src/ files) run under `node --cpu-prof` against the minimal server (no
// latency), each sample given to the first frame from the leaf that belongs to a stage (src/
// rooms, csv-parse, undici; Node's own frames and examctl's primitives in system/ and formats/
// are passed through to their caller). The shares of the main thread's samples are scaled to
// its measured CPU; the other threads are one row (V8's helpers: mostly TurboFan compiling hot
// functions, `--no-concurrent-recompilation` moves most of that row onto the main thread; GC
// helpers; libuv's pool doing the O_DSYNC writes). The bare undici loop, spawned the same way, is split too.
// EXAMCTL_BENCH_STAGE_FUNCTIONS=<n> also prints the n functions with the most samples, by stage.
// EXAMCTL_BENCH_AGAINST=<bin/examctl of another build> profiles that build in the same rounds.
// Run after `npm run build`:  node bench/stage-profile.mjs [users] [rounds]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { usersCsv } from './generate.mjs';
import { root } from './paths.mjs';
import { minimalServer, onFresh } from './remote-bench.mjs';

const cpuProbePath = join(root, 'bench', 'cpu-probe.mjs');

/** The stages, in the order printed. */
export const STAGES = [
  'start-up (Node, modules, command, target, journal and memory opened)',
  'parse/validate (csv-parse, records, coercion, rules)',
  'memory digests (request and raw digests)',
  'memory entries (intents, acknowledgements, lines, writes)',
  'journal encoding/writes (sent and outcome lines, checksums)',
  'client/redaction (requests, answers, envelope, secrets)',
  'http (undici and sockets: the bare loop does this too)',
  'dispatch (pipeline, scheduler, promises)',
  'report (items, summary, progress)',
  'event loop, GC and VM (main thread, no stage on the stack)',
];
const [START, PARSE, DIGESTS, MEMORY, JOURNAL, CLIENT, HTTP, DISPATCH, REPORT, LOOP] = STAGES;

/** Functions of sync/ that make digests: the rest of sync/ is the memory's entries and writes. */
const DIGEST_FUNCTIONS = new Set([
  'requestDigest',
  'canonicalJson',
  'sortedCopy',
  'sortedKeys',
  'rawDigest',
  'digestOf',
  'keptDigestOf',
]);

/** The stage of a source (a path relative to the repository) and function; undefined: look at the caller. */
function stageOf(source, functionName) {
  if (source.includes('node_modules/csv-parse/')) return PARSE;
  if (source.includes('node_modules/undici/')) return HTTP;
  if (!source.startsWith('src/')) return undefined;
  const [, room, file = ''] = source.split('/');
  switch (room) {
    case 'system':
    case 'formats':
      return undefined;
    case 'input':
    case 'domain':
      return PARSE;
    case 'sync':
      return DIGESTS_OR_MEMORY(functionName);
    case 'runs':
      return JOURNAL;
    case 'api':
      return CLIENT;
    case 'report':
    case 'terminal':
      return REPORT;
    case 'pipeline':
      if (file === 'command-input.ts' || file === 'record-source.ts') return PARSE;
      if (file === 'run-journaling.ts') return JOURNAL;
      if (file === 'report-sinks.ts') return REPORT;
      if (file === 'open-run.ts') return START;
      return DISPATCH;
    default:
      return START;
  }
}

function DIGESTS_OR_MEMORY(functionName) {
  return DIGEST_FUNCTIONS.has(functionName) ? DIGESTS : MEMORY;
}

/** Node's own frames by what they do when no stage is on the stack. */
function nodeStage(frame) {
  const { functionName, url } = frame;
  if (
    /^node:internal\/(modules|bootstrap|main)|^node:vm$/.test(url) ||
    functionName === 'compileForInternalLoader' ||
    functionName === 'Script'
  )
    return START;
  if (/^node:(net|internal\/stream_base_commons|internal\/streams)/.test(url)) return HTTP;
  return undefined;
}

/** Maps a frame of the bundle to its source, through the chunk's source map (loaded once). */
function sourceMapper(bundleDir) {
  // Sources relative to the build's own checkout (EXAMCTL_BENCH_AGAINST-style builds live elsewhere).
  const checkout = join(bundleDir, '..', '..');
  const maps = new Map();
  return (frame) => {
    if (!frame.url.startsWith('file://')) return undefined;
    const file = fileURLToPath(frame.url);
    if (dirname(file) !== bundleDir) return relative(checkout, file);
    let map = maps.get(file);
    if (map === undefined) {
      try {
        map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
      } catch {
        map = null;
      }
      maps.set(file, map);
    }
    const entry = map?.findEntry(frame.lineNumber, frame.columnNumber);
    if (entry === undefined || entry === null || entry.originalSource === undefined) return undefined;
    const original = entry.originalSource.startsWith('file://')
      ? fileURLToPath(entry.originalSource)
      : join(bundleDir, entry.originalSource);
    return relative(checkout, original);
  };
}

/** Milliseconds of samples by stage (not scaled), idle left out; `label` names the run in the function list. */
export function splitProfile(profile, bundleDir, label = '') {
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  for (let i = 0; i < profile.samples.length; i++)
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  const sourceOf = sourceMapper(bundleDir);
  const sources = new Map();
  const stageOfNode = (id) => {
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at).callFrame;
      let source = sources.get(at);
      if (source === undefined) {
        source = sourceOf(frame) ?? '';
        sources.set(at, source);
      }
      const stage = stageOf(source, frame.functionName) ?? nodeStage(frame);
      if (stage !== undefined) return stage;
    }
    return LOOP;
  };
  const split = Object.fromEntries(STAGES.map((stage) => [stage, 0]));
  const functions = new Map();
  for (const [id, ms] of self) {
    const frame = byId.get(id).callFrame;
    if (frame.functionName === '(idle)') continue;
    const stage = stageOfNode(id);
    split[stage] += ms;
    // Each stage's functions by self time (EXAMCTL_BENCH_STAGE_FUNCTIONS=1 prints the top ones).
    const key = `${stage.split(' (')[0]}\t${frame.functionName || '(anonymous)'} ${sources.get(id) || frame.url.split('/').pop()}`;
    functions.set(key, (functions.get(key) ?? 0) + ms);
  }
  if (process.env.EXAMCTL_BENCH_STAGE_FUNCTIONS) {
    const top = [...functions]
      .sort((a, b) => b[1] - a[1])
      .slice(0, Number(process.env.EXAMCTL_BENCH_STAGE_FUNCTIONS) || 60);
    process.stderr.write(`-- ${label}: functions by self time (ms of samples, not scaled)\n`);
    for (const [key, ms] of top) process.stderr.write(`${ms.toFixed(1).padStart(8)} ${key}\n`);
  }
  return split;
}

/** Spawns `args` under --cpu-prof with the CPU probe; its profile and CPU (the main thread's too, from /proc on Linux). */
async function profiled(args, env) {
  const scratch = mkdtempSync(join(tmpdir(), 'examctl-bench-prof-'));
  const cpuFile = join(scratch, 'cpu.json');
  try {
    const child = spawn(
      process.execPath,
      ['--cpu-prof', '--cpu-prof-dir', join(scratch, 'prof'), '--import', cpuProbePath, ...args],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, ...env(scratch), EXAMCTL_BENCH_CPU_FILE: cpuFile },
      },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text) => (stderr = (stderr + text).slice(-4000)));
    const [code] = await once(child, 'exit');
    if (code !== 0) throw new Error(`profiled run exited ${code}: ${stderr}`);
    const [name] = readdirSync(join(scratch, 'prof'));
    return {
      profile: JSON.parse(readFileSync(join(scratch, 'prof', name), 'utf8')),
      cpu: JSON.parse(readFileSync(cpuFile, 'utf8')),
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const OTHER_THREADS = 'other threads (V8: mostly TurboFan compiling, GC helpers; libuv pool: file writes)';

/** ms per 1,000 users by stage: the main thread's shares scaled to its CPU, the other threads' CPU as one row. */
function perStage({ profile, cpu }, bundleDir, users, label) {
  const split = splitProfile(profile, bundleDir, label);
  const sampled = Object.values(split).reduce((a, b) => a + b, 0);
  const main = cpu.mainThreadCPUTime === undefined ? undefined : cpu.mainThreadCPUTime / 1000;
  const total = (cpu.userCPUTime + cpu.systemCPUTime) / 1000;
  const scale = (main ?? total) / sampled / (users / 1000);
  const stages = Object.fromEntries(Object.entries(split).map(([stage, ms]) => [stage, ms * scale]));
  if (main !== undefined) stages[OTHER_THREADS] = (total - main) / (users / 1000);
  return { stages, total: total / (users / 1000) };
}

/**
 * One round: the bare loop, then each build's CLI (the ES module bundle of its checkout, whose
 * source maps name its src/ files), each profiled against a fresh minimal server, no latency.
 */
export async function profileStages(users, checkouts = [root]) {
  const file = await usersCsv(users, 'r');
  const bare = await onFresh(
    () => minimalServer(0),
    async (target) =>
      perStage(
        await profiled(
          [join(root, 'bench', 'bare-loop-process.mjs'), target.url, target.token, String(users), '16', 'r'],
          () => ({}),
        ),
        join(root, 'dist', 'bundle'),
        users,
        'the loop',
      ),
  );
  const clis = [];
  for (const checkout of checkouts) {
    const bundleDir = join(checkout, 'dist', 'bundle');
    clis.push(
      await onFresh(
        () => minimalServer(0),
        async (target) =>
          perStage(
            await profiled(
              [
                join(bundleDir, 'examctl.mjs'),
                'user',
                'sync',
                '--target',
                'remote',
                '--base-url',
                target.url,
                '--yes',
                '--no-input',
                '--concurrency',
                '16',
                '--file',
                file,
              ],
              (scratch) => ({
                CI: 'true',
                EXAMCTL_TOKEN: target.token,
                EXAMCTL_CONFIG_DIR: join(tmpdir(), 'examctl-bench-no-config'),
                EXAMCTL_RUNS_DIR: join(scratch, 'runs'),
              }),
            ),
            bundleDir,
            users,
            `examctl (${checkout})`,
          ),
      ),
    );
  }
  return { bare, clis };
}

/**
 * Rows: each stage's CPU ms per 1,000 users for the CLI, the bare loop and the CLI above it
 * (medians of `rounds` profiled rounds); EXAMCTL_BENCH_AGAINST=<bin/examctl of another build> adds
 * that build's CLI above the loop, profiled in the same rounds.
 */
export async function runStageProfile({
  users = 10_000,
  rounds = 3,
  against = process.env.EXAMCTL_BENCH_AGAINST,
} = {}) {
  const checkouts = [root, ...(against === undefined ? [] : [join(dirname(against), '..')])];
  const runs = [];
  for (let round = 0; round < rounds; round++) runs.push(await profileStages(users, checkouts));
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const row = (stage, of) => {
    const cli = median(runs.map((run) => of(run.clis[0])));
    const bare = median(runs.map((run) => of(run.bare)));
    const shown = {
      stage,
      'CLI ms/1k': Math.round(cli),
      'loop ms/1k': Math.round(bare),
      'CLI above the loop': Math.round(cli - bare),
    };
    if (checkouts.length > 1)
      shown['EXAMCTL_BENCH_AGAINST above the loop'] = Math.round(
        median(runs.map((run) => of(run.clis[1]) - of(run.bare))),
      );
    return shown;
  };
  const rows = [...STAGES, OTHER_THREADS].map((stage) => row(stage, (split) => split.stages[stage] ?? 0));
  rows.push(row('whole process (profiled: the profiler adds its own share)', (split) => split.total));
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(
    await runStageProfile({ users: Number(process.argv[2] ?? 10_000), rounds: Number(process.argv[3] ?? 3) }),
  );
}
