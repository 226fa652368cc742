import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { childEnv } from './child-env.js';

/** Running the built CLI (bin/examctl over dist/) as a user would, for every test that spawns it. */

export const ROOT = resolve(__dirname, '../..');
export const BIN = join(ROOT, 'bin/examctl');
export const DIST_MAIN = join(ROOT, 'dist/cli/main.js');
/** The engine clock of spawned runs, so schedule rules ("activated", "finished") do not drift with the date. */
export const PINNED_NOW = '2026-11-21T10:00:00Z';

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  child: ChildProcess;
  /** Everything written to stdout so far (grows while the process runs). */
  stdout(): string;
  done: Promise<Finished>;
}

/** The newest modification time under `dir` (ms), over files ending in `suffix`. */
function newestMtime(dir: string, suffix: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(suffix)) continue;
    newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/**
 * Builds dist/ when it is missing or older than any file of src/, so that a test spawning the
 * CLI always runs the current code, also in a lone `vitest run` after an edit. The suite's global
 * setup (test/support/global-build.ts) calls it once before any worker starts; the calls in test
 * files then find dist/ current and cost one walk of src/.
 */
export function ensureBuilt(): void {
  const built = existsSync(DIST_MAIN) ? statSync(DIST_MAIN).mtimeMs : 0;
  if (built > 0 && newestMtime(join(ROOT, 'src'), '.ts') <= built) return;
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
}

/**
 * Spawns `node argv...` in `cwd` with a private HOME and config dir, the engine clock pinned,
 * nothing else of the parent's environment (no TTY, CI unset: no prompts, no spinners, the
 * normal human summary). stdout and stderr are collected without a size cap.
 */
export function startNode(argv: readonly string[], cwd: string, env: Record<string, string> = {}): Running {
  const child = spawn(process.execPath, [...argv], {
    cwd,
    env: { ...childEnv(cwd), EXAMCTL_NOW: PINNED_NOW, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: string[] = [];
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => out.push(chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const done = new Promise<Finished>((resolveDone) =>
    child.on('close', (code, signal) => resolveDone({ code, signal, stdout: out.join(''), stderr: err })),
  );
  return { child, stdout: () => out.join(''), done };
}

/** Starts `examctl args...` (see startNode); the caller may signal or kill it while it runs. */
export function startExamctl(args: readonly string[], cwd: string, env: Record<string, string> = {}): Running {
  return startNode([BIN, ...args], cwd, env);
}

/** Runs `examctl args...` to the end (see startNode). */
export function examctl(args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<Finished> {
  return startExamctl(args, cwd, env).done;
}
