import { Command, CommanderError, Help, type Option } from 'commander';
import { EXAMCTL_VERSION } from '../version.js';
import { ExamctlError, ExitCode, UsageError } from '../errors.js';
import { COLLECTION_ADD } from './commands/collection-add.options.js';
import { COMPLETION } from './commands/completion.options.js';
import { CONFIG_LIST, CONFIG_REMOVE, CONFIG_SET_PROFILE, CONFIG_SHOW, CONFIG_USE } from './commands/config.options.js';
import { DOCTOR } from './commands/doctor.options.js';
import { INVIGILATORS_REMOVE } from './commands/invigilators-remove.options.js';
import { LOCAL_EXPORT } from './commands/local-export.options.js';
import { LOCAL_INIT } from './commands/local-init.options.js';
import { LOCAL_SERVE } from './commands/local-serve.options.js';
import { LOGIN } from './commands/login.options.js';
import { REVIEW_SESSION_SHOW } from './commands/review-session-show.options.js';
import { RUNS_LIST, RUNS_PRUNE, RUNS_RESUME, RUNS_SHOW } from './commands/runs.options.js';
import { SCHEDULE_LINKS } from './commands/schedule-links.options.js';
import { SCHEDULE_PUSH } from './commands/schedule-push.options.js';
import { SCHEMA } from './commands/schema.options.js';
import { SYNCED_FORGET, SYNCED_SHOW } from './commands/synced.options.js';
import { TEMPLATE } from './commands/template.options.js';
import { USER_SYNC } from './commands/user-sync.options.js';
import type { CommandDeps } from './context.js';
import { GLOBAL_OPTIONS, type GlobalOptions } from './global-options.js';
import { argumentKeys, declareGroup, examples, registerSpecs, type CommandDeclaration } from './option-table.js';
import { resolveOutputFlags } from './output-flags.js';
import { sentenceLines } from './sentence-wrap.js';
import { terminalLine, terminalLines } from '../report/terminal-text.js';

/**
 * The `examctl` command tree: the registry of the command declarations (each in its
 * `commands/<command>.options.ts`: flags, purpose, examples and a lazily loaded behaviour, so
 * that `examctl --help` loads neither undici, nor zod schemas, nor the engine), plus the wiring
 * every command shares: global flags, help layout, stdin/pipe spooling and the exit code.
 * Adding a command: declare it in its file, list it here (help and completion order). A group
 * (`examctl user`) is declared here: a purpose and examples, no flags, no behaviour.
 */
export const COMMANDS: readonly CommandDeclaration[] = [
  declareGroup({
    name: 'schedule',
    description: 'schedules and their candidates',
    examples: ['examctl schedule push --file sittings.csv --dry-run', 'examctl schedule push --help'],
  }),
  SCHEDULE_PUSH,
  SCHEDULE_LINKS,
  declareGroup({ name: 'user', description: 'platform users', examples: ['examctl user sync --file users.csv --dry-run', 'examctl user sync --help'] }),
  USER_SYNC,
  declareGroup({
    name: 'collection',
    description: 'collections of taxonomies and objective repositories',
    examples: ['examctl collection add --title "Physics 2027" --taxonomy TX-BLOOM', 'examctl collection add --help'],
  }),
  COLLECTION_ADD,
  declareGroup({
    name: 'invigilators',
    description: 'invigilators of a schedule',
    examples: ['examctl invigilators remove S-FUTURE inv-2', 'examctl invigilators remove --help'],
  }),
  INVIGILATORS_REMOVE,
  TEMPLATE,
  SCHEMA,
  declareGroup({
    name: 'review-session',
    description: 'review sessions (read only)',
    examples: ['examctl review-session show RS-MATH1-OCT', 'examctl review-session show --help'],
  }),
  REVIEW_SESSION_SHOW,
  declareGroup({ name: 'local', description: 'the local engine and its store', examples: ['examctl local init', 'examctl local export > world.json'] }),
  LOCAL_INIT,
  LOCAL_EXPORT,
  LOCAL_SERVE,
  DOCTOR,
  declareGroup({
    name: 'config',
    description: 'profiles of remote targets in the config file (never shows a token)',
    examples: ['examctl config set-profile prod --base-url https://exam.example.com', 'examctl config list'],
  }),
  CONFIG_SET_PROFILE,
  CONFIG_LIST,
  CONFIG_REMOVE,
  CONFIG_USE,
  CONFIG_SHOW,
  declareGroup({
    name: 'runs',
    description: "journaled runs: list them, show one's report, resume one that was killed or stopped (docs/runs.md)",
    examples: ['examctl runs list', 'examctl runs resume', 'examctl runs show last --json'],
  }),
  RUNS_LIST,
  RUNS_SHOW,
  RUNS_RESUME,
  RUNS_PRUNE,
  declareGroup({
    name: 'synced',
    description: 'the sync memory: what examctl last sent each target, which --changed-only and --disable-missing read (docs/sync.md)',
    examples: ['examctl synced show', 'examctl synced forget --target local --store ./store'],
  }),
  SYNCED_SHOW,
  SYNCED_FORGET,
  LOGIN,
  COMPLETION,
];

