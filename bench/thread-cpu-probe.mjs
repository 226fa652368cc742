// Preloaded into the examctl process by the dry-run benchmark (node --import): on exit, writes the
// main thread's own CPU time (user + system, seconds; Linux /proc, 10 ms ticks) to the file named
// by EXAMCTL_BENCH_THREAD_CPU_FILE. With the CSV read in a worker thread (issue 37) the process's
// CPU is spread over two threads: on an otherwise idle 2-core machine the wall time follows the
// busier thread, not the sum.
import { readFileSync, writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

const target = process.env.EXAMCTL_BENCH_THREAD_CPU_FILE;
if (target && isMainThread) {
  process.on('exit', () => {
    try {
      const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      writeFileSync(target, String((Number(fields[11]) + Number(fields[12])) / 100));
    } catch {
      // Not Linux: no figure.
    }
  });
}
