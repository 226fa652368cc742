// Part of `npm run test:interop` (scripts/test-interop.mjs): every workbook examctl writes, made
// by the built CLI as an admin makes it, read back by openpyxl, by LibreOffice and by examctl's
// own reader, which must all see the same values; and the looks (fills by status, frozen header,
// filter, text format `@`, bold header) as openpyxl reads them in examctl's file and in the file
// LibreOffice saved from it (so LibreOffice understood them, or they would be gone).
// The workbooks: a run report (ok, failed and skipped rows, values spreadsheets like to change),
// every cell text (none of its columns is a number, yes/no or date field),
// the same report kept beside its target when the target is held open (a rename refused with
// EPERM, as Windows does while Excel has the file), a template of every kind with its Columns
// sheet, and `review-session show -o xlsx`, a typed workbook (numbers, booleans, date-times).
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'csv-parse/sync';

const PYTHON = '/usr/bin/python3';
const RED = 'FFF8CBAD';
const AMBER = 'FFFFE699';
const MARKED = 'FFC00000';

/**
 * Rows with values spreadsheets change when they guess types: leading zeros, a phone number,
 * long digits, a formula-like text, a date, a boolean; one row fails (bad e-mail) and stops the
 * run (--max-errors 1), so the rows after it are skipped.
 */
const USERS_CSV = [
  'ExternalId,FirstName,LastName,Email,Company,PhoneNumber,City,Role',
  '00456,Ann,Lee,ann@example.test,=1+1,+49 30 1234567,2026-03-01,Candidate',
  '02134,Zoë,Ødegård,not-an-address,TRUE,1234567890123456789,Zürich,Candidate',
  'u-3,@handle,-minus,u3@example.test,"comma, quote ""x""",0.10,3/4,Candidate',
  // A line break inside a cell: LF only, as openpyxl 3.0 leaves Excel's CR escape (_x000D_) undecoded.
  'u-4,Dara,Quinn,u4@example.test,Corp,00012,"two\nlines",Candidate',
].join('\r\n');

/** A preload that makes renames onto HELD_OPEN_NAME fail with EPERM (a target open in Excel on Windows). */
const HELD_OPEN = `
import { syncBuiltinESMExports } from 'node:module';
const fsp = process.getBuiltinModule('node:fs/promises');
const rename = fsp.rename;
fsp.rename = async (from, to) => {
  if (String(to).endsWith(process.env.HELD_OPEN_NAME)) throw Object.assign(new Error('EPERM: operation not permitted, rename'), { code: 'EPERM' });
  return rename(from, to);
};
syncBuiltinESMExports();
`;

