import { CANDIDATE_USER_PROFILE_FIELDS } from '../domain/schedule.js';
import {
  checkScheduleSpan,
  defaultEndDateTime,
  externalIdTakenProblem,
  hierarchyInactiveMessage,
  hierarchyNotFoundMessage,
  userNameTakenProblem,
} from '../domain/messages.js';
import { problem, type Problem } from '../domain/problem.js';
import { SCHEDULE_TITLE_MAX } from '../domain/schedule.js';
import type { Candidate, ScheduleRequest } from '../domain/types.js';
import type {
  WorldAssessment,
  WorldCandidate,
  WorldHierarchy,
  WorldMembership,
  WorldRole,
  WorldSchedule,
  WorldSettings,
  WorldUser,
} from '../domain/world.js';
import { accept, refuse, withoutUndefined, type Decision } from './decision.js';
import type { Change } from './store/contract.js';
import { SETTINGS_KEY, type EngineView } from './view.js';

/** Made before the transaction (randomness and hashing stay out of the pure decision). */
export interface ScheduleInputs {
  /** Used only when the request has no ScheduleExtId. */
  generatedScheduleExtId: string;
  /** One pair per candidate, by request index; used only for candidates new to the schedule. */
  tokens: { startup: string; launch: string }[];
  /** By candidate index, for candidates that carry a Password. */
  passwords: (PreparedPassword | undefined)[];
}

/**
 * A password hashed ahead of the transaction. `matches` is the stored hash the password was
 * verified against: if the user still holds that hash, it is kept (an identical resend is then
 * `unchanged` although every fresh hash has a new salt).
 */
export interface PreparedPassword {
  hash: string;
  matches?: string;
}

const DEFAULT_PROCTORING_PROVIDER = 'https://proctor.example.test';

export function choosePasswordHash(
  prepared: PreparedPassword | undefined,
  stored: string | undefined,
): string | undefined {
  if (prepared === undefined) return stored;
  return stored !== undefined && prepared.matches === stored ? stored : prepared.hash;
}

function participateRole(view: EngineView): WorldRole | undefined {
  let found: WorldRole | undefined;
  for (const role of view.values<WorldRole>('roles')) {
    if (role.Participate && (found === undefined || role.Title < found.Title)) found = role;
  }
  return found;
}

