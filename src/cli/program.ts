import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { EXAMCTL_VERSION } from '../version.js';
import { ExamctlError, ExitCode } from '../errors.js';
import type { CommandDeps, GlobalOptions } from './context.js';

/**
 * The `examctl` command tree. Command modules are imported inside their actions so that
 * `examctl --help` loads neither undici, nor zod schemas, nor the engine.
 */

function positiveInt(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError(`${name} must be a whole number of at least 1`);
    return Number(value);
  };
}

function positiveNumber(name: string) {
  return (value: string): number => {
    const number = Number(value);
    if (value.trim() === '' || !Number.isFinite(number) || number <= 0) throw new InvalidArgumentError(`${name} must be a number above 0`);
    return number;
  };
}

function portNumber(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('--port must be a whole number from 0 to 65535');
  return Number(value);
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

type Run = (options: never, deps: CommandDeps) => Promise<number>;

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
    .addOption(new Option('--target <target>', 'send to the local engine or the remote API (default: remote when a base URL is configured, else local)').choices(['local', 'remote']))
    .option('--store <path>', 'local store directory (env EXAMCTL_STORE; default ./.examctl-store in the current directory)')
    .option('--base-url <url>', "the service's base URL; requests go to <url>/api/v1/integrations/... (env EXAMCTL_BASE_URL)")
    .option('--token-file <path>', 'file holding the EAPI token (or env EXAMCTL_TOKEN with the token itself)')
    .option('--profile <name>', 'named profile from the config file: base URL, token file, defaults (env EXAMCTL_PROFILE)')
    .option('--json', 'print exactly one JSON document on stdout (run report or read result); human output goes to stderr')
    .option('--report <file>', 'also write the per-record run report to a .json or .csv file (written atomically)')
    .option('--dry-run', 'validate and report, change nothing, send nothing (local: also plans against the store when it exists)')
    .option('--no-input', 'never prompt; a missing value is a usage error (implied by CI=true)')
    .option('--yes', 'skip the confirmation before sending to a remote target')
    .option('--concurrency <n>', 'requests in flight at once on the remote target (default 8)', positiveInt('--concurrency'))
    .option('--rate <n>', 'at most n requests started per minute on the remote target, retries included', positiveNumber('--rate'))
    .option('--max-errors <n>', 'stop sending after n failed records; the rest are reported skipped', positiveInt('--max-errors'))
    .option('--allow-insecure-http', 'permit a plain http:// base URL for a host other than loopback')
    .option('--debug', 'diagnostic detail on stderr (stack traces, request lines), secrets redacted')
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

  const action =
    (load: () => Promise<{ run: Run }>, shape: (args: unknown[], options: Record<string, unknown>) => Record<string, unknown> = (_a, o) => o) =>
    async (...args: unknown[]): Promise<void> => {
      const command = args[args.length - 1] as Command;
      const positional = args.slice(0, -2);
      const options = shape(positional, command.optsWithGlobals());
      const { run } = await load();
      setExit(await run(options as never, deps));
    };

  const fileOptions = (command: Command): Command =>
    command
      .option('--ignore-unknown-columns', 'ignore CSV columns that are not API fields instead of failing')
      .option('--only-failed', 'with a CSV run report (from --report x.csv) as --file: send only the rows whose status is not ok, e.g. after fixing them');

  const schedule = program
    .command('schedule')
    .description('schedules and their candidates')
    .addHelpText('after', examples('examctl schedule push --file sittings.csv --dry-run', 'examctl schedule push --help'));
  fileOptions(
    schedule
      .command('push')
      .description(
        'create or update schedules with candidates (POST /schedule, one call per schedule).\n' +
          'A candidates CSV/JSON gets its schedule from flags or --schedule; a sittings CSV (rows with schedule columns\n' +
          'such as ScheduleExtId, AssessmentExtId, StartDateTime) is grouped by ScheduleExtId into one request each,\n' +
          'flags giving defaults for absent columns. A JSON object with Schedule and Candidates (or an array of them) is sent as is.',
      )
      .requiredOption('-f, --file <path>', 'candidates or sittings CSV, or JSON request(s) / candidates')
      .option('--schedule <file.json>', 'schedule fields from a JSON object (the Schedule object, or a request with Schedule)')
      .addOption(new Option('--workflow <workflow>', 'DEFAULT or EXTERNAL_ATTEMPTS (candidates then need AttemptExtId)').choices(['DEFAULT', 'EXTERNAL_ATTEMPTS']))
      .option('--upsert', 'update a schedule whose ScheduleExtId exists instead of failing (activated schedules cannot be updated)')
      .option('--schedule-id <id>', 'ScheduleExtId (generated by the service when absent)')
      .option('--assessment <id>', 'AssessmentExtId: the assessment to sit')
      .option('--title <title>', 'schedule Title (generated when absent)')
      .option('--start <datetime>', 'StartDateTime, RFC 3339 with a zone, e.g. 2026-12-01T09:00:00Z')
      .option('--end <datetime>', 'EndDateTime (default: start + assessment duration + 60 min)')
      .option('--group <id>', 'GroupExtId: hierarchy group the candidates are attached to (created if new)')
      .option('--group-name <name>', 'GroupName: title of that group')
      .option('--schedule-group <id>', 'ScheduleGroupExtId: hierarchy the schedule belongs to (default: root)')
      .option('--schedule-group-name <name>', 'ScheduleGroupName: title of that hierarchy')
      .option('--owner <username>', 'Owner: user name of the schedule owner (default: the API settings owner)')
      .option('--pin <pin>', 'PIN for candidates: 4 digits')
      .option('--proctoring', 'UseProctoringService true (default: the assessment option)')
      .option('--no-proctoring', 'UseProctoringService false')
      .option('--proctoring-template <id>', 'ProctoringServiceTemplateExternalId (default: the global template)')
      .option('--lock-on-connection-loss', 'LockExamOnConnectionLoss true')
      .option('--no-lock-on-connection-loss', 'LockExamOnConnectionLoss false')
      .option('--keycode', 'UseKeyCode true: candidates log in with keycode slips')
      .option('--no-keycode', 'UseKeyCode false')
      .option('--auto-cleanup', 'enableAutomaticDataCleanup true')
      .option('--no-auto-cleanup', 'enableAutomaticDataCleanup false')
      .option('--cleanup-notice-period <value>', 'dataCleanupNoticePeriod, passed through as given')
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
  ).action(action(() => import('./commands/schedule-push.js')));

  const user = program
    .command('user')
    .description('platform users')
    .addHelpText('after', examples('examctl user sync --file users.csv --dry-run', 'examctl user sync --help'));
  fileOptions(
    user
      .command('sync')
      .description('create or update users with hierarchy memberships (POST /user, one call per user); on a terminal with no --file: prompts for one user')
      .option('-f, --file <path>', 'users as CSV, JSON array or NDJSON (API field names as columns/keys)')
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
  ).action(action(() => import('./commands/user-sync.js')));

  const collection = program
    .command('collection')
    .description('collections of taxonomies and objective repositories')
    .addHelpText('after', examples('examctl collection add --title "Physics 2027" --taxonomy TX-BLOOM', 'examctl collection add --help'));
  collection
    .command('add')
    .description('create collections (POST /collections) from flags or from --file (one JSON object or an array)')
    .option('-f, --file <path>', 'JSON collection object(s) with API field names')
    .option('--title <title>', 'Title (required, under 100 characters)')
    .option('--external-id <id>', 'ExternalId: letters and digits (generated when absent)')
    .option('--owner <username>', 'Owner user name (default: the API settings owner)')
    .option('--taxonomy <id>', 'taxonomy ExternalId; repeat for several (none: all taxonomies)', collect)
    .option('--repository <id>', 'learning objective repository ExternalId; repeat for several (none: all)', collect)
    .addHelpText(
      'after',
      examples(
        'examctl collection add --title "Physics 2027" --external-id physics2027 --taxonomy TX-BLOOM --repository LO-CORE',
        '# on a terminal without --title: asks for it',
        'examctl collection add',
        '# several at once from a JSON array, with a report',
        'examctl collection add --file collections.json --report result.csv',
      ),
    )
    .action(action(() => import('./commands/collection-add.js')));

  const invigilators = program
    .command('invigilators')
    .description('invigilators of a schedule')
    .addHelpText('after', examples('examctl invigilators remove S-FUTURE inv-2', 'examctl invigilators remove --help'));
  invigilators
    .command('remove')
    .description('remove invigilators from a schedule (DELETE /schedule/{id}/invigilators)')
    .argument('<scheduleExtId>', 'the schedule')
    .argument('[userExtId...]', 'invigilator user external ids')
    .option('-f, --file <path>', 'ids: one per line, a CSV column, or a JSON array')
    .option('--only-failed', 'with a CSV run report (from --report x.csv) as --file: only the ids whose status is not ok')
    .addHelpText(
      'after',
      examples(
        'examctl invigilators remove S-FUTURE inv-1 inv-2',
        '# on a terminal without ids: tick them in a list of the schedule\'s invigilators (local) or type them (remote)',
        'examctl invigilators remove S-FUTURE',
        'examctl invigilators remove S-FUTURE --file leavers.txt --report result.csv',
      ),
    )
    .action(action(() => import('./commands/invigilators-remove.js'), ([scheduleExtId, userExtIds], o) => ({ ...o, scheduleExtId, userExtIds })));

  const reviewSession = program
    .command('review-session')
    .description('review sessions (read only)')
    .addHelpText('after', examples('examctl review-session show RS-MATH1-OCT', 'examctl review-session show --help'));
  reviewSession
    .command('show')
    .description('show a review session (GET /external/review-sessions/{id}); --json prints its Content')
    .argument('<externalId>', 'review session external id')
    .addOption(
      new Option('-o, --output <format>', 'table (header, results, counts per status, mean score), json (the Content as sent) or csv (one row per result, spreadsheet-safe)')
        .choices(['table', 'json', 'csv'])
        .default('table'),
    )
    .addHelpText(
      'after',
      examples(
        'examctl review-session show RS-MATH1-OCT',
        'examctl review-session show RS-MATH1-OCT -o csv > results.csv',
        'examctl review-session show RS-MATH1-OCT --json',
      ),
    )
    .action(action(() => import('./commands/review-session-show.js'), ([externalId], o) => ({ ...o, externalId })));

  const local = program
    .command('local')
    .description('the local engine and its store')
    .addHelpText('after', examples('examctl local init', 'examctl local export > world.json'));
  local
    .command('init')
    .description('create the local store from a world file (default: the bundled demo world)')
    .option('--seed <world.json>', 'world file to start from')
    .option('--force', 'replace an existing store (everything in it is lost)')
    .addHelpText(
      'after',
      examples(
        '# ./.examctl-store from the demo world (roles, hierarchies, assessments, schedules, review sessions)',
        'examctl local init',
        '# start over from your own world file (e.g. an earlier `local export`)',
        'examctl local init --seed world.json --force',
        'examctl --store /tmp/try-out local init',
      ),
    )
    .action(action(() => import('./commands/local-init.js')));
  local
    .command('export')
    .description('print the store as a world file on stdout (stable order; passwords only as hashes)')
    .addHelpText(
      'after',
      examples('examctl local export > world.json', '# later, or on another machine: the same store again', 'examctl local init --seed world.json --force'),
    )
    .action(action(() => import('./commands/local-export.js')));
  local
    .command('serve')
    .description('serve the local engine as the HTTP API (Authorization: EAPI <token of the world settings>)')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--port <n>', 'port (0: any free port, printed on stderr)', portNumber, 0)
    .option('--faults <spec>', 'inject faults: comma list of 429:P%, 500:P%, 503:P%, reset:P%, lost:P%, latency:A-Bms')
    .option('--faults-seed <n>', 'seed of the fault draws (default: random, printed on stderr)')
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
    )
    .action(action(() => import('./commands/local-serve.js')));

  program
    .command('doctor')
    .description('check the target: base URL or store, token set (never shown), reachable, token accepted, clock skew; exit 0 healthy, 3 not')
    .addHelpText(
      'after',
      examples('examctl doctor', 'examctl doctor --profile prod --json', 'EXAMCTL_TOKEN=dev-token examctl --base-url http://127.0.0.1:8080 doctor'),
    )
    .action(action(() => import('./commands/doctor.js')));

  // --base-url, --token-file, --concurrency and --rate are the global options, stored in the profile.
  const config = program
    .command('config')
    .description('profiles of remote targets in the config file (never shows a token)')
    .addHelpText('after', examples('examctl config set-profile prod --base-url https://exam.example.com', 'examctl config list'));
  config
    .command('set-profile')
    .description('create or update a profile: --base-url <url> [--token-file <path>] [--concurrency n] [--rate n] [--default]')
    .argument('<name>', 'profile name')
    .option('--default', 'make it the default profile')
    .addHelpText(
      'after',
      examples(
        'examctl config set-profile prod --base-url https://exam.example.com --token-file ~/.config/examctl/prod.token',
        'examctl config set-profile staging --base-url https://staging.example.com --concurrency 4 --rate 600 --default',
      ),
    )
    .action(action(() => import('./commands/config.js'), ([name], o) => ({ ...o, action: 'set-profile', name })));
  config
    .command('list')
    .description('list the profiles (* marks the default)')
    .addHelpText('after', examples('examctl config list', 'examctl config list --json'))
    .action(action(() => import('./commands/config.js'), (_a, o) => ({ ...o, action: 'list' })));
  config
    .command('remove')
    .description('remove a profile (its token file is left in place)')
    .argument('<name>', 'profile name')
    .addHelpText('after', examples('examctl config remove staging', 'examctl config list'))
    .action(action(() => import('./commands/config.js'), ([name], o) => ({ ...o, action: 'remove', name })));
  config
    .command('use')
    .description('make a profile the default')
    .argument('<name>', 'profile name')
    .addHelpText('after', examples('examctl config use prod', 'examctl config use staging'))
    .action(action(() => import('./commands/config.js'), ([name], o) => ({ ...o, action: 'use', name })));
  config
    .command('show')
    .description('the config file path, the default profile and every profile')
    .addHelpText('after', examples('examctl config show', 'examctl config show --json'))
    .action(action(() => import('./commands/config.js'), (_a, o) => ({ ...o, action: 'show' })));

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
    )
    .action(action(() => import('./commands/login.js')));

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
