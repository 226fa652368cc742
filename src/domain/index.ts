/** The domain's public API: pure rules, no I/O. Contract files are re-exported for convenience. */
export * from './codes.js';
export * from './problem.js';
export type * from './types.js';
export {
  validateUser,
  roleRequiredProblem,
  USER_VIEW_FIELDS,
  USER_FIELDS_NOT_IN_VIEW,
  HIERARCHY_FLAG_FIELDS,
} from './user.js';
export {
  validateScheduleRequest,
  CANDIDATE_USER_PROFILE_FIELDS,
} from './schedule.js';
export { validateCollection } from './collection.js';
export { validateInvigilatorRemoval } from './invigilators.js';
export { idLengthProblem } from './review-session.js';
export { coerceAndValidateUser, coerceAndValidateCollection } from './coercion.js';
export {
  Sittings,
  prepareScheduleRequest,
  scheduleIdOf,
  withCandidateLines,
  type ScheduleDefaults,
  type PreparedSchedule,
  sittingFieldPath,
} from './sittings.js';
export { USER_COLUMNS, COLLECTION_COLUMNS } from './columns.js';
export * from './messages.js';
// The zod schemas (schemas.ts) are deliberately not re-exported: importing this index
// must not load zod (start-up cost of every CLI run). Import them from schemas.js directly.