/** POST /schedule over an already validated request (docs/interpretations.md, "Schedules"). */
export function decideSchedule(
  view: EngineView,
  request: ScheduleRequest,
  inputs: ScheduleInputs,
  now: Date,
): Decision<string> {
  const s = request.Schedule;
  const problems: Problem[] = [];
  // Unnumbered: the schedule endpoint numbers only 249 and 250 (docs/domain-rules.md, "Codes per endpoint").
  const fail = (field: string, message: string): number => problems.push(problem(field, null, message));
  const settings = view.get<WorldSettings>('settings', SETTINGS_KEY);
  const workflow = request.Workflow ?? 'DEFAULT';
  const scheduleExtId = s.ScheduleExtId ?? inputs.generatedScheduleExtId;
  const existing = view.get<WorldSchedule>('schedules', scheduleExtId);

  if (existing !== undefined) {
    if (request.Upsert !== true) {
      fail(
        'Schedule.ScheduleExtId',
        `Duplicate ScheduleExtId: ${scheduleExtId} already exists (use Upsert to update it)`,
      );
    } else {
      if (existing.Workflow !== workflow) {
        fail(
          'Workflow',
          `Workflow of an existing schedule cannot change (it is ${existing.Workflow}, the request says ${workflow}); create a new schedule or keep the workflow`,
        );
      }
      if (Date.parse(existing.StartDateTime) <= now.getTime()) {
        fail(
          'Schedule.ScheduleExtId',
          `Schedule ${scheduleExtId} is activated (its start, ${existing.StartDateTime}, has passed) and cannot be updated`,
        );
      }
    }
  }

  const ownerName = s.Owner ?? settings?.ExternalApiOwner ?? undefined;
  if (ownerName === undefined || ownerName === '') {
    fail('Schedule.Owner', 'Scheduler not set: give Owner or set the owner in the external API settings');
  } else {
    const ownerKey = view.userKeyByUserName(ownerName);
    const owner = ownerKey === undefined ? undefined : view.get<WorldUser>('users', ownerKey);
    if (owner?.CanManageSchedules !== true) {
      // An unknown owner is reported the same way: there is no such scheduler with the permission.
      fail(
        'Schedule.Owner',
        `Selected scheduler ${ownerName} no longer has permission to create, update and delete schedules`,
      );
    }
  }

  const assessment = view.get<WorldAssessment>('assessments', s.AssessmentExtId);
  const startMs = Date.parse(s.StartDateTime);
  let endIso = s.EndDateTime === undefined ? undefined : new Date(Date.parse(s.EndDateTime)).toISOString();
  if (assessment === undefined) {
    fail('Schedule.AssessmentExtId', `Assessment not found: ${s.AssessmentExtId}`);
  } else {
    const duration = assessment.MaxTimePerAttempt;
    const startIso = new Date(startMs).toISOString();
    const endDefaulted = endIso === undefined;
    endIso ??= defaultEndDateTime(startIso, duration);
    const spanProblem = checkScheduleSpan(startIso, endIso, duration, assessment.ExtraTime, endDefaulted);
    if (spanProblem !== null) problems.push(spanProblem);
  }

  let scheduleHierarchy: string | undefined;
  if (s.ScheduleGroupExtId !== undefined) {
    const hierarchy = view.get<WorldHierarchy>('hierarchies', s.ScheduleGroupExtId);
    if (hierarchy === undefined) {
      fail('Schedule.ScheduleGroupExtId', hierarchyNotFoundMessage(s.ScheduleGroupExtId));
    } else if (!hierarchy.Active) {
      fail('Schedule.ScheduleGroupExtId', hierarchyInactiveMessage(s.ScheduleGroupExtId));
    } else {
      scheduleHierarchy = s.ScheduleGroupExtId;
    }
  } else {
    scheduleHierarchy = view.rootHierarchyKey();
    if (scheduleHierarchy === undefined) fail('Schedule.ScheduleGroupExtId', 'Root hierarchy not found');
  }
  const group = view.get<WorldHierarchy>('hierarchies', s.GroupExtId);
  if (group !== undefined && !group.Active) {
    fail('Schedule.GroupExtId', hierarchyInactiveMessage(s.GroupExtId));
  }

  const useProctoring = s.UseProctoringService ?? assessment?.UseProctoringService ?? false;
  const templateId =
    s.ProctoringServiceTemplateExternalId ??
    (useProctoring ? (settings?.DefaultProctoringTemplate ?? undefined) : undefined);
  if (s.ProctoringServiceTemplateExternalId !== undefined || useProctoring) {
    if (templateId === undefined) {
      fail(
        'Schedule.ProctoringServiceTemplateExternalId',
        'Proctoring template not set: give ProctoringServiceTemplateExternalId or a default template in the settings',
      );
    } else if (view.get('proctoringTemplates', templateId) === undefined) {
      fail('Schedule.ProctoringServiceTemplateExternalId', `Proctoring template not found: ${templateId}`);
    }
  }

  const role = participateRole(view);
  const userNameOwners = new Map<string, string>();
  const userNames: string[] = [];
  request.Candidates.forEach((candidate, index) => {
    const id = candidate.CandidateExtId;
    const user = view.get<WorldUser>('users', id);
    if (user === undefined) {
      const other = view.userKeyByExternalIdIgnoringCase(id);
      if (other !== undefined) {
        // The user table's condition, unnumbered here as every problem of this endpoint.
        problems.push({
          ...externalIdTakenProblem(id, other),
          field: `Candidates[${index}].CandidateExtId`,
          code: null,
        });
        // Its default UserName collides the same way; one problem says it.
        return;
      }
      if (role === undefined) {
        fail(`Candidates[${index}].CandidateExtId`, 'No role with the Participate option exists for new candidates');
      }
    }
    const userName = candidate.UserName ?? user?.UserName ?? id;
    userNames[index] = userName;
    const holder = view.userKeyByUserName(userName);
    const inRequest = userNameOwners.get(userName.toLowerCase());
    if ((holder !== undefined && holder !== id) || (inRequest !== undefined && inRequest !== id)) {
      // Unnumbered here too (214 is the user endpoint's).
      problems.push({ ...userNameTakenProblem(userName), field: `Candidates[${index}].UserName`, code: null });
    }
    userNameOwners.set(userName.toLowerCase(), id);
  });

  if (problems.length > 0 || assessment === undefined || endIso === undefined || scheduleHierarchy === undefined) {
    return refuse(problems);
  }

  const changes: Change[] = [];
  if (group === undefined) {
    const created: WorldHierarchy = {
      ExternalId: s.GroupExtId,
      Title: s.GroupName,
      Parent: scheduleHierarchy,
      Active: true,
    };
    changes.push({ collection: 'hierarchies', key: s.GroupExtId, value: created });
  }

  const siteUrl = (settings?.SiteUrl ?? '').replace(/\/+$/, '');
  const providerUrl = (settings?.ProctoringProviderUrl ?? DEFAULT_PROCTORING_PROVIDER).replace(/\/+$/, '');
  const candidates = [...(existing?.Candidates ?? [])];
  const positions = new Map(candidates.map((c, index) => [c.CandidateExtId, index]));
  request.Candidates.forEach((candidate, index) => {
    const position = positions.get(candidate.CandidateExtId);
    const previous = position === undefined ? undefined : candidates[position];
    const tokens = inputs.tokens[index] ?? { startup: '', launch: '' };
    const { Password: _password, ...fields } = candidate;
    const stored: WorldCandidate = withoutUndefined({
      ...fields,
      StartupLink: previous?.StartupLink ?? `${siteUrl}/delivery/external-login?session=${tokens.startup}`,
      LaunchUrl: useProctoring
        ? (previous?.LaunchUrl ?? `${providerUrl}/launch?t=${tokens.launch}#/exam/${encodeURIComponent(scheduleExtId)}`)
        : undefined,
    });
    if (position === undefined) {
      positions.set(candidate.CandidateExtId, candidates.length);
      candidates.push(stored);
    } else {
      candidates[position] = stored;
    }
    const user = candidateUser(
      view.get<WorldUser>('users', candidate.CandidateExtId),
      candidate,
      userNames[index] ?? candidate.CandidateExtId,
      role?.Title ?? '',
      s.GroupExtId,
      inputs.passwords[index],
    );
    changes.push({ collection: 'users', key: candidate.CandidateExtId, value: user });
  });

  const schedule: WorldSchedule = withoutUndefined({
    ...s,
    ScheduleExtId: scheduleExtId,
    Title: s.Title ?? generatedTitle(assessment.Title, startMs),
    StartDateTime: new Date(startMs).toISOString(),
    EndDateTime: endIso,
    ScheduleGroupExtId: scheduleHierarchy,
    Owner: ownerName,
    UseProctoringService: useProctoring,
    ProctoringServiceTemplateExternalId:
      useProctoring || s.ProctoringServiceTemplateExternalId !== undefined ? templateId : undefined,
    Workflow: workflow,
    Archived: existing?.Archived ?? false,
    Invigilators: existing?.Invigilators ?? [],
    Candidates: candidates,
  });
  return accept(view, scheduleExtId, { collection: 'schedules', key: scheduleExtId, value: schedule }, changes);
}

