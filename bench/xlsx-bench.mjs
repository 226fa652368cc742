// The .xlsx reader beside the CSV reader on the same 100k users: a dry run's work (read, coerce,
// validate every record), each in its own process so that its peak RSS is its own. First the
// readers alone (start-up not included), then the whole CLI: `examctl user sync --file F --dry-run`
// (start-up, pipeline, spreadsheet warnings and summary included).
// Run: npm run build && node bench/xlsx-bench.mjs   (or npm run bench xlsx)
import { existsSync, renameSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { dataDir, USER_HEADER, userRow, usersCsv } from './generate.mjs';
import { root } from './paths.mjs';

const ROWS = 100_000;

/** Writes (once) the same rows as usersCsv as a workbook of text cells, with examctl's own writer. */
async function usersXlsx(rows) {
  const file = join(dataDir, `users-u-${rows}.xlsx`);
  if (existsSync(file)) return file;
  const { writeTablesXlsx } = await import(pathToFileURL(join(root, 'dist/report/xlsx-report-writer.js')).href);
  const tmp = `${file}.tmp`;
  const out = createWriteStream(tmp);
  function* lines() {
    for (let i = 1; i <= rows; i++) yield userRow(i);
  }
  await writeTablesXlsx(out, [{ name: 'Users', header: USER_HEADER, rows: lines() }]);
  await once(out, 'close');
  renameSync(tmp, file);
  return file;
}

/** The child: reads the file through readRecords, coerces and validates each record, prints figures. */
const CHILD = `
const [format, coercion, columns] = await Promise.all([
  import(${JSON.stringify(pathToFileURL(join(root, 'dist/input/format.js')).href)}),
  import(${JSON.stringify(pathToFileURL(join(root, 'dist/domain/coercion.js')).href)}),
  import(${JSON.stringify(pathToFileURL(join(root, 'dist/domain/columns.js')).href)}),
]);
const start = performance.now();
const cpuStart = process.cpuUsage();
let ok = 0, total = 0;
for await (const batch of format.readRecords(process.argv[1], { columns: columns.USER_COLUMNS }).batches()) {
  for (const record of batch) {
    total++;
    if (record.problems === undefined && coercion.coerceAndValidateUser(record.fields).ok) ok++;
  }
}
const seconds = (performance.now() - start) / 1000;
const cpu = process.cpuUsage(cpuStart);
process.stdout.write(JSON.stringify({ seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, total, ok, rssMB: process.resourceUsage().maxRSS / 1024 }));
`;

function readerRun(file) {
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD, file], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0) throw new Error(`bench child failed: ${child.stderr}`);
  return JSON.parse(child.stdout);
}

/** Peak RSS and CPU time of a CLI child, printed by a preload as it exits (main.ts ends with process.exit). */
const ON_EXIT = `data:text/javascript,${encodeURIComponent(
  "process.on('exit', () => { const u = process.resourceUsage(); process.stderr.write('\\nmaxRSS ' + u.maxRSS + ' cpuMicros ' + (u.userCPUTime + u.systemCPUTime) + '\\n'); })",
)}`;

