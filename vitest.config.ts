import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/** Test files that change process-wide state (test/support/own-process.test.ts finds them): one process each. */
export const OWN_PROCESS = [
  'test/e2e/startup-modules.test.ts',
  'test/input/json-scan.test.ts',
  'test/human/progress.test.ts',
  'test/human/prompts.test.ts',
  'test/platform/export-full-disk.test.ts',
  'test/platform/home.test.ts',
  'test/platform/report-full-disk.test.ts',
  'test/platform/report-held-open.test.ts',
  'test/platform/windows-paths.test.ts',
  'test/remote/hostile-server.test.ts',
  'test/remote/http-pool.test.ts',
  'test/remote/proxy.test.ts',
  'test/runs/journal-group-commit.test.ts',
  'test/store/create-store-busy.test.ts',
  'test/store/failed-append.test.ts',
  'test/store/file-store.test.ts',
  'test/store/lock-lease.test.ts',
  'test/store/lock-portable.test.ts',
  'test/sync/digest-when-needed.test.ts',
  'test/sync/full-disk-start.test.ts',
  'test/sync/memory-restart.test.ts',
  'test/sync/memory-torn-cut.test.ts',
  'test/sync/moved-store-sync-dir.test.ts',
  'test/sync/no-hard-links.test.ts',
];

/**
 * The slow tier (`npm run test:slow`, also in `.ci/run`): durability and kill loops, multi-night
 * syncs, scale, the packaged executable and end-to-end runs of the binary as other programs see it.
 * Chosen by their own times in one run of the whole suite (bench/README.md, "Two tiers"); the
 * commands and rules they touch are also covered by files of the fast tier.
 */
export const SLOW = [
  'test/cli/input-changed-run.test.ts',
  'test/cli/review-session-stream.test.ts',
  'test/durability/chosen-id.test.ts',
  'test/durability/cli-durability.test.ts',
  'test/durability/resent-unchanged.test.ts',
  'test/durability/run-resume.test.ts',
  'test/durability/sent-ahead.test.ts',
  'test/e2e/cli.test.ts',
  'test/e2e/special-files.test.ts',
  'test/e2e/startup-modules.test.ts',
  'test/e2e/two-users.test.ts',
  'test/package/executable-program.test.ts',
  'test/package/executable.test.ts',
  'test/package/package-install.test.ts',
  'test/platform/export-full-disk.test.ts',
  'test/platform/report-full-disk.test.ts',
  // Its first launch unpacks Chromium (about 14 s).
  'test/report/html-report-browser.test.ts',
  'test/runs/damaged-resume.test.ts',
  'test/runs/resume.test.ts',
  'test/runs/views-reconcile.test.ts',
  'test/store/processes.test.ts',
  'test/sync/changed-only-journal.test.ts',
  'test/sync/cut-short.test.ts',
  'test/sync/fifteen-nights.test.ts',
  'test/sync/lost-memory.test.ts',
  'test/sync/memory-recovery.test.ts',
  'test/sync/movers.test.ts',
  'test/sync/nightly-sync.test.ts',
  'test/sync/older-run-rows.test.ts',
  'test/sync/populations.test.ts',
  'test/sync/refused-collection.test.ts',
  'test/sync/resume-recorded-leavers.test.ts',
  'test/sync/resumed-retry.test.ts',
  'test/sync/served-store-drift.test.ts',
  'test/sync/state-service-stores.test.ts',
  'test/sync/state-service.test.ts',
  'test/xlsx/xlsx-limits.test.ts',
];

const ownProcess = (file: string): boolean => OWN_PROCESS.includes(file);
const fast = (files: readonly string[]): string[] => files.filter((file) => !SLOW.includes(file));

export default defineConfig({
  test: {
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
    // Each file in a fresh process costs ~0.15 s of CPU to start vitest and import src/ again:
    // files share their fork, one after another, except those that change what the process
    // holds (module mocks, fake timers, spies, process.env, handlers on process), which keep one
    // of their own. Every file still imports its own copy of itself and its setup files.
    // Two tiers (docs/architecture.md, "Tests"): `npm test` runs the fast projects, `npm run
    // test:slow` the slow ones (SLOW), `.ci/run` both; a bare `npx vitest run <files>` any file.
    projects: [
      {
        extends: true,
        test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: [...OWN_PROCESS, ...SLOW], isolate: false },
      },
      { extends: true, test: { name: 'own-process', include: fast(OWN_PROCESS), isolate: true } },
      { extends: true, test: { name: 'slow', include: SLOW, exclude: OWN_PROCESS, isolate: false } },
      { extends: true, test: { name: 'slow-own-process', include: SLOW.filter(ownProcess), isolate: true } },
    ],
  },
});
