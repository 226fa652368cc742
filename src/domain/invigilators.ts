/** DELETE /schedule/{externalId}/invigilators: codes 100, 200 and 300 are decided here; 301-319 need the state. */
import { ErrorCode, type ProblemCode, UNNUMBERED } from './codes.js';
import type { Problem, Validation } from './problem.js';
import { codeNote, type Zod } from './field-rules.js';

const INVIGILATOR_SCHEDULE_FIELD = 'ScheduleExtId';
export const INVIGILATOR_IDS_FIELD = 'UserExtIds';

/** The client's refusal of an empty list (docs/interpretations.md, "Invigilators"), in the API's own code. */
export const EMPTY_LIST_REFUSAL = `the API refuses an empty list with code ${ErrorCode.InvigilatorBodyEmpty} (request body null or empty); nothing was sent`;
export const NO_VALID_ID_REFUSAL = `the API refuses a list without a valid user external id with code ${ErrorCode.InvigilatorNoValidIds}; nothing was sent`;

function isUsableId(v: unknown): v is string {
  return typeof v === 'string' && v.trim() !== '';
}

/** The request body's wire shape: the user external ids to remove (built by schemas.ts, which loads zod). */
export const invigilatorIdsWire = (zod: Zod) =>
  zod
    .array(zod.string().min(1).regex(/\S/))
    .min(1)
    .describe(
      `User external ids of the invigilators to remove, each a non-empty string (not blank), in order, duplicates kept. ` +
        `Missing or []${codeNote(ErrorCode.InvigilatorBodyEmpty)}; no non-empty string among them${codeNote(ErrorCode.InvigilatorNoValidIds)}.`,
    );

/** Ids are sent as given, in order (duplicates included: each is one report item). */
export function validateInvigilatorRemoval(
  scheduleExtId: unknown,
  userExtIds: unknown,
): Validation<{ scheduleExtId: string; userExtIds: string[] }> {
  const problems: Problem[] = [];
  if (!isUsableId(scheduleExtId)) {
    problems.push({
      field: INVIGILATOR_SCHEDULE_FIELD,
      code: ErrorCode.InvigilatorScheduleIdEmpty,
      message: 'The schedule external id must not be empty',
    });
  }
  // The body's ids: the usable ones, in order (problems on `UserExtIds` / `UserExtIds[i]`). An
  // entry that is empty or not a string is reported by index; when none is usable the whole body
  // is 200, as the API would answer.
  const ids: string[] = [];
  const listFail = (code: ProblemCode, message: string) =>
    problems.push({ field: INVIGILATOR_IDS_FIELD, code, message });
  if (userExtIds === undefined || userExtIds === null || (Array.isArray(userExtIds) && userExtIds.length === 0)) {
    listFail(ErrorCode.InvigilatorBodyEmpty, 'The list of invigilator user ids is empty');
  } else if (!Array.isArray(userExtIds)) {
    listFail(UNNUMBERED, 'The invigilator user ids must be a JSON array of strings');
  } else {
    const bad: Problem[] = [];
    for (let i = 0; i < userExtIds.length; i++) {
      const id: unknown = userExtIds[i];
      if (isUsableId(id)) ids.push(id);
      else
        bad.push({
          field: `${INVIGILATOR_IDS_FIELD}[${i}]`,
          code: UNNUMBERED,
          message: 'An invigilator user id must be a non-empty string',
        });
    }
    if (ids.length === 0) {
      listFail(ErrorCode.InvigilatorNoValidIds, 'The request holds no valid invigilator user ids');
    } else {
      problems.push(...bad);
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: { scheduleExtId: scheduleExtId as string, userExtIds: ids } };
}
