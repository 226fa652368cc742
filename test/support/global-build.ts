import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
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

/** True when dist/ is missing or older than any file of src/. */
function distIsStale(): boolean {
  const built = existsSync(DIST_MAIN) ? statSync(DIST_MAIN).mtimeMs : 0;
  return built === 0 || newestMtime(join(ROOT, 'src'), '.ts') > built;
}

/**
 * Vitest global setup, the one place tests build: before any test file starts (so also in a lone
 * `npx vitest run test/x` after an edit), dist/ is rebuilt when src/ is newer, and every test
 * that spawns bin/examctl runs the current code. Test files never build (test/support/cli.ts).
 */
export default function setup(): void {
  if (!distIsStale()) return;
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
}
