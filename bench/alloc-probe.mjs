// Preloaded (node --import) by alloc-profile.mjs: V8's sampling heap profiler from start to exit,
// collected objects included (what a run allocates, not what it keeps), written as a
// .heapprofile to EXAMCTL_BENCH_ALLOC_FILE. Bytes allocated do not move with the machine's load.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { isMainThread } from 'node:worker_threads';

const target = process.env.EXAMCTL_BENCH_ALLOC_FILE;
if (target && isMainThread) {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  // The inspector answers synchronously in the exit handler: the profile is written before the process ends.
  process.on('exit', () =>
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (error === null) writeFileSync(target, JSON.stringify(result.profile));
    }),
  );
}
