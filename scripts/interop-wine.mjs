// The Wine of the Windows tier (scripts/interop-windows.mjs): Debian trixie's Wine 10, in a
// minimal trixie root made once with debootstrap and kept in the cache (~/.cache/examctl-wine/trixie;
// EXAMCTL_WINE_ROOT moves it). Node 24 for Windows, examctl-win-x64.exe with it, needs Wine 9 or
// later: V8 reserves its tables with VirtualAlloc2(MEM_RESERVE | MEM_RESERVE_PLACEHOLDER), which
// Debian bookworm's Wine 8 refuses ("wrong alloc type flags (00042000)"), and V8 then stops with
// "Fatal process out of memory: SegmentedTable::InitializeTable"; no V8 flag avoids it (docs/windows.md).
//
// Each Windows program runs in a private mount namespace (unshare -m): /proc, /dev and the given
// directories (the checkout, the scratch dir) bind-mounted into the root at the same paths, then
// chroot; the binds vanish with the namespace, the host's libc and packages are untouched. Needs
// root (chroot, mounts). The first run installs debootstrap (apt-get) when missing and downloads
// about 210 MB (1.3 GB unpacked, about 3 minutes); later runs reuse the root.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const SUITE = 'trixie';
const MIRROR = 'http://deb.debian.org/debian';
const WINE_ROOT =
  process.env.EXAMCTL_WINE_ROOT ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'examctl-wine', SUITE);
/** Written last when the root is complete: its content is what `wine64 --version` said. */
const READY = '.examctl-wine-ready';

/** Mounts /proc, /dev and each bind ($1 the root, then the binds up to `--`), then runs the rest in the root from $cwd. */
const ENTER = `set -e
root=$1; shift
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
while [ "$1" != -- ]; do mkdir -p "$root$1"; mount --bind "$1" "$root$1"; shift; done
shift
cd_to=$1; shift
exec chroot "$root" /bin/sh -c 'cd "$0" && exec "$@"' "$cd_to" "$@"`;

function sh(script, options = {}) {
  const run = spawnSync('sh', ['-c', script], { encoding: 'utf8', ...options });
  if (run.status !== 0)
    throw new Error(
      `${script.split('\n')[0].slice(0, 80)}: exit ${run.status}: ${`${run.stderr ?? ''}`.trim().split('\n').slice(-3).join(' / ')}`,
    );
  return run.stdout;
}

/**
 * The Wine 10 root, made when missing: `{ version, root, run, server }` (`run(args, { cwd, env,
 * stdio, binds })` spawns /usr/lib/wine/wine64 with `args`, `server` wineserver); or throws saying
 * why it cannot be had (`skip: true` where this machine cannot run it at all).
 */
export function trixieWine() {
  if (process.getuid?.() !== 0)
    throw Object.assign(new Error('Wine 10 runs in a chroot, which needs root'), { skip: true });
  if (spawnSync('unshare', ['-m', '--propagation', 'private', 'true']).status !== 0)
    throw Object.assign(new Error('unshare -m (a private mount namespace) is not allowed here'), { skip: true });
  if (!existsSync(join(WINE_ROOT, READY))) makeRoot();
  const version = readFileSync(join(WINE_ROOT, READY), 'utf8').trim();
  const enter = (program, args, { cwd, env, stdio, binds }) =>
    spawn(
      'unshare',
      ['-m', '--propagation', 'private', 'sh', '-c', ENTER, 'enter', WINE_ROOT, ...binds, '--', cwd, program, ...args],
      { env, stdio },
    );
  return {
    version,
    root: WINE_ROOT,
    run: (args, options) => enter('/usr/lib/wine/wine64', args, options),
    server: (args, options) => enter('/usr/lib/wine/wineserver', args, options),
  };
}

function makeRoot() {
  const partial = `${WINE_ROOT}.partial`;
  process.stderr.write(
    `preparing Wine 10: a Debian ${SUITE} root with wine64 in ${WINE_ROOT} (first run only: about 210 MB from ${MIRROR}, 1.3 GB on disk, a few minutes) ...\n`,
  );
  if (spawnSync('sh', ['-c', 'command -v debootstrap']).status !== 0)
    sh('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap');
  rmSync(partial, { recursive: true, force: true });
  sh(`debootstrap --variant=minbase ${SUITE} "${partial}" ${MIRROR}`);
  writeFileSync(join(partial, 'etc', 'resolv.conf'), readFileSync('/etc/resolv.conf'));
  const install =
    'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wine64 >/dev/null && apt-get clean && /usr/lib/wine/wine64 --version';
  const version = sh(
    `unshare -m --propagation private sh -c 'mount -t proc proc "$0/proc" && mount --rbind /dev "$0/dev" && exec chroot "$0" sh -c "$1"' "${partial}" '${install}'`,
  ).trim();
  writeFileSync(join(partial, READY), `${version}\n`);
  rmSync(WINE_ROOT, { recursive: true, force: true });
  renameSync(partial, WINE_ROOT);
}
