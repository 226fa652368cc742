// The run path's own CPU per record (issue 37), in process over the built dist/: the real
// RecordDispatcher, InOrderScheduler (window 16, as a remote run at --concurrency 16) and run
// journal (sent ahead as far as the build's recordAheadFor(16), group commit, O_DSYNC writes),
// with a send that answers on the next turn, so nothing of the network, the input or the sync
// memory is in the figure.
//   node bench/run-path-bench.mjs [units=50000] [rounds=3] [--against <root of another built clone>]
// Each round is a fresh process per build and mode, the builds alternated: `journal` (the
// pipeline with its run journal), `no journal` (dispatcher, scheduler and report entries only),
// `lines` (a record's sent and outcome lines built, checksummed and made one buffer per group of
// 64 lines, no write: src/runs/journal-encoder.ts, or in a build without it the way the journal
// did it before, JSON.stringify then the store's encodeChecksummedLine, joined).
// Prints CPU (user + system) in us per record, medians of the rounds. Never run in tests.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = fileURLToPath(import.meta.url);

if (process.env.EXAMCTL_RUN_PATH_CHILD !== undefined) {
  const [root, units, mode] = JSON.parse(process.env.EXAMCTL_RUN_PATH_CHILD);
  process.stdout.write(
    JSON.stringify(mode === 'lines' ? await measureLines(root, units) : await measure(root, units, mode === 'journal')),
  );
  process.exit(0);
}

const args = process.argv.slice(2);
const against = args.includes('--against') ? resolve(args[args.indexOf('--against') + 1]) : undefined;
const [units = 50000, rounds = 3] = args
  .filter((arg, i) => !arg.startsWith('--') && args[i - 1] !== '--against')
  .map(Number);
const builds = [...(against === undefined ? [] : [['against', against]]), ['this build', dirname(dirname(here))]];
const figures = new Map();
for (let round = 0; round < rounds; round++) {
  for (const mode of ['journal', 'no journal', 'lines']) {
    for (const [name, root] of builds) {
      const child = spawnSync(process.execPath, [here], {
        env: { ...process.env, EXAMCTL_RUN_PATH_CHILD: JSON.stringify([root, units, mode]) },
        encoding: 'utf8',
      });
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
      {
        'us CPU / record': median(runs.map((r) => r.cpuUs)),
        user: median(runs.map((r) => r.userUs)),
        system: median(runs.map((r) => r.systemUs)),
        rounds: runs.map((r) => r.cpuUs).join(', '),
      },
    ]),
  ),
);

async function measureLines(root, count) {
  const load = (path) => import(pathToFileURL(join(root, 'dist', path)).href);
  const encoder = await load('runs/journal-encoder.js').catch(() => undefined);
  const { encodeChecksummedLine } = await load('system/checksummed-line.js');
  const refs = Array.from({ length: count }, (_, n) => ({
    n,
    source: { file: 'users.csv', line: n + 2, index: n },
    id: `U${n}`,
  }));
  const group = encoder === undefined ? undefined : new encoder.JournalGroupEncoder();
  const before = process.cpuUsage();
  let pending = [];
  let bytes = 0;
  for (const ref of refs) {
    const outcome = {
      n: ref.n,
      source: ref.source,
      id: ref.id,
      status: 'ok',
      errors: [],
      transient: false,
      action: 'updated',
    };
    if (encoder === undefined) {
      pending.push(
        encodeChecksummedLine(JSON.stringify({ t: 'sent', n: ref.n, source: ref.source, id: ref.id })),
        encodeChecksummedLine(JSON.stringify({ t: 'outcome', ...outcome })),
      );
    } else {
      pending.push(encoder.refBody('sent', ref), encoder.outcomeBody(outcome));
    }
    if (pending.length < 64) continue;
    bytes += encoder === undefined ? Buffer.from(pending.join(''), 'utf8').length : group.encode(pending).length;
    pending = [];
  }
  const cpu = process.cpuUsage(before);
  if (bytes === 0) throw new Error('nothing encoded');
  const per = (us) => Number((us / count).toFixed(2));
  return { cpuUs: per(cpu.user + cpu.system), userUs: per(cpu.user), systemUs: per(cpu.system) };
}

async function measure(root, count, journaled) {
  const load = (path) => import(pathToFileURL(join(root, 'dist', path)).href);
  const [{ startJournaling }, { RecordDispatcher }, { InOrderScheduler }] = await Promise.all([
    load('pipeline/run-journaling.js'),
    load('pipeline/record-dispatcher.js'),
    load('pipeline/in-order-scheduler.js'),
  ]);
  const dir = mkdtempSync(join(process.env.TMPDIR ?? '/tmp', 'examctl-run-path-bench-'));
  try {
    // The options a command tree would say the command keeps (none here: the bench's run has no flags).
    const deps = { env: { EXAMCTL_RUNS_DIR: dir }, cwd: dir, invocation: {}, keptOptions: { names: [], digested: [] } };
    const journal = journaled
      ? await startJournaling(
          'user sync',
          { kind: 'remote', baseUrl: 'http://127.0.0.1:1', report: { kind: 'remote', baseUrl: 'http://127.0.0.1:1' } },
          count,
          { runsDir: dir },
          deps,
        )
      : undefined;
    const job = {
      send: () => new Promise((answer) => setImmediate(() => answer({ status: 'ok', errors: [], action: 'updated' }))),
    };
    const dispatcher = new RecordDispatcher(job, {
      api: {},
      callOptions: {},
      maxErrors: undefined,
      signal: undefined,
      ...(journal === undefined ? {} : { journal }),
      // As run-pipeline.ts sets it for a window of 16: max(256, window).
      recordAhead: 256,
    });
    let emitted = 0;
    const scheduler = new InOrderScheduler({ window: 16, maxBuffered: 1024, emit: () => void (emitted += 1) });
    const header = ['ExternalId', 'Email'];
    const batches = [];
    for (let from = 0; from < count; from += 500) {
      batches.push(
        Array.from({ length: Math.min(500, count - from) }, (_, k) => {
          const n = from + k;
          return {
            source: { file: 'users.csv', line: n + 2, index: n },
            id: `U${n}`,
            prepared: { ok: true, value: { ExternalId: `U${n}` } },
            rows: [{ line: n + 2, header, cells: [`U${n}`, `u${n}@example.test`] }],
          };
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