export type { CommandRun } from './option-table.js';

/** Builds the program from `commands` (tests pass declarations whose behaviour they replace); `setExit` receives each command's exit code. */
export function buildProgram(deps: CommandDeps, setExit: (code: number) => void, commands: readonly CommandDeclaration[] = COMMANDS): Command {
  const program = new Command('examctl');
  program
    .description('Provision an online assessment platform in bulk: schedules, users, collections, invigilators, review sessions.')
    .version(EXAMCTL_VERSION, '-V, --version', 'print the examctl version')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void deps.stdout.write(text),
      writeErr: (text) => void deps.stderr.write(text),
      outputError: (text, write) => write(`examctl: ${text.replace(/^error: /, '')}`),
    })
    .showSuggestionAfterError()
    // A subcommand's help lists its own flags and points at `examctl options` for the ~15 global
    // ones (kubectl's way): repeated in every help they buried the few flags that differ.
    .addHelpText('afterAll', ({ command }) => (command === program ? '' : `\n${GLOBAL_FLAGS_POINTER}`))
    .helpCommand(false)
    .configureHelp({
      boxWrap(this: Help, text: string, width: number): string {
        return Help.prototype.boxWrap.call(this, sentenceLines(text), width);
      },
    })
    .addHelpText(
      'after',
      examples(
        '# try it on a local store made from the demo world (nothing leaves this machine)',
        'examctl local init',
        'examctl user sync --file users.csv --dry-run',
        '# send, keep a per-row report, fix the failed rows in it, send only those again',
        'examctl user sync --file users.csv --report result.csv',
        'examctl user sync --file result.csv --only-failed --report retry.csv',
        '# the same against the real service, through a profile',
        'examctl --profile prod schedule push --file sittings.csv',
      ) +
        '\n\nEvery command has its own --help with examples, e.g. `examctl user sync --help`.' +
        '\n\nExit status: 0 all ok, 1 some record failed/partial/invalid, 2 usage or input file error (nothing sent),\n3 target unusable (403, network, store locked), 130 interrupted, 70 internal error.',
    );
  registerSpecs(program, GLOBAL_OPTIONS);

  /** Wires a declared command's flags and its lazily loaded `run` (a group has neither). */
  const register = (command: Command, { options: table, load }: CommandDeclaration): void => {
    if (table === undefined || load === undefined) return;
    registerSpecs(command, table);
    const keys = argumentKeys(table);
    command.action(async (...args: unknown[]) => {
      const self = args[args.length - 1] as Command;
      const merged = self.optsWithGlobals();
      const parsed: Record<string, unknown> = { ...merged, ...resolveOutputFlags(self, merged) };
      keys.forEach((key, index) => (parsed[key] = args[index]));
      // commander parsed exactly `table` and the global table: `declareCommand` typed `run` by them.
      const options = parsed as GlobalOptions;
      const [run, { targetOnce }] = await Promise.all([load(), import('./target.js')]);
      const piped = typeof parsed.file === 'string' && parsed.file !== '-' ? await (await import('./stdin-file.js')).pipePath(parsed.file, deps.cwd) : undefined;
      if (parsed.file !== '-' && piped === undefined) {
        setExit(await run(options as never, { ...deps, invocation: options }, targetOnce(options, deps)));
        return;
      }
      const { spoolPipe, spoolStdin } = await import('./stdin-file.js');
      const stdin =
        piped === undefined
          ? await spoolStdin(deps.stdin ?? process.stdin, deps.stdin === undefined && process.stdin.isTTY === true, deps.signal)
          : await spoolPipe(piped, deps.signal, () => void deps.stderr.write(terminalLine(`waiting for a writer on ${String(parsed.file)} (a named pipe; Ctrl-C to stop)`) + '\n'));
      try {
        // A pipe is read once, like stdin: its run is journaled as `--file -` (nothing to read again on resume).
        const withStdin = { ...deps, stdinFile: stdin.path, ...(piped === undefined ? {} : { pipedFile: parsed.file as string }), invocation: piped === undefined ? options : { ...options, file: '-' } };
        setExit(await run(options as never, withStdin, targetOnce(options, withStdin)));
      } finally {
        await stdin.remove();
      }
    });
  };

  for (const declaration of commands) {
    const [first, second] = declaration.path;
    const parent = second === undefined ? program : program.commands.find((candidate) => candidate.name() === first)!;
    const command = parent
      .command(second ?? first)
      .description(declaration.description)
      .addHelpText('after', examples(...declaration.examples));
    register(command, declaration);
  }

  program
    .command('options')
    .description('list the global flags, which every command takes')
    .addHelpText('after', examples('examctl options', 'examctl --dry-run --report result.csv user sync --file users.csv'))
    .action(async () => {
      await deps.stdout.write(globalOptionsHelp(program));
      setExit(ExitCode.Ok);
    });

  program
    .command('help')
    .argument('[command...]', 'a command (`user sync`) or a topic (`environment`)')
    .description('show the help of a command, or of a topic: `examctl help environment` lists the environment variables')
    .addHelpText('after', examples('examctl help user sync', 'examctl help environment'))
    .action(async (path: string[]) => {
      if (path.length === 1 && path[0] === 'environment') {
        setExit(await (await import('./commands/help-environment.js')).run({}, deps));
        return;
      }
      let command: Command = program;
      for (const name of path) {
        const sub = command.commands.find((candidate) => candidate.name() === name || candidate.aliases().includes(name));
        if (sub === undefined) throw new UsageError(`no help for "${path.join(' ')}": unknown command (examctl --help lists them; topics: environment)`);
        command = sub;
      }
      command.outputHelp();
      setExit(ExitCode.Ok);
    });

  return program;
}

