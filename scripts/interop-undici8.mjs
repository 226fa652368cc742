// A step of `npm run test:interop`: the remote tests on undici 8. examctl declares undici ^7 and
// uses only the public API and the handler hooks undici 7 and 8 share (src/api/http-pool.ts);
// this proves it. undici 8 needs Node >= 22.19, so under an older Node the step installs Node 22
// from the npm registry (the `node` package ships the binary) into its scratch directory.
// The scratch copy: the tracked files, node_modules linked entry by entry except undici, which
// is undici 8 unpacked from `npm pack`.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Runs test/remote on undici 8; returns the number of failed checks (0 or 1). */
export function remoteTestsOnUndici8(root) {
  const scratch = mkdtempSync(join(tmpdir(), 'examctl-undici8-'));
  try {
    const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
      .split('\0')
      .filter((file) => file !== '');
    for (const file of files) {
      mkdirSync(dirname(join(scratch, file)), { recursive: true });
      cpSync(join(root, file), join(scratch, file));
    }
    const modules = join(scratch, 'node_modules');
    mkdirSync(modules, { recursive: true });
    for (const entry of readdirSync(join(root, 'node_modules'))) {
      if (entry !== 'undici') symlinkSync(join(root, 'node_modules', entry), join(modules, entry));
    }
    const tarball = execFileSync('npm', ['pack', '--silent', 'undici@8'], { cwd: scratch, encoding: 'utf8' })
      .trim()
      .split('\n')
      .at(-1);
    mkdirSync(join(modules, 'undici'));
    execFileSync('tar', ['xzf', join(scratch, tarball), '-C', join(modules, 'undici'), '--strip-components=1']);
    let node = process.execPath;
    if (Number(process.versions.node.split('.')[0]) < 22) {
      execFileSync(
        'npm',
        ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', join(scratch, 'node22'), 'node@22'],
        { stdio: 'inherit' },
      );
      node = join(scratch, 'node22', 'node_modules', '.bin', 'node');
    }
    const run = spawnSync(node, [join(modules, 'vitest', 'vitest.mjs'), 'run', 'test/remote'], {
      cwd: scratch,
      encoding: 'utf8',
      env: { ...process.env, CI: 'true' },
    });
    const version = execFileSync(
      node,
      ['-p', "require('undici/package.json').version + ' on Node ' + process.version"],
      { cwd: scratch, encoding: 'utf8' },
    ).trim();
    if (run.status === 0) {
      process.stdout.write(`ok   remote tests on undici ${version}\n`);
      return 0;
    }
    process.stdout.write(`FAIL remote tests on undici ${version} (exit ${run.status})\n${run.stdout}${run.stderr}\n`);
    return 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exit(remoteTestsOnUndici8(join(dirname(new URL(import.meta.url).pathname), '..')));
}
