// Issue 37, "cost grows with the work, not with the history" (measured with examctl's own code,
// data made here): `runs list` (spawned) over K runs of N items each, whose journals are written
// through RunJournal as a run writes them (a sent and an outcome line per item, an end line), once
// with the run summaries and once without them (as runs of an older examctl are read); and the
// sync memory's size after three full runs of M users (SyncMemory fed as a run without
// --changed-only feeds it). The dry-run curve is `EXAMCTL_BENCH_SIZES=100000,1000000,2000000 npm
// run bench -- dry-run`. Sizes: EXAMCTL_BENCH_RUNS_ITEMS (N, default 100,000; the issue's figure
// is 500,000), EXAMCTL_BENCH_MEMORY_USERS (M, default 200,000; the 500,000).
// Run after `npm run build`:  node bench/scale-bench.mjs
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cliPath, probePath, root } from './paths.mjs';

const dist = (path) => import(pathToFileURL(join(root, 'dist', path)).href);

async function writeRuns(runsDir, runs, items) {
  const { RunJournal } = await dist('runs/index.js');
  for (let r = 0; r < runs; r += 1) {
    const journal = await RunJournal.start(runsDir, { command: 'user sync', options: {}, target: { kind: 'remote', baseUrl: 'https://exam.example.test' }, input: null, units: items }, { maxDelayMs: 1_000, maxLines: 20_000 });
    const source = { file: '/home/admin/exports/users-2026-11-23.csv', line: 0 };
    for (let n = 0; n < items; n += 1000) {
      const refs = [];
      for (let k = n; k < Math.min(items, n + 1000); k += 1) refs.push({ n: k, source: { ...source, line: k + 2 }, id: `u-${String(k).padStart(7, '0')}` });
      await journal.sent(refs);
      for (const ref of refs) journal.outcome({ ...ref, status: 'ok', errors: [], action: 'updated', transient: false });
    }
    await journal.end('completed', { total: items, ok: items, partial: 0, failed: 0, skipped: 0 });
  }
}

/** Wall, CPU (user + system) and peak RSS of one spawned `examctl --json runs list`. */
async function runsList(runsDir) {
  const scratch = mkdtempSync(join(tmpdir(), 'examctl-bench-list-'));
  const rssFile = join(scratch, 'rss');
  const cpuFile = join(scratch, 'cpu');
  try {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', probePath, '--import', join(root, 'bench', 'cpu-probe.mjs'), cliPath, '--json', 'runs', 'list'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CI: 'true', EXAMCTL_RUNS_DIR: runsDir, EXAMCTL_BENCH_RSS_FILE: rssFile, EXAMCTL_BENCH_CPU_FILE: cpuFile },
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.resume();
    const [code] = await once(child, 'exit');
    const seconds = (performance.now() - started) / 1000;
    if (code !== 0) throw new Error(`runs list exited ${code}`);
    const listed = JSON.parse(out).runs.length;
    const { userCPUTime, systemCPUTime } = JSON.parse(readFileSync(cpuFile, 'utf8'));
    return { seconds, cpu: (userCPUTime + systemCPUTime) / 1e6, rssMB: Number(readFileSync(rssFile, 'utf8')) / 1024, listed };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function memoryAfterFullRuns(users, nights) {
  const { SyncMemory, memoryFile } = await dist('sync/sync-memory.js');
  const dir = mkdtempSync(join(tmpdir(), 'examctl-bench-memory-'));
  const target = { kind: 'remote', baseUrl: 'https://exam.example.test' };
  const sizes = [];
  try {
    for (let night = 1; night <= nights; night += 1) {
      const memory = await SyncMemory.open(dir, target, 'users', { lock: false, lockTimeoutMs: 0, readOnly: false });
      for (let i = 0; i < users; i += 1) memory.record(`u-${String(i).padStart(7, '0')}`, { digest: `night-${night}-${i}`.padEnd(43, 'x'), run: `20261123T0${night}0000.000Z-abcd` });
      await memory.close();
      sizes.push(statSync(memoryFile(dir, target, 'users')).size / 1e6);
    }
    return sizes;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runScaleBench({ runs = 4, items = Number(process.env.EXAMCTL_BENCH_RUNS_ITEMS ?? 100_000), users = Number(process.env.EXAMCTL_BENCH_MEMORY_USERS ?? 200_000) } = {}) {
  const rows = [];
  const runsDir = mkdtempSync(join(tmpdir(), 'examctl-bench-runs-'));
  try {
    await writeRuns(runsDir, runs, items);
    const journalMB = readdirSync(runsDir).reduce((sum, id) => sum + statSync(join(runsDir, id, 'journal.ndjson')).size, 0) / 1e6;
    const withSummaries = await runsList(runsDir);
    for (const id of readdirSync(runsDir)) rmSync(join(runsDir, id, 'summary.json'), { force: true });
    const fromJournals = await runsList(runsDir);
    for (const [how, m] of [['from the run summaries', withSummaries], ['from the journals (no summaries: runs of an older examctl)', fromJournals]]) {
      rows.push({
        measure: `runs list, ${runs} runs of ${items.toLocaleString('en')} items (${journalMB.toFixed(0)} MB of journals), ${how}`,
        value: `${m.seconds.toFixed(2)} s wall, ${m.cpu.toFixed(2)} s CPU, ${Math.round(m.rssMB)} MB peak`,
        goal: how.startsWith('from the run') ? 'per run, not per byte' : '',
      });
    }
  } finally {
    rmSync(runsDir, { recursive: true, force: true });
  }
  const sizes = await memoryAfterFullRuns(users, 3);
  rows.push({ measure: `sync memory after 3 full runs of ${users.toLocaleString('en')} users (no --changed-only)`, value: sizes.map((mb) => `${mb.toFixed(1)} MB`).join(', '), goal: 'no growth with the nights' });
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await runScaleBench());
}
