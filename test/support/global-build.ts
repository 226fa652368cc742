import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { DIST_MAIN, ROOT } from './cli.js';

/** The newest modification time under `dir` (ms), over files ending in `suffix`. */
function newestMtime(dir: string, suffix: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(suffix)) continue;
    newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** What bin/examctl runs: the bundle of src/ (scripts/build-bundle.mjs), built after dist/'s modules. */
const BUNDLE_MAIN = join(ROOT, 'dist/bundle/examctl.mjs');
const BUNDLE_SCRIPT = join(ROOT, 'scripts/build-bundle.mjs');
const DIST_SCRIPT = join(ROOT, 'scripts/build-dist.mjs');

/** True when dist/ or the bundle is missing, or older than any file of src/ or the build's scripts. */
function distIsStale(): boolean {
  const built = Math.min(...[DIST_MAIN, BUNDLE_MAIN].map((file) => (existsSync(file) ? statSync(file).mtimeMs : 0)));
  return (
    built === 0 ||
    Math.max(newestMtime(join(ROOT, 'src'), '.ts'), statSync(BUNDLE_SCRIPT).mtimeMs, statSync(DIST_SCRIPT).mtimeMs) >
      built
  );
}

/**
 * Vitest global setup, the one place tests build: before any test file starts (so also in a lone
 * `npx vitest run test/x` after an edit), dist/ and the bundle bin/examctl runs are rebuilt as
 * `npm run build` does when src/ is newer, and every test that spawns bin/examctl runs the current
 * code. Test files never build (test/support/cli.ts).
 */
export default function setup(project: TestProject): () => void {
  if (distIsStale())
    for (const script of [DIST_SCRIPT, BUNDLE_SCRIPT]) execFileSync(process.execPath, [script], { stdio: 'inherit' });
  // The private HOMEs of test files (test/support/private-home.ts), removed when the run ends.
  const homes = mkdtempSync(join(tmpdir(), 'examctl-test-homes-'));
  project.provide('homes', homes);
  return () => rmSync(homes, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    homes: string;
  }
}
