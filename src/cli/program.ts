import { Command, CommanderError, Help, type Option } from 'commander';
import { EXAMCTL_VERSION } from '../version.js';
import { ExamctlError, ExitCode, UsageError } from '../errors.js';
import { COLLECTION_ADD_OPTIONS } from './commands/collection-add.options.js';
import { CONFIG_PROFILE_NAME, CONFIG_SET_PROFILE_OPTIONS } from './commands/config.options.js';
import { INVIGILATORS_REMOVE_OPTIONS } from './commands/invigilators-remove.options.js';
import { LOCAL_INIT_OPTIONS } from './commands/local-init.options.js';
import { LOCAL_SERVE_OPTIONS } from './commands/local-serve.options.js';
import { REVIEW_SESSION_SHOW_OPTIONS } from './commands/review-session-show.options.js';
import { COMPLETION_OPTIONS } from './commands/completion.options.js';
import { LOGIN_OPTIONS } from './commands/login.options.js';
import { SCHEDULE_LINKS_OPTIONS } from './commands/schedule-links.options.js';
import { RUNS_LIST_OPTIONS, RUNS_PRUNE_OPTIONS, RUNS_RESUME_OPTIONS, RUNS_SHOW_OPTIONS } from './commands/runs.options.js';
import { SYNCED_FORGET_OPTIONS, SYNCED_SHOW_OPTIONS } from './commands/synced.options.js';
import { SCHEDULE_PUSH_OPTIONS } from './commands/schedule-push.options.js';
import { SCHEMA_OPTIONS } from './commands/schema.options.js';
import { LOCAL_EXPORT_OPTIONS } from './commands/local-export.options.js';
import { TEMPLATE_OPTIONS } from './commands/template.options.js';
import { USER_SYNC_OPTIONS } from './commands/user-sync.options.js';
import type { CommandDeps } from './context.js';
import { GLOBAL_OPTIONS, type GlobalOptions } from './global-options.js';
import { argumentKeys, registerSpecs, type OptionsOf, type SpecTable } from './option-table.js';
import { resolveOutputFlags } from './output-flags.js';
import { sentenceLines } from './sentence-wrap.js';
import type { TargetOf } from './target.js';
import { terminalLine, terminalLines } from '../report/terminal-text.js';

/**
 * The `examctl` command tree. Each command's flags come from its `<command>.options.ts` table;
 * its module is imported inside the action so that `examctl --help` loads neither undici, nor
 * zod schemas, nor the engine.
 */

/** A command's entry point, typed by the table it is registered with. */
export type CommandRun<Options> = (options: Options, deps: CommandDeps, target: TargetOf) => Promise<number>;

/** A command without flags of its own. */
const NO_OPTIONS = [] as const;

