/**
 * Problems that need the platform's state to decide, as the local engine words them (engine/*-rules.ts;
 * `local serve`'s document quotes one); each builder returns a complete Problem, `field` where the API reports it.
 */
import { ErrorCode } from './codes.js';
import { problem as p, type Problem } from './problem.js';
import { addMinutes } from './text-rules.js';

// ---- schedules (not numbered: code null)

/** Minutes added to the assessment duration for a default EndDateTime. */
const DEFAULT_END_MARGIN_MINUTES = 60;

/** Default EndDateTime: start + duration + 60 minutes, in the wire's UTC form. */
export function defaultEndDateTime(startUtc: string, durationMin: number): string {
  return addMinutes(startUtc, durationMin + DEFAULT_END_MARGIN_MINUTES);
}

/** The span rule's failure (docs/interpretations.md, "Schedules"): both figures, and the start and end when known. */
export function scheduleSpanProblem(
  durationMin: number,
  extraMin: number,
  spanMin: number,
  between?: { startUtc: string; endUtc: string; defaulted?: boolean },
): Problem {
  const needed = durationMin + extraMin;
  let times = '';
  let remedy = '';
  if (between?.defaulted === true) {
    times = ` (StartDateTime ${between.startUtc} to the default EndDateTime ${between.endUtc}, start + duration + ${DEFAULT_END_MARGIN_MINUTES} minutes, as the request gives no EndDateTime)`;
    remedy = `; give an EndDateTime later than ${addMinutes(between.startUtc, needed)}`;
  } else if (between !== undefined) {
    times = ` (StartDateTime ${between.startUtc} to EndDateTime ${between.endUtc})`;
  }
  return p(
    'Schedule.EndDateTime',
    null,
    `The schedule lasts ${formatMinutes(spanMin)} minutes${times} but must be longer than the assessment duration plus extra time (${durationMin} + ${extraMin} = ${needed} minutes)${remedy}`,
  );
}

/** The span rule: End - Start must be strictly greater than duration + extra; null when it holds. */
export function checkScheduleSpan(
  startUtc: string,
  endUtc: string,
  durationMin: number,
  extraMin: number,
  endDefaulted = false,
): Problem | null {
  // Minutes from start to end (normalised UTC strings), fractions kept.
  const span = (Date.parse(endUtc) - Date.parse(startUtc)) / 60_000;
  return span > durationMin + extraMin
    ? null
    : scheduleSpanProblem(durationMin, extraMin, span, { startUtc, endUtc, defaulted: endDefaulted });
}

function formatMinutes(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2);
}

export function duplicateScheduleExtIdProblem(scheduleExtId: string): Problem {
  return p(
    'Schedule.ScheduleExtId',
    null,
    `Duplicate ScheduleExtId: ${scheduleExtId} already exists (use Upsert to update it)`,
  );
}
export function activatedScheduleProblem(scheduleExtId: string, startUtc?: string): Problem {
  return p(
    'Schedule.ScheduleExtId',
    null,
    `Schedule ${scheduleExtId} is activated (its start${startUtc === undefined ? '' : `, ${startUtc},`} has passed) and cannot be updated`,
  );
}
export function schedulerNotSetProblem(): Problem {
  return p('Schedule.Owner', null, 'Scheduler not set: give Owner or set the owner in the external API settings');
}
export function schedulerNoPermissionProblem(userName: string): Problem {
  return p(
    'Schedule.Owner',
    null,
    `Selected scheduler ${userName} no longer has permission to create, update and delete schedules`,
  );
}
export function workflowChangedProblem(existing: string, requested: string): Problem {
  return p(
    'Workflow',
    null,
    `Workflow of an existing schedule cannot change (it is ${existing}, the request says ${requested}); create a new schedule or keep the workflow`,
  );
}
export function assessmentNotFoundProblem(assessmentExtId: string): Problem {
  return p('Schedule.AssessmentExtId', null, `Assessment not found: ${assessmentExtId}`);
}
export function proctoringTemplateNotFoundProblem(templateExtId: string): Problem {
  return p('Schedule.ProctoringServiceTemplateExternalId', null, `Proctoring template not found: ${templateExtId}`);
}

// ---- users

