import { Command, CommanderError } from 'commander';
import { EXAMCTL_VERSION } from '../version.js';
import { ExamctlError, ExitCode } from '../errors.js';
import { COLLECTION_ADD_OPTIONS } from './commands/collection-add.options.js';
import { CONFIG_PROFILE_NAME, CONFIG_SET_PROFILE_OPTIONS } from './commands/config.options.js';
import { INVIGILATORS_REMOVE_OPTIONS } from './commands/invigilators-remove.options.js';
import { LOCAL_INIT_OPTIONS } from './commands/local-init.options.js';
import { LOCAL_SERVE_OPTIONS } from './commands/local-serve.options.js';
import { REVIEW_SESSION_SHOW_OPTIONS } from './commands/review-session-show.options.js';
import { SCHEDULE_PUSH_OPTIONS } from './commands/schedule-push.options.js';
import { USER_SYNC_OPTIONS } from './commands/user-sync.options.js';
import type { CommandDeps } from './context.js';
import { GLOBAL_OPTIONS, type GlobalOptions } from './global-options.js';
import { argumentKeys, registerSpecs, type OptionsOf, type SpecTable } from './option-table.js';
import type { TargetOf } from './target.js';

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
    // Global options (--dry-run, --report, --yes...) are listed in every subcommand's help too:
    // a new user reading `examctl user sync --help` must see every flag that applies.
    .configureHelp({ showGlobalOptions: true })
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
      const parsed: Record<string, unknown> = { ...self.optsWithGlobals() };
      keys.forEach((key, index) => (parsed[key] = args[index]));
      // commander parsed exactly `table` and the global table: the one place their values are typed.
      const options = parsed as OptionsOf<T> & GlobalOptions;
      const [run, { targetOnce }] = await Promise.all([load(), import('./target.js')]);
      setExit(await run(options, deps, targetOnce(options, deps)));
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
        'create or update schedules with candidates (POST /schedule, one call per schedule).\n' +
          'A candidates CSV/JSON gets its schedule from flags or --schedule; a sittings CSV (rows with schedule columns\n' +
          'such as ScheduleExtId, AssessmentExtId, StartDateTime) is grouped by ScheduleExtId into one request each,\n' +
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
    NO_OPTIONS,
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

  register(
    program
      .command('login')
      .description('prompt for the EAPI token (not echoed) and store it 0600 beside the config for --profile (or the default)')
      .addHelpText(
        'after',
        examples(
          'examctl login',
          '# create the profile on the way',
          'examctl login --profile prod --base-url https://exam.example.com',
          '# scripts: no prompt; give the token with a file or the environment instead',
          'examctl config set-profile prod --token-file /run/secrets/exam-token',
        ),
      ),
    NO_OPTIONS,
    async () => (await import('./commands/login.js')).run,
  );

  return program;
}


/**
 * Runs examctl on argv (without node and script) and returns the exit code. Every error ends
 * here: typed errors as `examctl: <message>` with their code, commander usage errors as 2,
 * anything else as an internal error (70) whose stack shows only with --debug.
 */
export async function runCli(argv: readonly string[], deps: CommandDeps): Promise<number> {
  let exitCode: number = ExitCode.Ok;
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
      return error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
    }
    if (error instanceof ExamctlError) {
      await deps.stderr.write(`examctl: ${error.message}\n`);
      if (debug && error.stack) await deps.stderr.write(`${error.stack}\n`);
      return error.exitCode;
    }
    const message = error instanceof Error ? error.message : String(error);
    await deps.stderr.write(`examctl: internal error: ${message}${debug ? '' : ' (run with --debug for details)'}\n`);
    if (debug && error instanceof Error && error.stack) await deps.stderr.write(`${error.stack}\n`);
    return ExitCode.Internal;
  }
}

export type { GlobalOptions };
