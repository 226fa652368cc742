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

/** Why the run stopped, for a script: `refused` (the token, 401/403), `target` (the service or network). */
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
  /**
   * For `input-file`: the file (`--file`'s as named on the command line, a map file's path), and the line when
   * known.
   */
  file?: string;
  line?: number;
  /** For `refused` (and other HTTP failures when the error carries it): the HTTP status. */
  status?: number;
}

/** The error part of the document. Never a stack trace (those are for --debug on stderr). */
export function runErrorJson(error: unknown): RunErrorJson {
  const message = messageOf(error);
  if (!(error instanceof ExamctlError))
    return { exitCode: ExitCode.Internal, code: 'E7001', kind: 'internal', message: `internal error: ${message}` };
  const as = (kind: RunErrorKind): RunErrorJson => ({ exitCode: error.exitCode, code: error.code, kind, message });
  if (error instanceof InputFileError)
    return { ...as('input-file'), file: error.file, ...(error.line === undefined ? {} : { line: error.line }) };
  if (error instanceof UsageError) return as('usage');
  if (error instanceof StoreLockedError) return as('store-locked');
  if (error instanceof StoreDamagedError) return as('store-damaged');
  if (error instanceof TargetError) {
    // The HTTP status, where the error carries one (TokenRefusedError).
    const said = (error as { status?: unknown }).status;
    const status = typeof said === 'number' && Number.isInteger(said) ? said : undefined;
    return {
      ...as(status === 401 || status === 403 ? 'refused' : 'target'),
      ...(status === undefined ? {} : { status }),
    };
  }
  return as(error instanceof InterruptedError ? 'interrupted' : 'internal');
}

/** The `"error":{...}` member a stopped run's streamed report writes between its items and its summary. */
export function errorMember(error: unknown): string {
  return `"error":${JSON.stringify(runErrorJson(error))}`;
}