/** A schedule's title when the request gives none (docs/engine-rules.md, "Schedules"), cut by code points. */
function generatedTitle(assessmentTitle: string, startMs: number): string {
  const when = ` ${new Date(startMs).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const room = SCHEDULE_TITLE_MAX - when.length;
  const points = [...assessmentTitle];
  const head =
    points.length > room
      ? `${points
          .slice(0, room - 1)
          .join('')
          .trimEnd()}…`
      : assessmentTitle;
  return `${head}${when}`;
}

/** The platform user behind a candidate (same identity as user sync's ExternalId). */
function candidateUser(
  existing: WorldUser | undefined,
  candidate: Candidate,
  userName: string,
  roleTitle: string,
  groupExtId: string,
  password: PreparedPassword | undefined,
): WorldUser {
  const base: WorldUser = existing ?? {
    ExternalId: candidate.CandidateExtId,
    UserName: userName,
    FirstName: '',
    LastName: '',
    Role: roleTitle,
  };
  const copied: Partial<WorldUser> = {};
  for (const field of CANDIDATE_USER_PROFILE_FIELDS)
    if (candidate[field] !== undefined) copied[field] = candidate[field];
  const memberships: WorldMembership[] = [...(existing?.Hierarchies ?? [])];
  if (!memberships.some((m) => m.ExternalId === groupExtId)) memberships.push({ ExternalId: groupExtId });
  return withoutUndefined({
    ...base,
    UserName: userName,
    FirstName: candidate.FirstName,
    LastName: candidate.LastName,
    Email: candidate.Email,
    ...copied,
    SpecialNeeds: candidate.SpecialNeeds === undefined ? base.SpecialNeeds : candidate.SpecialNeeds === 'true',
    ReasonableAdjustmentPercentage:
      candidate.SpecialNeeds === 'false'
        ? undefined
        : (candidate.ReasonableAdjustmentPercentage ?? base.ReasonableAdjustmentPercentage),
    PasswordHash: choosePasswordHash(password, base.PasswordHash),
    Hierarchies: memberships,
  });
}
