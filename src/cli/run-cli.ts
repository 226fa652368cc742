import { rememberSecret } from '../domain/known-secrets.js';
import { stopJsonParsesOn } from '../system/json-scan.js';
import { CommanderError, type Command } from 'commander';
import { codedMessage, ExamctlError, ExitCode, messageOf, UsageError } from '../system/errors.js';
import { commanderWords, terminalLines, terminalStdout } from '../formats/terminal-text.js';
import { buildProgram } from './command-tree.js';
import { textOnlyError } from '../flags/output-flags.js';
import { pathOf } from './command-help.js';
import { COMMAND_BEHAVIOURS, COMMANDS } from './program.js';
import { printJson, type CommandDeps } from '../context/command-deps.js';
import type { ExamctlConfig } from '../context/config-file.js';

/**
 * Runs examctl on argv and returns the exit code: typed errors as `examctl: <code>: <message>` with their exit
 * code, commander usage errors as 2, anything else as an internal error (70), its stack only with --debug.
 */
export async function runCli(argv: readonly string[], deps: CommandDeps): Promise<number> {
  // The secrets the environment shows examctl, whatever the command: never quoted from an input file.
  rememberSecret(deps.env.EXAMCTL_TOKEN);
  rememberSecret(deps.env.EXAMCTL_SYNC_PASSWORD);
  // Ctrl-C stops a long JSON text being read, whatever reads it (system/json-scan.ts); a rehearsal marks its pieces.
  const rehearsal = deps.env.EXAMCTL_TEST_SIGNAL_AFTER;
  const { testSignalFrom } = rehearsal?.startsWith('parse:') ? await import('../pipeline/run-journaling.js') : {};
  const parseMarker = testSignalFrom?.(deps.env);
  stopJsonParsesOn(deps.signal, parseMarker === undefined ? undefined : () => parseMarker.counted('parse'));
  // The table of variables is loaded only where one of examctl's prefix is set.
  if (Object.keys(deps.env).some((name) => name.startsWith('EXAMCTL_'))) {
    const { misspelledVariables } = await import('./environment-variables.js');
    for (const note of misspelledVariables(deps.env)) await deps.stderr.write(`${note}\n`);
  }
  let exitCode: number = ExitCode.Ok;
  // With --json stdout is one document also when the run fails: the error document, unless the
  // run already wrote its report there (which then says why it stopped).
  let stdoutWritten = false;
  const outer = deps.stdoutIsTTY === true ? { ...deps, stdout: terminalStdout(deps.stdout) } : deps;
  // The config file is read once per run, when a setting is first asked for (never for help or a refusal of argv).
  let config: Promise<ExamctlConfig> | undefined;
  const { env } = deps;
  deps = {
    ...deps,
    config:
      deps.config ?? (() => (config ??= import('../context/config-file.js').then((file) => file.loadConfig(env)))),
    stdout: { write: (text: string) => ((stdoutWritten ||= text !== ''), outer.stdout.write(text)) },
  };
  const wantsJson = jsonRequested(argv);
  const failWith = async (error: unknown, code: number): Promise<number> => {
    if (wantsJson && !stdoutWritten && code !== ExitCode.Ok) {
      const { runErrorJson } = await import('../report/error-document.js');
      await printJson(outer, { error: runErrorJson(error) });
    }
    return code;
  };
  const program = buildProgram(
    deps,
    (code) => {
      exitCode = code;
    },
    COMMANDS,
    COMMAND_BEHAVIOURS,
    true,
  );
  // The command commander entered last: the one whose subcommand is missing when it shows help instead.
  let entered: Command = program;
  program.hook('preSubcommand', (_program, command) => void (entered = command));
  const debug = argv.includes('--debug');
  // Help and the version are text: with --json or -o a script would parse it as the document.
  const textFlag = argv.find((arg) => arg === '-h' || arg === '--help' || arg === '-V' || arg === '--version');
  if (textFlag !== undefined && outputRequested(argv)) {
    const refusal = textOnlyError('--json or -o', textFlag);
    await deps.stderr.write(`examctl: ${codedMessage(refusal)}\n`);
    return failWith(refusal, ExitCode.Usage);
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help or version asked for: 0; a group without its subcommand (`examctl user`) shows help: a usage error.
      if (error.exitCode === 0) return ExitCode.Ok;
      const message = error.code === 'commander.help' ? missingCommandMessage(entered) : commanderWords(error.message);
      return failWith(
        new UsageError(message, { code: error.code === 'commander.help' ? 'E2002' : 'E2001' }),
        ExitCode.Usage,
      );
    }
    if (error instanceof ExamctlError) {
      // A message can quote the input (a column name, a path) or the service: made inert for the terminal.
      await deps.stderr.write(`examctl: ${codedMessage(error, terminalLines(error.message))}\n`);
      // A stack's first line is the message again: through the same gate.
      if (debug && error.stack) await deps.stderr.write(`${terminalLines(error.stack)}\n`);
      return failWith(error, error.exitCode);
    }
    // A system error that escaped its command (ENOENT, EACCES...) is said in words, with its code for a search.
    const { systemErrorCode, describeSystemError } = await import('../system/system-error-words.js');
    const message = systemErrorCode(error) !== undefined ? describeSystemError(error) : messageOf(error);
    await deps.stderr.write(
      `examctl: E7001: internal error: ${terminalLines(message)}${debug ? '' : ' (run with --debug for details)'}\n`,
    );
    if (debug && error instanceof Error && error.stack) await deps.stderr.write(`${terminalLines(error.stack)}\n`);
    return failWith(error, ExitCode.Internal);
  }
}

/** Commander's help-instead-of-a-command error says only "(outputHelp)": name the group whose command is missing. */
function missingCommandMessage(command: Command): string {
  const path = ['examctl', pathOf(command)].filter((word) => word !== '');
  const names = command.commands.map((sub) => sub.name()).filter((name) => name !== 'help');
  return `missing command: ${path.join(' ')} <command>, one of ${names.join(', ')} (${path.join(' ')} --help says more)`;
}

/** --json, or -o / --output with any format, anywhere in argv. */
function outputRequested(argv: readonly string[]): boolean {
  return argv.some(
    (arg) =>
      arg === '--json' ||
      arg === '-o' ||
      arg === '--output' ||
      arg.startsWith('--output=') ||
      (arg.startsWith('-o') && arg.length > 2 && !arg.startsWith('--')),
  );
}

/** --json, -o json, --output json or --output=json anywhere in argv. */
function jsonRequested(argv: readonly string[]): boolean {
  return argv.some(
    (arg, index) =>
      arg === '--json' ||
      arg === '--output=json' ||
      arg === '-ojson' ||
      ((arg === '-o' || arg === '--output') && argv[index + 1] === 'json'),
  );
}
