// The parts written here against the library that could do them, on the same input, each variant
// in a process of its own (its heap its own), medians of 3 (docs/architecture.md, "Written here,
// and why"). CPU is the process's user + system time for the work alone, start-up not included;
// peak is the process's peak RSS (Node itself is about 45 MiB of it).
// Run: npm run build && node bench/written-here.mjs [part...]   parts: hash csv xml zip-read zip-write xlsx-write store tz lock json
// tz, lock, json, store and zip-read's yauzl compare libraries examctl does not install: LIBS names a node_modules that has them
// (`npm install --prefix /tmp/libs luxon@3.7.2 proper-lockfile@4.1.2 yauzl@3.4.0 stream-json@1.9.1 lowdb@7.0.1`,
// LIBS=/tmp/libs/node_modules).
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, renameSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dataDir, USER_HEADER, userRow, usersCsv } from './generate.mjs';
import { root } from './paths.mjs';

const ROUNDS = 3;
// exceljs's own libraries (saxes, unzipper, jszip, archiver) from its install; luxon, proper-lockfile, yauzl and stream-json from LIBS.
const library = (name) =>
  createRequire(
    join(
      process.env.LIBS && /^(luxon|proper-lockfile|yauzl|stream-json|lowdb)\b/.test(name)
        ? process.env.LIBS
        : join(root, 'node_modules/exceljs'),
      'x.js',
    ),
  )(name);
/** Local times an export writes (dd/MM/yyyy HH:mm in Europe/Paris), one a day at 09:30, and one the clocks skip. */
const localTimes = (rows) =>
  Array.from({ length: rows }, (_, i) => {
    const day = new Date(Date.UTC(2020, 0, 1) + (i % 3000) * 86_400_000);
    return `${String(day.getUTCDate()).padStart(2, '0')}/${String(day.getUTCMonth() + 1).padStart(2, '0')}/${day.getUTCFullYear()} 09:30`;
  }).concat('29/03/2026 02:30');
const dist = (path) => import(pathToFileURL(join(root, 'dist', path)).href);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** A JSON array of `rows` user records, as `user sync --file users.json` reads it. */
async function usersJson(rows) {
  const file = join(dataDir, `users-u-${rows}.json`);
  if (existsSync(file)) return file;
  mkdirSync(dataDir, { recursive: true });
  const out = createWriteStream(`${file}.tmp`);
  for (let i = 1; i <= rows; i++) {
    const record = JSON.stringify(Object.fromEntries(USER_HEADER.map((key, c) => [key, userRow(i)[c]])));
    if (!out.write(`${i === 1 ? '[' : ','}\n${record}`)) await once(out, 'drain');
  }
  out.end('\n]\n');
  await once(out, 'close');
  renameSync(`${file}.tmp`, file);
  return file;
}

async function usersXlsx(rows) {
  const file = join(dataDir, `users-u-${rows}.xlsx`);
  if (existsSync(file)) return file;
  const { writeTablesXlsx } = await dist('report/xlsx-report-writer.js');
  const out = createWriteStream(`${file}.tmp`);
  await writeTablesXlsx(out, [
    { name: 'Users', header: USER_HEADER, rows: Array.from({ length: rows }, (_, i) => userRow(i + 1)) },
  ]);
  await once(out, 'close');
  renameSync(`${file}.tmp`, file);
  return file;
}

/** A sheet's XML as a workbook part holds it: `rows` rows of 8 inline-string cells. */
function sheetXml(rows) {
  const parts = [
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>',
  ];
  for (let r = 1; r <= rows; r++) {
    let row = `<row r="${r}">`;
    for (let c = 0; c < 8; c++)
      row += `<c r="${String.fromCharCode(65 + c)}${r}" t="inlineStr"><is><t>cell ${r} &amp; ${c}</t></is></c>`;
    parts.push(`${row}</row>`);
  }
  parts.push('</sheetData></worksheet>');
  return parts.join('');
}

