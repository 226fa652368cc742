// `npm run test:interop` (optional, not part of `npm test`): workbooks through LibreOffice, and
// the served OpenAPI document through Python's tools.
// Installs LibreOffice headless when soffice is missing (apt-get, needs root) and Python's
// hypothesis and jsonschema when they are missing (pip), builds examctl, then
//  1. has LibreOffice convert a CSV users file to .xlsx, and reads it back;
//  2. writes an examctl .xlsx run report of values spreadsheets used to change (00456, long digit
//     strings, =+-@ text, dates as text), has LibreOffice open and save it (xlsx -> ods -> xlsx),
//     changes cells as a fix would (a program edit: headless LibreOffice takes no typing), has
//     LibreOffice save it again, and checks that --only-failed reads back exactly what was written;
//  3. starts `examctl local serve` on a fresh store and runs scripts/openapi-python-check.py against
//     it: hypothesis generates bodies from the served document (its patterns read by Python's re,
//     as schemathesis reads them), jsonschema checks bodies and answers against the document;
//  4. lints the served document with Redocly's, Spectral's (spectral:oas) and swagger-cli's
//     validators, fetched with npx at pinned versions: no error allowed.
// Exits 1 on any difference. Its files live in a temp dir removed at the end.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const dist = (path) => pathToFileURL(join(root, 'dist', path)).href;

function have(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

// `--record-xlsx-corpus`: record once what openpyxl reads from every workbook of
// fixtures/xlsx/producers (Debian's python3-openpyxl, installed when missing), the values the
// normal suite compares examctl's reading with (test/xlsx/producers-corpus.test.ts); then stop.
if (process.argv.includes('--record-xlsx-corpus')) {
  const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
  if (spawnSync(python, ['-c', 'import openpyxl']).status !== 0) {
    execFileSync('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-openpyxl'], { stdio: 'inherit' });
  }
  const corpus = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'fixtures', 'xlsx', 'producers');
  execFileSync(python, [join(fileURLToPath(new URL('.', import.meta.url)), 'xlsx-corpus-oracle.py'), corpus, join(corpus, 'openpyxl-values.json')], { stdio: 'inherit' });
  process.stdout.write(`recorded ${join(corpus, 'openpyxl-values.json')}\n`);
  process.exit(0);
}

if (!have('soffice')) {
  process.stderr.write('installing LibreOffice (headless calc) ...\n');
  execFileSync('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libreoffice-calc-nogui'], { stdio: 'inherit' });
}
execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });

const { readRecords } = await import(dist('input/format.js'));
const { reportStatusOf } = await import(dist('input/csv-reader.js'));
const { USER_COLUMNS } = await import(dist('domain/columns.js'));
const { openXlsxReportFile } = await import(dist('report/xlsx-report-writer.js'));
const { RunReportBuilder } = await import(dist('report/report-writers.js'));
const ExcelJS = (await import('exceljs')).default;

const dir = mkdtempSync(join(tmpdir(), 'examctl-interop-'));
const profile = pathToFileURL(join(dir, 'lo-profile')).href;
let failures = 0;

function check(what, actual, expected) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a === e) process.stdout.write(`ok   ${what}\n`);
  else {
    failures++;
    process.stdout.write(`FAIL ${what}\n  expected ${e}\n  actual   ${a}\n`);
  }
}

/** LibreOffice converts `file` to `format` into `outDir` (its own profile: no clash with a running instance). */
function soffice(file, format, outDir, inFilter) {
  const filter = inFilter === undefined ? [] : [`--infilter=${inFilter}`];
  execFileSync('soffice', [`-env:UserInstallation=${profile}`, '--headless', ...filter, '--convert-to', format, '--outdir', outDir, file], { stdio: 'pipe', timeout: 180_000 });
}

async function read(path) {
  const records = [];
  for await (const record of readRecords(path, { columns: USER_COLUMNS, displayName: path })) records.push(record);
  return records;
}

