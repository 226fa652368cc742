import type { CollectionRequest, ScheduleRequest } from '../domain/types.js';
import type { StoredUserView } from '../domain/user.js';
import type { WorldCandidate, WorldMembership, WorldSchedule, WorldUser } from '../domain/world.js';
/**
 * Read-only lookups only the local target answers (the integration API lists none of them): prompts
 * offer choices from them, `schedule links` reads the links. Beside IntegrationApi, never in it, so
 * commands work the same against a remote target, which has none (docs/human.md).
 */
export interface LocalDirectory {
  /** Titles of the world's roles, those that take exams (Participate) first, then the world's order. */
  roleTitles(): string[];
  /** External ids of the schedule's invigilators; null when there is no such schedule. */
  invigilatorsOf(scheduleExtId: string): string[] | null;
  /**
   * The editable fields of an existing user (never a password or its hash); null when unknown. The user lookups
   * take an ExternalId in any case, as examctl compares user ids; schedule ids match exactly.
   */
  userOf(externalId: string): KnownUser | null;
  /** The user's whole stored record as Content.User shows it (never a password or memberships); null when unknown. */
  storedUserOf(externalId: string): StoredUserView | null;
  /** The user's memberships as stored, with their flags (a plan's before: docs/plan.md); null when unknown. */
  membershipsOf(externalId: string): readonly WorldMembership[] | null;
  /** Every assessment, by external id (code-unit order). */
  assessments(): AssessmentEntry[];
  /** Every hierarchy, by external id; `path` is the titles from the root down, joined with " / ". */
  hierarchies(): HierarchyEntry[];
  /** Every schedule, the latest start first (the one being prepared is usually near the top). */
  schedules(): ScheduleEntry[];
  /** The schedule's candidates with their links, in the schedule's order; null when there is no such schedule. */
  scheduleLinks(scheduleExtId: string): ScheduleLinks | null;
  /**
   * The stored schedule's fields that `request`, sent as an upsert, would change (as a plan names them); `refused`
   * when the store would refuse it, with its first reason; null when there is no such schedule.
   */
  scheduleChanges(request: ScheduleRequest): { changed: string[] } | { refused: string } | null;
  /**
   * The stored collection's fields that `request` would give it were it made anew (`collection add` cannot update
   * one); `refused` when the store would refuse it, with its first reason; null when there is no such collection.
   */
  collectionChanges(request: CollectionRequest): { changed: string[] } | { refused: string } | null;
}

/** The LocalDirectory an open API has beside it: the local engine's (LocalEngine); a remote client has none. */
export function localDirectoryOf(api: object | null | undefined): LocalDirectory | undefined {
  return api != null && 'scheduleChanges' in api ? (api as LocalDirectory) : undefined;
}

export type KnownUser = Pick<WorldUser, 'ExternalId' | 'FirstName' | 'LastName' | 'Email' | 'UserName' | 'Role'> & {
  DisableLogin?: true;
};

export interface AssessmentEntry {
  id: string;
  title: string;
  /** Minutes per attempt. */
  duration: number;
  proctored: boolean;
}

export interface HierarchyEntry {
  id: string;
  title: string;
  path: string;
  active: boolean;
}

export interface ScheduleEntry {
  id: string;
  title: string;
  /** RFC 3339, as stored. */
  start: string;
  archived: boolean;
  candidates: number;
}

/** A candidate and what to send them (docs/api-reference.md, "Schedule links"). */
export type CandidateLink = Pick<
  WorldCandidate,
  'CandidateExtId' | 'FirstName' | 'LastName' | 'Email' | 'StartupLink' | 'LaunchUrl'
>;

export type ScheduleLinks = Pick<WorldSchedule, 'ScheduleExtId' | 'Title' | 'StartDateTime' | 'EndDateTime'> & {
  UseProctoringService: boolean;
  Candidates: CandidateLink[];
};

/** A directory the caller must close (it may hold a store open). */
export interface OpenDirectory extends LocalDirectory {
  close(): Promise<void>;
}
