import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A timeout catches a hang, never a slow machine: no test waits on time, and under load
    // (two suites on two cores) the heaviest whole-run tests take tens of seconds.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Child-process tests (kill -9, concurrent writers, e2e) need the built dist/ from `prepare`.
    pool: 'forks',
    // Most files wait on what they spawn (CLIs, servers) and on fsyncs, not on their own CPU:
    // vitest's default (one fork per core but one) runs a 2-core machine's suite one file at a
    // time, with half of the CPU idle. Three forks there halve the suite's time (bench/README.md, "CI").
    maxWorkers: Math.max(3, availableParallelism()),
    // Journaled runs of in-process tests write under a private HOME, never the real one.
    setupFiles: ['test/support/private-home.ts'],
    // Spawned CLIs run dist/: rebuilt once here when src/ is newer, so no test runs stale code.
    globalSetup: ['test/support/global-build.ts'],
  },
});
