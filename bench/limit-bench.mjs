// Issue 37, "Back to the network's limit": the spawned `examctl user sync --target remote` against
// a bare undici loop sending the same bodies at the same concurrency (16) to the same minimal
// loopback server, in paired rounds (bare, CLI, bare, CLI...: each pair shares the machine's
// state of the moment), at 20 ms of server latency (3,000 users) and at none (10,000 users); the
// CLI's CPU (user + system, start-up and both input passes included) per 1,000 users; the same
// bare loop started as a process of its own (cold against cold: both pay start-up and warm-up); and
// `local serve` against the minimal server that also makes each turn's creates durable (a bare
// loop of 3,000 creates at concurrency 8, paired rounds). Figures are medians of the rounds.
// EXAMCTL_BENCH_AGAINST=<bin/examctl of another build> measures that CLI too, in the same rounds.
// Run after `npm run build`:  node bench/limit-bench.mjs [rounds]
import { pathToFileURL } from 'node:url';
import { usersCsv } from './generate.mjs';
import { bareLoop, cliSync, spawnedBareLoop, localServe, minimalDurableServer, minimalServer, onFresh, withSendingPhase } from './remote-bench.mjs';

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const list = (values, digits = 2) => values.map((value) => value.toFixed(digits)).join(', ');

/** Paired rounds of the bare loop and the CLI at one latency; a fresh server for each measurement. */
async function cliAgainstBare(users, latencyMs, concurrency, rounds, cli) {
  const file = await usersCsv(users, 'r');
  const ratios = [];
  const sendingRatios = [];
  const cpu = [];
  const bareCpu = [];
  const coldRatios = [];
  const coldBareCpu = [];
  const floorRatios = [];
  for (let round = 0; round < rounds; round += 1) {
    const before = process.cpuUsage();
    const bare = await withSendingPhase(latencyMs, (target) => bareLoop(target, users, concurrency, 'r'));
    const used = process.cpuUsage(before);
    bareCpu.push((used.user + used.system) / users);
    const cold = await withSendingPhase(latencyMs, (target) => spawnedBareLoop(target, users, concurrency, 'r'));
    coldBareCpu.push(cold.result.cpuMsPer1000);
    floorRatios.push(cold.result.rate / bare.result);
    const run = await withSendingPhase(latencyMs, (target) => cliSync(target, file, users, concurrency, cli));
    ratios.push(run.result.rate / bare.result);
    coldRatios.push(run.result.rate / cold.result.rate);
    // The same pair with the CLI's start-up and structure pass left out (the server's view).
    sendingRatios.push(bare.sendingSeconds / run.sendingSeconds);
    cpu.push(run.result.cpuMsPer1000);
  }
  return { ratios, sendingRatios, cpu, bareCpu, coldRatios, coldBareCpu, floorRatios };
}

export async function runLimitBench({ rounds = 3 } = {}) {
  const rows = [];
  // Warm this process's undici (the bare loop runs here) so the first round does not pay for it.
  await onFresh(() => minimalServer(0), (target) => bareLoop(target, 2_000, 16, 'w'));
  const clis = [['', undefined]];
  if (process.env.EXAMCTL_BENCH_AGAINST) clis.push([' (EXAMCTL_BENCH_AGAINST)', process.env.EXAMCTL_BENCH_AGAINST]);
  for (const [which, cli] of clis) {
    for (const [users, latency, goal] of [[3_000, 20, 0.95], [10_000, 0, 0.5]]) {
      const { ratios, sendingRatios, cpu, bareCpu, coldRatios, coldBareCpu, floorRatios } = await cliAgainstBare(users, latency, 16, rounds, cli);
      rows.push({
        measure: `CLI${which} / bare undici loop, ${users.toLocaleString('en')} users, ${latency} ms latency, concurrency 16`,
        value: +median(ratios).toFixed(2),
        goal: `>= ${goal}`,
        detail: `paired rounds ${list(ratios)}; CPU ms/1k CLI ${list(cpu, 0)}, bare loop ${list(bareCpu, 0)}`,
      });
      rows.push({
        measure: `  the same, sending phase only (first request to last answer at the server: the CLI's start-up and structure pass left out)`,
        value: +median(sendingRatios).toFixed(2),
        goal: '',
        detail: `paired rounds ${list(sendingRatios)}`,
      });
      // Cold against cold: the same bare loop started as a process of its own, as the CLI is, so
      // both pay a process start and V8's JIT warm-up (no goal: the proposal in bench/README.md).
      rows.push({
        measure: `  CLI${which} / the bare loop spawned as its own process (cold against cold)`,
        value: +median(coldRatios).toFixed(2),
        goal: '',
        detail: `paired rounds ${list(coldRatios)}; CPU ms/1k spawned bare loop ${list(coldBareCpu, 0)}`,
      });
      // The floor of the first ratio: the bare loop itself, paying what any CLI pays (a process start
      // and V8's warm-up), against its warm self. A goal above this figure no spawned program meets.
      rows.push({
        measure: `  the bare loop spawned as its own process / the warm bare loop (what a process start alone costs this ratio)`,
        value: +median(floorRatios).toFixed(2),
        goal: '',
        detail: `paired rounds ${list(floorRatios)}`,
      });
      // The CPU figure at no latency: with latency every answer wakes the process on its own, and
      // the bare loop's CPU per user grows as much (both columns above).
      if (latency === 0) rows.push({ measure: `CLI${which} CPU ms per 1,000 remote users (10,000 users, no latency; start-up and both input passes included)`, value: Math.round(median(cpu)), goal: '<= 100', detail: `bare loop ${Math.round(median(bareCpu))}, spawned bare loop ${Math.round(median(coldBareCpu))}` });
    }
  }
  const serveRatios = [];
  for (let round = 0; round < Math.max(rounds, 5); round += 1) {
    const durable = await onFresh(minimalDurableServer, (target) => bareLoop(target, 3_000, 8, 'd'));
    const serve = await onFresh(localServe, (target) => bareLoop(target, 3_000, 8, 'd'));
    serveRatios.push(serve / durable);
  }
  rows.push({ measure: 'local serve / durable minimal server, 3,000 creates, bare loop at concurrency 8', value: +median(serveRatios).toFixed(2), goal: '>= 0.6', detail: `paired rounds ${list(serveRatios)}` });
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await runLimitBench({ rounds: Number(process.argv[2] ?? 3) }));
}