/** Each variant: what it does once (returns a number checked equal across variants). */
const VARIANTS = {
  hash: {
    rows: 1_000_000,
    async 'hash-slots (IdsOfOneInput)'(rows) {
      const { IdsOfOneInput, USER_ID_RULE } = await dist('domain/one-id-per-file.js');
      const start = process.cpuUsage();
      const ids = new IdsOfOneInput(USER_ID_RULE);
      let repeated = 0;
      for (let i = 0; i < rows; i++)
        if (ids.repeated(`U-${(i * 7919) % rows}-Student`, { file: 'users.csv', line: i + 2 }) !== undefined)
          repeated++;
      return { result: repeated, keep: ids, start };
    },
    async 'Map (lower-cased key -> packed place)'(rows) {
      const start = process.cpuUsage();
      const ids = new Map();
      let repeated = 0;
      for (let i = 0; i < rows; i++) {
        const key = `U-${(i * 7919) % rows}-Student`.toLowerCase();
        if (ids.has(key)) repeated++;
        else ids.set(key, i + 2);
      }
      return { result: repeated, keep: ids, start };
    },
  },
  csv: {
    rows: 100_000,
    async 'unquoted-csv.ts, then csv-parse'(rows) {
      return csvCells(rows, 'auto');
    },
    async 'csv-parse alone'(rows) {
      return csvCells(rows, 'csv-parse');
    },
  },
  xml: {
    rows: 100_000,
    async 'workbook-xml.ts'(rows) {
      const { XmlTokenizer } = await dist('input/workbook-xml.js');
      const xml = sheetXml(rows);
      const start = process.cpuUsage();
      let cells = 0;
      const tokenizer = new XmlTokenizer({
        wantsText: true,
        open: (name) => void (name === 'c' && cells++),
        close() {},
        text() {},
      });
      for (let at = 0; at < xml.length; at += 65536) tokenizer.feed(xml.slice(at, at + 65536));
      tokenizer.end();
      return { result: cells, start };
    },
    async "saxes (exceljs's parser)"(rows) {
      const { SaxesParser } = library('saxes');
      const xml = sheetXml(rows);
      const start = process.cpuUsage();
      let cells = 0;
      const parser = new SaxesParser({ xmlns: false });
      parser.on('opentag', (tag) => void (tag.name === 'c' && cells++));
      parser.on('text', () => undefined);
      for (let at = 0; at < xml.length; at += 65536) parser.write(xml.slice(at, at + 65536));
      parser.close();
      return { result: cells, start };
    },
  },
  'zip-read': {
    rows: 100_000,
    async 'zip-entries.ts'(rows) {
      const file = await usersXlsx(rows);
      const start = process.cpuUsage();
      const { ZipEntries } = await dist('input/zip-entries.js');
      const zip = await ZipEntries.open(file);
      let bytes = 0;
      for await (const chunk of zip.chunks('xl/worksheets/sheet1.xml', 1 << 30)) bytes += chunk.length;
      return { result: bytes, start };
    },
    async "unzipper (exceljs's reader)"(rows) {
      const file = await usersXlsx(rows);
      const start = process.cpuUsage();
      const unzipper = library('unzipper');
      const directory = await unzipper.Open.file(file);
      const entry = directory.files.find((each) => each.path === 'xl/worksheets/sheet1.xml');
      let bytes = 0;
      for await (const chunk of entry.stream()) bytes += chunk.length;
      return { result: bytes, start };
    },
    async jszip(rows) {
      const file = await usersXlsx(rows);
      const start = process.cpuUsage();
      const JSZip = library('jszip');
      const { readFile } = await import('node:fs/promises');
      const zip = await JSZip.loadAsync(await readFile(file));
      // jszip inflates an entry whole (no streaming inflate): the sheet's bytes at once.
      return { result: (await zip.file('xl/worksheets/sheet1.xml').async('nodebuffer')).length, start };
    },
    async 'yauzl (LIBS), CRC-32 checked'(rows) {
      const file = await usersXlsx(rows);
      const start = process.cpuUsage();
      const yauzl = library('yauzl');
      const { crc32 } = await import('node:zlib');
      const zip = await new Promise((resolve, reject) =>
        yauzl.open(file, { lazyEntries: true, autoClose: false }, (error, opened) =>
          error ? reject(error) : resolve(opened),
        ),
      );
      const entries = new Map();
      await new Promise((resolve, reject) => {
        zip.on('entry', (entry) => entries.set(entry.fileName, entry) && zip.readEntry());
        zip.on('end', resolve).on('error', reject).readEntry();
      });
      const stream = await new Promise((resolve, reject) =>
        zip.openReadStream(entries.get('xl/worksheets/sheet1.xml'), (error, opened) =>
          error ? reject(error) : resolve(opened),
        ),
      );
      let bytes = 0;
      let crc = 0;
      for await (const chunk of stream) {
        bytes += chunk.length;
        crc = crc32(chunk, crc);
      }
      zip.close();
      return { result: bytes, start };
    },
  },
  tz: {
    rows: 100_000,
    async 'local-time.ts (Intl)'(rows) {
      const { parseDateFormat, readDateTimeText } = await dist('domain/local-time.js');
      const texts = localTimes(rows);
      const start = process.cpuUsage();
      const options = { format: parseDateFormat('DD/MM/YYYY HH:mm').format, timeZone: 'Europe/Paris' };
      let read = 0;
      for (const text of texts) if (readDateTimeText('StartDateTime', text, options).ok) read++;
      // The skipped 02:30 is refused: read = rows.
      return { result: `${read} read`, start };
    },
    async luxon(rows) {
      const { DateTime } = library('luxon');
      const texts = localTimes(rows);
      const start = process.cpuUsage();
      let read = 0;
      for (const text of texts) {
        const time = DateTime.fromFormat(text, 'dd/MM/yyyy HH:mm', { zone: 'Europe/Paris' });
        if (time.isValid && time.toISO() !== null) read++;
      }
      // luxon moves the skipped 02:30 to 03:30 without a word: read = rows + 1.
      return { result: `${read} read`, start };
    },
  },
  lock: {
    rows: 2_000,
    async 'lock.ts (StoreLock)'(rows) {
      const { StoreLock } = await dist('system/lock.js');
      const lock = new StoreLock(mkdtempSync(join(tmpdir(), 'examctl-lock-')), 1000);
      const start = process.cpuUsage();
      for (let i = 0; i < rows; i++) {
        await lock.acquire();
        await lock.release();
      }
      return { result: `${rows} taken`, start };
    },
    async 'proper-lockfile'(rows) {
      const lockfile = library('proper-lockfile');
      const dir = mkdtempSync(join(tmpdir(), 'examctl-lock-'));
      const start = process.cpuUsage();
      for (let i = 0; i < rows; i++) {
        const release = await lockfile.lock(dir, { lockfilePath: join(dir, 'LOCK'), realpath: false });
        await release();
      }
      return { result: `${rows} taken`, start };
    },
  },
  'zip-write': {
    rows: 100_000,
    async 'zip-writer.ts (yazl)'(rows) {
      const { ZipWriter } = await dist('report/zip-writer.js');
      const out = createWriteStream('/dev/null');
      const start = process.cpuUsage();
      const zip = new ZipWriter(out, { modified: new Date(0) });
      const entry = await zip.stream('xl/worksheets/sheet1.xml');
      for (let r = 1; r <= rows; r++)
        await entry.write(
          `<row r="${r}"><c t="inlineStr"><is><t>${userRow(r).join('</t></is></c><c t="inlineStr"><is><t>')}</t></is></c></row>`,
        );
      await entry.end();
      await zip.finish();
      return { result: rows, start };
    },
    async "archiver (exceljs's writer), same level"(rows) {
      const archiver = library('archiver');
      const { PassThrough } = await import('node:stream');
      const out = createWriteStream('/dev/null');
      const start = process.cpuUsage();
      const zip = archiver('zip', { zlib: { level: 3 } });
      zip.pipe(out);
      const body = new PassThrough();
      zip.append(body, { name: 'xl/worksheets/sheet1.xml', date: new Date(0) });
      for (let r = 1; r <= rows; r++) {
        if (
          !body.write(
            `<row r="${r}"><c t="inlineStr"><is><t>${userRow(r).join('</t></is></c><c t="inlineStr"><is><t>')}</t></is></c></row>`,
          )
        )
          await once(body, 'drain');
      }
      body.end();
      await zip.finalize();
      await once(out, 'close');
      return { result: rows, start };
    },
  },
};

