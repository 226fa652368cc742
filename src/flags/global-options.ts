import { REMOTE_CONCURRENCY } from '../defaults.js';
import { positiveInt, positiveNumber } from './flag-values.js';
import { choice, grouped, HELP_GROUP, kept, option, parsed, type OptionsOf } from './option-table.js';

/** The global options (docs/cli-contract.md, "Global options"): registered on the program, read by every command. */
export const GLOBAL_OPTIONS = [
  ...grouped(HELP_GROUP.target, [
    kept(choice('--target <target>', 'send to the local engine or the remote API (default: remote when a base URL is configured, else local)', ['local', 'remote'])),
    kept(option('--store <path>', 'local store directory (env EXAMCTL_STORE; default ./.examctl-store in the current directory)')),
    kept(option('--base-url <url>', "the service's base URL; requests go to <url>/api/v1/integrations/... (env EXAMCTL_BASE_URL)")),
    kept(option('--token-file <path>', 'file holding the EAPI token (or env EXAMCTL_TOKEN with the token itself)')),
    kept(option('--profile <name>', 'named profile from the config file: base URL, token file, defaults (env EXAMCTL_PROFILE)')),
  ] as const),
  ...grouped(HELP_GROUP.output, [
    kept(option('--json', 'print exactly one JSON document on stdout (run report or read result); human output goes to stderr'), { notKept: 'how this invocation prints; runs resume and runs show take their own' }),
    kept(option('-o, --output <format>', 'json: the same as --json (a command with tables, e.g. review-session show, also takes table or csv)'), { notKept: 'how this invocation prints; runs resume and runs show take their own' }),
    kept(option('--report <file>', 'also write the per-record run report to a .json, .csv, .xlsx or .xml (JUnit) file (written atomically)')),
  ] as const),
  ...grouped(HELP_GROUP.sending, [
    kept(option('--dry-run', 'validate and report, change nothing, send nothing (local: also plans against the store when it exists)'), { notKept: 'a dry run keeps no journal' }),
    // commander sets `input` to true, and to false with --no-input.
    kept(option('--no-input', 'never prompt; a missing value is a usage error (implied by CI=true)'), { notKept: 'runs resume asks nothing: it runs with prompts off' }),
    kept(option('--yes', 'skip the confirmation before sending to a remote target')),
    kept(parsed('--concurrency <n>', `requests in flight at once on the remote target (default ${REMOTE_CONCURRENCY})`, positiveInt('--concurrency'))),
    kept(parsed('--rate <n>', 'at most n requests started per minute on the remote target, retries included', positiveNumber('--rate'))),
    kept(parsed('--max-errors <n>', 'stop sending after n failed records; the rest are reported skipped', positiveInt('--max-errors'))),
  ] as const),
  ...grouped(HELP_GROUP.target, [kept(option('--allow-insecure-http', 'permit a plain http:// base URL for a host other than loopback'))] as const),
  ...grouped(HELP_GROUP.sending, [
    kept(option('--runs-dir <dir>', 'where run journals are kept (env EXAMCTL_RUNS_DIR; default the per-user state directory, see examctl runs --help)'), { notKept: 'where the journal is; runs resume is told it again' }),
  ] as const),
  ...grouped(HELP_GROUP.output, [kept(option('--debug', 'diagnostic detail on stderr (stack traces, request lines), secrets redacted'), { notKept: 'diagnostics of one invocation' })] as const),
] as const;

export type GlobalOptions = OptionsOf<typeof GLOBAL_OPTIONS>;

/**
 * What is left of a command's options once it took out its own flags:
 * `const { file, force, ...globals } = options; onlyGlobals(globals);`. A flag of the command's
 * table that it never took out is still in `globals` and fails the type check here.
 */
export function onlyGlobals<T extends GlobalOptions>(globals: T & { [Flag in Exclude<keyof T, keyof GlobalOptions>]: never }): GlobalOptions {
  return globals;
}
