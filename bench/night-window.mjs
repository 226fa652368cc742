// A first night through `local serve` at several CLI windows (issue 82 item 3): for each round, the night on a
// local store, then the same night through a fresh `local serve` with each `--concurrency` (`d`: none given, the
// default toward local serve); wall seconds and CPU ms of the CLI and of the server, and both against the local
// night. Run after `npm run build`:
//   node bench/night-window.mjs [users=5000] [windows=d,8,32,64] [rounds=1]
import { readFileSync } from 'node:fs';
import { usersCsv } from './generate.mjs';
import { localServe, onFresh, spawnedCpu } from './remote-bench.mjs';
import { cliPath } from './paths.mjs';

const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
const users = Number(process.argv[2] ?? 5000);
const windows = (process.argv[3] ?? 'd,8,32,64').split(',');
const rounds = Number(process.argv[4] ?? 1);
const csv = await usersCsv(users, 'n');
const sync = ['user', 'sync', '--yes', '--no-input', '--file', csv];
for (let round = 0; round < rounds; round += 1) {
  const local = spawnedCpu([cliPath, '--store', 'store', ...sync], { EXAMCTL_TOKEN: undefined });
  console.log(`local store: ${local.seconds.toFixed(2)} s, CPU ${local.cpu.toFixed(0)} ms; load ${load()}`);
  for (const window of windows) {
    const night = await onFresh(localServe, (target) => {
      const before = cpuMs(target.pid);
      const given = window === 'd' ? [] : ['--concurrency', window];
      const run = spawnedCpu([cliPath, '--target', 'remote', '--base-url', target.url, ...given, ...sync], {
        EXAMCTL_TOKEN: target.token,
      });
      return { ...run, server: cpuMs(target.pid) - before };
    });
    console.log(
      `--concurrency ${window === 'd' ? '(none)' : window}: ${night.seconds.toFixed(2)} s (${(night.seconds / local.seconds).toFixed(2)}x), ` +
        `CPU CLI ${night.cpu.toFixed(0)} + server ${night.server.toFixed(0)} ms (${((night.cpu + night.server) / local.cpu).toFixed(2)}x); load ${load()}`,
    );
  }
}
