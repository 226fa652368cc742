// Where a remote `user sync` allocates, by stage (stage-profile.mjs's stages), against the bare and
// the durable loop (issue 82): each run spawned once against a fresh minimal server with
// alloc-probe.mjs preloaded, its sampled allocations (collected objects included) split by the
// first frame that belongs to a stage. KB per user. Unlike CPU, bytes allocated do not move with
// the machine's load, so a change that removes per-record objects shows here on a busy machine.
// EXAMCTL_BENCH_AGAINST=<bin/examctl of another build> splits that build's CLI too.
// Run after `npm run build`:  node bench/alloc-profile.mjs [users]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { usersCsv } from './generate.mjs';
import { root } from './paths.mjs';
import { minimalServer, onFresh } from './remote-bench.mjs';
import { STAGES, splitProfile } from './stage-profile.mjs';

const probe = join(root, 'bench', 'alloc-probe.mjs');

/** A heap profile's tree as a CPU profile (nodes by id, one sample per allocation sample, its bytes as the time). */
function asCpuProfile(heap) {
  const nodes = [];
  const visit = (node) => {
    nodes.push({ id: node.id, callFrame: node.callFrame, children: node.children.map((child) => child.id) });
    for (const child of node.children) visit(child);
  };
  visit(heap.head);
  return { nodes, samples: heap.samples.map((s) => s.nodeId), timeDeltas: heap.samples.map((s) => s.size) };
}

/** KB per user by stage (splitProfile reads each sample's bytes as microseconds: its ms are KB). */
async function allocated(args, env, bundleDir, users, label) {
  const scratch = mkdtempSync(join(tmpdir(), 'examctl-bench-alloc-'));
  const file = join(scratch, 'alloc.heapprofile');
  try {
    const child = spawn(process.execPath, ['--import', probe, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...env(scratch), EXAMCTL_BENCH_ALLOC_FILE: file },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text) => (stderr = (stderr + text).slice(-4000)));
    const [code] = await once(child, 'exit');
    if (code !== 0) throw new Error(`${label} exited ${code}: ${stderr}`);
    const split = splitProfile(asCpuProfile(JSON.parse(readFileSync(file, 'utf8'))), bundleDir, label);
    return Object.fromEntries(Object.entries(split).map(([stage, kb]) => [stage, kb / users]));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export async function runAllocProfile({ users = 10_000, against = process.env.EXAMCTL_BENCH_AGAINST } = {}) {
  const file = await usersCsv(users, 'r');
  const bundleDir = join(root, 'dist', 'bundle');
  const loop = (script, extra = () => []) =>
    onFresh(
      () => minimalServer(0),
      (target) =>
        allocated(
          [join(root, 'bench', script), target.url, target.token, String(users), '16', 'r'],
          () => ({}),
          bundleDir,
          users,
          script,
        ),
    );
  const cli = (checkout) =>
    onFresh(
      () => minimalServer(0),
      (target) =>
        allocated(
          [
            join(checkout, 'dist', 'bundle', 'examctl.mjs'),
            ...['user', 'sync', '--target', 'remote', '--base-url', target.url, '--yes', '--no-input'],
            ...['--concurrency', '16', '--file', file],
          ],
          (scratch) => ({
            CI: 'true',
            EXAMCTL_TOKEN: target.token,
            EXAMCTL_CONFIG_DIR: join(tmpdir(), 'examctl-bench-no-config'),
            EXAMCTL_RUNS_DIR: join(scratch, 'runs'),
          }),
          join(checkout, 'dist', 'bundle'),
          users,
          `examctl (${checkout})`,
        ),
    );
  const bare = await loop('bare-loop-process.mjs');
  const scratch = mkdtempSync(join(tmpdir(), 'examctl-bench-alloc-durable-'));
  const durable = await onFresh(
    () => minimalServer(0),
    (target) =>
      allocated(
        [
          join(root, 'bench', 'durable-loop-process.mjs'),
          ...[target.url, target.token, String(users), '16', 'r', join(scratch, 'journal.ndjson')],
        ],
        () => ({}),
        bundleDir,
        users,
        'durable loop',
      ),
  ).finally(() => rmSync(scratch, { recursive: true, force: true }));
  const mine = await cli(root);
  const other = against === undefined ? undefined : await cli(join(dirname(against), '..'));
  const sum = (split) => Object.values(split).reduce((a, b) => a + b, 0);
  const row = (stage, of) => ({
    stage,
    'CLI KB/user': +of(mine).toFixed(2),
    'bare loop': +of(bare).toFixed(2),
    'durable loop': +of(durable).toFixed(2),
    ...(other && { 'EXAMCTL_BENCH_AGAINST KB/user': +of(other).toFixed(2) }),
  });
  return [...STAGES.map((stage) => row(stage, (split) => split[stage])), row('whole process', sum)];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await runAllocProfile({ users: Number(process.argv[2] ?? 10_000) }));
}