/**
 * The "Examples:" block that ends every command's --help (test/human/help.test.ts checks each
 * command has at least two). A line starting with `#` is a comment for the example below it.
 */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => (line.startsWith('#') ? `  ${line}` : `  $ ${line}`)).join('\n')}`;
}

/** Builds the program; `setExit` receives each command's exit code. */
export function buildProgram(deps: CommandDeps, setExit: (code: number) => void): Command {
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

  /**
   * Registers a command's table and its lazily loaded `run`. The table is the one source of the
   * options type: a `run` reading a flag its table does not declare fails the type check here.
   */
  const register = <const T extends SpecTable>(command: Command, table: T, load: () => Promise<CommandRun<OptionsOf<T> & GlobalOptions>>): Command => {
    registerSpecs(command, table);
    const keys = argumentKeys(table);
    return command.action(async (...args: unknown[]) => {
      const self = args[args.length - 1] as Command;
      const merged = self.optsWithGlobals();
      const parsed: Record<string, unknown> = { ...merged, ...resolveOutputFlags(self, merged) };
      keys.forEach((key, index) => (parsed[key] = args[index]));
      // commander parsed exactly `table` and the global table: the one place their values are typed.
      const options = parsed as OptionsOf<T> & GlobalOptions;
      const [run, { targetOnce }] = await Promise.all([load(), import('./target.js')]);
      const piped = typeof parsed.file === 'string' && parsed.file !== '-' ? await (await import('./stdin-file.js')).pipePath(parsed.file, deps.cwd) : undefined;
      if (parsed.file !== '-' && piped === undefined) {
        setExit(await run(options, { ...deps, invocation: options }, targetOnce(options, deps)));
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
        setExit(await run(options, withStdin, targetOnce(options, withStdin)));
      } finally {
        await stdin.remove();
      }
    });
  };

  const schedule = program
    .command('schedule')
    .description('schedules and their candidates')
    .addHelpText('after', examples('examctl schedule push --file sittings.csv --dry-run', 'examctl schedule push --help'));
  register(
    schedule
      .command('push')
      .description(
        'create or update schedules with candidates (POST /schedule, one call per schedule). ' +
          'A candidates CSV/JSON gets its schedule from flags or --schedule; without --schedule-id every run creates a new schedule. ' +
          'A sittings CSV (rows with schedule columns such as ScheduleExtId, AssessmentExtId, StartDateTime) is grouped by ScheduleExtId into one request each, ' +
          'flags giving defaults for absent columns. A JSON object with Schedule and Candidates (or an array of them) is sent as is.',
      )
      .addHelpText(
        'after',
        examples(
          '# a sittings CSV: one schedule per ScheduleExtId; check it first, then send with a report',
          'examctl schedule push --file sittings.csv --dry-run',
          'examctl schedule push --file sittings.csv --report result.csv',
          '# a candidates CSV: the schedule comes from flags (on a terminal, missing ones are asked)',
          'examctl schedule push --file candidates.csv --schedule-id S-MATH1-DEC --assessment A-MATH-1 \\\n      --start 2026-12-14T09:00:00Z --group H-NORTH-DEC --group-name "North campus - December"',
          '# after fixing the failed rows in result.csv: send only those again',
          'examctl schedule push --file result.csv --only-failed --report retry.csv',
        ),
      ),
    SCHEDULE_PUSH_OPTIONS,
    async () => (await import('./commands/schedule-push.js')).run,
  );

  register(
    schedule
      .command('links')
      .description(
        "each candidate's StartupLink (and LaunchUrl with proctoring) of a schedule in the local store. " +
          'The integration API does not return links, so this reads the local target only.',
      )
      .addHelpText(
        'after',
        examples(
          'examctl schedule links S-MATH1-DEC',
          '# a formula-safe CSV for a mail merge',
          'examctl schedule links S-MATH1-DEC -o csv > links.csv',
          'examctl schedule links S-MATH1-DEC -o json',
        ),
      ),
    SCHEDULE_LINKS_OPTIONS,
    async () => (await import('./commands/schedule-links.js')).run,
  );

  const user = program
    .command('user')
    .description('platform users')
    .addHelpText('after', examples('examctl user sync --file users.csv --dry-run', 'examctl user sync --help'));
  register(
    user
      .command('sync')
      .description('create or update users with hierarchy memberships (POST /user, one call per user); on a terminal with no --file: prompts for one user')
      .addHelpText(
        'after',
        examples(
          '# check every row, change nothing; errors are shown as file:line field code message',
          'examctl user sync --file users.csv --dry-run',
          '# send; result.csv holds your rows plus status, error_codes, error_messages',
          'examctl user sync --file users.csv --report result.csv',
          '# fix the failed rows in result.csv, then send only those again',
          'examctl user sync --file result.csv --only-failed --report retry.csv',
          '# on a terminal: asks for one user (role from a list on the local target)',
          'examctl user sync',
        ),
      ),
    USER_SYNC_OPTIONS,
    async () => (await import('./commands/user-sync.js')).run,
  );

  const collection = program
    .command('collection')
    .description('collections of taxonomies and objective repositories')
    .addHelpText('after', examples('examctl collection add --title "Physics 2027" --taxonomy TX-BLOOM', 'examctl collection add --help'));
  register(
    collection
      .command('add')
      .description('create collections (POST /collections) from flags or from --file (one JSON object or an array)')
      .addHelpText(
        'after',
        examples(
          'examctl collection add --title "Physics 2027" --external-id physics2027 --taxonomy TX-BLOOM --repository LO-CORE',
          '# on a terminal without --title: asks for it',
          'examctl collection add',
          '# several at once from a JSON array, with a report',
          'examctl collection add --file collections.json --report result.csv',
        ),
      ),
    COLLECTION_ADD_OPTIONS,
    async () => (await import('./commands/collection-add.js')).run,
  );

  const invigilators = program
    .command('invigilators')
    .description('invigilators of a schedule')
    .addHelpText('after', examples('examctl invigilators remove S-FUTURE inv-2', 'examctl invigilators remove --help'));
  register(
    invigilators
      .command('remove')
      .description('remove invigilators from a schedule (DELETE /schedule/{id}/invigilators)')
      .addHelpText(
        'after',
        examples(
          'examctl invigilators remove S-FUTURE inv-1 inv-2',
          '# on a terminal without ids: tick them in a list of the schedule\'s invigilators (local) or type them (remote)',
          'examctl invigilators remove S-FUTURE',
          'examctl invigilators remove S-FUTURE --file leavers.txt --report result.csv',
        ),
      ),
    INVIGILATORS_REMOVE_OPTIONS,
    async () => (await import('./commands/invigilators-remove.js')).run,
  );

  register(
    program
      .command('template')
      .description('print an input file to fill in: users, candidates, sittings, collection or invigilators (csv, xlsx or json)')
      .addHelpText(
        'after',
        examples(
          'examctl template users > users.csv',
          '# a workbook: text columns (00456 stays 00456) and a Columns sheet describing each column',
          'examctl template sittings -o xlsx > sittings.xlsx',
          'examctl template candidates -o json > candidates.json',
        ),
      ),
    TEMPLATE_OPTIONS,
    async () => (await import('./commands/template.js')).run,
  );
  register(
    program
      .command('schema')
      .description("print the JSON Schema (2020-12) of a kind's JSON input file, for editors to check it")
      .addHelpText(
        'after',
        examples(
          'examctl schema users > users.schema.json',
          '# then in users.json: { "$schema": "./users.schema.json", ... } or your editor\'s schema mapping',
          'examctl schema sittings',
        ),
      ),
    SCHEMA_OPTIONS,
    async () => (await import('./commands/schema.js')).run,
  );

  const reviewSession = program
    .command('review-session')
    .description('review sessions (read only)')
    .addHelpText('after', examples('examctl review-session show RS-MATH1-OCT', 'examctl review-session show --help'));
  register(
    reviewSession
      .command('show')
      .description('show a review session (GET /external/review-sessions/{id}); --json prints its Content')
      .addHelpText(
        'after',
        examples(
          'examctl review-session show RS-MATH1-OCT',
          'examctl review-session show RS-MATH1-OCT -o csv > results.csv',
          'examctl review-session show RS-MATH1-OCT -o xlsx > results.xlsx',
          'examctl review-session show RS-MATH1-OCT --json',
        ),
      ),
    REVIEW_SESSION_SHOW_OPTIONS,
    async () => (await import('./commands/review-session-show.js')).run,
  );

  const local = program
    .command('local')
    .description('the local engine and its store')
    .addHelpText('after', examples('examctl local init', 'examctl local export > world.json'));
  register(
    local
      .command('init')
      .description('create the local store from a world file (default: the bundled demo world)')
      .addHelpText(
        'after',
        examples(
          '# ./.examctl-store from the demo world (roles, hierarchies, assessments, schedules, review sessions)',
          'examctl local init',
          '# start over from your own world file (e.g. an earlier `local export`)',
          'examctl local init --seed world.json --force',
          'examctl --store /tmp/try-out local init',
        ),
      ),
    LOCAL_INIT_OPTIONS,
    async () => (await import('./commands/local-init.js')).run,
  );
  register(
    local
      .command('export')
      .description('print the store as a world file on stdout (stable order; passwords only as hashes)')
      .addHelpText(
        'after',
        examples('examctl local export > world.json', '# later, or on another machine: the same store again', 'examctl local init --seed world.json --force'),
      ),
    LOCAL_EXPORT_OPTIONS,
    async () => (await import('./commands/local-export.js')).run,
  );
  register(
    local
      .command('serve')
      .description('serve the local engine as the HTTP API (Authorization: EAPI <token of the world settings>)')
      .addHelpText(
        'after',
        examples(
          '# the demo world (token dev-token) on a fixed port; Ctrl-C stops it',
          'examctl local serve --port 8080',
          '# any free port, printed as "listening on http://127.0.0.1:PORT" on stderr',
          'examctl --store ./demo-store local serve --port 0',
          'EXAMCTL_TOKEN=dev-token examctl --base-url http://127.0.0.1:8080 doctor',
          '# behind a reverse proxy: its OpenAPI document (/api/v1/integrations/openapi.json) names the public URL',
          'examctl local serve --port 8080 --public-url https://exam-sandbox.example.test',
          '# test a client\'s retries: 10% 503, 2% lost answers, 5-50 ms latency, reproducible',
          'examctl local serve --port 8080 --faults 503:10%,lost:2%,latency:5-50ms --faults-seed 42',
        ),
      ),
    LOCAL_SERVE_OPTIONS,
    async () => (await import('./commands/local-serve.js')).run,
  );

  register(
    program
      .command('doctor')
      .description('check the target: base URL or store, token set (never shown), reachable, token accepted, clock skew; exit 0 healthy, 3 not')
      .addHelpText(
        'after',
        examples('examctl doctor', 'examctl doctor --profile prod --json', 'EXAMCTL_TOKEN=dev-token examctl --base-url http://127.0.0.1:8080 doctor'),
      ),
    NO_OPTIONS,
    async () => (await import('./commands/doctor.js')).run,
  );

  const config = program
    .command('config')
    .description('profiles of remote targets in the config file (never shows a token)')
    .addHelpText('after', examples('examctl config set-profile prod --base-url https://exam.example.com', 'examctl config list'));
  register(
    config
      .command('set-profile')
      .description('create or update a profile: --base-url <url> [--token-file <path>] [--concurrency n] [--rate n] [--default]')
      .addHelpText(
        'after',
        examples(
          'examctl config set-profile prod --base-url https://exam.example.com --token-file ~/.config/examctl/prod.token',
          'examctl config set-profile staging --base-url https://staging.example.com --concurrency 4 --rate 600 --default',
        ),
      ),
    CONFIG_SET_PROFILE_OPTIONS,
    async () => (await import('./commands/config.js')).runSetProfile,
  );
  register(
    config
      .command('list')
      .description('list the profiles (* marks the default)')
      .addHelpText('after', examples('examctl config list', 'examctl config list --json')),
    NO_OPTIONS,
    async () => (await import('./commands/config.js')).runList,
  );
  register(
    config
      .command('remove')
      .description('remove a profile (its token file is left in place)')
      .addHelpText('after', examples('examctl config remove staging', 'examctl config list')),
    CONFIG_PROFILE_NAME,
    async () => (await import('./commands/config.js')).runRemove,
  );
  register(
    config
      .command('use')
      .description('make a profile the default')
      .addHelpText('after', examples('examctl config use prod', 'examctl config use staging')),
    CONFIG_PROFILE_NAME,
    async () => (await import('./commands/config.js')).runUse,
  );
  register(
    config
      .command('show')
      .description('the config file path, the default profile and every profile')
      .addHelpText('after', examples('examctl config show', 'examctl config show --json')),
    NO_OPTIONS,
    async () => (await import('./commands/config.js')).runShow,
  );

  const runs = program
    .command('runs')
    .description('journaled runs: list them, show one\'s report, resume one that was killed or stopped (docs/runs.md)')
    .addHelpText('after', examples('examctl runs list', 'examctl runs resume', 'examctl runs show last --json'));
  register(
    runs
      .command('list')
      .description('every run in the runs directory, newest first: id, command, state (finished, interrupted, running), counts')
      .addHelpText('after', examples('examctl runs list', 'examctl runs list --json', 'examctl --runs-dir /var/lib/examctl/runs runs list')),
    RUNS_LIST_OPTIONS,
    async () => (await import('./commands/runs.js')).runList,
  );
  register(
    runs
      .command('show')
      .description("a run's report rebuilt from its journal, finished or not; every input row once when the input is unchanged")
      .addHelpText('after', examples('examctl runs show last', 'examctl runs show 20261122T110502.481Z-3f9a --json', 'examctl runs show last --report result.csv')),
    RUNS_SHOW_OPTIONS,
    async () => (await import('./commands/runs.js')).runShow,
  );
  register(
    runs
      .command('resume')
      .description(
        'continue a killed or stopped run (default: the newest unfinished one) with its recorded options and target;\n' +
          'sends what was never answered, keeps what was. Refused (exit 2) when the run finished, another process holds it,\n' +
          'or its input file changed. The token comes from the usual sources; a run with --pin needs the same --pin again.',
      )
      .addHelpText(
        'after',
        examples(
          'examctl runs resume',
          'examctl runs resume 20261122T110502.481Z-3f9a --yes',
          '# a schedule push with a PIN: give the same PIN again (the journal keeps only its hash)',
          'examctl runs resume last --pin 4821 --json',
        ),
      ),
    RUNS_RESUME_OPTIONS,
    async () => (await import('./commands/runs.js')).runResume,
  );
  register(
    runs
      .command('prune')
      .description('remove finished runs older than 30 days (--older-than) or beyond the newest 100; --all also interrupted ones')
      .addHelpText('after', examples('examctl runs prune', 'examctl runs prune --older-than 7d --all --json')),
    RUNS_PRUNE_OPTIONS,
    async () => (await import('./commands/runs.js')).runPrune,
  );

  const synced = program
    .command('synced')
    .description('the sync memory: what examctl last sent each target, which --changed-only and --disable-missing read (docs/sync.md)')
    .addHelpText('after', examples('examctl synced show', 'examctl synced forget --target local --store ./store'));
  register(
    synced
      .command('show')
      .description('every sync memory: target, kind, ids remembered, leavers disabled, newest run, file')
      .addHelpText('after', examples('examctl synced show', 'examctl synced show --json')),
    SYNCED_SHOW_OPTIONS,
    async () => (await import('./commands/synced.js')).runShow,
  );
  register(
    synced
      .command('forget')
      .description("forget the target's sync memory (the usual target flags choose it): the next sync sends every record")
      .addHelpText('after', examples('examctl synced forget --profile prod', 'examctl synced forget --target local --store ./store')),
    SYNCED_FORGET_OPTIONS,
    async () => (await import('./commands/synced.js')).runForget,
  );

  register(
    program
      .command('login')
      .description('prompt for the EAPI token (not echoed), check it against the service, and store it 0600 beside the config for --profile (or the default)')
      .addHelpText(
        'after',
        examples(
          'examctl login',
          '# create the profile on the way',
          'examctl login --profile prod --base-url https://exam.example.com',
          '# scripts: the token on stdin (checked against the service before it is stored)',
          'examctl login --profile prod --with-token < /run/secrets/exam-token',
          '# the service is not reachable from here: store it unchecked',
          'examctl login --profile prod --no-verify',
        ),
      ),
    LOGIN_OPTIONS,
    async () => (await import('./commands/login.js')).run,
  );

  register(
    program
      .command('completion')
      .description('print a shell completion script for bash, zsh, fish or powershell, generated from the command tree')
      .addHelpText(
        'after',
        examples(
          '# bash (also macOS bash 3.2): load it in every new shell',
          `echo 'eval "$(examctl completion bash)"' >> ~/.bashrc`,
          'examctl completion zsh > "${fpath[1]}/_examctl"',
          'examctl completion fish > ~/.config/fish/completions/examctl.fish',
          '# PowerShell: add to your profile (notepad $PROFILE)',
          'examctl completion powershell | Out-String | Invoke-Expression',
        ),
      ),
    COMPLETION_OPTIONS,
    async () => (await import('./commands/completion.js')).run,
  );

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
