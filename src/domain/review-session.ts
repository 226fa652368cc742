/** An id over string(60) is refused before any lookup, code null (docs/interpretations.md, "Review sessions"). */
import { UNNUMBERED } from './codes.js';
import { quotedValue, type Problem } from './problem.js';
import { codePointLength, exceedsLength } from './text-rules.js';
import { isPlainObject } from './field-rules.js';

const REVIEW_SESSION_ID_FIELD = 'externalId';
export const REVIEW_SESSION_ID_MAX = 60;

/** The problem with an id over string(`max`), or null when the API would look it up. */
export function idLengthProblem(
  externalId: string,
  max = REVIEW_SESSION_ID_MAX,
  what = 'review session',
): Problem | null {
  if (!exceedsLength(externalId, max)) return null;
  const message = `The ${what} external id ${quotedValue(externalId)} is ${codePointLength(externalId)} characters; at most ${max} (string(${max}))`;
  return { field: REVIEW_SESSION_ID_FIELD, code: UNNUMBERED, message };
}

/** Why a 200's Content is not the API's session (an object; Results, if sent, a list of objects). */
export function sessionShapeProblem(content: unknown): string | undefined {
  const results = isPlainObject(content) ? (content.Results ?? []) : undefined;
  if (results === undefined) return 'its Content is not an object';
  if (!Array.isArray(results)) return 'its Results is not a list';
  return results.every(isPlainObject) ? undefined : 'a Results entry is not an object';
}

/** The free-text fields of a session and its results: a quoted PIN is redacted there only. */
export const FREE_TEXT_FIELDS = [
  'Title',
  'ScheduleTitle',
  'ScheduleGroupName',
  'FirstName',
  'LastName',
  'Labels',
] as const;
