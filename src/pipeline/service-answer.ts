import type { ApiResult } from '../port/integration-api.js';
import { problemsSayAlreadyExists } from '../api/already-exists.js';
import { capProblems, errorsOf } from '../api/envelope-errors.js';
import { ErrorCode } from '../domain/codes.js';
import type { LostAttemptDid } from '../runs/resume-plan.js';
import type { Problem } from '../domain/problem.js';
import type { Outcome } from './record-job.js';

/** A service answer in report terms: Success false fails (unless a lost attempt created it), true is ok or partial. */
export function outcomeOf<T>(result: ApiResult<T>, partialProblems: (content: T) => Problem[] = () => []): Outcome {
  const action = result.action;
  if (!result.envelope.Success && result.createdByLostAttempt !== true) {
    const failed: Outcome = { status: 'failed', errors: failureProblems(result), ...(action ? { action } : {}) };
    if (result.contradictory) failed.mayHaveApplied = true;
    return failed;
  }
  const content = result.envelope.Content;
  // Bounded like the envelope's own Errors: a server's 300,000 messages must not reach the journal and reports.
  const problems = content === null || content === undefined ? [] : capProblems(partialProblems(content));
  // One object per answer (most are plain successes): no copies of empty lists, no spreads.
  const outcome: Outcome = { status: problems.length > 0 ? 'partial' : 'ok', errors: problems };
  // The client's caveat (a create its lost first attempt made): said beside the item, not as an error of it.
  if (result.note !== undefined) outcome.note = result.note;
  if (action) outcome.action = action;
  if (result.changedFields) outcome.changedFields = result.changedFields;
  // The local engine knows the record before: every value is known.
  if (result.relatedChanges) outcome.changes = result.relatedChanges.map((change) => ({ ...change, known: true }));
  return outcome;
}

/** Every error of a `Success: false` answer; never empty, so a failed item always says why. */
export function failureProblems(result: ApiResult<unknown>): Problem[] {
  const errors = errorsOf(result.envelope);
  return errors.length > 0
    ? errors
    : [
        {
          field: '',
          code: ErrorCode.FailedWithoutErrors,
          message: `the service answered Success: false (HTTP ${result.status}) without an error message`,
        },
      ];
}

/** A create's lost attempt (docs/runs.md, "runs resume"): a resend refused because the thing already exists. */
export function createdByLostAttempt(route: string): LostAttemptDid {
  return (answer) =>
    answer.status === 'failed' && problemsSayAlreadyExists(route, undefined, answer.errors) ? 'created' : undefined;
}

/** A removal's lost attempt: every id of the resend is no longer an invigilator (319). */
export const removedByLostAttempt: LostAttemptDid = (answer) =>
  answer.errors.length > 0 && answer.errors.every((problem) => problem.code === ErrorCode.NotAnInvigilator)
    ? 'removed'
    : undefined;
