import { ErrorCode, type ProblemCode } from '../domain/codes.js';
import { idLengthProblem } from '../domain/review-session.js';
import { reviewSessionNotFoundProblem } from '../domain/messages.js';
import { problem, type Problem } from '../domain/problem.js';
import type { InvigilatorError, InvigilatorsResponseContent, ReviewSession } from '../domain/types.js';
import type { WorldSchedule } from '../domain/world.js';
import { accept, refuse, type Decision } from './decision.js';
import type { EngineView } from './view.js';

/**
 * DELETE /schedule/{id}/invigilators over validated ids. Whole-request failures come with
 * HTTP 200 and Success false (docs/interpretations.md, "Envelope and errors"); unknown ids are per-user 319 entries.
 */
export function decideInvigilatorRemoval(
  view: EngineView,
  scheduleExtId: string,
  userExtIds: readonly string[],
  now: Date,
): Decision<InvigilatorsResponseContent> {
  const schedule = view.get<WorldSchedule>('schedules', scheduleExtId);
  const problems: Problem[] = [];
  const fail = (code: ProblemCode, message: string) => problems.push(problem('ScheduleExtId', code, message));
  if (schedule === undefined) {
    fail(ErrorCode.InvigilatorScheduleNotFound, `Schedule not found: ${scheduleExtId}`);
  } else {
    if (schedule.Archived) fail(ErrorCode.InvigilatorScheduleArchived, `Schedule ${scheduleExtId} is archived`);
    if (Date.parse(schedule.EndDateTime) <= now.getTime())
      fail(ErrorCode.InvigilatorScheduleFinished, `Schedule ${scheduleExtId} is finished`);
  }
  if (problems.length > 0 || schedule === undefined) return refuse(problems, 200);

  // User ids compare ignoring case, as the service does (docs/domain-rules.md): INV-2 removes inv-2, named as the
  // request named it.
  const current = new Set(schedule.Invigilators.map((id) => id.toLowerCase()));
  const removed: string[] = [];
  const gone = new Set<string>();
  const errors: InvigilatorError[] = [];
  for (const id of userExtIds) {
    if (gone.has(id.toLowerCase())) continue;
    if (current.has(id.toLowerCase())) {
      removed.push(id);
      gone.add(id.toLowerCase());
    } else {
      errors.push({
        UserExtId: id,
        Code: ErrorCode.NotAnInvigilator,
        Error: `User ${id} has not been added as invigilator of schedule ${scheduleExtId}`,
      });
    }
  }
  const updated: WorldSchedule = {
    ...schedule,
    Invigilators: schedule.Invigilators.filter((id) => !gone.has(id.toLowerCase())),
  };
  return accept(
    view,
    { SuccessfullyRemoved: removed, Errors: errors },
    { collection: 'schedules', key: scheduleExtId, value: updated },
  );
}

/** GET /external/review-sessions/{externalId}: the stored object, or 1101; an id over string(60) is refused. */
export function decideReviewSession(view: EngineView, externalId: string): Decision<ReviewSession> {
  const tooLong = idLengthProblem(externalId);
  if (tooLong !== null) return refuse([tooLong]);
  const session = view.get<ReviewSession>('reviewSessions', externalId);
  if (session === undefined) {
    return refuse([reviewSessionNotFoundProblem(externalId)]);
  }
  return { result: { status: 200, envelope: { Content: session, Success: true, Errors: null } }, changes: [] };
}
