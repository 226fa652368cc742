/** The JSON of a run that ended with exit 2, 3, 130 or 70, so a script need not parse stderr: docs/ci.md. */
import type { ErrorCodeId } from '../system/error-codes.js';
import {
  ExamctlError,
  ExitCode,
  InputFileError,
  messageOf,
  InterruptedError,
  StoreDamagedError,
  StoreLockedError,
  TargetError,
  UsageError,
} from '../system/errors.js';

/**
 * Why the run stopped, as a word a script can switch on. `refused`: the service did not accept
 * the token (401/403), so retrying without a new token is pointless; `target`: the service or
 * network failed (retrying later may work).
 */
type RunErrorKind =
  | 'usage'
  | 'input-file'
  | 'refused'
  | 'target'
  | 'store-locked'
  | 'store-damaged'
  | 'interrupted'
  | 'internal';

interface RunErrorJson {
  exitCode: number;
  /** The stable code of docs/errors.md (`examctl explain CODE`). */
  code: ErrorCodeId;
  kind: RunErrorKind;
  message: string;
  /** For `input-file`: the file as named on the command line, and the line when known. */
  file?: string;
  line?: number;
  /** For `refused` (and other HTTP failures when the error carries it): the HTTP status. */
  status?: number;
}

function httpStatusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && Number.isInteger(status) ? status : undefined;
}

/** The error part of the document. Never a stack trace (those are for --debug on stderr). */
export function runErrorJson(error: unknown): RunErrorJson {
  const message = messageOf(error);
  const status = httpStatusOf(error);
  if (error instanceof InputFileError) {
    return {
      exitCode: error.exitCode,
      code: error.code,
      kind: 'input-file',
      message,
      file: error.file,
      ...(error.line === undefined ? {} : { line: error.line }),
    };
  }
  if (error instanceof UsageError) return { exitCode: error.exitCode, code: error.code, kind: 'usage', message };
  if (error instanceof StoreLockedError)
    return { exitCode: error.exitCode, code: error.code, kind: 'store-locked', message };
  if (error instanceof StoreDamagedError)
    return { exitCode: error.exitCode, code: error.code, kind: 'store-damaged', message };
  if (error instanceof TargetError) {
    const kind = status === 401 || status === 403 ? 'refused' : 'target';
    return { exitCode: error.exitCode, code: error.code, kind, message, ...(status === undefined ? {} : { status }) };
  }
  if (error instanceof InterruptedError)
    return { exitCode: error.exitCode, code: error.code, kind: 'interrupted', message };
  if (error instanceof ExamctlError) return { exitCode: error.exitCode, code: error.code, kind: 'internal', message };
  return { exitCode: ExitCode.Internal, code: 'E7001', kind: 'internal', message: `internal error: ${message}` };
}

/** The whole document of a run that reported nothing. */
export function errorDocument(error: unknown): { error: RunErrorJson } {
  return { error: runErrorJson(error) };
}

/**
 * The `"error":{...}` member a streamed run report writes between its items and its summary when
 * the run stopped early, so the one document says both what was done and why it stopped.
 */
export function errorMember(error: unknown): string {
  return `"error":${JSON.stringify(runErrorJson(error))}`;
}