/** The line every subcommand's help ends with. */
export const GLOBAL_FLAGS_POINTER = 'Global flags (--json, --dry-run, --report, --yes, --store...): examctl options';

/** `examctl options`: the program's own flags, formatted by commander's help as a command's flags are. */
function globalOptionsHelp(program: Command): string {
  const help = program.createHelp();
  const visible = help.visibleOptions(program);
  const width = Math.max(...visible.map((option) => help.optionTerm(option).length));
  const lines = visible.map((option) => help.formatItem(help.optionTerm(option), width, help.optionDescription(option), help));
  return `The following flags can be given to any command (before or after it):\n${lines.join('\n')}\n\nEnvironment variables: examctl help environment\n`;
}


/**
 * Runs examctl on argv (without node and script) and returns the exit code. Every error ends
 * here: typed errors as `examctl: <message>` with their code, commander usage errors as 2,
 * anything else as an internal error (70) whose stack shows only with --debug.
 */
export async function runCli(argv: readonly string[], deps: CommandDeps): Promise<number> {
  let exitCode: number = ExitCode.Ok;
  // With --json stdout is one document also when the run fails: the error document, unless the
  // run already wrote its report there (which then says why it stopped).
  let stdoutWritten = false;
  const outer = deps;
  deps = { ...deps, stdout: { write: (text: string) => ((stdoutWritten ||= text !== ''), outer.stdout.write(text)) } };
  const wantsJson = jsonRequested(argv);
  const failWith = async (error: unknown, code: number): Promise<number> => {
    if (wantsJson && !stdoutWritten && code !== ExitCode.Ok) {
      const { errorDocument } = await import('../report/error-document.js');
      await outer.stdout.write(`${JSON.stringify(errorDocument(error))}\n`);
    }
    return code;
  };
  const program = buildProgram(deps, (code) => {
    exitCode = code;
  });
  const debug = argv.includes('--debug');
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help or version asked for: 0. A command group without its subcommand (`examctl user`) shows help: a usage error.
      if (error.exitCode === 0) return ExitCode.Ok;
      const message = error.code === 'commander.help' ? missingCommandMessage(program, argv) : error.message.replace(/^error: /, '');
      return failWith(new UsageError(message), ExitCode.Usage);
    }
    if (error instanceof ExamctlError) {
      // A message can quote the input (a column name, a path) or the service: made inert for the terminal.
      await deps.stderr.write(`examctl: ${terminalLines(error.message)}\n`);
      // A stack's first line is the message again: through the same gate.
      if (debug && error.stack) await deps.stderr.write(`${terminalLines(error.stack)}\n`);
      return failWith(error, error.exitCode);
    }
    // A system error that escaped its command (ENOENT, EACCES...) is said in words, with its code for a search.
    const { systemErrorCode, describeSystemError } = await import('./system-error-words.js');
    const message = systemErrorCode(error) !== undefined ? describeSystemError(error) : error instanceof Error ? error.message : String(error);
    await deps.stderr.write(`examctl: internal error: ${terminalLines(message)}${debug ? '' : ' (run with --debug for details)'}\n`);
    if (debug && error instanceof Error && error.stack) await deps.stderr.write(`${terminalLines(error.stack)}\n`);
    return failWith(error, ExitCode.Internal);
  }
}

