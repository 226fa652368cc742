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
    // Journaled runs of in-process tests write under a private HOME, never the real one.
    setupFiles: ['test/support/private-home.ts'],
    // Spawned CLIs run dist/: rebuilt once here when src/ is newer, so no test runs stale code.
    globalSetup: ['test/support/global-build.ts'],
  },
});
