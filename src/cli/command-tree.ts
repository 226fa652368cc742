import { Command, Option } from 'commander';
import { VERSION_LINE } from '../version.js';
import { ExitCode, UsageError } from '../system/errors.js';
import { refuseRemovedCwd, type CommandDeps } from '../context/command-deps.js';
import { journaledOptions, type FileInput } from '../context/file-input.js';
import { GLOBAL_OPTIONS, type GlobalOptions } from '../flags/global-options.js';
import { argumentKeys, attributeOf, examples, REFUSED_GLOBALS, registerSpecs } from '../flags/option-table.js';
import { commandName, keptOptionNames, type Behaviours, type CommandDeclaration } from './command-declaration.js';
import { flagRefusal, refusedFlag, refusedGlobalFlags, type TakingCommand } from '../flags/taken-flags.js';
import { refuseOutputFlags, resolveOutputFlags } from '../flags/output-flags.js';
import { pairingRefusal } from '../flags/flag-pairs.js';
import {
  allPointer,
  firstExamples,
  firstSentence,
  globalOptionsHelp,
  globalPointer,
  helpLayout,
} from './command-help.js';
import { commanderWords, terminalLines } from '../formats/terminal-text.js';

/**
 * commander's tree of `examctl` from the registry (`program.ts`), loading no behaviour: `--help` and completion
 * build it without undici, zod or the engine. `lazy` (a run): a group's commands are made only when entered.
 */
