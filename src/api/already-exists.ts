import { ErrorCode } from '../domain/codes.js';
import type { Problem } from '../domain/problem.js';

/** The calls that create an entity under an id the caller chose, and refuse that id a second time. */
export type CreatingCall = 'schedule' | 'collection';

/**
 * Whether a refusal says the entity already exists: 810 for a collection, "Duplicate
 * ScheduleExtId" (HTTP 400, no code, interpretations.md) for a schedule. After an attempt whose
 * answer was lost (a retried request, an item in flight when a run died) this most likely means
 * that attempt created it.
 */
export function answersAlreadyExists(call: CreatingCall, problems: readonly Problem[]): boolean {
  if (call === 'collection') return problems.some((problem) => problem.code === ErrorCode.CollectionExternalIdTaken);
  return problems.some((problem) => /duplicate\s+scheduleextid|already (exists|used)/i.test(problem.message));
}
