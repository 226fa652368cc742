import { join } from 'node:path';
import { expect } from 'vitest';
import { abortableSleep } from '../../src/api/flow-control.js';
import { runCli } from '../../src/cli/run-cli.js';
import { StringSink } from './string-sink.js';
import { parseFaultSpec, serveLocalStore } from '../../src/server/index.js';
import type { LocalServer } from '../../src/server/serve-local.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `local serve` over a fresh demo-world store in `dir`, with `--faults SPEC --faults-seed seed`. */
export function serveWithFaults(dir: string, spec: string, seed: number, log: string[]): Promise<LocalServer> {
  return serveLocalStore({
    storeDir: join(dir, 'served-store'),
    port: 0,
    now: () => new Date('2026-11-21T10:00:00Z'),
    log: (line) => log.push(line),
    faults: { spec: parseFaultSpec(spec), seed },
  });
}

/**
 * examctl itself, in-process, as a CI job would run it against the served URL. Its retries wait
 * no time (the server's Retry-After: 1 and the 500 ms backoff made these files the suite's
 * slowest): how long a retry waits is test/api's subject, what a retried run records is theirs.
 */
export async function examctl(dir: string, argv: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const stdout = new StringSink();
  const stderr = new StringSink();
  const code = await runCli(argv, {
    stdout,
    stderr,
    env: { EXAMCTL_NOW: '2026-11-21T10:00:00Z', EXAMCTL_CONFIG_DIR: join(dir, '.config'), ...env },
    now: () => new Date('2026-11-21T10:00:00Z'),
    isTTY: false,
    cwd: dir,
    retrySleep: (_ms, signal) => abortableSleep(0, signal),
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/**
 * Finishes a run that a fault ended with exit 3 (a request that met a fault on every attempt) the
 * way a CI job would, with `runs resume`, at most five times; returns the last attempt's result.
 */
export async function resumeUntilDone(dir: string, first: CliResult, env: Record<string, string>): Promise<CliResult> {
  let run = first;
  for (let resumes = 0; run.code === 3 && resumes < 5; resumes++) {
    expect(run.stderr).toMatch(/failed after \d+ attempts/);
    // The first run named its --base-url on the command line, which nothing configures now.
    run = await examctl(dir, ['--yes', '--no-input', '--json', 'runs', 'resume', '--target-from-run'], env);
  }
  return run;
}
