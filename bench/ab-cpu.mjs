// A/B of two builds against the bare undici loop run as a process: `user sync --target remote`
// (10,000 users, minimal server, no latency), the loop and the builds alternating round by round
// (each round's three runs share the machine's state of the moment). Per build, medians of the
// rounds: CPU ms per 1,000 users (user + system), of it the main thread's, the CPU above the
// loop of the same round, its ratio to the durable loop's (durable-loop-process.mjs, issue 82), and the wall ratio to the loop (issue 51's two no-latency figures).
// node bench/ab-cpu.mjs <bin A> <bin B> [rounds] [users]
import { usersCsv } from './generate.mjs';
import { cliSync, minimalServer, onFresh, spawnedBareLoop, spawnedDurableLoop } from './remote-bench.mjs';

const [a, b, rounds = '5', users = '10000'] = process.argv.slice(2);
const count = Number(users);
const file = await usersCsv(count, 'r');
const runs = { loop: [], durable: [], a: [], b: [] };
for (let r = 0; r < Number(rounds); r++) {
  runs.loop.push(
    await onFresh(
      () => minimalServer(0),
      (t) => spawnedBareLoop(t, count, 16, 'r'),
    ),
  );
  runs.durable.push(
    await onFresh(
      () => minimalServer(0),
      (t) => spawnedDurableLoop(t, count, 16, 'r'),
    ),
  );
  for (const [k, cli] of [
    ['a', a],
    ['b', b],
  ])
    runs[k].push(
      await onFresh(
        () => minimalServer(0),
        (t) => cliSync(t, file, count, 16, cli),
      ),
    );
}
const med = (v) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)];
const figures = (list) => ({
  cpu: med(list.map((run) => Math.round(run.cpuMsPer1000))),
  main: med(list.map((run) => Math.round(run.mainMsPer1000))),
  rounds: list.map((run) => Math.round(run.cpuMsPer1000)),
});
const against = (list) => ({
  ...figures(list),
  aboveLoop: med(list.map((run, i) => Math.round(run.cpuMsPer1000 - runs.loop[i].cpuMsPer1000))),
  overDurable: +med(list.map((run, i) => run.cpuMsPer1000 / runs.durable[i].cpuMsPer1000)).toFixed(2),
  wallRatio: +med(list.map((run, i) => run.rate / runs.loop[i].rate)).toFixed(2),
});
console.log(
  JSON.stringify(
    { users: count, loop: figures(runs.loop), durable: figures(runs.durable), a: against(runs.a), b: against(runs.b) },
    null,
    1,
  ),
);