export async function xlsxWriterInterop({ root, dir, check, soffice }) {
  const work = join(dir, 'written');
  mkdirSync(work);
  const cli = (args, options = {}) => {
    const stdout = options.stdoutFile === undefined ? 'pipe' : openSync(options.stdoutFile, 'w');
    try {
      return spawnSync(
        process.execPath,
        [...(options.preload ? ['--import', options.preload] : []), join(root, 'bin', 'examctl'), ...args],
        {
          cwd: work,
          encoding: 'utf8',
          stdio: ['ignore', stdout, 'pipe'],
          env: { ...process.env, CI: 'true', ...options.env },
        },
      );
    } finally {
      if (typeof stdout === 'number') closeSync(stdout);
    }
  };
  const store = join(work, 'store');
  check('xlsx writer: local init', cli(['local', 'init', '--store', store]).status, 0);
  writeFileSync(join(work, 'users.csv'), USERS_CSV);
  const run = ['--store', store, 'user', 'sync', '--file', 'users.csv', '--dry-run', '--max-errors', '1'];
  check(
    'xlsx writer: dry run with a CSV report (exit 1: a row failed)',
    cli([...run, '--report', 'report.csv']).status,
    1,
  );
  check('xlsx writer: the same dry run with an .xlsx report', cli([...run, '--report', 'report.xlsx']).status, 1);
  writeFileSync(join(work, 'held.xlsx'), 'open in Excel');
  writeFileSync(join(dir, 'held-open.mjs'), HELD_OPEN);
  const held = cli([...run, '--report', 'held.xlsx'], {
    preload: pathToFileURL(join(dir, 'held-open.mjs')).href,
    env: { HELD_OPEN_NAME: 'held.xlsx' },
  });
  check(
    'xlsx writer: report target held open: exit 3, kept beside',
    [held.status, /kept at/.test(held.stderr)],
    [3, true],
  );
  const kept = readdirSync(work).find((name) => /^held\.examctl-\d{8}-\d{6}\.xlsx$/.test(name));
  const workbooks = { report: 'report.xlsx', kept };
  const kinds = ['users', 'candidates', 'sittings', 'collection', 'invigilators'];
  for (const kind of kinds) {
    check(
      `xlsx writer: template ${kind} -o xlsx`,
      cli(['template', kind, '-o', 'xlsx'], { stdoutFile: join(work, `template-${kind}.xlsx`) }).status,
      0,
    );
    workbooks[`template ${kind}`] = `template-${kind}.xlsx`;
  }
  check(
    'xlsx writer: review-session show -o xlsx',
    cli(['--store', store, 'review-session', 'show', 'RS-MATH1-OCT', '-o', 'xlsx'], {
      stdoutFile: join(work, 'results.xlsx'),
    }).status,
    0,
  );
  workbooks['review-session results'] = 'results.xlsx';
  const resultsCsv = cli(['--store', store, 'review-session', 'show', 'RS-MATH1-OCT', '-o', 'csv', '--no-bom']).stdout;

  // LibreOffice: every sheet to CSV (its filter's 12th field, -1: each sheet to <name>-<sheet>.csv), and the workbook saved again as .xlsx.
  const loCsv = join(work, 'lo-csv');
  const loXlsx = join(work, 'lo-xlsx');
  for (const file of Object.values(workbooks)) {
    soffice(join(work, file), 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1', loCsv);
    soffice(join(work, file), 'xlsx', loXlsx);
  }
  const paths = Object.values(workbooks).flatMap((file) => [join(work, file), join(loXlsx, file)]);
  const oracle = JSON.parse(
    execFileSync(PYTHON, [join(root, 'scripts', 'xlsx-writer-oracle.py'), ...paths], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    }),
  );
  const { readXlsxRecords } = await import(pathToFileURL(join(root, 'dist', 'input', 'xlsx-reader.js')).href);

  const reportCsv = parse(readFileSync(join(work, 'report.csv'), 'utf8').replace(/^\uFEFF/, ''), {
    relax_column_count: true,
  });
  for (const [what, file] of Object.entries(workbooks)) {
    const sheets = oracle[join(work, file)];
    const saved = oracle[join(loXlsx, file)];
    for (const [index, sheet] of sheets.entries()) {
      const name = `${what} [${sheet.name}]`;
      if (what === 'review-session results') {
        // A typed workbook (docs/cli.md, "review-session show"): numbers, booleans and times typed;
        // LibreOffice keeps the types when it saves it again.
        check(`${name}: openpyxl reads numbers, booleans, date-times and text`, sheet.types, [
          'bool',
          'datetime',
          'float',
          'int',
          'str',
        ]);
        // LibreOffice 7.4 saves a boolean as the formula TRUE() or FALSE() (which examctl's reader takes as the boolean, xlsx-cells.ts).
        const asLibreOffice = (cell) =>
          cell !== null && cell[0] === 'bool' ? ['str', `=${cell[1].toUpperCase()}()`] : cell;
        check(
          `${name}: LibreOffice saves the same typed values`,
          saved[index].typed,
          sheet.typed.map((row) => row.map(asLibreOffice)),
        );
        const header = sheet.rows[0];
        const columns = header.map((column) => ({ name: column, kind: 'string' }));
        const cellsOf = async (path) => {
          const rows = [];
          for await (const record of readXlsxRecords(path, { columns, sheet: sheet.name }))
            rows.push([...record.raw.cells]);
          return rows;
        };
        check(
          `${name}: examctl's reader reads LibreOffice's save as it reads examctl's workbook`,
          await cellsOf(join(loXlsx, file)),
          await cellsOf(join(work, file)),
        );
        check(`${name}: frozen header`, sheet.freeze, 'A2');
        continue;
      }
      // Values: openpyxl, LibreOffice and examctl's reader see the same text, all of it strings.
      check(
        `${name}: openpyxl reads every cell as text`,
        sheet.types.filter((type) => type !== 'str'),
        [],
      );
      const loFile = join(loCsv, `${basename(file, '.xlsx')}-${sheet.name}.csv`);
      const loRows = parse(readFileSync(loFile, 'utf8'), { relax_column_count: true }).map(trimmed);
      check(`${name}: LibreOffice's CSV has openpyxl's values`, loRows, sheet.rows);
      const ownRows = [];
      const header = sheet.rows[0];
      const columns = header.map((column) => ({ name: column, kind: 'string' }));
      for await (const record of readXlsxRecords(join(work, file), { columns, sheet: sheet.name }))
        ownRows.push(trimmed([...record.raw.cells]));
      check(`${name}: examctl's reader has openpyxl's values`, [header, ...ownRows], sheet.rows);
      // Looks, in examctl's file and after LibreOffice saved it.
      // Headless LibreOffice has no view, so what it saves has no frozen pane (an exceljs workbook's neither).
      check(`${name}: frozen header`, sheet.freeze, 'A2');
      for (const [by, looks] of [
        ['openpyxl', sheet],
        ['LibreOffice, saved again', saved[index]],
      ]) {
        check(
          `${name}: filter over the rows (${by})`,
          looks.filter,
          `A1:${columnName(header.length)}${sheet.rows.length}`.replace(/^A1:A1$/, 'A1'),
        );
        check(
          `${name}: every cell and column formatted as text @ (${by})`,
          [looks.formats, looks.columnFormats],
          [['@'], ['@']],
        );
        check(`${name}: header bold (${by})`, looks.headerBold, true);
        if (what === 'report' || what === 'kept') {
          check(`${name}: rows filled by status: failed red, skipped amber (${by})`, looks.fills, REPORT_FILLS);
          check(`${name}: the dry run's offending cell marked (${by})`, looks.marked, ['D3']);
        } else
          check(
            `${name}: no row filled (${by})`,
            looks.fills.filter((fill) => fill !== null),
            [],
          );
      }
      check(
        `${name}: column widths from the header, 10 to 60`,
        sheet.widths.every((width) => width >= 10 && width <= 60),
        true,
      );
    }
    // The CSV report guards formula-like text with a quote (docs/cli.md); the workbook's cells are text already.
    const csvValues = reportCsv.map((row) => trimmed(row.map((cell) => cell.replace(/^'(?=[=+\-@])/, ''))));
    if (what === 'report' || what === 'kept')
      check(
        `${what}: the values of the CSV report (warnings column aside)`,
        sheets[0].rows.map((row, i) => (i === 0 ? row.filter((c) => c !== 'warnings') : row)),
        csvValues,
      );
  }
  // The texts of -o csv are the workbook's texts; its numbers, booleans and times are typed.
  const typedResults = oracle[join(work, 'results.xlsx')][0].typed;
  const csvResults = parse(resultsCsv, { relax_column_count: true });
  const differing = [];
  typedResults.forEach((row, r) =>
    row.forEach((cell, c) => {
      if (cell !== null && cell[0] === 'str' && cell[1] !== (csvResults[r]?.[c] ?? ''))
        differing.push(`${r + 1}:${c + 1} ${cell[1]}`);
    }),
  );
  check('review-session results: every text cell is the text of -o csv', differing, []);
  const column = (name) => csvResults[0].indexOf(name);
  check(
    'review-session results: Score a number, PublishedDate a date-time (UTC), IsVisited a boolean, DateOfBirth a date',
    [
      typedResults[1][column('Score')],
      typedResults[1][column('PublishedDate')],
      typedResults[1][column('IsVisited')],
      typedResults[2][column('DateOfBirth')],
    ],
    [
      ['float', '87.5'],
      ['datetime', '2026-10-12T08:00:00'],
      ['bool', 'True'],
      ['datetime', '2004-03-17T00:00:00'],
    ],
  );
  check(
    'report: the tricky values kept as typed',
    oracle[join(work, 'report.xlsx')][0].rows.slice(1, 3).map((row) => row.slice(0, 7)),
    [
      ['00456', 'Ann', 'Lee', 'ann@example.test', '=1+1', '+49 30 1234567', '2026-03-01'],
      ['02134', 'Zoë', 'Ødegård', 'not-an-address', 'TRUE', '1234567890123456789', 'Zürich'],
    ],
  );
}

/** The report's rows: header, ok, failed (its bad Email cell marked, a dry run's), then skipped after --max-errors 1 stopped the run. */
const REPORT_FILLS = [null, null, [MARKED, RED], AMBER, AMBER];

/** Trailing empty cells dropped: readers differ in whether a row ends at its last value. */
function trimmed(row) {
  const copy = [...row];
  while (copy.length > 0 && copy.at(-1) === '') copy.pop();
  return copy;
}

function columnName(column) {
  let letters = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26))
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/** At most this many packages and bytes in a production install of the tarball (issue 36, "A lean install"). */
const MAX_PACKAGES = 60;
const MAX_BYTES = 20_000_000;

/** Bytes of the files under `path` (their lengths, not the disk blocks they take). */
function treeBytes(path) {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath ?? entry.path, entry.name)).size;
  }
  return total;
}