export function buildProgram(
  deps: CommandDeps,
  setExit: (code: number) => void,
  commands: readonly CommandDeclaration[],
  behaviours: Behaviours = new Map(),
  lazy = false,
): Command {
  const program = new Command('examctl');
  // `--help` fits a screen: one line per flag, the command's first sentence, its first examples.
  // `examctl help <command> --all` shows every flag's full text and every example.
  let full = false;
  program
    .description(
      'Provision an online assessment platform in bulk: schedules, users, collections, invigilators, review sessions.',
    )
    .version(VERSION_LINE, '-V, --version', 'print the examctl version, the Node.js it runs on and the build')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void deps.stdout.write(text),
      writeErr: (text) => void deps.stderr.write(text),
      outputError: (text, write) => write(`examctl: E2001: ${terminalLines(commanderWords(text))}`),
    })
    .showSuggestionAfterError()
    // The ~15 global flags are at `examctl options` (kubectl's way): in every help they buried the few that differ.
    .addHelpText('afterAll', ({ command }) =>
      command === program ? '' : `\n${full ? '' : `${allPointer(command)}\n`}${globalPointer(command, commands)}`,
    )
    .helpCommand(false)
    .configureHelp(helpLayout(() => full))
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
        '\n\nExit status: 0 all ok, 1 some record failed/partial/invalid, 2 usage or input file error (nothing sent),\n3 target unusable (403, network, store locked), 130 interrupted, 141 output pipe closed, 70 internal error.',
    );
  registerSpecs(program, GLOBAL_OPTIONS);

  const register = (command: Command, declaration: CommandDeclaration): void => {
    const { options: table } = declaration;
    if (table === undefined) return;
    registerSpecs(command, table);
    REFUSED_GLOBALS.set(command, refusedGlobalFlags(declaration.takes));
    // -h under the last heading, not a heading of its own: two lines of the screen saved.
    const lastHeading = command.options.at(-1)?.helpGroupHeading;
    if (lastHeading !== undefined)
      command.addHelpOption(new Option('-h, --help', 'display help for command').helpGroup(lastHeading));
    const behaviour = behaviours.get(commandName(declaration));
    if (behaviour === undefined) return;
    command.action(async (...args: unknown[]) => {
      refuseRemovedCwd(deps);
      const self = args[args.length - 1] as Command;
      const merged = self.optsWithGlobals();
      const taking = takingCommand(declaration);
      const refused = refusedFlag(taking, merged);
      if (refused !== undefined) throw flagRefusal(refused, taking, commands.map(takingCommand));
      const unpaired = pairingRefusal(table, self);
      if (unpaired !== undefined) throw unpaired;
      if (declaration.printsText === true) refuseOutputFlags(declaration.path.join(' '), merged);
      const parsed: Record<string, unknown> = { ...merged, ...resolveOutputFlags(self, merged) };
      argumentKeys(table).forEach((key, index) => (parsed[key] = args[index]));
      // commander parsed exactly `table` and the global table: `declareCommand` typed `run` by them.
      const options = parsed as GlobalOptions;
      const [run, { targetOnce }] = await Promise.all([behaviour.run(), import('../context/target.js')]);
      const input: FileInput =
        parsed.file === undefined
          ? {}
          : await (await import('../context/file-input.js')).spoolFileInput(parsed.file, options, deps);
      const { stdin, pipedFile } = input;
      try {
        const commandDeps = {
          ...deps,
          behaviours,
          commands,
          // For the command that runs only: each flag's attribute is a commander Option made.
          keptOptions: keptOptionNames(declaration),
          commandFlags: table.flatMap((spec) => (spec.kind === 'argument' ? [] : [attributeOf(spec.flags)])),
          reads: declaration.reads,
          sends: declaration.takes.includes('--report'),
          invocation: journaledOptions(options, input),
          stdinFile: stdin?.path,
          pipedFile,
        };
        setExit(await run(options as never, commandDeps, targetOnce(options, commandDeps)));
      } finally {
        await stdin?.remove();
      }
    });
  };

  const unmade = new Map<string, CommandDeclaration[]>();
  for (const declaration of commands) {
    const parent = declaration.path.length === 1 ? '' : declaration.path[0]!;
    unmade.set(parent, [...(unmade.get(parent) ?? []), declaration]);
  }
  /** The commands under `parent` not made yet (a group's help lists each with its arguments and `[options]`). */
  const makeChildren = (parent: Command): void => {
    // Declarations are one or two words deep: only the program and its groups have commands under them.
    if (parent !== program && parent.parent !== program) return;
    const key = parent === program ? '' : parent.name();
    for (const declaration of unmade.get(key) ?? []) {
      const command = parent
        .command(declaration.path.at(-1)!)
        .description(declaration.description)
        .summary(firstSentence(declaration.description))
        .addHelpText('after', () =>
          full ? examples(...declaration.examples) : examples(...firstExamples(declaration.examples)),
        );
      register(command, declaration);
    }
    unmade.delete(key);
  };
  makeChildren(program);
  if (lazy) program.hook('preSubcommand', (_program, command) => makeChildren(command));
  else program.commands.forEach(makeChildren);

  program
    .command('options')
    .description('list the global flags')
    .addHelpText(
      'after',
      examples('examctl options', 'examctl --dry-run --report result.csv user sync --file users.csv'),
    )
    .action(async (_flags: unknown, self: Command) => {
      refuseOutputFlags('options', self.optsWithGlobals());
      await deps.stdout.write(globalOptionsHelp(program));
      setExit(ExitCode.Ok);
    });

  program
    .command('help')
    .argument('[command...]', 'a command (`user sync`) or a topic (`environment`)')
    .option('--all', 'every flag in full and every example (--help shows one line per flag)')
    .description(
      'show the help of a command, or of a topic: `examctl help environment` lists the environment variables',
    )
    .addHelpText(
      'after',
      examples('examctl help user sync', 'examctl help user sync --all', 'examctl help environment'),
    )
    .action(async (path: string[], flags: { all?: boolean }, self: Command) => {
      refuseOutputFlags('help', self.optsWithGlobals());
      if (path.length === 1 && path[0] === 'environment') {
        // Every environment variable examctl reads: on stdout, as commander's help.
        await deps.stdout.write((await import('./environment-variables.js')).renderEnvironmentHelp());
        setExit(ExitCode.Ok);
        return;
      }
      let command: Command = program;
      for (const name of path) {
        const sub = command.commands.find(
          (candidate) => candidate.name() === name || candidate.aliases().includes(name),
        );
        if (sub === undefined)
          throw new UsageError(
            `no help for "${path.join(' ')}": unknown command (examctl --help lists them; topics: environment)`,
          );
        command = sub;
        makeChildren(command);
      }
      full = flags.all === true;
      try {
        command.outputHelp();
      } finally {
        full = false;
      }
      setExit(ExitCode.Ok);
    });

  return program;
}

function takingCommand(declaration: CommandDeclaration): TakingCommand {
  return {
    name: commandName(declaration),
    takes: declaration.takes,
    writesOut: declaration.options?.some((spec) => 'flags' in spec && spec.flags.startsWith('--out ')) ?? false,
  };
}
