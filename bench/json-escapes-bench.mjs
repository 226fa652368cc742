// Issue 81, "one linear JSON string scan": the one scan (system/json-scan.ts, then JSON.parse) over a
// string of backslash escapes at 1, 2, 4, 8 and 16 MiB. Linear time doubles with the size (ms per MiB
// stays flat); the quadratic scan it replaced quadrupled (a 1.6 MB body took 46 s). Goal: 16 MiB in
// under 2 s. Also `local serve`, sent the 16 MiB body, answering another client meanwhile.
// Run after `npm run build`:  node bench/json-escapes-bench.mjs [rounds]
import { loadavg } from 'node:os';
import { MAX_JSON_DEPTH, parseJson } from '../dist/system/json-scan.js';

const MIB = 1024 * 1024;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rounds = Number(process.argv[2] ?? 3);

console.log(`load ${loadavg()[0].toFixed(1)}; median of ${rounds} rounds`);
for (const mib of [1, 2, 4, 8, 16]) {
  // A string of escaped backslashes, `mib` MiB of text in all.
  const text = JSON.stringify({ a: '\\'.repeat((mib * MIB) / 2) });
  const times = [];
  for (let round = 0; round < rounds; round++) {
    const started = process.hrtime.bigint();
    parseJson(text, { depth: MAX_JSON_DEPTH });
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  const ms = median(times);
  console.log(`${String(mib).padStart(2)} MiB: ${ms.toFixed(0).padStart(6)} ms  (${(ms / mib).toFixed(1)} ms per MiB)`);
}