export function hierarchyNotFoundMessage(hierarchyExtId: string): string {
  return `Hierarchy not found: ${hierarchyExtId}`;
}
export function hierarchyInactiveMessage(hierarchyExtId: string): string {
  return `Hierarchy must be active: ${hierarchyExtId} is not active`;
}
export function permissionsCannotBeSetMessage(hierarchyExtId: string): string {
  return `Permissions cannot be set for hierarchy ${hierarchyExtId}`;
}
export function rootHierarchyNotFoundProblem(): Problem {
  return p('Hierarchies', ErrorCode.RootHierarchyNotFound, 'Root hierarchy not found');
}
export function userNameTakenProblem(userName: string): Problem {
  return p('UserName', ErrorCode.UserNameTaken, `A user with the UserName ${userName} already exists`);
}
export function synchronizationKeyTakenProblem(): Problem {
  return p(
    'SynchronizationKey',
    ErrorCode.SynchronizationKeyTaken,
    'A user with the same SynchronizationKey already exists',
  );
}
export function externalIdTakenProblem(externalId: string, existing: string): Problem {
  return p(
    'ExternalId',
    ErrorCode.UserExternalIdTaken,
    `A user with the same ExternalId exists: ${externalId} collides with ${existing} (ids are compared ignoring case)`,
  );
}
export function roleNotFoundProblem(role: string): Problem {
  return p('Role', ErrorCode.RoleNotFound, `Role not found: ${role}`);
}

// ---- collections

export function collectionOwnerNotFoundProblem(owner: string): Problem {
  return p('Owner', ErrorCode.CollectionOwnerNotFound, `Owner not found: ${owner}`);
}
export function collectionOwnerNotSetProblem(): Problem {
  return p(
    'Owner',
    ErrorCode.CollectionOwnerNotSet,
    'Owner not set: give Owner or set the owner in the external API settings',
  );
}
export function collectionOwnerNoPermissionProblem(owner: string): Problem {
  return p('Owner', ErrorCode.CollectionOwnerNoPermission, `Owner ${owner} lacks permission to view collections`);
}
export function collectionExternalIdTakenProblem(externalId: string): Problem {
  return p('ExternalId', ErrorCode.CollectionExternalIdTaken, `Collection ExternalId already used: ${externalId}`);
}
/** `field` is the entry's path, e.g. `Taxonomies[0].ExternalId`. */
export function taxonomyNotFoundProblem(field: string, taxonomyExtId: string): Problem {
  return p(field, ErrorCode.TaxonomyNotFound, `Taxonomy not found: ${taxonomyExtId}`);
}
export function repositoryNotFoundProblem(field: string, repositoryExtId: string): Problem {
  return p(field, ErrorCode.RepositoryNotFound, `Learning objective repository not found: ${repositoryExtId}`);
}
export function repositoryNotARepositoryProblem(field: string, repositoryExtId: string): Problem {
  return p(field, ErrorCode.RepositoryNotARepository, `Learning objective ${repositoryExtId} is not a repository`);
}
export function repositoryNotPublishedProblem(field: string, repositoryExtId: string): Problem {
  return p(
    field,
    ErrorCode.RepositoryNotPublished,
    `Learning objective repository ${repositoryExtId} is not published`,
  );
}
export function repositoryNoAccessProblem(field: string, repositoryExtId: string, owner: string): Problem {
  return p(field, ErrorCode.RepositoryNoAccess, `Owner ${owner} has no access to repository ${repositoryExtId}`);
}

// ---- invigilators

export function invigilatorScheduleNotFoundProblem(scheduleExtId: string): Problem {
  return p('ScheduleExtId', ErrorCode.InvigilatorScheduleNotFound, `Schedule not found: ${scheduleExtId}`);
}
export function invigilatorScheduleArchivedProblem(scheduleExtId: string): Problem {
  return p('ScheduleExtId', ErrorCode.InvigilatorScheduleArchived, `Schedule ${scheduleExtId} is archived`);
}
export function invigilatorScheduleFinishedProblem(scheduleExtId: string): Problem {
  return p('ScheduleExtId', ErrorCode.InvigilatorScheduleFinished, `Schedule ${scheduleExtId} is finished`);
}
export function notAnInvigilatorMessage(userExtId: string, scheduleExtId: string): string {
  return `User ${userExtId} has not been added as invigilator of schedule ${scheduleExtId}`;
}

// ---- review sessions

export function reviewSessionNotFoundProblem(externalId: string): Problem {
  return p('externalId', ErrorCode.ReviewSessionNotFound, `Review session has not been found: ${externalId}`);
}
