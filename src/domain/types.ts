/** The API's wire shapes (docs/api-reference.md, "Fields"): tables as types (RecordOf), answers: answer-fields.ts. */
import type {
  AnswerObject,
  COLLECTION_CONTENT_FIELDS,
  INVIGILATOR_ERROR_FIELDS,
  INVIGILATORS_CONTENT_FIELDS,
  PASSED_STATUSES,
  RESULT_FIELDS,
  REVIEW_SESSION_FIELDS,
} from './answer-fields.js';

export type { Candidate, Schedule, ScheduleRequest, Workflow } from './schedule.js';

export type { GroupError, HierarchyMembership, UserRequest } from './user.js';

export type { CollectionRequest, IdTitle } from './collection.js';

export type CollectionResponseContent = AnswerObject<typeof COLLECTION_CONTENT_FIELDS>;

export type InvigilatorError = AnswerObject<typeof INVIGILATOR_ERROR_FIELDS>;

export type InvigilatorsResponseContent = AnswerObject<typeof INVIGILATORS_CONTENT_FIELDS>;

export type PassedStatus = (typeof PASSED_STATUSES)[number];

/** A Results entry (answer-fields.ts RESULT_FIELDS). */
export type ReviewSessionResult = AnswerObject<typeof RESULT_FIELDS>;

/** The review session answer (answer-fields.ts REVIEW_SESSION_FIELDS). */
export type ReviewSession = AnswerObject<typeof REVIEW_SESSION_FIELDS>;