/** A 50,000-row report sheet: the users' cells and the report's columns, a failed row in ten, every cell text. */
const REPORT_HEADER = [...USER_HEADER, 'status', 'error_codes', 'error_messages', 'action', 'note', 'run', 'warnings'];
const reportRow = (r) => [
  ...userRow(r),
  ...(r % 10 === 0
    ? ['failed', '209', 'Email: Email is not a valid address: it has no @', '', '', 'run-1', '']
    : ['ok', '', '', 'created', '', 'run-1', '']),
];

// Both write to a file (the zip's bytes are the same work either way), frozen header, filter, the
// failed rows filled: what the report workbook holds.
VARIANTS['xlsx-write'] = {
  rows: 50_000,
  async 'xlsx-workbook.ts (examctl)'(rows) {
    const { RowLook, WorkbookWriter } = await dist('report/xlsx-workbook.js');
    const path = join(mkdtempSync(join(tmpdir(), 'examctl-xlsx-')), 'report.xlsx');
    const out = createWriteStream(path);
    const start = process.cpuUsage();
    const { excelDateFormats } = await dist('report/output-times.js');
    const workbook = new WorkbookWriter(out, excelDateFormats(undefined));
    const sheet = await workbook.sheet('Report');
    await sheet.header(REPORT_HEADER);
    for (let r = 1; r <= rows; r++) await sheet.row(reportRow(r), r % 10 === 0 ? RowLook.red : RowLook.plain);
    await workbook.finish();
    await once(out, 'close');
    return { result: rows, start };
  },
  async "exceljs's streaming WorkbookWriter"(rows) {
    const ExcelJS = (await import('exceljs')).default;
    const path = join(mkdtempSync(join(tmpdir(), 'examctl-xlsx-')), 'report.xlsx');
    const start = process.cpuUsage();
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
      filename: path,
      useStyles: true,
      useSharedStrings: false,
    });
    const sheet = workbook.addWorksheet('Report', { views: [{ state: 'frozen', ySplit: 1 }] });
    sheet.columns = REPORT_HEADER.map((header) => ({ header, key: header, width: 12, style: { numFmt: '@' } }));
    sheet.getRow(1).font = { bold: true };
    sheet.autoFilter = { from: 'A1', to: { row: 1, column: REPORT_HEADER.length } };
    const red = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFF8CBAD' } };
    for (let r = 1; r <= rows; r++) {
      const row = sheet.addRow(reportRow(r));
      if (r % 10 === 0) row.eachCell((cell) => void (cell.fill = red));
      row.commit();
    }
    await sheet.commit();
    await workbook.commit();
    return { result: rows, start };
  },
};

