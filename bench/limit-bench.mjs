// Issues 37 and 51, the remote path against the wire: the spawned `examctl user sync --target
// remote` against the bare undici loop sending the same bodies at the same concurrency (16) to
// the same minimal loopback server, the loop started as a process of its own (bare-loop-process.mjs:
// both pay a process start and V8's warm-up, cold against cold), in paired rounds (loop, then CLI,
// a fresh server each: each pair shares the machine's state of the moment), at no latency
// (10,000 users) and at 20 ms of server latency (3,000 users). Issue 51's three figures, medians
// of the rounds' own: users/s against the loop at no latency and at 20 ms, and the CLI's CPU (user
// + system, start-up and the structure pass included) over the loop's (issue 61: ratios only). The same
// loop warm, inside this process, is measured beside them (issue 37's reference, no goal now).
// Also `local serve` against the minimal server that also makes each turn's creates durable (a bare
// loop of 3,000 creates at concurrency 8, paired rounds).
// EXAMCTL_BENCH_AGAINST=<bin/examctl of another build> measures that CLI too, in the same rounds.
// Run after `npm run build`:  node bench/limit-bench.mjs [rounds]
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { cliPath } from './paths.mjs';
import { usersCsv } from './generate.mjs';
import {
  bareLoop,
  cliSync,
  spawnedBareLoop,
  spawnedDurableLoop,
  localServe,
  minimalDurableServer,
  minimalServer,
  onFresh,
  spawnedCpu,
  withSendingPhase,
} from './remote-bench.mjs';

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const list = (values, digits = 2) => values.map((value) => value.toFixed(digits)).join(', ');

/** Paired rounds at one latency: the warm loop, the spawned loop, each CLI; a fresh server for each measurement. */
async function cliAgainstLoop(users, latencyMs, concurrency, rounds, clis) {
  const file = await usersCsv(users, 'r');
  const got = {
    load: [],
    warm: [],
    spawned: [],
    spawnedCpu: [],
    spawnedSendingCpu: [],
    spawnedBefore: [],
    durableCpu: [],
    durableRate: [],
    durableTwoCpu: [],
    beyondCpu: [],
    clis: clis.map(() => ({
      rate: [],
      cpu: [],
      sendingCpu: [],
      before: [],
      ratio: [],
      warmRatio: [],
      sendingRatio: [],
    })),
  };
  for (let round = 0; round < rounds; round += 1) {
    // The machine's load beside the figures: wall-time ratios move with it, CPU figures less.
    got.load.push(loadavg()[0]);
    const warm = await withSendingPhase(latencyMs, (target) => bareLoop(target, users, concurrency, 'r'));
    got.warm.push(warm.result);
    const spawned = await withSendingPhase(latencyMs, (target) => spawnedBareLoop(target, users, concurrency, 'r'));
    got.spawned.push(spawned.result.rate);
    got.spawnedCpu.push(spawned.result.cpuMsPer1000);
    got.spawnedSendingCpu.push(spawned.result.sendingCpuMsPer1000);
    got.spawnedBefore.push(spawned.result.beforeFirstRequestMs);
    if (latencyMs === 0) {
      // Issue 82's reference: the loop with examctl's guarantees, and the work beyond them (reading and
      // validating the file: its dry run above a bare Node start), in ms per 1,000 users.
      const durable = await onFresh(
        () => minimalServer(0),
        (target) => spawnedDurableLoop(target, users, concurrency, 'r'),
      );
      got.durableCpu.push(durable.cpuMsPer1000);
      got.durableRate.push(durable.rate);
      // The same guarantees as examctl keeps them: in two files (run journal, sync memory), answers within 20 ms.
      const durableTwo = await onFresh(
        () => minimalServer(0),
        (target) => spawnedDurableLoop(target, users, concurrency, 'r', true),
      );
      got.durableTwoCpu.push(durableTwo.cpuMsPer1000);
      const { cpu: dryRun } = spawnedCpu([
        cliPath,
        'user',
        'sync',
        '--dry-run',
        '--target',
        'remote',
        '--base-url',
        'http://127.0.0.1:9',
        '--file',
        file,
      ]);
      got.beyondCpu.push(((dryRun - spawnedCpu(['-e', '0']).cpu) * 1000) / users);
    }
    for (const [i, cli] of clis.entries()) {
      const run = await withSendingPhase(latencyMs, (target) => cliSync(target, file, users, concurrency, cli));
      const mine = got.clis[i];
      mine.rate.push(run.result.rate);
      mine.cpu.push(run.result.cpuMsPer1000);
      mine.sendingCpu.push(run.result.sendingCpuMsPer1000);
      mine.before.push(run.result.beforeFirstRequestMs);
      mine.ratio.push(run.result.rate / spawned.result.rate);
      mine.warmRatio.push(run.result.rate / warm.result);
      // The server's view: first request to last answer, the CLI's start-up and structure pass left out.
      mine.sendingRatio.push(spawned.sendingSeconds / run.sendingSeconds);
    }
  }
  return got;
}

