import { ErrorCode } from '../domain/codes.js';
import {
  externalIdTakenProblem,
  hierarchyInactiveMessage,
  hierarchyNotFoundMessage,
  userNameTakenProblem,
} from '../domain/messages.js';
import { HIERARCHY_FLAG_FIELDS, USER_FIELDS_NOT_IN_VIEW, USER_VIEW_FIELDS } from '../domain/user.js';
import { problem, type Problem } from '../domain/problem.js';
import type { GroupError, UserRequest } from '../domain/types.js';
import type { StoredUserView, UserResponseContent } from '../domain/user.js';
import type { WorldHierarchy, WorldMembership, WorldRole, WorldUser } from '../domain/world.js';
import { accept, mergeDefined, refuse, type Decision } from './decision.js';
import { choosePasswordHash, type PreparedPassword } from './schedule-rules.js';
import type { EngineView } from './view.js';

/** Request fields the stored user does not take as sent (domain/user.ts says which and why). */
const NOT_STORED_AS_SENT: ReadonlySet<string> = new Set(USER_FIELDS_NOT_IN_VIEW);

/** The stored user as the API answers it (Content.User) and a local store's directory reads it. */
export function userView(user: WorldUser): StoredUserView {
  const view: Record<string, unknown> = {};
  for (const field of USER_VIEW_FIELDS) if (user[field] !== undefined) view[field] = user[field];
  return view as unknown as StoredUserView;
}

function findRole(view: EngineView, title: string): WorldRole | undefined {
  const exact = view.get<WorldRole>('roles', title);
  if (exact !== undefined) return exact;
  const lower = title.toLowerCase();
  for (const role of view.values<WorldRole>('roles')) if (role.Title.toLowerCase() === lower) return role;
  return undefined;
}

/**
 * POST /user over a request validated for `isCreate` = the user does not exist (the caller checks that against the
 * same view, so a new user without Role was refused there, 240). Upsert by exact ExternalId.
 */
export function decideUser(
  view: EngineView,
  request: UserRequest,
  password: PreparedPassword | undefined,
): Decision<UserResponseContent> {
  const existing = view.get<WorldUser>('users', request.ExternalId);
  const problems: Problem[] = [];

  const collidesWith = existing === undefined ? view.userKeyByExternalIdIgnoringCase(request.ExternalId) : undefined;
  if (collidesWith !== undefined) problems.push(externalIdTakenProblem(request.ExternalId, collidesWith));
  let roleTitle = existing?.Role;
  if (request.Role !== undefined) {
    const role = findRole(view, request.Role);
    if (role === undefined) problems.push(problem('Role', ErrorCode.RoleNotFound, `Role not found: ${request.Role}`));
    else roleTitle = role.Title;
  }
  const userName = request.UserName ?? existing?.UserName ?? request.ExternalId;
  const nameHolder = view.userKeyByUserName(userName);
  // A defaulted UserName of a colliding id collides the same way; 233 already says it.
  const defaultedCollision = collidesWith !== undefined && request.UserName === undefined;
  if (nameHolder !== undefined && nameHolder !== request.ExternalId && !defaultedCollision) {
    problems.push(userNameTakenProblem(userName));
  }
  if (request.SynchronizationKey !== undefined) {
    const keyHolder = view.userKeyBySynchronizationKey(request.SynchronizationKey);
    if (keyHolder !== undefined && keyHolder !== request.ExternalId) {
      problems.push(
        problem(
          'SynchronizationKey',
          ErrorCode.SynchronizationKeyTaken,
          'A user with the same SynchronizationKey already exists',
        ),
      );
    }
  }
  const named = request.Hierarchies ?? [];
  // Asked only of a request naming hierarchies: most name none, and it was one of a create's three hint lookups.
  const root = named.length > 0 ? view.rootHierarchyKey() : undefined;
  if (named.length > 0 && root === undefined) {
    problems.push(problem('Hierarchies', ErrorCode.RootHierarchyNotFound, 'Root hierarchy not found'));
  }
  if (problems.length > 0 || roleTitle === undefined) return refuse(problems);

  const groupErrors: GroupError[] = [];
  let memberships: WorldMembership[] = [...(existing?.Hierarchies ?? [])];
  for (const entry of named) {
    const refused = (Code: GroupError['Code'], Error: string) =>
      groupErrors.push({ ExternalId: entry.ExternalId, Code, Error });
    const hierarchy = view.get<WorldHierarchy>('hierarchies', entry.ExternalId);
    if (hierarchy === undefined) {
      refused(ErrorCode.HierarchyNotFound, hierarchyNotFoundMessage(entry.ExternalId));
      continue;
    }
    if (entry.Action === 'DELETE') {
      memberships = memberships.filter((m) => m.ExternalId !== entry.ExternalId);
      continue;
    }
    if (entry.ExternalId === root && HIERARCHY_FLAG_FIELDS.some((flag) => entry[flag] === true)) {
      refused(ErrorCode.PermissionsCannotBeSet, `Permissions cannot be set for hierarchy ${entry.ExternalId}`);
      continue;
    }
    if (!hierarchy.Active) {
      refused(ErrorCode.HierarchyInactive, hierarchyInactiveMessage(entry.ExternalId));
      continue;
    }
    const index = memberships.findIndex((m) => m.ExternalId === entry.ExternalId);
    const previous = index === -1 ? { ExternalId: entry.ExternalId } : memberships[index]!;
    const updated: WorldMembership = { ...previous };
    for (const flag of HIERARCHY_FLAG_FIELDS) if (entry[flag] !== undefined) updated[flag] = entry[flag];
    if (index === -1) memberships.push(updated);
    else memberships[index] = updated;
  }

  const last: Record<string, unknown> = {
    UserName: userName,
    Role: roleTitle,
    PasswordHash: choosePasswordHash(password, existing?.PasswordHash),
    Hierarchies: memberships.length === 0 && existing?.Hierarchies === undefined ? undefined : memberships,
  };
  // A percentage is allowed only with SpecialNeeds true (250): clearing SpecialNeeds clears the stored one.
  if (request.SpecialNeeds === false) last['ReasonableAdjustmentPercentage'] = undefined;
  const user = mergeDefined(existing, request, NOT_STORED_AS_SENT, last) as unknown as WorldUser;
  return accept(
    view,
    { User: userView(user), GroupErrors: groupErrors },
    { collection: 'users', key: request.ExternalId, value: user },
  );
}
