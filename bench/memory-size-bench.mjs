// Issue 79: the users sync memory's size at 50,000 users (bench/README.md, "Plans"). One real
// `user sync` of the bench file to a fresh local store, then the bytes of the users memory file(s)
// under the sync directory. EXAMCTL_BENCH_CLI runs another build (an older examctl's bin/examctl)
// to compare. The entry keeps each field last sent (docs/plan.md, "Before and after").
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { dataDir, usersCsv } from './generate.mjs';
import { cliPath } from './paths.mjs';

const ROWS = Number(process.env.EXAMCTL_BENCH_MEMORY_ROWS ?? 50_000);
const cli = process.env.EXAMCTL_BENCH_CLI ?? cliPath;
const runs = join(dataDir, 'memory-size-runs');
const store = join(dataDir, 'memory-size-store');
const synced = join(dataDir, 'memory-size-synced');
const env = { ...process.env, EXAMCTL_RUNS_DIR: runs, EXAMCTL_SYNC_DIR: synced, CI: 'true' };

const file = await usersCsv(ROWS, 'plan');
rmSync(store, { recursive: true, force: true });
rmSync(runs, { recursive: true, force: true });
rmSync(synced, { recursive: true, force: true });
const load = loadavg()[0];
const run = spawnSync(process.execPath, [cli, 'user', 'sync', '--file', file, '--target', 'local', '--store', store], {
  env,
  cwd: dataDir,
  encoding: 'utf8',
  maxBuffer: 1 << 28,
});
if (run.status !== 0) throw new Error(`examctl user sync: exit ${run.status}\n${run.stderr}`);

/** Every file under `dir` whose name holds "users". */
function usersFiles(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.includes('users'))
    .map((entry) => join(entry.parentPath, entry.name));
}
const files = usersFiles(synced);
let bytes = 0;
let lines = 0;
for (const path of files) {
  bytes += statSync(path).size;
  lines += readFileSync(path, 'utf8').split('\n').length - 1;
}
console.log(`memory size bench: ${ROWS} users, ${cli}, load average ${load.toFixed(2)} (1 min, at start)`);
console.log(
  `users memory: ${bytes.toLocaleString('en')} bytes in ${files.length} file(s), ${lines} lines, ${(bytes / ROWS).toFixed(0)} bytes a user`,
);