/**
 * The install an admin makes: `npm pack`, then `npm install --omit=dev <tarball>` in an empty
 * folder (from the registry): the package count and "deprecated" warnings from npm's own output,
 * the size of node_modules; then the installed tool writes a report workbook that openpyxl opens
 * with the values, the failed rows filled red and the header frozen.
 */
export function leanInstallInterop({ root, dir, check }) {
  const scratch = join(dir, 'lean-install');
  const folder = join(scratch, 'empty');
  mkdirSync(folder, { recursive: true });
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  );
  // npm's own words are read: its log level set here (`npm run -s` would pass on a silent one).
  const install = spawnSync(
    'npm',
    ['install', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=notice', join(scratch, packed.filename)],
    { cwd: folder, encoding: 'utf8' },
  );
  const said = `${install.stdout}${install.stderr}`;
  check('lean install: npm install --omit=dev of the tarball succeeds', install.status, 0);
  const added = Number(/added (\d+) packages?/.exec(said)?.[1]);
  process.stdout.write(
    `     production install: ${added} packages (examctl included), ${treeBytes(join(folder, 'node_modules')).toLocaleString('en-US')} bytes\n`,
  );
  check(`lean install: at most ${MAX_PACKAGES} packages`, added <= MAX_PACKAGES, true);
  check(
    'lean install: no "deprecated" warning',
    said.split('\n').filter((line) => /deprecated/i.test(line)),
    [],
  );
  check(
    `lean install: node_modules at most ${MAX_BYTES.toLocaleString('en-US')} bytes`,
    treeBytes(join(folder, 'node_modules')) <= MAX_BYTES,
    true,
  );
  const installed = join(folder, 'node_modules', 'examctl');
  const run = spawnSync(
    process.execPath,
    [
      join(installed, 'bin', 'examctl'),
      '--store',
      join(scratch, 'store'),
      'user',
      'sync',
      '--file',
      join(installed, 'fixtures', 'users-with-errors.csv'),
      '--dry-run',
      '--report',
      'report.xlsx',
    ],
    {
      cwd: scratch,
      encoding: 'utf8',
      env: { ...process.env, CI: 'true' },
    },
  );
  check(
    'lean install: the installed tool writes a report workbook (exit 1: rows failed)',
    [run.status, /report written to report\.xlsx/.test(run.stderr)],
    [1, true],
  );
  const report = join(scratch, 'report.xlsx');
  const [sheet] = JSON.parse(
    execFileSync(PYTHON, [join(root, 'scripts', 'xlsx-writer-oracle.py'), report], { encoding: 'utf8' }),
  )[report];
  const failedIds = run.stderr.match(/\[[^\]]+\]/g)?.map((id) => id.slice(1, -1)) ?? [];
  check(
    'lean install: openpyxl reads the ids, the failed rows filled red, the header frozen',
    {
      ids: sheet.rows.slice(1).map((row) => row[0]),
      // A dry run's failed row is red, its offending cells marked a stronger red.
      red: sheet.rows
        .slice(1)
        .filter((_, i) => [sheet.fills[i + 1]].flat().includes(RED))
        .map((row) => row[0]),
      freeze: sheet.freeze,
    },
    {
      ids: ['stu-3001', 'stu-3002', 'stu-3003', 'stu 3004', 'stu-3005'],
      red: failedIds,
      freeze: 'A2',
    },
  );
}
