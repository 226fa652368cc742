import { REMOTE_CONCURRENCY, SERVED_CONCURRENCY } from '../defaults.js';
import { positiveInt, positiveNumber } from './flag-values.js';
import {
  allKept,
  choice,
  everyCommand,
  grouped,
  HELP_GROUP,
  kept,
  option,
  parsed,
  type OptionsOf,
  brief,
} from './option-table.js';

/** --dry-run with --out, refused before anything is read or written. */
export const DRY_RUN_OUT = '--out writes a file, which --dry-run never does: leave one of them out';

const HOW_IT_PRINTS = { notKept: 'how this invocation prints; runs resume and runs show take their own' };

/** docs/cli-contract.md, "Global options"; a run's journal keeps each unless it says why not. */
export const GLOBAL_OPTIONS = allKept([
  ...grouped(HELP_GROUP.target, [
    brief(
      'local engine or remote API',
      choice(
        '--target <target>',
        'send to the local engine or the remote API (default: remote when a base URL is configured, else local)',
        ['local', 'remote'],
      ),
      'remote with a base URL, else local',
    ),
    brief(
      'local store directory (env EXAMCTL_STORE)',
      option(
        '--store <path>',
        'local store directory (env EXAMCTL_STORE; default ./.examctl-store in the current directory)',
      ),
      './.examctl-store',
    ),
    brief(
      "the service's base URL (env EXAMCTL_BASE_URL)",
      option(
        '--base-url <url>',
        "the service's base URL; requests go to <url>/api/v1/integrations/... (env EXAMCTL_BASE_URL)",
      ),
      "the profile's",
    ),
    brief(
      'file holding the EAPI token (or env EXAMCTL_TOKEN)',
      option('--token-file <path>', 'file holding the EAPI token (or env EXAMCTL_TOKEN with the token itself)'),
      "the profile's",
    ),
    brief(
      'named profile from the config file (env EXAMCTL_PROFILE)',
      option(
        '--profile <name>',
        'named profile from the config file: base URL, token file, defaults (env EXAMCTL_PROFILE)',
      ),
      'the default profile',
    ),
  ] as const),
  ...grouped(HELP_GROUP.output, [
    everyCommand(
      kept(
        brief(
          'exactly one JSON document on stdout',
          option(
            '--json',
            'print exactly one JSON document on stdout (run report or read result); human output goes to stderr',
          ),
        ),
        HOW_IT_PRINTS,
      ),
      'how it prints: a text-only command refuses it (printsText)',
    ),
    everyCommand(
      kept(
        brief(
          'json (as --json), or table/csv where a command has them',
          option(
            '-o, --output <format>',
            'json: the same as --json (a command with tables, e.g. review-session show, also takes table or csv)',
          ),
        ),
        HOW_IT_PRINTS,
      ),
      'how it prints: a text-only command refuses it (printsText)',
    ),
    brief(
      'also write the run report: .json, .csv, .xlsx, .xml (JUnit) or .html (a page)',
      option(
        '--report <file>',
        'also write the per-record run report to a .json, .csv, .xlsx, .xml (JUnit) or .html (a page to read) file (written atomically)',
      ),
    ),
  ] as const),
  ...grouped(HELP_GROUP.sending, [
    kept(
      option(
        '--dry-run',
        'validate and report, change nothing, send nothing (local: also plans against the store when it exists)',
      ),
      { notKept: 'a dry run keeps no journal' },
    ),
    // commander sets `input` to true, and to false with --no-input.
    everyCommand(
      kept(
        brief(
          'never prompt (implied by CI=true)',
          option('--no-input', 'never prompt; a missing value is a usage error (implied by CI=true)'),
        ),
        { notKept: 'runs resume asks nothing: it runs with prompts off' },
      ),
      'a script gives it to every command: a command that asks nothing has nothing to leave out',
    ),
    everyCommand(
      option('--yes', 'skip the confirmation before sending to a remote target'),
      'a script gives it to every command: a command that asks nothing has nothing to skip',
    ),
    brief(
      undefined,
      parsed(
        '--concurrency <n>',
        `requests in flight at once on the remote target (default ${REMOTE_CONCURRENCY}; ${SERVED_CONCURRENCY} toward examctl local serve)`,
        positiveInt('--concurrency'),
      ),
      String(REMOTE_CONCURRENCY),
    ),
    brief(
      'at most n requests started per minute (remote)',
      parsed(
        '--rate <n>',
        'at most n requests started per minute on the remote target, retries included',
        positiveNumber('--rate'),
      ),
      'unlimited',
    ),
    brief(
      undefined,
      parsed(
        '--max-errors <n>',
        'stop sending after n failed records; the rest are reported skipped',
        positiveInt('--max-errors'),
      ),
      'no limit',
    ),
    brief(
      'every warning fails its record, also in a dry run',
      option(
        '--strict',
        "every warning fails its record (status failed, exit 1, not sent), in a dry run too; the report keeps the warning's code and text",
      ),
      "the profile's, else off",
    ),
    option('--no-strict', 'warnings are said and their records sent, whatever the profile says'),
  ] as const),
  ...grouped(HELP_GROUP.target, [
    brief(
      'permit plain http:// to a host other than loopback',
      option('--allow-insecure-http', 'permit a plain http:// base URL for a host other than loopback'),
    ),
  ] as const),
  ...grouped(HELP_GROUP.sending, [
    everyCommand(
      kept(
        brief(
          'where run journals are kept (env EXAMCTL_RUNS_DIR)',
          option(
            '--runs-dir <dir>',
            'where run journals are kept (env EXAMCTL_RUNS_DIR; default the per-user state directory, see examctl runs --help)',
          ),
          'the per-user state dir',
        ),
        { notKept: 'where the journal is; runs resume is told it again' },
      ),
      'a script gives it to every command, as EXAMCTL_RUNS_DIR is set for every command',
    ),
  ] as const),
  ...grouped(HELP_GROUP.output, [
    everyCommand(
      kept(
        brief(
          'diagnostic detail on stderr, secrets redacted',
          option('--debug', 'diagnostic detail on stderr (stack traces, request lines), secrets redacted'),
        ),
        { notKept: 'diagnostics of one invocation' },
      ),
      'diagnostics of any command',
    ),
  ] as const),
] as const);

export type GlobalOptions = OptionsOf<typeof GLOBAL_OPTIONS>;

/** What is left once a command took out its own flags: one it never took out fails the type check here. */
export function onlyGlobals<T extends GlobalOptions>(
  globals: T & { [Flag in Exclude<keyof T, keyof GlobalOptions>]: never },
): GlobalOptions {
  return globals;
}
