/**
 * The LocalDirectory (src/port/local-directory.ts) over the engine's state or over a world file:
 * read-only queries, one implementation for both, so a prompt offers the same choices whether
 * the store exists yet or not (with no store, the first real run creates it from the world).
 */
import type {
  AssessmentEntry,
  CandidateLink,
  HierarchyEntry,
  KnownUser,
  LocalDirectory,
  ScheduleEntry,
  ScheduleLinks,
} from '../port/local-directory.js';
import type { ApiErrorEntry } from '../domain/envelope.js';
import type { CollectionRequest, ScheduleRequest } from '../domain/types.js';
import type { World, WorldAssessment, WorldHierarchy, WorldRole, WorldSchedule, WorldUser } from '../domain/world.js';
import { byKey } from '../domain/key-order.js';
import { userView } from './user-rules.js';
import { changedFieldsOf } from './decision.js';
import { decideSchedule } from './schedule-rules.js';
import { decideCollection } from './collection-rules.js';
import { OverlayView, StoreView, worldEntityChanges, type EngineView } from './view.js';

/** Queries over `view()`, asked anew on each call so they read the state as it is then. */
export function directoryOver(view: () => EngineView): LocalDirectory {
  return {
    roleTitles: () => participateFirst([...view().values<WorldRole>('roles')]),
    invigilatorsOf: (scheduleExtId) => {
      const schedule = view().get<WorldSchedule>('schedules', scheduleExtId);
      return schedule ? [...schedule.Invigilators] : null;
    },
    userOf: (externalId) => {
      const user = userIn(view(), externalId);
      return user ? knownUser(user) : null;
    },
    storedUserOf: (externalId) => {
      const user = userIn(view(), externalId);
      return user ? userView(user) : null;
    },
    membershipsOf: (externalId) => {
      const user = userIn(view(), externalId);
      return user ? (user.Hierarchies ?? []) : null;
    },
    assessments: () => byId([...view().values<WorldAssessment>('assessments')].map(assessmentEntry)),
    hierarchies: () => hierarchyEntries([...view().values<WorldHierarchy>('hierarchies')]),
    schedules: () =>
      [...view().values<WorldSchedule>('schedules')]
        .map(scheduleEntry)
        .sort((a, b) => Date.parse(b.start) - Date.parse(a.start) || byKey([a.id], [b.id])),
    scheduleLinks: (scheduleExtId) => {
      const schedule = view().get<WorldSchedule>('schedules', scheduleExtId);
      return schedule ? scheduleLinks(schedule) : null;
    },
    scheduleChanges: (request) => scheduleChanges(view(), request),
    collectionChanges: (request) => collectionChanges(view(), request),
  };
}

/** A time before any schedule starts: what the store holds is asked, not whether it takes an update now. */
const BEFORE_ANY_START = new Date(0);

/**
 * The stored schedule's fields `request` would change, decided as `schedule push --upsert` decides it, so a field
 * the request leaves out counts as the upsert leaves it (cleared, or its default). Only the schedule's own record is
 * compared, its candidates' fields too: not their users (a later user sync rightly holds those otherwise) nor a
 * group it would make (never updated). Never a password: only a candidate's user keeps it, as a hash; nor Upsert,
 * which no record keeps. A candidate new to the schedule changes its Candidates, so it needs no token here.
 */
function scheduleChanges(state: EngineView, request: ScheduleRequest): ReturnType<LocalDirectory['scheduleChanges']> {
  const key = request.Schedule.ScheduleExtId;
  if (key === undefined || state.get('schedules', key) === undefined) return null;
  const inputs = { generatedScheduleExtId: key, tokens: [], passwords: [] };
  const { result, changes } = decideSchedule(state, { ...request, Upsert: true }, inputs, BEFORE_ANY_START);
  if (!result.envelope.Success) return refusalOf(result.envelope);
  const own = changes.filter((change) => change.collection === 'schedules');
  return { changed: changedFieldsOf(state, { collection: 'schedules', key }, own) };
}

/** The first reason of the engine's own refusal (refuse, errorEntries). */
const refusalOf = (envelope: { Errors?: unknown }) => ({
  refused: (envelope.Errors as ApiErrorEntry[])[0]?.Message ?? '',
});

/**
 * The stored collection's fields `request` would give it, decided as `collection add` decides it over the store
 * without that collection, so a field the request leaves out counts as the engine fills it (the owner, its default).
 */
