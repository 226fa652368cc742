import { streamSink } from '../report/text-sink.js';
import type { CommandDeps } from './context.js';
import { runCli } from './program.js';

/** The process entry point: the only place that calls process.exit. */
const interrupt = new AbortController();
const onInterrupt = (): void => {
  // A second Ctrl-C means "now": leave without waiting for in-flight work.
  if (interrupt.signal.aborted) process.exit(130);
  process.stderr.write('\ninterrupted: finishing what is in flight, then writing the report (Ctrl-C again to quit now)\n');
  interrupt.abort();
};
process.on('SIGINT', onInterrupt);
// SIGTERM (a service manager, `kill`) stops as gracefully as Ctrl-C: `local serve` drains, a run reports.
process.on('SIGTERM', onInterrupt);

// A reader that went away (`examctl ... --json | head`) is not an error of ours: stop quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

const deps: CommandDeps = {
  stdout: streamSink(process.stdout),
  stderr: streamSink(process.stderr),
  env: process.env,
  now: () => new Date(),
  isTTY: Boolean(process.stdin.isTTY && process.stderr.isTTY),
  stdoutIsTTY: Boolean(process.stdout.isTTY),
  stdoutColumns: process.stdout.isTTY ? process.stdout.columns : undefined,
  stdoutBytes: process.stdout,
  cwd: process.cwd(),
  signal: interrupt.signal,
  progressStream: process.stderr,
  stdin: process.stdin,
};

const code = await runCli(process.argv.slice(2), deps);
// Let stdout drain (a pipe to a slow reader) before leaving.
process.stdout.write('', () => process.exit(code));