/** A user of the store's bench (bench/store-bench.mjs). */
const storeUser = (i, prefix = 'u') => ({
  ExternalId: `${prefix}-${i}`,
  UserName: `user${prefix}${i}`,
  FirstName: 'First',
  LastName: `Last${i}`,
  Email: `user${prefix}${i}@example.test`,
  Role: 'Candidate',
  Hierarchies: [{ ExternalId: 'H-NORTH' }],
});
const STORE_TRANSACTIONS = 200;

// A store of `rows` users, then 200 one-user creates, 32 in flight: each durable before it is
// answered (the store's group commit) against lowdb, the JSON-file store, whose every write
// rewrites the whole file (and, without fsync, is durable only when the system says so).
VARIANTS.store = {
  rows: 10_000,
  async 'engine/store (journal, group commit, fsync)'(rows) {
    const { createStore, openStore } = await dist('engine/store/index.js');
    const { ENGINE_INDEXER } = await dist('engine/index.js');
    const dir = join(mkdtempSync(join(tmpdir(), 'examctl-store-')), 'store');
    await createStore(
      dir,
      Array.from({ length: rows }, (_, i) => ({ collection: 'users', key: `u-${i}`, value: storeUser(i) })),
      { indexer: ENGINE_INDEXER },
    );
    const store = await openStore(dir);
    const start = process.cpuUsage();
    let next = 0;
    const lane = async () => {
      while (next < STORE_TRANSACTIONS) {
        const i = next++;
        await store.transact(() => ({
          result: undefined,
          changes: [{ collection: 'users', key: `n-${i}`, value: storeUser(i, 'n') }],
        }));
      }
    };
    await Promise.all(Array.from({ length: 32 }, lane));
    await store.close();
    return { result: `${STORE_TRANSACTIONS} created`, start };
  },
  async 'lowdb (JSONFile, whole file a write)'(rows) {
    const { Low } = await import(pathToFileURL(join(process.env.LIBS ?? '', 'lowdb/lib/index.js')).href);
    const { JSONFile } = await import(pathToFileURL(join(process.env.LIBS ?? '', 'lowdb/lib/node.js')).href);
    const path = join(mkdtempSync(join(tmpdir(), 'examctl-lowdb-')), 'db.json');
    const db = new Low(new JSONFile(path), { users: {} });
    for (let i = 0; i < rows; i++) db.data.users[`u-${i}`] = storeUser(i);
    await db.write();
    const start = process.cpuUsage();
    let next = 0;
    const lane = async () => {
      while (next < STORE_TRANSACTIONS) {
        const i = next++;
        await db.update((data) => void (data.users[`n-${i}`] = storeUser(i, 'n')));
      }
    };
    await Promise.all(Array.from({ length: 32 }, lane));
    return { result: `${STORE_TRANSACTIONS} created`, start };
  },
};

