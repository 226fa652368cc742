import { CLOSED_PIPE, ExitCode } from '../errors.js';
import type { TextSink } from '../report/text-sink.js';
import type { CommandDeps } from './context.js';
import { runCli } from './program.js';

/** The process entry point: the only place that calls process.exit. */
const interrupt = new AbortController();
let closedPipe = false;

const onInterrupt = (): void => {
  // A second Ctrl-C (or SIGTERM) means "now": leave without waiting for in-flight work.
  if (interrupt.signal.aborted) process.exit(ExitCode.Interrupted);
  if (!closedPipe) process.stderr.write('\ninterrupted: finishing what is in flight, then writing the report (Ctrl-C again to quit now)\n');
  interrupt.abort();
};
process.on('SIGINT', onInterrupt);
// SIGTERM (a service manager, `kill`, a CI cancel) stops as gracefully as Ctrl-C: `local serve` drains, a run reports.
process.on('SIGTERM', onInterrupt);
// SIGHUP (the terminal or ssh session went away) too: by default it would kill the run without a
// report or an end line. Its writes to the lost terminal then fail with EIO, dropped like EPIPE.
process.on('SIGHUP', onInterrupt);

/**
 * A reader that went away (`examctl ... --json | head`, a closed terminal) is handled like
 * Ctrl-C: stop dispatching, finish what is in flight, journal it, write the --report file, and
 * exit 141 (docs/runs.md). Later writes to either stream are dropped, never awaited.
 */
function onClosed(stream: NodeJS.WriteStream) {
  return (error: NodeJS.ErrnoException): void => {
    if (error.code !== 'EPIPE' && error.code !== 'EIO' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
    closedPipe = true;
    stream.destroy();
    if (!interrupt.signal.aborted) interrupt.abort(CLOSED_PIPE);
  };
}
process.stdout.on('error', onClosed(process.stdout));
process.stderr.on('error', onClosed(process.stderr));

function pipeSink(stream: NodeJS.WriteStream): TextSink {
  return {
    write(text: string): void | Promise<void> {
      if (closedPipe || stream.destroyed) return;
      if (stream.write(text)) return;
      // A pipe that closes while full never drains: its error or close ends the wait too.
      return new Promise<void>((resolve) => {
        const done = (): void => {
          stream.off('drain', done);
          stream.off('close', done);
          stream.off('error', done);
          resolve();
        };
        stream.on('drain', done);
        stream.on('close', done);
        stream.on('error', done);
      });
    },
  };
}

const deps: CommandDeps = {
  stdout: pipeSink(process.stdout),
  stderr: pipeSink(process.stderr),
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

let code = await runCli(process.argv.slice(2), deps);
// Output was lost: whatever the command concluded, its reader did not get it all.
if (closedPipe && (code === ExitCode.Ok || code === ExitCode.RecordsFailed)) code = ExitCode.ClosedPipe;
if (closedPipe || process.stdout.destroyed) process.exit(code);
// Let stdout drain (a pipe to a slow reader) before leaving.
process.stdout.write('', () => process.exit(code));
