/**
 * Typed errors that carry the process exit code (docs/cli-contract.md, "Exit status").
 * Only src/cli/main.ts turns them into an exit; everything else throws them.
 */
import type { CodeOfExit, ErrorCodeId, ErrorExit } from './error-codes.js';

export const ExitCode = {
  Ok: 0,
  RecordsFailed: 1,
  Usage: 2,
  Target: 3,
  /** A bug in examctl itself; not in the contract's table, documented in the README. */
  Internal: 70,
  Interrupted: 130,
  /** stdout or stderr closed under us (EPIPE): 128 + SIGPIPE, as a shell reports it. */
  ClosedPipe: 141,
} as const;
type ExitCodeNumber = (typeof ExitCode)[keyof typeof ExitCode];

/** A typed error's options: its cause, and its code when it is not its class's default (error-codes.ts). */
export interface ErrorOptions<Code extends ErrorCodeId = ErrorCodeId> {
  cause?: unknown;
  code?: Code;
}

/** What was thrown, in words: an Error's message, anything else as a string. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `Exit`: the exit status a subclass ends with, which types the codes its throws may give. */
export abstract class ExamctlError<Exit extends ErrorExit = ErrorExit> extends Error {
  abstract readonly exitCode: ExitCodeNumber;
  /** The class's code, when a throw gives none. */
  static readonly defaultCode: ErrorCodeId = 'E7000';
  /** The stable code of docs/errors.md: in the message's line (`examctl: E3020: ...`) and in --json's `error.code`. */
  readonly code: ErrorCodeId;
  constructor(message: string, options?: ErrorOptions<CodeOfExit<Exit>>) {
    super(message, options);
    this.name = new.target.name;
    this.code = options?.code ?? (new.target as unknown as typeof ExamctlError).defaultCode;
  }
}

/** The line an error ends a run with, after `examctl: `: its code, then its message. */
export function codedMessage(error: ExamctlError, message = error.message): string {
  return `${error.code}: ${message}`;
}

/** A line on stderr that says an error besides the one the run ends with: coded when it is examctl's. */
export function errorLine(error: unknown): string {
  return `examctl: ${error instanceof ExamctlError ? codedMessage(error) : messageOf(error)}`;
}

/** Bad flags, a missing value under --no-input, an unreadable or malformed input file. Nothing was sent. */
export class UsageError extends ExamctlError<2> {
  static override readonly defaultCode: ErrorCodeId = 'E2000';
  readonly exitCode = ExitCode.Usage;
}

/**
 * A structural problem in an input file (`file:line: reason`), before anything is sent. `named`: the file as
 * a flag names it (`--map-file map.json`); `file`, for --json's `error.file`.
 */
export class InputFileError extends UsageError {
  static override readonly defaultCode: ErrorCodeId = 'E2100';
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly reason: string,
    code?: CodeOfExit<2>,
    named = file,
  ) {
    super(line === undefined ? `${named}: ${reason}` : `${named}:${line}: ${reason}`, { code });
  }
}

/**
 * The input is readable but the run refuses what it holds (a withheld PIN with no --pin): a
 * verdict on the run, which still writes its documents with every item skipped (docs/ci.md),
 * unlike a file examctl cannot read as input (an unknown column, a malformed line).
 */
export class InputRefusedError extends InputFileError {
  static override readonly defaultCode: ErrorCodeId = 'E2110';
}

/** The target cannot be used: 403, network failure or 5xx after retries, store locked, damaged or unreadable. */
export class TargetError extends ExamctlError<3> {
  static override readonly defaultCode: ErrorCodeId = 'E3000';
  readonly exitCode = ExitCode.Target;
}

/** docs/runs.md, "Transient outcomes". */
export class TransientTargetError extends TargetError {
  static override readonly defaultCode: ErrorCodeId = 'E3001';
}

/** A run's local store replaced under it (docs/store.md): no resume. */
export class StoreReplacedError extends TargetError {
  static override readonly defaultCode: ErrorCodeId = 'E3031';
}

/** A 2xx answer not kept (docs/runs.md, "Honest ends"). */
export class AnswerUnreadableError extends TransientTargetError {
  static override readonly defaultCode: ErrorCodeId = 'E3003';
}

/**
 * The request certainly never reached the service (DNS, refused connection, TLS certificate, a
 * redirect answered before any processing): nothing was applied, so the item is "not sent".
 */
export class NeverSentTargetError extends TargetError {
  static override readonly defaultCode: ErrorCodeId = 'E3002';
}

/** The service refused the token (401/403): retrying without another token is pointless. */
export class TokenRefusedError extends TargetError {
  static override readonly defaultCode: ErrorCodeId = 'E3010';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The store is held by another process past the wait bound. */
export class StoreLockedError extends TargetError {
  static override readonly defaultCode: ErrorCodeId = 'E3020';
}

/** The store cannot be loaded (damage, newer format, unreadable). Nothing was overwritten. */
export class StoreDamagedError extends TargetError {
  static override readonly defaultCode: ErrorCodeId = 'E3030';
}

/** SIGINT: in-flight work finished, report written, the rest left unsent. */
export class InterruptedError extends ExamctlError<130> {
  static override readonly defaultCode: ErrorCodeId = 'E1300';
  readonly exitCode = ExitCode.Interrupted;
}

/**
 * Interrupted after this call's request went out, its answer lost (abandoned after the grace, or
 * a lost attempt before a retry the interrupt cut): it may have been applied, as `runs show` says.
 */
export class AnswerLostError extends InterruptedError {
  static override readonly defaultCode: ErrorCodeId = 'E1301';
}

/** The reason main.ts aborts the run's signal with when stdout or stderr is closed. */
export const CLOSED_PIPE = 'closed-pipe';

/**
 * The reader of stdout or stderr went away (EPIPE): handled like an interrupt (in-flight work
 * finished, the journal and the --report file written), but with its own exit code.
 */
export class ClosedPipeError extends ExamctlError<141> {
  static override readonly defaultCode: ErrorCodeId = 'E1410';
  readonly exitCode = ExitCode.ClosedPipe;
}

/**
 * The --report file could not be written mid-run (a full disk): the run stops as at a target failure and
 * `runs resume` sends the rest. Not exit 2, which says nothing was sent.
 */
export class ReportWriteError extends TargetError {
  static override readonly defaultCode: ErrorCodeId = 'E3040';
  /** Where the finished report was kept when only its final replace failed (a file open in Excel). */
  readonly keptAt: string | undefined;

  constructor(message: string, options?: ErrorOptions<CodeOfExit<3>> & { keptAt?: string }) {
    super(message, options);
    this.keptAt = options?.keptAt;
  }
}

/** An examctl bug. The stack trace is shown only with --debug. */
export class InternalError extends ExamctlError<70> {
  readonly exitCode = ExitCode.Internal;
}
