// A state folder like a shared runner's (issue 82: 104 runs and 25 other targets' memories, 420
// MB, made a dry run 0.99 s): one real remote `user sync` of `users` users against the minimal
// server makes a run journal and a memory, then copies of them fill the folder: `runs` run
// directories (ids one second apart, before today's) and `memories` memory directories (other
// names, as other targets' would be). What a command reads of them at start-up is then visible
// in its CPU (startup-bench.mjs times a dry run with and without it).
// node bench/crowded-state.mjs <state dir> [runs] [memories] [users]
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { usersCsv } from './generate.mjs';
import { cliPath } from './paths.mjs';
import { minimalServer, onFresh } from './remote-bench.mjs';

export async function crowdedState(state, runs = 104, memories = 25, users = 10_000) {
  rmSync(state, { recursive: true, force: true });
  const runsDir = join(state, 'runs');
  const syncDir = join(state, 'synced');
  const file = await usersCsv(users, 'r');
  await onFresh(minimalServer, (target) => {
    const run = spawnSync(
      process.execPath,
      [cliPath, 'user', 'sync', '--target', 'remote', '--base-url', target.url, '--yes', '--no-input', '--file', file],
      {
        env: {
          ...process.env,
          CI: 'true',
          EXAMCTL_TOKEN: target.token,
          EXAMCTL_RUNS_DIR: runsDir,
          EXAMCTL_SYNC_DIR: syncDir,
          EXAMCTL_CONFIG_DIR: join(state, 'no-config'),
        },
        encoding: 'utf8',
      },
    );
    if (run.status !== 0) throw new Error(`crowded-state: the seed run exited ${run.status}: ${run.stderr}`);
  });
  const [seedRun] = readdirSync(runsDir);
  const [seedMemory] = readdirSync(syncDir).filter((name) => /^[0-9a-f]{16}$/.test(name));
  const start = Date.parse('2026-01-01T00:00:00Z');
  for (let i = 0; i < runs - 1; i++) {
    const id = `${new Date(start + i * 1000).toISOString().replace(/[-:]/g, '')}-${(i % 0x10000).toString(16).padStart(4, '0')}`;
    cpSync(join(runsDir, seedRun), join(runsDir, id), { recursive: true });
  }
  for (let i = 0; i < memories - 1; i++) {
    const name = createHash('sha256').update(`other target ${i}`).digest('hex').slice(0, 16);
    mkdirSync(join(syncDir, name), { mode: 0o700 });
    cpSync(join(syncDir, seedMemory), join(syncDir, name), { recursive: true });
  }
  return { runsDir, syncDir };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [state, runs, memories, users] = process.argv.slice(2);
  console.log(await crowdedState(state, Number(runs ?? 104), Number(memories ?? 25), Number(users ?? 10_000)));
}