VARIANTS.json = {
  rows: 300_000,
  async 'json-reader.ts (json-scan.ts)'(rows) {
    const file = await usersJson(rows);
    const { readJsonRecords } = await dist('input/json-reader.js');
    const start = process.cpuUsage();
    let records = 0;
    for await (const batch of readJsonRecords(file, 'users.json').batches()) records += batch.length;
    return { result: records, start };
  },
  async 'JSON.parse of the whole text, then a depth walk'(rows) {
    const file = await usersJson(rows);
    const { readFile } = await import('node:fs/promises');
    const start = process.cpuUsage();
    const records = JSON.parse(await readFile(file, 'utf8'));
    // The depth check JSON.parse lacks, iterative (a deep text must not exhaust the stack here either).
    const stack = [[records, 1]];
    while (stack.length > 0) {
      const [value, depth] = stack.pop();
      if (depth > 64) throw new Error('nested too deep');
      for (const child of Object.values(value))
        if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
    return { result: records.length, start };
  },
  async 'stream-json (parser, StreamArray)'(rows) {
    const file = await usersJson(rows);
    const { withParser } = library('stream-json/streamers/StreamArray');
    const start = process.cpuUsage();
    let records = 0;
    const stream = createReadStream(file).pipe(withParser());
    stream.on('data', () => void records++);
    await once(stream, 'end');
    return { result: records, start };
  },
};

async function csvCells(rows, tokenizer) {
  const file = await usersCsv(rows);
  const { csvRows } = await dist('input/csv-reader.js');
  const start = process.cpuUsage();
  let cells = 0;
  const sink = { header: () => undefined, row: (row) => void (cells += row.length) };
  for await (const _ of csvRows(file, 'users.csv', sink, undefined, tokenizer));
  return { result: cells, start };
}

/** In the child: one variant once; prints its CPU ms and peak RSS. */
async function child(part, name) {
  const startAll = process.cpuUsage();
  const done = await VARIANTS[part][name](VARIANTS[part].rows);
  const cpu = process.cpuUsage(done.start ?? startAll);
  void done.keep;
  process.stdout.write(
    JSON.stringify({
      cpuMs: (cpu.user + cpu.system) / 1000,
      peakMiB: process.resourceUsage().maxRSS / 1024,
      result: done.result,
    }),
  );
}

if (process.argv[2] === '--child') {
  await child(process.argv[3], process.argv[4]);
} else {
  const parts = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(VARIANTS);
  if (parts.includes('csv')) await usersCsv(VARIANTS.csv.rows);
  if (parts.includes('zip-read')) await usersXlsx(VARIANTS['zip-read'].rows);
  if (parts.includes('json')) await usersJson(VARIANTS.json.rows);
  for (const part of parts) {
    console.log(`\n${part} (${VARIANTS[part].rows.toLocaleString('en-US')} rows), median of ${ROUNDS}:`);
    for (const name of Object.keys(VARIANTS[part]).filter((key) => key !== 'rows')) {
      const runs = [];
      for (let round = 0; round < ROUNDS; round++) {
        const run = spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--child', part, name], {
          cwd: root,
          encoding: 'utf8',
        });
        if (run.status !== 0) throw new Error(`${part} / ${name}: ${run.stderr}`);
        runs.push(JSON.parse(run.stdout));
      }
      const cpu = median(runs.map((run) => run.cpuMs));
      const peak = median(runs.map((run) => run.peakMiB));
      console.log(
        `  ${name.padEnd(40)} CPU ${cpu.toFixed(0).padStart(6)} ms   peak ${peak.toFixed(0).padStart(5)} MiB   (${runs[0].result})`,
      );
    }
  }
}