function cliRun(file, extra = [], main = join(root, 'dist/cli/main.js')) {
  const started = performance.now();
  const child = spawnSync(
    process.execPath,
    [
      '--import',
      ON_EXIT,
      main,
      '--store',
      join(dataDir, 'no-store'),
      'user',
      'sync',
      '--file',
      file,
      '--dry-run',
      ...extra,
    ],
    {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
      env: { ...process.env, CI: 'true' },
    },
  );
  const seconds = (performance.now() - started) / 1000;
  if (child.status !== 0) throw new Error(`examctl failed (${child.status}): ${child.stderr.slice(-2000)}`);
  const total = Number(/([\d,]+) items:/.exec(child.stderr)?.[1]?.replaceAll(',', ''));
  const rssKB = Number(/maxRSS (\d+)/.exec(child.stderr)?.[1]);
  const cpuMicros = Number(/cpuMicros (\d+)/.exec(child.stderr)?.[1]);
  return { seconds, cpuSeconds: cpuMicros / 1e6, total, ok: total, rssMB: rssKB / 1024 };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Runs A and B alternately (A B A B ...) so that load from other processes falls on both alike,
 * and keeps the median wall and CPU time of each, and the largest peak RSS.
 */
function interleaved(runA, runB, rounds) {
  const a = [];
  const b = [];
  for (let round = 0; round < rounds; round++) {
    a.push(runA());
    b.push(runB());
  }
  const summary = (runs) => ({
    ...runs[0],
    seconds: median(runs.map((r) => r.seconds)),
    cpuSeconds: median(runs.map((r) => r.cpuSeconds)),
    rssMB: Math.max(...runs.map((r) => r.rssMB)),
  });
  return [summary(a), summary(b)];
}

export async function runXlsxBench(rounds = Number(process.env.XLSX_BENCH_ROUNDS ?? 3)) {
  const csv = await usersCsv(ROWS);
  const xlsx = await usersXlsx(ROWS);
  const [csvRun, xlsxRun] = interleaved(
    () => readerRun(csv),
    () => readerRun(xlsx),
    rounds,
  );
  if (xlsxRun.total !== ROWS || csvRun.total !== ROWS || xlsxRun.ok !== csvRun.ok)
    throw new Error('the two files did not give the same records');
  const [csvCli, xlsxCli] = interleaved(
    () => cliRun(csv),
    () => cliRun(xlsx),
    rounds,
  );
  if (xlsxCli.total !== ROWS || csvCli.total !== ROWS) throw new Error('the two CLI runs did not report every record');
  const row = (name, run) => ({
    input: name,
    records: run.total,
    seconds: Number(run.seconds.toFixed(2)),
    'cpu s': Number(run.cpuSeconds.toFixed(2)),
    'rows/cpu s': Math.round(run.total / run.cpuSeconds),
    'peak RSS MB': Math.round(run.rssMB),
  });
  const ratio = (name, a, b) => ({
    input: name,
    seconds: Number((b.seconds / a.seconds).toFixed(2)),
    'cpu s': Number((b.cpuSeconds / a.cpuSeconds).toFixed(2)),
  });
  return [
    row('csv', csvRun),
    row('xlsx', xlsxRun),
    ratio('xlsx/csv', csvRun, xlsxRun),
    row('cli csv', csvCli),
    row('cli xlsx', xlsxCli),
    ratio('cli xlsx/csv', csvCli, xlsxCli),
  ];
}

/**
 * The run report as a workbook: `user sync --file users.csv --dry-run` of XLSX_REPORT_ROWS users
 * (default 100,000) with no report, `--report r.csv` and `--report r.xlsx`, each spawned, peak
 * RSS and CPU time as the child ends. EXAMCTL_BENCH_AGAINST=<dist/cli/main.js of another build>
 * runs that build's .xlsx report too (the exceljs writer before issue 36). One run each: a
 * report of 1M rows takes a minute. Goal: the .xlsx report adds at most 64 MB to the peak of the
 * run without a report, and takes no more time than the build it replaced.
 */
export async function runXlsxReportBench(rows = Number(process.env.XLSX_REPORT_ROWS ?? 100_000)) {
  const csv = await usersCsv(rows);
  const report = (ext) => ['--report', join(dataDir, `bench-report.${ext}`)];
  const runs = [
    ['no report', () => cliRun(csv)],
    ['--report .csv', () => cliRun(csv, report('csv'))],
    ['--report .xlsx', () => cliRun(csv, report('xlsx'))],
  ];
  const against = process.env.EXAMCTL_BENCH_AGAINST;
  if (against !== undefined) runs.push([`--report .xlsx, ${against}`, () => cliRun(csv, report('xlsx'), against)]);
  const table = [];
  let base;
  for (const [name, run] of runs) {
    const result = run();
    base ??= result;
    table.push({
      run: name,
      records: result.total,
      seconds: Number(result.seconds.toFixed(2)),
      'cpu s': Number(result.cpuSeconds.toFixed(2)),
      'peak RSS MB': Math.round(result.rssMB),
      'added MB': Math.round(result.rssMB - base.rssMB),
    });
  }
  return table;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(
    `== ${ROWS} users, read + coerce + validate (dry run's work); csv and xlsx run alternately, median of each (XLSX_BENCH_ROUNDS, default 3)\n` +
      'goal: xlsx peak RSS <= 256 MB, CLI time within ~2x CSV (compare the cpu s column: other processes share the cores)\n',
  );
  console.table(await runXlsxBench());
  process.stdout.write(
    '== the run report as .xlsx (XLSX_REPORT_ROWS users, dry run, spawned, one run each)\ngoal: adds <= 64 MB to the peak RSS of the run without a report\n',
  );
  console.table(await runXlsxReportBench());
}
