// Preloaded into the examctl process by the benchmark (node --import): on exit, writes the
// process's peak RSS (KiB) to the file named by EXAMCTL_BENCH_RSS_FILE. Product code knows nothing of it.
import { writeFileSync } from 'node:fs';

const target = process.env.EXAMCTL_BENCH_RSS_FILE;
if (target) {
  process.on('exit', () => {
    writeFileSync(target, String(process.resourceUsage().maxRSS));
  });
}
