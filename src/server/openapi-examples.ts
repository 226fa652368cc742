/**
 * The `example` of every request body and answer in the OpenAPI document (docs/remote.md, "The
 * OpenAPI document"), so a mock (Stoplight Prism) answers and a viewer shows real values. Nothing
 * is typed twice: each refusal is the domain's own verdict on the example with one cell broken.
 */
import { validateCollection } from '../domain/collection.js';
import { validateInvigilatorRemoval } from '../domain/invigilators.js';
import { reviewSessionNotFoundProblem } from '../domain/messages.js';
import type { Problem, Validation } from '../domain/problem.js';
import { validateScheduleRequest } from '../domain/schedule.js';
import { validateUser } from '../domain/user.js';
import { errorEntries } from '../engine/decision.js';
import { InternalError } from '../system/errors.js';
import { templateExampleRecord } from '../report/template-files.js';

export interface OperationExamples {
  /** The request body (absent for a GET). */
  request?: unknown;
  /** The 200 answer's envelope. */
  ok: unknown;
  /** The 400 answer's envelope. */
  refused: unknown;
}

type Fields = Record<string, unknown>;

function success(content: unknown): object {
  return { Content: content, Success: true, Errors: null };
}

function failure(problems: readonly Problem[]): object {
  return { Content: null, Success: false, Errors: errorEntries(problems) };
}

function refusalOf(validation: Validation<unknown>): object {
  if (validation.ok) throw new InternalError('an OpenAPI refusal example passed validation');
  return failure(validation.problems);
}

/** An answer examctl's server gives with a status other than 200/400: no code, the reason in words. */
export function statusFailureExample(message: string): object {
  return failure([{ field: '', code: null, message }]);
}

export function operationExamples(): Record<'schedule' | 'reviewSession' | 'collection' | 'user' | 'invigilators', OperationExamples> {
  const user = templateExampleRecord('users') as Fields;
  const schedule = templateExampleRecord('sittings') as Fields & { Schedule: Fields };
  const collection = templateExampleRecord('collection') as Fields;
  const invigilator = templateExampleRecord('invigilators') as string;
  // The stored user is the request without what is never answered (the password) or answered apart (memberships).
  const { Password: _password, Hierarchies: _hierarchies, ...storedUser } = user;
  return {
    schedule: {
      request: schedule,
      ok: success(schedule.Schedule.ScheduleExtId),
      refused: refusalOf(validateScheduleRequest({ ...schedule, Schedule: { ...schedule.Schedule, EndDateTime: schedule.Schedule.StartDateTime } })),
    },
    reviewSession: {
      ok: success({
        ExternalId: 'RS-MATH1-OCT',
        AssessmentExtId: String(schedule.Schedule.AssessmentExtId),
        ScheduleExtId: 'S-PAST',
        Title: 'Mathematics 1 - October review',
        Results: [{ CandidateExtId: 'c-1001', PassedStatus: 'SATISFACTORY', Score: 87.5 }],
      }),
      refused: failure([reviewSessionNotFoundProblem('RS-NOPE')]),
    },
    collection: {
      request: collection,
      ok: success({ ExternalId: collection.ExternalId, Errors: [] }),
      refused: refusalOf(validateCollection({ ...collection, ExternalId: `${String(collection.ExternalId)} 2` })),
    },
    user: {
      request: user,
      ok: success({ User: storedUser, GroupErrors: [] }),
      refused: refusalOf(validateUser({ ...user, Email: String(user.Email).replace('@', '(at)') }, { isCreate: true })),
    },
    invigilators: {
      request: [invigilator],
      ok: success({ SuccessfullyRemoved: [invigilator], Errors: [] }),
      refused: refusalOf(validateInvigilatorRemoval('S-MATH1-DEC', invigilator)),
    },
  };
}
