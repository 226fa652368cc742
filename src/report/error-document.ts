/**
 * The JSON of a run that ended with exit 2, 3, 130 or 70: with --json, stdout still carries one
 * document, so a script reads why the run stopped instead of parsing stderr. The shape extends
 * the run report's: `{ command?, target?, dryRun?, error: {...}, items?, summary? }` where
 * `items`/`summary` are the partial report when records were already reported (a run stopped by
 * a 403 after 1,000 records), and absent when nothing was (a usage error, a malformed file).
 */
import { ExamctlError, ExitCode, InputFileError, InterruptedError, StoreDamagedError, StoreLockedError, TargetError, UsageError } from '../system/errors.js';
import type { ReportHeader } from './run-report.js';
import type { ReportItem, ReportSummary } from './run-report.js';

/**
 * Why the run stopped, as a word a script can switch on. `refused`: the service did not accept
 * the token (401/403), so retrying without a new token is pointless; `target`: the service or
 * network failed (retrying later may work).
 */
export type RunErrorKind = 'usage' | 'input-file' | 'refused' | 'target' | 'store-locked' | 'store-damaged' | 'interrupted' | 'internal';

export interface RunErrorJson {
  exitCode: number;
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
  const message = error instanceof Error ? error.message : String(error);
  const status = httpStatusOf(error);
  if (error instanceof InputFileError) {
    return { exitCode: error.exitCode, kind: 'input-file', message, file: error.file, ...(error.line === undefined ? {} : { line: error.line }) };
  }
  if (error instanceof UsageError) return { exitCode: error.exitCode, kind: 'usage', message };
  if (error instanceof StoreLockedError) return { exitCode: error.exitCode, kind: 'store-locked', message };
  if (error instanceof StoreDamagedError) return { exitCode: error.exitCode, kind: 'store-damaged', message };
  if (error instanceof TargetError) {
    const kind = status === 401 || status === 403 ? 'refused' : 'target';
    return { exitCode: error.exitCode, kind, message, ...(status === undefined ? {} : { status }) };
  }
  if (error instanceof InterruptedError) return { exitCode: error.exitCode, kind: 'interrupted', message };
  if (error instanceof ExamctlError) return { exitCode: error.exitCode, kind: 'internal', message };
  return { exitCode: ExitCode.Internal, kind: 'internal', message: `internal error: ${message}` };
}

export interface ErrorDocument {
  command?: string;
  target?: ReportHeader['target'];
  targetFrom?: string;
  profile?: ReportHeader['profile'];
  dryRun?: boolean;
  error: RunErrorJson;
  items?: ReportItem[];
  summary?: ReportSummary;
}

/**
 * The whole document, for a run whose report was not streamed (or never started). `header` when
 * the command and target were known; `partial` when some records were already reported.
 */
export function errorDocument(error: unknown, header?: ReportHeader, partial?: { items: ReportItem[]; summary: ReportSummary }): ErrorDocument {
  return {
    ...(header === undefined ? {} : { command: header.command, target: header.target, ...(header.targetFrom === undefined ? {} : { targetFrom: header.targetFrom }), ...(header.profile === undefined ? {} : { profile: header.profile }), dryRun: header.dryRun }),
    error: runErrorJson(error),
    ...(partial === undefined ? {} : { items: partial.items, summary: partial.summary }),
  };
}

/**
 * The `"error":{...}` member a streamed run report writes between its items and its summary when
 * the run stopped early, so the one document says both what was done and why it stopped.
 */
export function errorMember(error: unknown): string {
  return `"error":${JSON.stringify(runErrorJson(error))}`;
}
