// Preloaded into the examctl process by the remote benchmark (node --import): on exit, writes the
// process's CPU time (user and system, microseconds) as JSON to the file named by
// EXAMCTL_BENCH_CPU_FILE. CPU per user is comparable while others load the machine; wall time is not.
import { writeFileSync } from 'node:fs';

const target = process.env.EXAMCTL_BENCH_CPU_FILE;
if (target) {
  process.on('exit', () => {
    const { userCPUTime, systemCPUTime } = process.resourceUsage();
    writeFileSync(target, JSON.stringify({ userCPUTime, systemCPUTime }));
  });
}
