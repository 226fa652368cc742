// Preloaded into the examctl process by the remote benchmark (node --import): on exit, writes the
// process's CPU time (user and system, microseconds) as JSON to the file named by
// EXAMCTL_BENCH_CPU_FILE, and on Linux the main thread's own (`mainThreadCPUTime`, /proc, 10 ms
// ticks): the rest is V8's helper threads (GC, compiler) and libuv's pool (the O_DSYNC writes).
// Also the process's CPU when it first wrote to a TCP socket (`firstWriteCPUTime`: the first
// request; what comes before is start-up and, for the CLI, the structure pass).
// CPU per user is comparable while others load the machine; wall time is not.
import { readFileSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { isMainThread } from 'node:worker_threads';

const target = process.env.EXAMCTL_BENCH_CPU_FILE;
if (target && isMainThread) {
  let firstWriteCPUTime;
  const write = Socket.prototype.write;
  Socket.prototype.write = function (...args) {
    if (firstWriteCPUTime === undefined && this.remotePort !== undefined) {
      const { user, system } = process.cpuUsage();
      firstWriteCPUTime = user + system;
    }
    return write.apply(this, args);
  };
  process.on('exit', () => {
    const { userCPUTime, systemCPUTime } = process.resourceUsage();
    let mainThreadCPUTime;
    try {
      const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      mainThreadCPUTime = (Number(fields[11]) + Number(fields[12])) * 10_000;
    } catch {
      // Not Linux: the process's figure only.
    }
    writeFileSync(target, JSON.stringify({ userCPUTime, systemCPUTime, mainThreadCPUTime, firstWriteCPUTime }));
  });
}
