import { resolve } from 'node:path';
import { describeErrors, errorsOf } from '../api/envelope-errors.js';
import type { ProbeAnswer } from '../api/remote-probe.js';
import type { ApiResult } from '../port/integration-api.js';
import { ErrorCode } from '../domain/codes.js';
import { probeMakeDir } from '../system/atomic-file.js';
import { describeSystemError } from '../system/system-error-words.js';
import { ExamctlError, messageOf } from '../system/errors.js';
import type { ErrorCodeId } from '../system/error-codes.js';
import { describeHolder, type LockInfo } from '../system/lock.js';

/** One line of `examctl doctor` (docs/remote.md): the command gathers, the functions below decide. */
export interface DoctorCheck {
  name: 'target' | 'store' | 'token' | 'reachable' | 'authorised' | 'clock' | 'permissions' | 'sync memory';
  status: 'ok' | 'warn' | 'fail' | 'skip';
  detail: string;
  /** A failure a run would end with: its code (docs/errors.md), as the run would say it. */
  code?: ErrorCodeId;
}
type Verdict = Omit<DoctorCheck, 'name'>;

/** A check failed on an error: its message, and its code where a run would end with it. */
export function failedCheck(name: DoctorCheck['name'], error: unknown): DoctorCheck {
  return {
    name,
    status: 'fail',
    detail: messageOf(error),
    ...(error instanceof ExamctlError ? { code: error.code } : {}),
  };
}

/** What the probe's answer says of the token: 1101 = accepted; 401/403 = refused; no envelope = not the API. */
export function authorisedVerdict(
  answer: Extract<ProbeAnswer, { kind: 'answered' }>,
  tokenSent: boolean,
  baseUrl: string,
): Verdict {
  const { status, envelope } = answer;
  // A run meets a redirect as a request never sent (NeverSentTargetError).
  if (answer.redirect !== undefined) return { status: 'fail', code: 'E3002', detail: answer.redirect };
  if (status === 401 || status === 403) {
    return {
      status: 'fail',
      code: 'E3010',
      detail: `refused (${status}): ${tokenSent ? 'the service does not accept this token' : 'no token was sent'}`,
    };
  }
  if (envelope === undefined)
    return {
      status: 'fail',
      code: 'E3000',
      detail: `HTTP ${status} without the API's JSON envelope: is ${baseUrl} the integration API's base URL?`,
    };
  if (notFound(envelope))
    return {
      status: 'ok',
      detail: `the token is accepted (${status} with 1101 for a review session that does not exist)`,
    };
  // Say what the server answered, not what it usually answers.
  if (envelope.Success)
    return { status: 'ok', detail: `the token is accepted (${status} with Success for the probe's review session)` };
  if (status >= 500)
    return { status: 'fail', code: 'E3001', detail: `service error ${status}: ${describeErrors(envelope)}` };
  return {
    status: 'warn',
    detail: `not refused, but an unexpected answer: HTTP ${status} ${describeErrors(envelope)}`,
  };
}

/** A local store's answer to the probe: 1101 (or Success) = it opened and read. */
export function storeReadVerdict({ status, envelope }: ApiResult<unknown>): Verdict {
  if (notFound(envelope) || envelope.Success)
    return { status: 'ok', detail: 'opened and answered a read (1101 for a review session that does not exist)' };
  return {
    status: 'fail',
    code: 'E3000',
    detail: `unexpected answer to a read: HTTP ${status} ${describeErrors(envelope)}`,
  };
}

/**
 * The store's LOCK (docs/remote.md, "examctl doctor"): held by a live process, a warning with the code a run started
 * now would end with; left by a gone process, said (the next run takes it over).
 */
export function storeLockVerdict(
  found: { holder: LockInfo | 'unreadable'; live: boolean } | undefined,
  read: Verdict,
  lockPath: string,
  timeoutMs: number,
): Verdict {
  if (found === undefined || read.status !== 'ok') return read;
  const who = describeHolder(found.holder);
  if (!found.live)
    return {
      ...read,
      detail: `${read.detail}; ${lockPath} was left by ${who}, which is gone: the next run takes it over`,
    };
  return {
    status: 'warn',
    code: 'E3020',
    detail:
      `in use by ${who} (${lockPath}): a run started now waits for it up to ${timeoutMs} ms (EXAMCTL_LOCK_TIMEOUT_MS), ` +
      `then refuses; ${read.detail}`,
  };
}

const notFound = (envelope: ApiResult<unknown>['envelope']) =>
  errorsOf(envelope).some((problem) => problem.code === ErrorCode.ReviewSessionNotFound);

/** Above this the platform's notion of "now" (schedule windows, activation) visibly differs from ours. */
const SKEW_WARN_SECONDS = 60;

export function clockVerdict(skew: number): Verdict {
  const far = Math.abs(skew) > SKEW_WARN_SECONDS;
  return {
    status: far ? 'warn' : 'ok',
    detail: `server clock ${skew >= 0 ? '+' : ''}${skew} s from ours${far ? ': times you send are read by the server clock' : ''}`,
  };
}

/** Why a run could not write the runs or sync directory `dir`: a folder made and removed in it or its parent. */
export async function stateDirUnwritable(what: string, dir: string): Promise<string | undefined> {
  const { place, error } = await probeMakeDir(resolve(dir));
  return error === undefined
    ? undefined
    : `a run cannot make or write ${what} ${dir} (tried in ${place}: ${describeSystemError(error, 'directory')})`;
}
