// `npm run bench`: prints figures and ratios against the goals of the issues. Never run in tests.
// Each part generates its own deterministic data under bench/.data/ (git-ignored).
import { dryRunGoals, runDryRunBench } from './dry-run-bench.mjs';
import { runEngineBench } from './engine-bench.mjs';
import { runRemoteBench } from './remote-bench.mjs';
import { runXlsxBench, runXlsxReportBench } from './xlsx-bench.mjs';
import { runServeBench } from './serve-bench.mjs';
import { runNightBench, runSyncBench } from './sync-bench.mjs';
import { runStateBench } from './state-bench.mjs';
import { runMoversBench } from './movers-bench.mjs';
import { runExecutableStartupBench, runStartupBench } from './startup-bench.mjs';
import { runLimitBench } from './limit-bench.mjs';
import { runStageProfile } from './stage-profile.mjs';
import { runAllocProfile } from './alloc-profile.mjs';
import { runPerfSplit } from './perf-split.mjs';
import { runScaleBench } from './scale-bench.mjs';
import { judge, printGoals } from './goals.mjs';
import { runClientBench } from './client-bench.mjs';
import { runHtmlPageBench } from './html-page-bench.mjs';
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const only = process.argv[2];

function section(title, goal) {
  process.stdout.write(`\n== ${title}\n${goal ? `goal: ${goal}\n` : ''}`);
}

if (!only || only === 'limit') {
  section(
    'issues 37 and 51, the remote path against the wire: user sync --target remote vs the bare undici loop run as a process, paired rounds (median of 3); local serve vs a durable minimal server',
    "ratio >= 0.75 at no latency and >= 0.97 at 20 ms; CPU <= 1.5x the loop's (issue 61) and <= 1.3x the durable loop's (the loop with examctl's guarantees, issue 82); local serve >= 0.6 of the durable minimal server",
  );
  console.table(judge('limit', await runLimitBench()));
  section(
    "issue 51, where the CLI's CPU goes: user sync --target remote (the ES module bundle, for its source maps) and the loop under --cpu-prof, 10,000 users, no latency, each stage's share of the main thread's samples scaled to its CPU (median of 3 profiled runs)",
    '',
  );
  console.table(await runStageProfile());
  section(
    'issue 82, where the CLI allocates (per-record objects): the same run and both loops with the sampling heap profiler (collected objects included), KB per user by stage; unlike CPU, not moved by the load',
    '',
  );
  console.table(await runAllocProfile());
  section(
    "issue 82, the CLI's CPU by thread and kind of work, counted by Linux perf on CPU time (not --cpu-prof's wall clock): the CLI as users run it against the durable loop as examctl writes and the bare loop, ms per 1,000 users (median of 3)",
    '',
  );
  const split = await runPerfSplit();
  if (split === undefined)
    process.stdout.write('no `perf` (linux-tools) or not allowed to sample here: not measured\n');
  else console.table(split);
  process.stdout.write(
    `load average (1, 5, 15 minutes) after the profiled runs: ${loadavg()
      .map((value) => value.toFixed(1))
      .join(', ')}\n`,
  );
}

if (!only || only === 'limit' || only === 'parts') {
  section(
    "issue 37, where a remote user's CPU goes, in process: one client call against the bare undici loop and undici's dispatch floor; the run path (dispatcher, scheduler, run journal) per record",
    'the client within a few us of the bare loop; the run path a small share of the goal of 100 us per user',
  );
  console.table(await runClientBench());
  // run-path-bench measures each build in fresh processes of its own; it prints its own table.
  spawnSync(process.execPath, [fileURLToPath(new URL('./run-path-bench.mjs', import.meta.url)), '50000', '3'], {
    stdio: 'inherit',
  });
}

if (!only || only === 'scale') {
  section(
    'issue 37, cost grows with the work, not the history: runs list over 4 runs; runs show of one run (EXAMCTL_BENCH_AGAINST: another build beside it); the sync memory over 3 full runs',
    'runs list per run, not per journal byte; runs show in memory flat in the items; the memory does not grow night after night',
  );
  console.table(judge('scale', await runScaleBench()));
}

if (!only || only === 'dry-run') {
  section(
    'user sync --dry-run vs raw csv-parse, which it reads CSV with (100k-500k-row users files, 500k always; EXAMCTL_BENCH_SIZES=100000,1000000,2000000 for the curve); ratio by wall time as the issue measures it, CPU ratio by user + system time',
    'ratio >= 0.7 and peak RSS < 256 MB at 500k (issue 37); 2M rows under 400 MB',
  );
  const dryRun = await runDryRunBench();
  console.table(dryRun);
  judge('dry-run', dryRunGoals(dryRun));
}

