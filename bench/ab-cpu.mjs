// A/B of two builds: CPU ms per 1,000 users of `user sync --target remote` (10,000 users, minimal server, no
// latency), the builds alternating round by round. node bench/ab-cpu.mjs <bin A> <bin B> [rounds] [users]
import { usersCsv } from './generate.mjs';
import { cliSync, minimalServer, onFresh } from './remote-bench.mjs';
const [a, b, rounds = '5', users = '10000'] = process.argv.slice(2);
const file = await usersCsv(Number(users), 'r');
const got = { a: [], b: [] };
for (let r = 0; r < Number(rounds); r++) {
  for (const [k, cli] of [['a', a], ['b', b]]) {
    const run = await onFresh(() => minimalServer(0), (t) => cliSync(t, file, Number(users), 16, cli));
    got[k].push(Math.round(run.cpuMsPer1000));
  }
}
const med = (v) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)];
console.log(JSON.stringify({ a: got.a, b: got.b, medianA: med(got.a), medianB: med(got.b) }));
