// Where a remote `user sync`'s CPU goes by thread and by kind of work, counted by Linux `perf`
// (issue 82): the CLI as users run it (bin/examctl, no V8 flag, so its code caches are used) and
// the reference loops (the durable loop as examctl writes, the bare loop), each spawned against a
// fresh minimal server, sampled at 999 Hz on CPU time (`perf record -e cpu-clock`), the loops and
// the CLI alternating round by round. Unlike `--cpu-prof` (stage-profile.mjs), which samples the
// main thread's wall clock and so counts time the busy machine took the CPU away as the function's,
// a perf sample is CPU spent, on any thread. Each sample is sorted by what ran: V8's optimizing
// compiler (TurboFan, on its worker threads), the garbage collector (main thread and helpers), the
// kernel (system calls: sockets, durable writes), JavaScript (JIT code and V8's builtins and
// inline caches), JSON.stringify and JSON.parse, SHA-256 and crc32, and the rest (Node's and V8's
// C++ runtime, libc); and by thread: the
// main thread against the others (V8's workers, libuv's pool). ms per 1,000 users, medians.
// Needs `perf` (linux-tools) and kernel.perf_event_paranoid <= 2; run after `npm run build`:
//   node bench/perf-split.mjs [users=10000] [rounds=3]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { usersCsv } from './generate.mjs';
import { cliPath, root } from './paths.mjs';
import { minimalServer, onFresh } from './remote-bench.mjs';

const HZ = 999;

/** The kind of work a sample's symbol (and its object file) says it was. */
export function kindOf(symbol, dso) {
  if (dso === '[kernel.kallsyms]' || dso === '[vdso]') return 'kernel';
  if (/compiler::|Turbofan|TurboFan|OptimizedCompilationJob|PipelineCompilationJob|Zone::/.test(symbol))
    return 'TurboFan';
  if (
    /Scaveng|MarkCompact|ConcurrentMarking|MarkingVisitor|Sweeper|Evacuat|Heap::|MinorMark|IncrementalMarking|RememberedSet|SlotSet|GCTracer|MarkingBarrier|WriteBarrier/.test(
      symbol,
    )
  )
    return 'GC';
  if (/JsonStringifier|JsonParser/.test(symbol)) return 'JSON';
  if (/sha256_|SHA256|crc32/.test(symbol)) return 'SHA-256, crc32';
  // JIT code: unknown to perf, or named by a perf map (node --perf-basic-prof, which changes V8's flags).
  if (dso === '[unknown]' || dso.startsWith('[JIT]') || /perf-\d+\.map$/.test(dso) || /^Builtins_/.test(symbol))
    return 'JavaScript';
  return 'runtime';
}

const KINDS = ['JavaScript', 'JSON', 'SHA-256, crc32', 'runtime', 'kernel', 'GC', 'TurboFan'];

/** Samples of `perf record` data by thread (main or other) and kind: ms of CPU. */
function split(data) {
  const script = spawnSync('perf', ['script', '-i', data, '-F', 'pid,tid,ip,sym,dso'], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (script.status !== 0) throw new Error(`perf script: ${script.stderr}`);
  const ms = {};
  for (const line of script.stdout.split('\n')) {
    // `  pid/tid  address symbol (dso)`, the symbol `[unknown]` where perf has none.
    const match = /^\s*(\d+)\/(\d+)\s+[0-9a-f]+\s+(.*?)\s*\(([^()]*)\)\s*$/.exec(line);
    if (match === null) continue;
    const [, pid, tid, symbol = '', dso = '[unknown]'] = match;
    const key = `${pid === tid ? 'main' : 'other threads'}\t${kindOf(symbol, dso)}`;
    ms[key] = (ms[key] ?? 0) + 1000 / HZ;
  }
  return ms;
}

/** One run of `args` (node's) under perf against `target`: its split, in ms per 1,000 users. */
function recorded(args, users, env) {
  const scratch = mkdtempSync(join(tmpdir(), 'examctl-bench-perf-'));
  try {
    const data = join(scratch, 'perf.data');
    const run = spawnSync(
      'perf',
      ['record', '-q', '-F', String(HZ), '-e', 'cpu-clock', '-o', data, '--', process.execPath, ...args(scratch)],
      {
        cwd: scratch,
        stdio: ['ignore', 'ignore', 'pipe'],
        encoding: 'utf8',
        env: { ...process.env, CI: 'true', ...env(scratch) },
      },
    );
    if (run.status !== 0) throw new Error(`perf record ${args(scratch).join(' ')}: exit ${run.status}: ${run.stderr}`);
    const per = 1000 / users;
    return Object.fromEntries(Object.entries(split(data)).map(([key, ms]) => [key, ms * per]));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export async function runPerfSplit({ users = 10_000, rounds = 3 } = {}) {
  // No perf, or not allowed to sample (kernel.perf_event_paranoid above 2): nothing measured.
  const scratch = mkdtempSync(join(tmpdir(), 'examctl-bench-perf-probe-'));
  const probe = spawnSync(
    'perf',
    ['record', '-q', '-e', 'cpu-clock', '-o', join(scratch, 'probe.data'), '--', 'true'],
    {
      encoding: 'utf8',
    },
  );
  rmSync(scratch, { recursive: true, force: true });
  if (probe.status !== 0) return undefined;
  const file = await usersCsv(users, 'r');
  const loop = (script, extra) => (target) =>
    recorded(
      (scratch) => [join(root, 'bench', script), target.url, target.token, String(users), '16', 'r', ...extra(scratch)],
      users,
      () => ({}),
    );
  const variants = {
    CLI: (target) =>
      recorded(
        () =>
          [cliPath, 'user', 'sync', '--target', 'remote', '--base-url', target.url, '--yes', '--no-input'].concat([
            '--concurrency',
            '16',
            '--file',
            file,
          ]),
        users,
        (scratch) => ({
          EXAMCTL_TOKEN: target.token,
          EXAMCTL_CONFIG_DIR: join(scratch, 'no-config'),
          EXAMCTL_RUNS_DIR: join(scratch, 'runs'),
          HOME: scratch,
        }),
      ),
    'durable loop as examctl writes': loop('durable-loop-process.mjs', (scratch) => [
      join(scratch, 'journal.ndjson'),
      join(scratch, 'memory.ndjson'),
      '20',
    ]),
    'bare loop': loop('bare-loop-process.mjs', () => []),
  };
  const runs = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  for (let round = 0; round < rounds; round++)
    for (const [name, measure] of Object.entries(variants))
      runs[name].push(await onFresh(() => minimalServer(0), measure));
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const rows = [];
  for (const thread of ['main', 'other threads'])
    for (const kind of KINDS) {
      const key = `${thread}\t${kind}`;
      const row = { thread, kind };
      for (const name of Object.keys(variants)) row[name] = Math.round(median(runs[name].map((run) => run[key] ?? 0)));
      row['CLI above the durable loop'] = row.CLI - row['durable loop as examctl writes'];
      rows.push(row);
    }
  const total = { thread: 'all', kind: 'whole process' };
  for (const name of Object.keys(variants))
    total[name] = Math.round(median(runs[name].map((run) => Object.values(run).reduce((a, b) => a + b, 0))));
  total['CLI above the durable loop'] = total.CLI - total['durable loop as examctl writes'];
  rows.push(total);
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await runPerfSplit({ users: Number(process.argv[2] ?? 10_000), rounds: Number(process.argv[3] ?? 3) });
  if (rows === undefined)
    console.log('perf-split: no `perf` (linux-tools) or not allowed to sample here; nothing measured');
  else console.table(rows);
}
