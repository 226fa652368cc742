/**
 * Problems that need the platform's state to decide, as the local engine words them, where more than one rule (or
 * `local serve`'s document) says them; a problem one engine rule raises is worded in that rule (engine/*-rules.ts).
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

/**
 * The span rule (docs/interpretations.md, "Schedules"): End - Start must be strictly greater than duration + extra;
 * its failure names both figures, the start and the end. Null when it holds.
 */
export function checkScheduleSpan(
  startUtc: string,
  endUtc: string,
  durationMin: number,
  extraMin: number,
  endDefaulted = false,
): Problem | null {
  // Minutes from start to end (normalised UTC strings), fractions kept.
  const span = (Date.parse(endUtc) - Date.parse(startUtc)) / 60_000;
  const needed = durationMin + extraMin;
  if (span > needed) return null;
  const times = endDefaulted
    ? ` (StartDateTime ${startUtc} to the default EndDateTime ${endUtc}, start + duration + ${DEFAULT_END_MARGIN_MINUTES} minutes, as the request gives no EndDateTime)`
    : ` (StartDateTime ${startUtc} to EndDateTime ${endUtc})`;
  const remedy = endDefaulted ? `; give an EndDateTime later than ${addMinutes(startUtc, needed)}` : '';
  return p(
    'Schedule.EndDateTime',
    null,
    `The schedule lasts ${formatMinutes(span)} minutes${times} but must be longer than the assessment duration plus extra time (${durationMin} + ${extraMin} = ${needed} minutes)${remedy}`,
  );
}

function formatMinutes(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2);
}

// ---- users

export function hierarchyNotFoundMessage(hierarchyExtId: string): string {
  return `Hierarchy not found: ${hierarchyExtId}`;
}
export function hierarchyInactiveMessage(hierarchyExtId: string): string {
  return `Hierarchy must be active: ${hierarchyExtId} is not active`;
}
export function userNameTakenProblem(userName: string): Problem {
  return p('UserName', ErrorCode.UserNameTaken, `A user with the UserName ${userName} already exists`);
}
export function externalIdTakenProblem(externalId: string, existing: string): Problem {
  return p(
    'ExternalId',
    ErrorCode.UserExternalIdTaken,
    `A user with the same ExternalId exists: ${externalId} collides with ${existing} (ids are compared ignoring case)`,
  );
}

// ---- review sessions

export function reviewSessionNotFoundProblem(externalId: string): Problem {
  return p('externalId', ErrorCode.ReviewSessionNotFound, `Review session has not been found: ${externalId}`);
}
