/** The domain's public API: pure rules, no I/O. Contract files are re-exported for convenience. */
export * from './codes.js';
export * from './problem.js';
export type * from './types.js';
export {
  validateUser,
  roleRequiredProblem,
  booleanState,
  USER_FIELDS,
  USER_VIEW_FIELDS,
  USER_FIELDS_NOT_IN_VIEW,
  HIERARCHY_FIELDS,
  HIERARCHY_FLAG_FIELDS,
  HIERARCHY_ACTIONS,
  MAX_LABELS,
  MAX_LABEL_LENGTH,
  MAX_IP_ADDRESSES,
  PASSWORD_MIN,
  PASSWORD_MAX,
} from './user.js';
export type { UserField, StoredUserField, UserFieldNotInView } from './user.js';
export {
  validateScheduleRequest,
  validateSchedule,
  validateCandidate,
  candidateSpecialNeeds,
  attemptRequiredMessage,
  attemptForbiddenMessage,
  endNotAfterStartMessage,
  emptyScheduleBodyMessage,
  duplicateCandidateMessage,
  WORKFLOWS,
  SCHEDULE_FIELDS,
  CANDIDATE_FIELDS,
  CANDIDATE_USER_PROFILE_FIELDS,
  SCHEDULE_REQUEST_FIELDS,
} from './schedule.js';
export { validateCollection, collectionRepositories, COLLECTION_FIELDS, COLLECTION_TITLE_LIMIT } from './collection.js';
export {
  validateInvigilatorRemoval,
  INVIGILATOR_SCHEDULE_FIELD,
  INVIGILATOR_IDS_FIELD,
  type InvigilatorRemoval,
} from './invigilators.js';
export {
  coerceUserFields,
  coerceCandidateFields,
  coerceScheduleFields,
  coerceCollectionFields,
  coerceScheduleRequestFields,
  coerceAndValidateUser,
  coerceAndValidateCandidate,
  coerceAndValidateCollection,
  coerceAndValidateScheduleRequest,
  mergeProblems,
  parseBooleanSpelling,
  parseHierarchyEntry,
  HIERARCHY_CELL_FLAGS,
  BOOLEAN_SPELLINGS_HELP,
  type Coerced,
} from './coercion.js';
export { idOf } from './record-id.js';
export {
  Sittings,
  ScheduleRequests,
  isScheduleRequest,
  withCandidateLines,
  type Sitting,
  type SittingRow,
  type ScheduleDefaults,
  type PreparedSchedule,
  sittingFieldPath,
} from './sittings.js';
export { USER_COLUMNS, CANDIDATE_COLUMNS, SCHEDULE_COLUMNS, COLLECTION_COLUMNS } from './columns.js';
export {
  adjustmentInvalidProblem,
  adjustmentWithoutSpecialNeedsProblem,
  dateTimeMessage,
  ADJUSTMENT_MIN,
  ADJUSTMENT_MAX,
  DATE_TIME_EXAMPLE,
} from './common-rules.js';
export * from './messages.js';
export {
  parseDateTime,
  addMinutes,
  normaliseDateOfBirth,
  canonicalIpEntry,
  codePointLength,
  isEmail,
  isGuid,
  isHttpUrl,
  type DateTimeParse,
} from './text-rules.js';
// The zod schemas (src/domain/schemas.ts) are deliberately not re-exported: importing this index
// must not load zod (start-up cost of every CLI run). Import them from schemas.js directly.
