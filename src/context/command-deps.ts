import type { IntegrationApi } from '../port/integration-api.js';
import type { OpenDirectory } from '../port/local-directory.js';
import type { TextSink } from '../system/text-sink.js';
import type { GlobalOptions } from '../flags/global-options.js';
import type { KeptOptions } from '../flags/option-table.js';
import type { RecordKind } from '../domain/columns.js';
import { promptsOffBy } from '../terminal/prompt-state.js';
import type { ResolvedTarget } from './resolved-target.js';
import type { Env } from '../system/env-values.js';
import { UsageError } from '../system/errors.js';

/** Opens the API of a resolved target; null means "validate only" (dry run without a store, or remote dry run). */
export type ApiFactory = (
  target: ResolvedTarget,
  options: { dryRun: boolean; deps: CommandDeps },
) => Promise<IntegrationApi | null>;

/** A local target's read-only LocalDirectory (roles, invigilators) for prompts; null for a remote target. */
export type DirectoryFactory = (target: ResolvedTarget, deps: CommandDeps) => Promise<OpenDirectory | null>;

/** Everything a command needs from the outside world: tests run commands in-process with their own. */
export interface CommandDeps {
  stdout: TextSink;
  stderr: TextSink;
  env: Env;
  /** The run's one read of the config file (run-cli.ts): a file replaced mid-run does not give it two settings. */
  config?: import('./config-file.js').ConfigRead;
  /** Wall clock for messages; the local engine's clock comes from EXAMCTL_NOW via the env. */
  now: () => Date;
  /** stdin and stderr are terminals. */
  isTTY: boolean;
  /** '' when the working directory was removed (main.ts). */
  cwd: string;
  /** Aborted on SIGINT: stop dispatching, finish what is in flight, report the rest skipped. */
  signal?: AbortSignal;
  openApi?: ApiFactory;
  /** Yes/no question on a TTY; defaults to @inquirer/prompts. */
  confirm?: (message: string) => Promise<boolean>;
  /** A secret asked on a TTY, masked (login's token, a PIN); defaults to @inquirer/prompts' password on stderr. */
  askSecret?: (message: string, signal?: AbortSignal) => Promise<string>;
  /** The terminal behind `stderr`, for the progress line; absent (tests, pipes): no progress line. */
  progressStream?: NodeJS.WritableStream;
  /** Where prompts read keys and draw; default process.stdin and process.stderr. Tests inject a fake terminal. */
  promptIo?: { input?: NodeJS.ReadableStream; output?: NodeJS.WritableStream };
  /** stdout is a terminal: decides colour of what goes to stdout (a table), independently of stdin. */
  stdoutIsTTY?: boolean;
  /** stdout for bytes (a workbook: `-o xlsx > file.xlsx`); absent: such output is an internal error. */
  stdoutBytes?: NodeJS.WritableStream;
  /** stdout's width when it is a terminal: tables are fitted to it. */
  stdoutColumns?: number;
  openDirectory?: DirectoryFactory;
  /** What `--file -` and `login --with-token` read; default process.stdin. */
  stdin?: NodeJS.ReadableStream;
  /** `--file -`: the copy of stdin the command reads (set by command-tree.ts before the command runs). */
  stdinFile?: string;
  /** The --file value whose copy `stdinFile` is: a named pipe (read once), or apply's input (the plan's kept copy). */
  pipedFile?: string;
  /** Every option of the invocation (the command's own and the global ones): what a run journal records. */
  invocation?: Readonly<Record<string, unknown>>;
  /** The command's own flags (commander's attributes): which of a profile's settings it reads. */
  commandFlags?: readonly string[];
  reads?: RecordKind;
  /** The command can send (it takes --report): see target.ts's local-by-default refusal. */
  sends?: boolean;
  /** The options of `invocation` a run journal keeps (the command's declaration says which). */
  keptOptions?: KeptOptions;
  /** Set by `runs resume`: the run being resumed, whose journal the pipeline continues. */
  resume?: ResumeContext;
  /**
   * A run read again (`runs resume`, `runs show`): the profile its journal says it read its input
   * with, null for none, used instead of today's (docs/runs.md, "The journal"). Undefined: today's.
   */
  runProfile?: import('./settings.js').ActiveProfile | null;
  /** Who owns "your" runs (src/runs/run-trust.ts); default the process's uid. Tests play another user with it. */
  runTrust?: import('../runs/run-trust.js').RunTrust;
  /** The platform messages describe (tests: a Windows path through on Linux); process.platform when absent. */
  platform?: NodeJS.Platform;
  /** The remote client's wait between attempts (backoff, Retry-After, login's check); the real timer when absent. */
  retrySleep?: import('../api/flow-control.js').Sleep;
  /** Set by `examctl apply`: its --report as typed, said so (the run's cwd is the plan's, so it gets the full path). */
  reportName?: string;
  /** Set by `examctl apply`: the plan each request must be (docs/plan.md, "Apply"). */
  applying?: import('../runs/plan-document.js').PlanGuard;
}

export type ResumeContext = import('../runs/resume-plan.js').OpenedResume;

/** A working directory removed under examctl (or unreadable: main.ts gives cwd ''): every command refuses, exit 2. */
export function refuseRemovedCwd(deps: CommandDeps): void {
  if (deps.cwd === '')
    throw new UsageError('the current directory was removed (or cannot be read): cd to one that exists and run again');
}

/** `--json`'s one document on stdout: every command prints its own through here. */
export function printJson(deps: CommandDeps, document: unknown, indent?: number): void | Promise<void> {
  return deps.stdout.write(`${JSON.stringify(document, null, indent)}\n`);
}

/** The one rule for asking: a terminal, and neither --no-input nor CI=true. */
export function promptsAllowed(options: GlobalOptions, deps: CommandDeps): boolean {
  return promptsOff(options, deps) === undefined;
}

/** What turned prompts off (`--no-input`, `CI=true`, `no terminal`); undefined: they are on. */
export function promptsOff(options: GlobalOptions, deps: CommandDeps): string | undefined {
  return promptsOffBy({ isTTY: deps.isTTY, noInput: options.input === false, env: deps.env });
}

export function promptIoOf(deps: CommandDeps) {
  return { ...deps.promptIo, signal: deps.signal };
}

/** A secret typed at a masked prompt (`what` names it if interrupted: `token`), or given by the test's `askSecret`. */
export async function askedSecret(deps: CommandDeps, message: string, what?: string): Promise<string> {
  if (deps.askSecret) return deps.askSecret(message, deps.signal);
  return (await import('../terminal/prompts.js')).inquirerSecret(message, deps.signal, what);
}

/** A person's yes to `question` (default no): at the terminal, or by the test's `confirm`. */
export async function confirmed(deps: CommandDeps, question: string): Promise<boolean> {
  if (deps.confirm) return deps.confirm(question);
  return (await import('../terminal/prompts.js')).confirmSend(question, promptIoOf(deps));
}