/**
 * Commander's help-instead-of-a-command error says only "(outputHelp)": name the group whose
 * command is missing, as a script reading the --json error document needs.
 */
function missingCommandMessage(program: Command, argv: readonly string[]): string {
  let command = program;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg.startsWith('-')) {
      // An option's value is not a command (`--store runs user`): skip it.
      const option = optionsInScope(command).find((candidate) => candidate.long === arg || candidate.short === arg);
      if (option !== undefined && (option.required || option.optional)) i += 1;
      continue;
    }
    const sub = command.commands.find((candidate) => candidate.name() === arg || candidate.aliases().includes(arg));
    if (sub !== undefined) command = sub;
  }
  const path = [];
  for (let at: Command | null = command; at !== null; at = at.parent) path.unshift(at.name());
  const names = command.commands.map((sub) => sub.name()).filter((name) => name !== 'help');
  return `missing command: ${path.join(' ')} <command>, one of ${names.join(', ')} (${path.join(' ')} --help says more)`;
}

/** The options a command takes: its own and those of the commands above it (global flags). */
function optionsInScope(command: Command): readonly Option[] {
  const options: Option[] = [];
  for (let at: Command | null = command; at !== null; at = at.parent) options.push(...at.options);
  return options;
}

/** --json, -o json, --output json or --output=json anywhere in argv. */
function jsonRequested(argv: readonly string[]): boolean {
  return argv.some((arg, index) => arg === '--json' || arg === '--output=json' || arg === '-ojson' || ((arg === '-o' || arg === '--output') && argv[index + 1] === 'json'));
}

export type { GlobalOptions };