if (!only || only === 'engine') {
  section(
    'local engine: user sync 10k into 10k/100k-user stores, 10k-candidate push, store load',
    'time ratio 100k/10k <= 1.3',
  );
  console.table(await runEngineBench());
}

if (!only || only === 'remote') {
  section(
    'user sync --target remote, 10k users, concurrency 8, spawned (start-up included), vs a bare undici loop on the same server',
    'CLI ratio >= 0.5 against the minimal loopback server and against local serve',
  );
  console.table(await runRemoteBench());
}

if (!only || only === 'xlsx') {
  section(
    '100k users as .xlsx beside the same rows as CSV: read + coerce + validate (readers called directly)',
    'xlsx peak RSS <= 256 MB, time within a few times CSV',
  );
  console.table(await runXlsxBench());
  section(
    'the run report as .xlsx: user sync --dry-run of XLSX_REPORT_ROWS users (default 100k) without a report, with .csv, with .xlsx',
    'the .xlsx report adds <= 64 MB to the peak RSS',
  );
  console.table(await runXlsxReportBench());
}

if (!only || only === 'serve') {
  section(
    'local serve: review-session GETs during 300 password user creates (concurrency 64); users/s against a minimal loopback server; a first night through it against the same night on a local store',
    'GET p50 <= 100 ms and p99 <= 400 ms under the password load; users/s ratio >= 0.5; the first night within 2x (issue 82)',
  );
  console.table(judge('serve', await runServeBench()));
}

if (!only || only === 'sync') {
  section(
    'the nightly sync: user sync of 50,000 users, then --changed-only --disable-missing with 500 changed and 100 gone; loopback server, 20 ms latency, concurrency 16',
    'changed-only time <= 1/20 of the full run; digest <= 1 s per 100k records',
  );
  console.table(await runSyncBench());
  section(
    "joiners, movers, leavers: from the same memory of 50,000 users, today's changed-only night (1 % changed, 100 gone) vs a --prune-memberships night (1 % moved, 100 gone)",
    "the movers night costs no more than today's (requests and wall time)",
  );
  console.table(await runMoversBench());
  section(
    'issue 37, a --changed-only night at 1 % changed vs its full run (EXAMCTL_BENCH_NIGHT_USERS, default 200,000; loopback server, no latency, concurrency 16), and a 1,000-user run against that memory vs an empty one (EXAMCTL_BENCH_AGAINST=<bin/examctl>: another build too)',
    "the night's journal a small share of the full run's; unchanged rows cost a digest and a compare; a 1,000-user run costs about the same against a memory of 200,000 as against none",
  );
  console.table(await runNightBench());
}

if (!only || only === 'sync' || only === 'state') {
  section(
    'issue 59, what a night uploads to a state service: a full user sync of 50,000 users, then a --changed-only --disable-missing night with 1 % changed (memory on an in-process Terraform-HTTP-style service on loopback; the platform on loopback, no latency)',
    'what a night uploads (its delta and the intents written ahead) grows with its changes, not with the memory',
  );
  console.table(await runStateBench());
}

if (!only || only === 'startup') {
  section(
    'start-up: examctl --help, user sync --help, a 20-user user sync --dry-run (spawned 20 times each), a one-user remote run (CPU) and spawn -> first request of a 3,000-user remote run (7 times each); EXAMCTL_BENCH_AGAINST=<bin/examctl> compares another build, interleaved',
    'no growth',
  );
  console.table(await runStartupBench());
  section(
    "issue 62, the one-file executable: examctl-linux-x64 (built once for these sources) vs a bare `node -e 0` of the Node inside it, and the npm install (node bin/examctl) vs this Node's `node -e 0`, spawned in turn, 20 times each, timed by bash's `time`: CPU (user + system) and wall medians, both ratios, the load average",
    'ratio <= 1.5 (the executable; judge by CPU on a loaded machine); issue 82: both --version <= 1.2 and the 3-user dry run <= 3; the crowded state folder / the empty one ~1',
  );
  console.table(await runExecutableStartupBench());
}

if (!only || only === 'html') {
  section(
    "issue 79, the HTML report page of a 50,000-user night (EXAMCTL_BENCH_HTML_ROWS): written by dist/'s writer, opened in headless Chromium (@sparticuz/chromium), until its script has drawn it; a search and a sort over its rows",
    'opens within 3 s; no request besides the file',
  );
  console.table(await runHtmlPageBench());
}

printGoals();
