/**
 * "Already exists" answers to a create call, recognised by endpoint and code. After a retry
 * that followed a lost answer (the earlier attempt may have been applied), such an answer most
 * likely means the lost attempt created the entity: the call succeeded once.
 */
import { ErrorCode, type ProblemCode } from '../domain/codes.js';
import type { Envelope } from '../domain/envelope.js';
import type { Problem } from '../domain/problem.js';
import { errorsOf } from './envelope-errors.js';

/** A create call's rule (every create is a POST). */
interface AlreadyExistsRule {
  route: string;
  code: ProblemCode;
  /**
   * For a condition the spec leaves unnumbered (Code null), its words, each in the message as a word in any
   * case (`Bad request: duplicate ScheduleExtId S-1`): a Code-null answer is otherwise any of a dozen conditions.
   */
  condition?: string;
  /** Whether the request could meet this answer at all (an upsert never does). */
  applies?: (payload: unknown) => boolean;
}

const RULES: readonly AlreadyExistsRule[] = [
  { route: '/collections', code: ErrorCode.CollectionExternalIdTaken },
  // docs/api-reference.md, "Errors"; docs/interpretations.md, "Envelope and errors": HTTP 400, Code null.
  {
    route: '/schedule',
    // The API's own code for "Duplicate ScheduleExtId": null (HTTP 400), matched as the service answers it.
    code: null,
    condition: 'duplicate scheduleextid',
    applies: (payload) => (payload as { Upsert?: unknown } | null)?.Upsert !== true,
  },
];

function matches(rule: AlreadyExistsRule, problem: Problem): boolean {
  if (problem.code !== rule.code) return false;
  if (rule.condition === undefined) return true;
  // The message's words, lower-cased: runs of letters and digits.
  const words = new Set(problem.message.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  return rule.condition.split(' ').every((word) => words.has(word));
}

/**
 * True when a failed answer to `POST route` with `payload` says only that the entity already
 * exists. Any other problem beside it means the request itself was refused: not "already exists".
 */
export function saysAlreadyExists(route: string, payload: unknown, envelope: Envelope<unknown>): boolean {
  if (envelope.Success) return false;
  return problemsSayAlreadyExists(route, payload, errorsOf(envelope));
}

/** The same rule over an answer's problems, for `runs resume` of an item in flight when its run died. */
export function problemsSayAlreadyExists(route: string, payload: unknown, problems: readonly Problem[]): boolean {
  const rule = RULES.find((candidate) => candidate.route === route);
  if (rule === undefined || (rule.applies !== undefined && !rule.applies(payload))) return false;
  return problems.length > 0 && problems.every((problem) => matches(rule, problem));
}
