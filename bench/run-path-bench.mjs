// The run path's own CPU per record (issue 37), in process over the built dist/: the real
// RecordDispatcher, InOrderScheduler (window 16, as a remote run at --concurrency 16) and run
// journal (sent ahead, group commit, O_DSYNC writes), with a send that answers on the next turn,
// so nothing of the network, the input or the sync memory is in the figure.
//   node bench/run-path-bench.mjs [units=50000] [rounds=3] [--against <root of another built clone>]
// Each round is a fresh process per build and mode, the builds alternated: `journal` (the
// pipeline with its run journal), `no journal` (dispatcher, scheduler and report entries only).
// Prints CPU (user + system) in us per record, medians of the rounds. Never run in tests.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = fileURLToPath(import.meta.url);

if (process.env.EXAMCTL_RUN_PATH_CHILD !== undefined) {
  const [root, units, mode] = JSON.parse(process.env.EXAMCTL_RUN_PATH_CHILD);
  process.stdout.write(JSON.stringify(await measure(root, units, mode === 'journal')));
  process.exit(0);
}

const args = process.argv.slice(2);
const against = args.includes('--against') ? resolve(args[args.indexOf('--against') + 1]) : undefined;
const [units = 50000, rounds = 3] = args.filter((arg, i) => !arg.startsWith('--') && args[i - 1] !== '--against').map(Number);
const builds = [...(against === undefined ? [] : [['against', against]]), ['this build', dirname(dirname(here))]];
const figures = new Map();
for (let round = 0; round < rounds; round++) {
  for (const mode of ['journal', 'no journal']) {
    for (const [name, root] of builds) {
      const child = spawnSync(process.execPath, [here], { env: { ...process.env, EXAMCTL_RUN_PATH_CHILD: JSON.stringify([root, units, mode]) }, encoding: 'utf8' });
      if (child.status !== 0) throw new Error(`${name} ${mode}: ${child.stderr}`);
      const key = `${name}: ${mode}`;
      figures.set(key, [...(figures.get(key) ?? []), JSON.parse(child.stdout)]);
    }
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.table(
  Object.fromEntries(
    [...figures].map(([key, runs]) => [
      key,
      { 'us CPU / record': median(runs.map((r) => r.cpuUs)), 'user': median(runs.map((r) => r.userUs)), 'system': median(runs.map((r) => r.systemUs)), rounds: runs.map((r) => r.cpuUs).join(', ') },
    ]),
  ),
);

async function measure(root, count, journaled) {
  const load = (path) => import(pathToFileURL(join(root, 'dist', path)).href);
  const [{ startJournaling }, { RecordDispatcher }, { InOrderScheduler }] = await Promise.all([
    load('cli/pipeline/run-journaling.js'),
    load('cli/pipeline/record-dispatcher.js'),
    load('cli/pipeline/in-order-scheduler.js'),
  ]);
  const dir = mkdtempSync(join(process.env.TMPDIR ?? '/tmp', 'examctl-run-path-bench-'));
  try {
    const deps = { env: { EXAMCTL_RUNS_DIR: dir }, cwd: dir, invocation: {} };
    const journal = journaled ? await startJournaling('user sync', { kind: 'remote', baseUrl: 'http://127.0.0.1:1' }, count, { runsDir: dir }, deps) : undefined;
    const job = { send: () => new Promise((answer) => setImmediate(() => answer({ status: 'ok', errors: [], action: 'updated' }))) };
    const dispatcher = new RecordDispatcher(job, { api: {}, callOptions: {}, maxErrors: undefined, signal: undefined, ...(journal === undefined ? {} : { journal }), recordAhead: 64 });
    let emitted = 0;
    const scheduler = new InOrderScheduler({ window: 16, maxBuffered: 1024, emit: () => void (emitted += 1) });
    const header = ['ExternalId', 'Email'];
    const batches = [];
    for (let from = 0; from < count; from += 500) {
      batches.push(
        Array.from({ length: Math.min(500, count - from) }, (_, k) => {
          const n = from + k;
          return { source: { file: 'users.csv', line: n + 2, index: n }, id: `U${n}`, prepared: { ok: true, value: { ExternalId: `U${n}` } }, rows: [{ line: n + 2, header, cells: [`U${n}`, `u${n}@example.test`] }] };
        }),
      );
    }
    const before = process.cpuUsage();
    for (const batch of batches) {
      dispatcher.expect(batch);
      for (const unit of batch) {
        const wait = scheduler.accept(dispatcher.dispatch(unit));
        if (wait !== undefined) await wait;
      }
    }
    await scheduler.drain();
    await journal?.end('completed', { total: count, ok: count, partial: 0, failed: 0, skipped: 0 });
    const cpu = process.cpuUsage(before);
    if (emitted !== count) throw new Error(`emitted ${emitted} of ${count}`);
    const per = (us) => Number((us / count).toFixed(2));
    return { cpuUs: per(cpu.user + cpu.system), userUs: per(cpu.user), systemUs: per(cpu.system) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
