// A store on a real FAT file system (no hard links, as on a USB stick): part of `npm run
// test:interop`, runnable alone (`node scripts/test-fat-store.mjs`, after `npm run build`).
// Makes a FAT image (mkfs.vfat from Debian's dosfstools, installed when missing), loop-mounts
// it (needs root and a loop device: where the machine refuses, it says so and skips, exit 0),
// then runs two `user sync` at once on a store there and checks both succeed, every user is
// in, and no LOCK is left. Exits 1 on a failed check.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const bin = join(root, 'bin', 'examctl');

function have(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

if (!have('mkfs.vfat')) {
  process.stderr.write('installing dosfstools (mkfs.vfat) ...\n');
  const installed = spawnSync('sh', ['-c', 'DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dosfstools'], {
    stdio: 'inherit',
  });
  if (installed.status !== 0) {
    process.stdout.write('skip fat store: mkfs.vfat is missing and cannot be installed\n');
    process.exit(0);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'examctl-fat-'));
const image = join(dir, 'fat.img');
const mountPoint = join(dir, 'mnt');
mkdirSync(mountPoint);
execFileSync('truncate', ['-s', '64M', image]);
execFileSync('mkfs.vfat', [image], { stdio: 'pipe' });
const mounted = spawnSync('mount', ['-o', `loop,uid=${process.getuid?.() ?? 0}`, image, mountPoint], {
  encoding: 'utf8',
});
if (mounted.status !== 0) {
  process.stdout.write(
    `skip fat store: cannot loop-mount a FAT image here (${(mounted.stderr || mounted.error?.message || '').trim().split('\n')[0]})\n`,
  );
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

let failures = 0;
function check(what, ok, detail = '') {
  if (ok) process.stdout.write(`ok   ${what}\n`);
  else {
    failures++;
    process.stdout.write(`FAIL ${what}${detail === '' ? '' : `\n  ${detail}`}\n`);
  }
}

try {
  const store = join(mountPoint, 'store');
  const env = {
    ...process.env,
    EXAMCTL_RUNS_DIR: join(dir, 'runs'),
    EXAMCTL_CONFIG_DIR: join(dir, 'config'),
    CI: 'true',
  };
  const sync = async () => {
    const child = spawn(
      process.execPath,
      [bin, '--store', store, '--json', 'user', 'sync', '--file', join(root, 'fixtures', 'users.csv')],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdout.resume();
    const [code] = await once(child, 'exit');
    return { code, stderr };
  };
  // The first creates the store; then two at once contend for LOCK.
  const first = await sync();
  check('a store is created on FAT', first.code === 0, first.stderr);
  const both = await Promise.all([sync(), sync()]);
  check(
    'two concurrent writers on FAT both succeed',
    both.every((run) => run.code === 0),
    both.map((run) => run.stderr).join('\n'),
  );
  check('no LOCK is left behind', !existsSync(join(store, 'LOCK')));
} finally {
  spawnSync('umount', [mountPoint]);
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(failures === 0 ? 'fat store: all checks passed\n' : `fat store: ${failures} check(s) failed\n`);
process.exit(failures === 0 ? 0 : 1);
