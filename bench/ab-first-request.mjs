// A/B of two builds: a remote user sync's wall time outside the sending phase (spawn to the first
// request, and the last answer to exit), 3,000 users, 20 ms latency, the builds alternating round
// by round. node bench/ab-first-request.mjs <bin A> <bin B> [rounds]
import { usersCsv } from './generate.mjs';
import { cliSync, withSendingPhase } from './remote-bench.mjs';
const [a, b, rounds = '5'] = process.argv.slice(2);
const users = 3000;
const file = await usersCsv(users, 'r');
const got = { a: [], b: [] };
for (let r = 0; r < Number(rounds); r++) {
  for (const [k, cli] of [
    ['a', a],
    ['b', b],
  ]) {
    const run = await withSendingPhase(20, (t) => cliSync(t, file, users, 16, cli));
    got[k].push(Math.round((users / run.result.rate - run.sendingSeconds) * 1000));
  }
}
const med = (v) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)];
console.log(
  JSON.stringify({ outsideSendingMsA: got.a, outsideSendingMsB: got.b, medianA: med(got.a), medianB: med(got.b) }),
);