export async function runLimitBench({ rounds = 3 } = {}) {
  const rows = [];
  // Warm this process's undici (the warm loop runs here) so the first round does not pay for it.
  await onFresh(
    () => minimalServer(0),
    (target) => bareLoop(target, 2_000, 16, 'w'),
  );
  const clis = [['', undefined]];
  if (process.env.EXAMCTL_BENCH_AGAINST) clis.push([' (EXAMCTL_BENCH_AGAINST)', process.env.EXAMCTL_BENCH_AGAINST]);
  for (const [users, latency, goal] of [
    [10_000, 0, 0.75],
    [3_000, 20, 0.97],
  ]) {
    const got = await cliAgainstLoop(
      users,
      latency,
      16,
      rounds,
      clis.map(([, cli]) => cli),
    );
    const at = `${users.toLocaleString('en')} users, ${latency === 0 ? 'no latency' : `${latency} ms latency`}, concurrency 16`;
    for (const [i, [which]] of clis.entries()) {
      const mine = got.clis[i];
      rows.push({
        measure: `CLI${which} / the bare undici loop run as a process, ${at}`,
        value: +median(mine.ratio).toFixed(2),
        goal: `>= ${goal}`,
        detail: `paired rounds ${list(mine.ratio)}; users/s CLI ${list(mine.rate, 0)}, loop ${list(got.spawned, 0)}`,
      });
      if (latency === 0) {
        // Issue 61: the CPU as a ratio of the loop's on the same work (milliseconds move with the machine).
        const cpuRatios = mine.cpu.map((cpu, round) => cpu / got.spawnedCpu[round]);
        rows.push({
          measure: `CLI${which} CPU / the loop run as a process's CPU (no latency; start-up and the structure pass included)`,
          value: +median(cpuRatios).toFixed(2),
          goal: '<= 1.5',
          detail: `paired rounds ${list(cpuRatios)}; ms per 1,000 users CLI ${list(mine.cpu, 0)}, loop ${list(got.spawnedCpu, 0)}`,
        });
        const durableRatios = mine.cpu.map((cpu, round) => cpu / got.durableCpu[round]);
        rows.push({
          measure: `CLI${which} CPU / the durable loop's CPU (the loop with examctl's guarantees: durable-loop-process.mjs, issue 82)`,
          value: +median(durableRatios).toFixed(2),
          goal: '<= 1.3',
          detail: `paired rounds ${list(durableRatios)}; ms per 1,000 users durable loop ${list(got.durableCpu, 0)}; its users/s ${list(got.durableRate, 0)}`,
        });
        const twoFileRatios = mine.cpu.map((cpu, round) => cpu / got.durableTwoCpu[round]);
        rows.push({
          measure: `  CLI${which} CPU / the durable loop writing as examctl does (two files, each batch in both, answers within 20 ms)`,
          value: +median(twoFileRatios).toFixed(2),
          goal: '',
          detail: `paired rounds ${list(twoFileRatios)}; ms per 1,000 users that loop ${list(got.durableTwoCpu, 0)}`,
        });
        const referenceRatios = mine.cpu.map((cpu, round) => cpu / (got.durableCpu[round] + got.beyondCpu[round]));
        rows.push({
          measure: `  CLI${which} CPU / (the durable loop + the file's dry run above node -e 0: reading and validating it)`,
          value: +median(referenceRatios).toFixed(2),
          goal: '',
          detail: `paired rounds ${list(referenceRatios)}; the dry run above node -e 0, ms per 1,000 users ${list(got.beyondCpu, 0)}`,
        });
        // Where it goes: the CPU before the first request (start-up; the CLI's structure pass) and after it.
        const sendingRatios = mine.sendingCpu.map((cpu, round) => cpu / got.spawnedSendingCpu[round]);
        rows.push({
          measure: '  the same, CPU from the first request on (the sending phase)',
          value: +median(sendingRatios).toFixed(2),
          goal: '',
          detail: `paired rounds ${list(sendingRatios)}; ms per 1,000 users CLI ${list(mine.sendingCpu, 0)}, loop ${list(got.spawnedSendingCpu, 0)}; CPU ms before it CLI ${list(mine.before, 0)}, loop ${list(got.spawnedBefore, 0)}`,
        });
      }
      rows.push({
        measure: `  the same, sending phase only (first request to last answer at the server)`,
        value: +median(mine.sendingRatio).toFixed(2),
        goal: '',
        detail: `paired rounds ${list(mine.sendingRatio)}`,
      });
      rows.push({
        measure: `  CLI${which} / the same loop warm in the bench's process (issue 37's reference)`,
        value: +median(mine.warmRatio).toFixed(2),
        goal: '',
        detail: `paired rounds ${list(mine.warmRatio)}`,
      });
    }
    // What a process start alone costs the loop (its own start-up and warm-up): the floor of the warm ratio.
    rows.push({
      measure: `  the loop run as a process / the loop warm, ${at}`,
      value: +median(got.spawned.map((rate, i) => rate / got.warm[i])).toFixed(2),
      goal: '',
      detail: '',
    });
    rows.push({
      measure: `  load average (1 minute) at each round's start, ${at}`,
      value: +median(got.load).toFixed(1),
      goal: '',
      detail: `rounds ${list(got.load, 1)}`,
    });
  }
  const serveRatios = [];
  for (let round = 0; round < Math.max(rounds, 5); round += 1) {
    const durable = await onFresh(minimalDurableServer, (target) => bareLoop(target, 3_000, 8, 'd'));
    const serve = await onFresh(localServe, (target) => bareLoop(target, 3_000, 8, 'd'));
    serveRatios.push(serve / durable);
  }
  rows.push({
    measure: 'local serve / durable minimal server, 3,000 creates, bare loop at concurrency 8',
    value: +median(serveRatios).toFixed(2),
    goal: '>= 0.6',
    detail: `paired rounds ${list(serveRatios)}`,
  });
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await runLimitBench({ rounds: Number(process.argv[2] ?? 3) }));
}