try {
  // 1. CSV -> xlsx by LibreOffice (its CSV import types the cells as it sees fit).
  const csv = join(dir, 'people.csv');
  writeFileSync(csv, 'ExternalId,FirstName,LastName,Email,SpecialNeeds\r\nu-1,Ann,Lee,ann@example.test,yes\r\nu-2,Zoë,Ødegård,zoe@example.test,no\r\n');
  // Comma-separated, double quotes, UTF-8 (76): LibreOffice would otherwise guess the system charset.
  soffice(csv, 'xlsx', dir, 'CSV:44,34,76');
  const converted = await read(join(dir, 'people.xlsx'));
  check('CSV converted by LibreOffice: records', converted.map((r) => r.fields), [
    { ExternalId: 'u-1', FirstName: 'Ann', LastName: 'Lee', Email: 'ann@example.test', SpecialNeeds: 'yes' },
    { ExternalId: 'u-2', FirstName: 'Zoë', LastName: 'Ødegård', Email: 'zoe@example.test', SpecialNeeds: 'no' },
  ]);

  // 2. An examctl report, saved twice by LibreOffice, then edited and saved again.
  const header = ['ExternalId', 'FirstName', 'LastName', 'Company', 'PhoneNumber', 'City', 'Password'];
  const rows = [
    ['00456', 'Ann', 'Lee', '=1+1', '1234567890123456789', '2026-03-01', 'p@ss-1'],
    ['02134', 'Zoë', 'Ødegård', '+33 6 12 34 56 78', '1.5', 'TRUE', 'hunter22'],
    ['u-3', '@handle', '-minus', "'quoted", '0.1', '3/4', 'xyzzy-9'],
  ];
  const report = join(dir, 'report.xlsx');
  const file = await openXlsxReportFile(report);
  const builder = new RunReportBuilder([file.sink]);
  rows.forEach((cells, i) => {
    const status = i === 0 ? 'ok' : 'failed';
    builder.add({
      item: { source: { file: 'users.xlsx[Users]', line: i + 2 }, id: cells[0], status, errors: status === 'ok' ? [] : [{ field: 'ExternalId', code: 219, message: 'bad id' }] },
      rows: [{ line: i + 2, header, cells }],
    });
  });
  await builder.finish();
  await file.commit();

  const saved = join(dir, 'saved');
  soffice(report, 'ods', saved);
  soffice(join(saved, 'report.ods'), 'xlsx', saved);
  const expected = rows.map((cells) => Object.fromEntries(header.slice(0, 6).map((name, i) => [name, cells[i]])));
  const afterSave = await read(join(saved, 'report.xlsx'));
  check('report saved by LibreOffice: values unchanged', afterSave.map((r) => r.fields), expected);
  check('report saved by LibreOffice: statuses', afterSave.map(reportStatusOf), ['ok', 'failed', 'failed']);

  // The fix: type a new id into a text cell (as the admin does), then LibreOffice saves again.
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(join(saved, 'report.xlsx'));
  const sheet = workbook.worksheets[0];
  sheet.getCell('A4').value = '000789';
  sheet.getCell('B5').value = '00012';
  const edited = join(dir, 'edited.xlsx');
  await workbook.xlsx.writeFile(edited);
  const resaved = join(dir, 'resaved');
  soffice(edited, 'xlsx', resaved);
  const afterEdit = await read(join(resaved, 'edited.xlsx'));
  const failed = afterEdit.filter((r) => reportStatusOf(r)?.trim().toLowerCase() !== 'ok');
  check('edited and saved again: --only-failed rows as typed', failed.map((r) => r.fields['ExternalId']), ['02134', '000789', undefined]);
  check('edited and saved again: a new row added under the header', afterEdit.at(-1)?.fields['FirstName'], '00012');
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// 3. The OpenAPI document, read by Python's tools against the running server.
const pythonHas = () => spawnSync('python3', ['-c', 'import hypothesis, jsonschema'], { stdio: 'ignore' }).status === 0;
if (!pythonHas()) {
  process.stderr.write('installing hypothesis and jsonschema (pip) ...\n');
  spawnSync('python3', ['-m', 'pip', 'install', '--quiet', 'hypothesis', 'jsonschema'], { stdio: 'inherit' });
}
if (!pythonHas()) {
  failures++;
  process.stdout.write('FAIL served OpenAPI document through hypothesis and jsonschema: python3 cannot import them and pip could not install them\n');
} else {
  const storeDir = mkdtempSync(join(tmpdir(), 'examctl-interop-serve-'));
  const server = spawn(process.execPath, [join(root, 'bin', 'examctl'), 'local', 'serve', '--port', '0', '--store', join(storeDir, 'store')], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, CI: 'true' },
  });
  try {
    server.stderr.setEncoding('utf8');
    let seen = '';
    const url = await new Promise((resolve, reject) => {
      server.stderr.on('data', (text) => {
        seen += text;
        const listening = /listening on (http:\/\/\S+)/.exec(seen);
        if (listening) resolve(listening[1]);
      });
      server.once('exit', (code) => reject(new Error(`local serve exited ${code}: ${seen}`)));
    });
    const run = spawnSync('python3', [join(root, 'scripts', 'openapi-python-check.py'), url, 'dev-token', '200'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    process.stdout.write(run.stdout);
    if (run.status === 0) process.stdout.write('ok   served OpenAPI document through hypothesis and jsonschema: no disagreement\n');
    else {
      failures++;
      process.stdout.write(`FAIL served OpenAPI document through hypothesis and jsonschema (exit ${run.status})\n`);
    }

    // 4. The document through other people's linters and validators.
    const documentFile = join(storeDir, 'openapi.json');
    writeFileSync(documentFile, await (await fetch(`${url}/api/v1/integrations/openapi.json`)).text());
    writeFileSync(join(storeDir, '.spectral.yaml'), 'extends: ["spectral:oas"]\n');
    for (const [name, args] of [
      ['Redocly lint (recommended rules)', ['@redocly/cli@2.77.0', 'lint', documentFile]],
      ['Spectral lint (spectral:oas)', ['@stoplight/spectral-cli@6.16.3', 'lint', '--ruleset', join(storeDir, '.spectral.yaml'), documentFile]],
      ['swagger-cli validate', ['@apidevtools/swagger-cli@4.0.4', 'validate', documentFile]],
    ]) {
      const lint = spawnSync('npx', ['--yes', ...args], { encoding: 'utf8', cwd: storeDir });
      if (lint.status === 0) process.stdout.write(`ok   served OpenAPI document: ${name}\n`);
      else {
        failures++;
        process.stdout.write(`FAIL served OpenAPI document: ${name} (exit ${lint.status})\n${lint.stdout}${lint.stderr}\n`);
      }
    }
  } finally {
    server.kill('SIGTERM');
    if (server.exitCode === null) await once(server, 'exit');
    rmSync(storeDir, { recursive: true, force: true });
  }
}

process.stdout.write(failures === 0 ? 'interop: all checks passed\n' : `interop: ${failures} check(s) failed\n`);
process.exit(failures === 0 ? 0 : 1);
