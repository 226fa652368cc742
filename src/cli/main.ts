import { CLOSED_PIPE, ExitCode } from '../system/errors.js';
import type { ErrorCodeId } from '../system/error-codes.js';
import type { TextSink } from '../system/text-sink.js';
import type { CommandDeps } from '../context/command-deps.js';
import { removeOpenTempsSync } from '../system/open-temp-files.js';
import { drainedOrGone } from '../system/drained-or-gone.js';
import { openPrompt } from '../terminal/prompt-state.js';
import { INTERRUPT_SIGNALS, endBound } from './interrupt-signals.js';
import { interruptNotice } from '../terminal/interrupt-notice.js';
import { describeSystemError } from '../system/system-error-words.js';
import { VERSION_LINE } from '../version.js';

// Certificates are checked anyway (api/http-pool.ts): Node's warning would be false.
delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
/** The process entry point: the only place that calls process.exit. */
const interrupt = new AbortController();
/** Streams whose writes failed: later writes to them are dropped; any at all ends the run as an interrupt (141). */
const lostStreams = new Set<NodeJS.WriteStream>();

const onInterrupt = (): void => {
  // A second Ctrl-C (or SIGTERM) means "now": leave without waiting for in-flight work, but
  // without leaving a half-written report's temp file beside it.
  if (interrupt.signal.aborted) {
    removeOpenTempsSync();
    process.exit(ExitCode.Interrupted);
  }
  if (!lostStreams.has(process.stderr)) process.stderr.write(`\n${interruptNotice()}\n`);
  const bound = endBound(process.env.EXAMCTL_STOP_GRACE_MS);
  setTimeout(() => (void deps.stderr.write(bound.why), onInterrupt()), bound.ms).unref();
  interrupt.abort();
};
for (const signal of INTERRUPT_SIGNALS) process.on(signal, onInterrupt);

/** A reader that went away: nothing to tell; any other failure (ENOSPC on a redirected file) is said on the other. */
const READER_GONE = new Set(['EPIPE', 'EIO', 'ERR_STREAM_DESTROYED']);
/** The code of that line: output closed under the run, a full disk among its causes (error-codes.ts). */
const OUTPUT_LOST: ErrorCodeId = 'E1410';

/** Output that cannot be written ends as Ctrl-C does, exit 141 (docs/runs.md, "Honest ends"). */
function onWriteError(stream: NodeJS.WriteStream, name: string) {
  return (error: NodeJS.ErrnoException): void => {
    if (lostStreams.has(stream)) return;
    lostStreams.add(stream);
    // Also if the process ends by itself, with nothing left to do, before runCli returns.
    process.exitCode = ExitCode.ClosedPipe;
    stream.destroy();
    const other = stream === process.stdout ? process.stderr : process.stdout;
    if (!READER_GONE.has(error.code ?? '') && other === process.stderr && !lostStreams.has(other)) {
      other.write(
        `examctl: ${OUTPUT_LOST}: cannot write ${name}: ${describeSystemError(error)}; stopping as for Ctrl-C\n`,
      );
    }
    if (!interrupt.signal.aborted) interrupt.abort(CLOSED_PIPE);
  };
}
process.stdout.on('error', onWriteError(process.stdout, 'standard output'));
process.stderr.on('error', onWriteError(process.stderr, 'standard error'));

function pipeSink(stream: NodeJS.WriteStream): TextSink {
  return {
    write(text: string): void | Promise<void> {
      if (lostStreams.has(stream) || stream.destroyed) return;
      if (stream.write(text)) return;
      return drainedOrGone(stream);
    },
  };
}

const deps: CommandDeps = {
  stdout: pipeSink(process.stdout),
  stderr: pipeSink(process.stderr),
  env: process.env,
  now: () => new Date(),
  // Not process.stdin: making that stream costs every start ~1.5 ms; `--file -` and `login --with-token` take it when
  // they read.
  isTTY: Boolean(process.stderr.isTTY && process.getBuiltinModule('node:tty').isatty(0)),
  stdoutIsTTY: Boolean(process.stdout.isTTY),
  stdoutColumns: process.stdout.isTTY ? process.stdout.columns : undefined,
  stdoutBytes: process.stdout,
  cwd: workingDirectory(),
  signal: interrupt.signal,
  progressStream: process.stderr,
};

/** '' for a removed working directory: every command refuses (command-tree.ts); help and --version answer. */
function workingDirectory(): string {
  try {
    return process.cwd();
  } catch {
    return '';
  }
}

// The process ending by itself before runCli returned: it was left waiting for something that
// can no longer come. At a prompt that is its input ending (Ctrl-D): an interrupt, in the prompt's words.
let returned = false;
process.on('beforeExit', () => {
  if (returned || lostStreams.size > 0) return;
  const atPrompt = openPrompt();
  if (!lostStreams.has(process.stderr)) {
    process.stderr.write(
      atPrompt
        ? `\nexamctl: E1302: interrupted at ${atPrompt.at} (its input ended): ${atPrompt.outcome}\n`
        : 'examctl: E7000: internal error: the command stopped before it ended (run with --debug for details)\n',
    );
  }
  // Left now: the prompt library rejects on exit, and its interrupt would be said a second time.
  process.exit(atPrompt ? ExitCode.Interrupted : ExitCode.Internal);
});

/**
 * Runs the command and leaves with its code (no top-level await: the code-cached bundle is a CommonJS script,
 * scripts/build-bundle.mjs).
 */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  // `examctl --version` alone needs no command tree: answered before loading it.
  const code =
    argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')
      ? await printVersion()
      : await (await import('./run-cli.js')).runCli(argv, deps);
  returned = true;
  // Output was lost: its reader did not get it all. Asked again once stdout drained: a failure of its last writes (a
  // workbook streamed to a full disk) is known only then.
  const exitCode = (): number =>
    lostStreams.size > 0 && (code === ExitCode.Ok || code === ExitCode.RecordsFailed) ? ExitCode.ClosedPipe : code;
  if (lostStreams.size > 0 || process.stdout.destroyed) process.exit(exitCode());
  // Let stdout drain (a pipe to a slow reader) before leaving; its error event, if any, comes first.
  process.stdout.write('', () => setImmediate(() => process.exit(exitCode())));
}

async function printVersion(): Promise<number> {
  await deps.stdout.write(`${VERSION_LINE}\n`);
  return ExitCode.Ok;
}
void main();
