import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { join, resolve } from 'node:path';
import { childEnv } from './child-env.js';

/**
 * Running the built CLI (bin/examctl over the bundle dist/bundle/) as a user would, for every test that spawns it.
 * It and dist/ are brought up to date once per `vitest run`, before any test file starts, by the global
 * setup (test/support/global-build.ts); a test file never builds, so an edit made while tests run
 * cannot make a file's hook rebuild from a half-edited tree.
 */

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

/** Waits until `run` stopped itself (EXAMCTL_TEST_SIGNAL_AFTER=...:SIGSTOP): a state it reaches, read from Linux's /proc (bounded poll). */
export async function untilStopped(run: Running): Promise<void> {
  for (
    let i = 0;
    i < 6000 && !/\) T /.test(await readFile(`/proc/${run.child.pid}/stat`, 'utf8').catch(() => ''));
    i += 1
  )
    await sleep(10);
}
