// Issue 61: the remote path's work as instruction counts, which a loaded machine does not move
// (CPU time does: a 2-core VM shared by nine agents). Runs the CLI's `user sync --target remote`
// or the bare undici loop (bare-loop-process.mjs) under `valgrind --tool=callgrind` against the
// minimal server, and prints the instructions executed (user space, every thread) in all, per
// user, and by kind (TurboFan, GC, SHA-256, JSON, ICs, JIT code, other builtins, the rest) from
// `callgrind_annotate`. Slow (50-100x): 3,000 users take 5-10 minutes on a loaded machine.
// Run after `npm run build`:  node bench/callgrind-ir.mjs <cli|loop> [users] [bin/examctl of a build] [--predictable] [--<V8 flag>...]
// --predictable runs Node with V8's --predictable (the compilers and the GC on the main thread, fixed
// seeds): two runs of one build then differ by ~0.2 % instead of ~5 % at one load, but by up to 2 % at
// another (timers still decide when the GC and the group commit run): run an A/B's two builds at once,
// and read a 1 % change from more than one pair; V8 then refuses the build's code caches (another flag hash): start-up compiles
// from source, in both builds alike. A runner's NODE_EXTRA_CA_CERTS is left out of the child's
// environment: Node decodes that file at every start (~0.4G instructions on a runner with a large one).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { instructionsByKind } from './callgrind-kinds.mjs';
import { usersCsv } from './generate.mjs';
import { cliPath, root } from './paths.mjs';
import { minimalServer } from './remote-bench.mjs';

// Every `--` argument is given to Node before the script (`--predictable`, a heap flag such as `--max-semi-space-size=32`).
const v8Flags = process.argv.slice(2).filter((arg) => arg.startsWith('--'));
const [which = 'cli', usersArg = '3000', cli = cliPath] = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const users = Number(usersArg);
const scratch = mkdtempSync(join(tmpdir(), 'examctl-bench-ir-'));
const out = join(scratch, 'callgrind.out');
const file = await usersCsv(users, 'r');
const target = await minimalServer(0);
const args =
  which === 'loop'
    ? [...v8Flags, join(root, 'bench', 'bare-loop-process.mjs'), target.url, target.token, String(users), '16', 'r']
    : [
        ...v8Flags,
        cli,
        'user',
        'sync',
        '--target',
        'remote',
        '--base-url',
        target.url,
        '--yes',
        '--no-input',
        '--concurrency',
        '16',
        '--file',
        file,
      ];
const child = spawn('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, process.execPath, ...args], {
  stdio: ['ignore', 'ignore', 'pipe'],
  env: {
    ...process.env,
    NODE_EXTRA_CA_CERTS: undefined,
    CI: 'true',
    EXAMCTL_TOKEN: target.token,
    EXAMCTL_CONFIG_DIR: join(tmpdir(), 'examctl-bench-no-config'),
    EXAMCTL_RUNS_DIR: join(scratch, 'runs'),
  },
});
let stderr = '';
child.stderr.on('data', (text) => (stderr += text));
const [code] = await once(child, 'exit');
await target.close();
if (code !== 0) throw new Error(`${which} exited ${code}: ${stderr.slice(-2000)}`);
const { total, byKind } = instructionsByKind(out);
rmSync(scratch, { recursive: true, force: true });
const millions = (n) => Math.round(n / 1e6);
console.log(
  JSON.stringify({
    which,
    users,
    flags: v8Flags,
    instructions: millions(total),
    perUser: Math.round(total / users),
    byKind: Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, millions(v)])),
  }),
);
