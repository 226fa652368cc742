import type { ApiResult, PlannedAction } from '../../api/integration-api.js';
import { capProblems, errorsOf } from '../../api/envelope-errors.js';
import type { Problem } from '../../domain/problem.js';
import type { Outcome } from './record-job.js';

/**
 * A service answer in report terms: Success false is a failure with every error it gave (unless
 * a lost attempt already created the entity: ok with the client's note); Success true is ok, or
 * partial when the content carries per-entry problems.
 */
export function outcomeOf<T>(result: ApiResult<T>, partialProblems: (content: T) => Problem[] = () => []): Outcome {
  const action = result.action;
  const note: Problem[] = result.note ? [{ field: '', code: null, message: result.note }] : [];
  if (!result.envelope.Success && result.createdByLostAttempt !== true) return withAction({ status: 'failed', errors: [...failureProblems(result), ...note] }, action);
  const content = result.envelope.Content;
  // Bounded like the envelope's own Errors: a server's 300,000 messages must not reach the journal and reports.
  const problems = content === null || content === undefined ? [] : capProblems(partialProblems(content));
  // One object per answer (most are plain successes): no copies of empty lists, no spreads.
  const outcome: Outcome = { status: problems.length > 0 ? 'partial' : 'ok', errors: note.length === 0 ? problems : [...problems, ...note] };
  if (action) outcome.action = action;
  if (result.changedFields) outcome.changedFields = result.changedFields;
  return outcome;
}

/** Every error of a `Success: false` answer; never empty, so a failed item always says why. */
export function failureProblems(result: ApiResult<unknown>): Problem[] {
  const errors = errorsOf(result.envelope);
  return errors.length > 0 ? errors : [{ field: '', code: null, message: `the service answered Success: false (HTTP ${result.status}) without an error message` }];
}

function withAction(outcome: Outcome, action: PlannedAction | undefined): Outcome {
  return action ? { ...outcome, action } : outcome;
}
