import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ExamctlError, ExitCode } from '../errors.js';
import type { CommandDeps, GlobalOptions } from './context.js';

/**
 * The `examctl` command tree. Command modules are imported inside their actions so that
 * `examctl --help` loads neither undici, nor zod schemas, nor the engine.
 */

function packageVersion(): string {
  try {
    const raw = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
    return String((JSON.parse(raw) as { version?: unknown }).version ?? 'unknown');
  } catch {
    return 'unknown';
  }
}

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

/** Builds the program; `setExit` receives each command's exit code. */
export function buildProgram(deps: CommandDeps, setExit: (code: number) => void): Command {
  const program = new Command('examctl');
  program
    .description('Provision an online assessment platform in bulk: schedules, users, collections, invigilators, review sessions.')
    .version(packageVersion(), '-V, --version', 'print the examctl version')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void deps.stdout.write(text),
      writeErr: (text) => void deps.stderr.write(text),
      outputError: (text, write) => write(`examctl: ${text.replace(/^error: /, '')}`),
    })
    .showSuggestionAfterError()
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
      '\nExit status: 0 all ok, 1 some record failed/partial/invalid, 2 usage or input file error (nothing sent),\n3 target unusable (403, network, store locked), 130 interrupted, 70 internal error.',
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
      .option('--only-failed', 'with a run report CSV as input: only rows whose status is not ok (and only those in a CSV report)');

  const schedule = program.command('schedule').description('schedules and their candidates');
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
      .option('--cleanup-notice-period <value>', 'dataCleanupNoticePeriod, passed through as given'),
  ).action(action(() => import('./commands/schedule-push.js')));

  const user = program.command('user').description('platform users');
  fileOptions(
    user
      .command('sync')
      .description('create or update users with hierarchy memberships (POST /user, one call per user); on a terminal with no --file: prompts for one user')
      .option('-f, --file <path>', 'users as CSV, JSON array or NDJSON'),
  ).action(action(() => import('./commands/user-sync.js')));

  const collection = program.command('collection').description('collections of taxonomies and objective repositories');
  collection
    .command('add')
    .description('create collections (POST /collections) from flags or from --file (one JSON object or an array)')
    .option('-f, --file <path>', 'JSON collection object(s) with API field names')
    .option('--title <title>', 'Title (required, under 100 characters)')
    .option('--external-id <id>', 'ExternalId: letters and digits (generated when absent)')
    .option('--owner <username>', 'Owner user name (default: the API settings owner)')
    .option('--taxonomy <id>', 'taxonomy ExternalId; repeat for several (none: all taxonomies)', collect)
    .option('--repository <id>', 'learning objective repository ExternalId; repeat for several (none: all)', collect)
    .action(action(() => import('./commands/collection-add.js')));

  const invigilators = program.command('invigilators').description('invigilators of a schedule');
  invigilators
    .command('remove')
    .description('remove invigilators from a schedule (DELETE /schedule/{id}/invigilators)')
    .argument('<scheduleExtId>', 'the schedule')
    .argument('[userExtId...]', 'invigilator user external ids')
    .option('-f, --file <path>', 'ids: one per line, a CSV column, or a JSON array')
    .option('--only-failed', 'with a run report CSV as --file: only ids whose status is not ok')
    .action(action(() => import('./commands/invigilators-remove.js'), ([scheduleExtId, userExtIds], o) => ({ ...o, scheduleExtId, userExtIds })));

  const reviewSession = program.command('review-session').description('review sessions (read only)');
  reviewSession
    .command('show')
    .description('show a review session (GET /external/review-sessions/{id}); --json prints its Content')
    .argument('<externalId>', 'review session external id')
    .addOption(new Option('-o, --output <format>', 'table, json (the Content) or csv (the Results rows)').choices(['table', 'json', 'csv']).default('table'))
    .action(action(() => import('./commands/review-session-show.js'), ([externalId], o) => ({ ...o, externalId })));

  const local = program.command('local').description('the local engine and its store');
  local
    .command('init')
    .description('create the local store from a world file (default: the bundled demo world)')
    .option('--seed <world.json>', 'world file to start from')
    .option('--force', 'replace an existing store')
    .action(action(() => import('./commands/local-init.js')));
  local
    .command('export')
    .description('print the store as a world file on stdout (stable order)')
    .action(action(() => import('./commands/local-export.js')));
  local
    .command('serve')
    .description('serve the local engine as the HTTP API (Authorization: EAPI <token of the world settings>)')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--port <n>', 'port (0: any free port, printed on stderr)', portNumber, 0)
    .action(action(() => importCommand('local-serve')));

  return program;
}

// Commands the remote engineer writes; the path is computed so this file compiles before they land.
function importCommand(name: string): Promise<{ run: Run }> {
  return import(`./commands/${name}.js`) as Promise<{ run: Run }>;
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