function collectionChanges(
  state: EngineView,
  request: CollectionRequest,
): ReturnType<LocalDirectory['collectionChanges']> {
  const key = request.ExternalId;
  if (key === undefined || state.get('collections', key) === undefined) return null;
  const without = new OverlayView(() => state);
  without.apply([{ collection: 'collections', key, value: null }]);
  const { result, changes } = decideCollection(without, request, key);
  if (!result.envelope.Success) return refusalOf(result.envelope);
  return { changed: changedFieldsOf(state, { collection: 'collections', key }, changes) };
}

/** The same directory over a world file: a dry run's overlay of its entities over an empty store. */
export function worldDirectory(world: World): LocalDirectory {
  const view = new OverlayView(() => new StoreView(new Map(), () => undefined));
  view.apply(worldEntityChanges(world));
  return directoryOver(() => view);
}

/** The user of this external id, or of it in another case. */
function userIn(state: EngineView, externalId: string): WorldUser | undefined {
  const key =
    state.get('users', externalId) !== undefined ? externalId : state.userKeyByExternalIdIgnoringCase(externalId);
  return key === undefined ? undefined : state.get<WorldUser>('users', key);
}

/** Only the fields a prompt may show as defaults: never a password hash or a link with a token. */
function knownUser(user: WorldUser): KnownUser {
  const known: KnownUser = {
    ExternalId: user.ExternalId,
    FirstName: user.FirstName,
    LastName: user.LastName,
    UserName: user.UserName,
    Role: user.Role,
  };
  if (typeof user.Email === 'string' && user.Email !== '') known.Email = user.Email;
  if (user.DisableLogin === true) known.DisableLogin = true;
  return known;
}

/**
 * Role titles for a prompt's select list, the roles that take exams (Participate) first: the
 * list's first entry is what a hurried Enter picks, and that must not be an administrator role.
 */
function participateFirst(roles: readonly WorldRole[]): string[] {
  return [...roles.filter((role) => role.Participate), ...roles.filter((role) => !role.Participate)].map(
    (role) => role.Title,
  );
}

function byId<T extends { id: string }>(entries: T[]): T[] {
  return entries.sort((a, b) => byKey([a.id], [b.id]));
}

function assessmentEntry(assessment: WorldAssessment): AssessmentEntry {
  return {
    id: assessment.ExternalId,
    title: assessment.Title,
    duration: assessment.MaxTimePerAttempt,
    proctored: assessment.UseProctoringService,
  };
}

function hierarchyEntries(hierarchies: readonly WorldHierarchy[]): HierarchyEntry[] {
  const byKey = new Map(hierarchies.map((hierarchy) => [hierarchy.ExternalId, hierarchy]));
  const pathOf = (hierarchy: WorldHierarchy): string => {
    // Walked iteratively with a visited set: a damaged world with a parent cycle must not hang a prompt.
    const titles: string[] = [];
    const seen = new Set<string>();
    for (
      let at: WorldHierarchy | undefined = hierarchy;
      at !== undefined && !seen.has(at.ExternalId);
      at = at.Parent ? byKey.get(at.Parent) : undefined
    ) {
      seen.add(at.ExternalId);
      titles.unshift(at.Title || at.ExternalId);
    }
    return titles.join(' / ');
  };
  return byId(
    hierarchies.map((hierarchy) => ({
      id: hierarchy.ExternalId,
      title: hierarchy.Title,
      path: pathOf(hierarchy),
      active: hierarchy.Active,
    })),
  );
}

function scheduleEntry(schedule: WorldSchedule): ScheduleEntry {
  return {
    id: schedule.ScheduleExtId,
    title: schedule.Title,
    start: schedule.StartDateTime,
    archived: schedule.Archived,
    candidates: schedule.Candidates.length,
  };
}

function scheduleLinks(schedule: WorldSchedule): ScheduleLinks {
  return {
    ScheduleExtId: schedule.ScheduleExtId,
    Title: schedule.Title,
    StartDateTime: schedule.StartDateTime,
    EndDateTime: schedule.EndDateTime,
    UseProctoringService: schedule.UseProctoringService ?? false,
    Candidates: schedule.Candidates.map((candidate) => {
      const link: CandidateLink = {
        CandidateExtId: candidate.CandidateExtId,
        FirstName: candidate.FirstName,
        LastName: candidate.LastName,
        Email: candidate.Email,
        StartupLink: candidate.StartupLink ?? '',
      };
      if (typeof candidate.LaunchUrl === 'string' && candidate.LaunchUrl !== '') link.LaunchUrl = candidate.LaunchUrl;
      return link;
    }),
  };
}
