// How much of a first night through `local serve` is the server's warm-up (issue 82 item 3): one server,
// three first nights of different new users one after the other (bench/.data/users-{n,m,k}-N.csv, `user sync
// --target remote` by bin/examctl); for each night the server's CPU (all threads, and its main thread, from
// /proc) and the CLI's. The first night pays for compiling and warming the server's code; the third is close to
// its steady state. Run after `npm run build`:
//   node bench/serve-warmup.mjs [users=5000] [bin/examctl of the server's build]
import { readFileSync } from 'node:fs';
import { usersCsv } from './generate.mjs';
import { cliPath } from './paths.mjs';
import { localServe, spawnedCpu } from './remote-bench.mjs';

const users = Number(process.argv[2] ?? 5000);
const serverCli = process.argv[3] ?? cliPath;
const ticks = (file) => {
  const f = readFileSync(file, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};
const target = await localServe(serverCli);
try {
  for (const prefix of ['n', 'm', 'k']) {
    const csv = await usersCsv(users, prefix);
    const [all, main] = [ticks(`/proc/${target.pid}/stat`), ticks(`/proc/${target.pid}/task/${target.pid}/stat`)];
    const night = spawnedCpu(
      [cliPath, '--target', 'remote', '--base-url', target.url, 'user', 'sync', '--yes', '--no-input', '--file', csv],
      { EXAMCTL_TOKEN: target.token },
    );
    const server = ticks(`/proc/${target.pid}/stat`) - all;
    const serverMain = ticks(`/proc/${target.pid}/task/${target.pid}/stat`) - main;
    console.log(
      `night ${prefix}: server ${server} ms CPU (main thread ${serverMain}, other threads ${server - serverMain}); ` +
        `the CLI ${night.cpu.toFixed(0)} ms; ${night.seconds.toFixed(1)} s; load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`,
    );
  }
} finally {
  await target.close();
}
