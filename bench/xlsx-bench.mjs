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
let ok = 0, total = 0;
for await (const batch of format.readRecords(process.argv[1], { columns: columns.USER_COLUMNS }).batches()) {
  for (const record of batch) {
    total++;
    if (record.problems === undefined && coercion.coerceAndValidateUser(record.fields).ok) ok++;
  }
}
const seconds = (performance.now() - start) / 1000;
process.stdout.write(JSON.stringify({ seconds, total, ok, rssMB: process.resourceUsage().maxRSS / 1024 }));
`;

function measure(file) {
  let best;
  for (let run = 0; run < 2; run++) {
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD, file], { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (child.status !== 0) throw new Error(`bench child failed: ${child.stderr}`);
    const figures = JSON.parse(child.stdout);
    if (best === undefined || figures.seconds < best.seconds) best = { ...figures, rssMB: Math.max(figures.rssMB, best?.rssMB ?? 0) };
  }
  return best;
}

/** Peak RSS of a CLI child, printed by a preload as it exits (main.ts ends with process.exit). */
const RSS_ON_EXIT = `data:text/javascript,${encodeURIComponent("process.on('exit', () => process.stderr.write('\\nmaxRSS ' + process.resourceUsage().maxRSS + '\\n'))")}`;

function measureCli(file) {
  const started = performance.now();
  const child = spawnSync(process.execPath, ['--import', RSS_ON_EXIT, join(root, 'dist/cli/main.js'), '--store', join(dataDir, 'no-store'), 'user', 'sync', '--file', file, '--dry-run'], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    env: { ...process.env, CI: 'true' },
  });
  const seconds = (performance.now() - started) / 1000;
  if (child.status !== 0) throw new Error(`examctl failed (${child.status}): ${child.stderr.slice(-2000)}`);
  const total = Number(/([\d,]+) items:/.exec(child.stderr)?.[1]?.replaceAll(',', ''));
  const rssKB = Number(/maxRSS (\d+)/.exec(child.stderr)?.[1]);
  return { seconds, total, ok: total, rssMB: rssKB / 1024 };
}

export async function runXlsxBench() {
  const csv = await usersCsv(ROWS);
  const xlsx = await usersXlsx(ROWS);
  const csvRun = measure(csv);
  const xlsxRun = measure(xlsx);
  if (xlsxRun.total !== ROWS || csvRun.total !== ROWS || xlsxRun.ok !== csvRun.ok) throw new Error('the two files did not give the same records');
  const row = (name, run) => ({
    input: name,
    records: run.total,
    valid: run.ok,
    seconds: Number(run.seconds.toFixed(2)),
    'rows/s': Math.round(run.total / run.seconds),
    'peak RSS MB': Math.round(run.rssMB),
  });
  const csvCli = measureCli(csv);
  const xlsxCli = measureCli(xlsx);
  return [
    row('csv', csvRun),
    row('xlsx', xlsxRun),
    { input: 'xlsx/csv time', seconds: Number((xlsxRun.seconds / csvRun.seconds).toFixed(1)) },
    row('cli csv', csvCli),
    row('cli xlsx', xlsxCli),
    { input: 'cli xlsx/csv time', seconds: Number((xlsxCli.seconds / csvCli.seconds).toFixed(1)) },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(`== ${ROWS} users, read + coerce + validate (dry run's work), best of 2\ngoal: xlsx peak RSS <= 256 MB, time within a few times CSV\n`);
  console.table(await runXlsxBench());
}
