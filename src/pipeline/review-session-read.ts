import { describeErrors, errorsOf } from '../api/envelope-errors.js';
import { pinsRedacted } from '../api/redaction.js';
import type { IntegrationApi } from '../port/integration-api.js';
import { sessionShapeProblem } from '../domain/review-session.js';
import type { ReviewSession } from '../domain/types.js';
import { AnswerUnreadableError, TransientTargetError } from '../system/errors.js';
import { withPinWithheld, type SessionOutcome } from '../report/review-session-csv.js';

/**
 * One session's outcome: its Content (PIN withheld unless `showPin`), or why it could not be
 * read (1101; of several: no answer after retries, one not the API's). Any other target failure ends the command.
 */
export async function readSession(
  api: IntegrationApi,
  externalId: string,
  showPin: boolean,
  several: boolean,
  redacted: { fields: number },
): Promise<SessionOutcome> {
  try {
    const result = await api.getReviewSession(externalId);
    if (!result.envelope.Success)
      return {
        externalId,
        error: describeErrors(result.envelope) || `HTTP ${result.status}`,
        errors: errorsOf(result.envelope),
      };
    const sent = result.envelope.Content as ReviewSession;
    const shape = sessionShapeProblem(sent);
    if (shape !== undefined)
      throw new AnswerUnreadableError(`the service answered ${result.status}, not the API's answer: ${shape}`);
    return { externalId, session: showPin ? sent : pinsRedacted(sent, withPinWithheld(sent), redacted) };
  } catch (error) {
    if (several && error instanceof TransientTargetError) return { externalId, error: error.message };
    throw error;
  }
}
