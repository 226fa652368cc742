/**
 * Wire shapes of the integration API (docs/api-reference.md, "Fields"), after local validation and
 * normalisation: DateTimes in UTC `yyyy-mm-ddThh:mm:ss.sssZ`, candidate SpecialNeeds as the
 * string "true"/"false", unset optional fields absent (never empty strings).
 * The zod schemas in this folder produce exactly these types.
 *
 * The request types list the fields their rule tables declare (domain/user.ts, schedule.ts):
 * each table module has an `AssertSameNames` check, so a field added to a table and not here
 * (or here and not there) fails to compile.
 */
import type { UserFieldNotInView } from './user.js';

export type Workflow = 'DEFAULT' | 'EXTERNAL_ATTEMPTS';

export interface Schedule {
  AssessmentExtId: string;
  Title?: string;
  ScheduleExtId?: string;
  StartDateTime: string;
  EndDateTime?: string;
  GroupExtId: string;
  GroupName: string;
  ScheduleGroupExtId?: string;
  ScheduleGroupName?: string;
  LockExamOnConnectionLoss?: boolean;
  Owner?: string;
  PIN?: string;
  UseProctoringService?: boolean;
  ProctoringServiceTemplateExternalId?: string;
  UseKeyCode?: boolean;
  enableAutomaticDataCleanup?: boolean;
  dataCleanupNoticePeriod?: string;
}

export interface Candidate {
  CandidateExtId: string;
  FirstName: string;
  LastName: string;
  Email: string;
  UserName?: string;
  Password?: string;
  SpecialNeeds?: 'true' | 'false';
  ReasonableAdjustmentPercentage?: number;
  AttemptExtId?: string;
  Photo?: string;
  Company?: string;
  City?: string;
  State?: string;
  CountryCode?: string;
  PostalCode?: string;
  AddressLine1?: string;
  AddressLine2?: string;
  PhoneNumber?: string;
  RegistrationNumber?: string;
  VoucherId?: string;
  CompId?: string;
  ProctorUIds?: string[];
}

export interface ScheduleRequest {
  Workflow?: Workflow;
  Upsert?: boolean;
  Schedule: Schedule;
  Candidates: Candidate[];
}

export type HierarchyAction = 'UPSERT' | 'DELETE';

export interface HierarchyMembership {
  ExternalId: string;
  IsCoordinator?: boolean;
  IsAdministrator?: boolean;
  HasViewReportsPermissions?: boolean;
  HasReScoringPermissions?: boolean;
  Action?: HierarchyAction;
}

export interface UserRequest {
  ExternalId: string;
  LastName: string;
  FirstName: string;
  Email?: string;
  UserName?: string;
  Role?: string;
  Photo?: string;
  DateOfBirth?: string;
  Company?: string;
  CountryCode?: string;
  State?: string;
  City?: string;
  PostalCode?: string;
  PostalAddress?: string;
  AddressLine1?: string;
  AddressLine2?: string;
  PhoneNumber?: string;
  CellularPhone?: string;
  SpecialNeeds?: boolean;
  ReasonableAdjustmentPercentage?: number;
  EnableReadSpeaker?: boolean;
  DisableLogin?: boolean;
  DisablePasswordReset?: boolean;
  SynchronizationKey?: string;
  Labels?: string[];
  AllowedIpAddresses?: string[];
  Password?: string;
  Hierarchies?: HierarchyMembership[];
}

/** Content.User of POST /user: the stored user, never the password. */
export type StoredUserView = Omit<UserRequest, UserFieldNotInView>;

export interface GroupError {
  ExternalId: string;
  Code: number;
  Error: string;
}

export interface UserResponseContent {
  User: StoredUserView;
  GroupErrors: GroupError[];
}

export interface IdTitle {
  ExternalId: string;
  Title?: string;
}

export interface CollectionRequest {
  ExternalId?: string;
  Title: string;
  Owner?: string;
  Taxonomies?: IdTitle[] | null;
  /** The parameter-list name; merged with ObjectiveRepositories (docs/interpretations.md, "Collections"). */
  LoRepositoryExternalIds?: IdTitle[] | null;
  ObjectiveRepositories?: IdTitle[] | null;
}

export interface CollectionResponseContent {
  ExternalId: string;
  Errors: unknown[];
}

export interface InvigilatorError {
  UserExtId: string;
  Code: number;
  Error: string;
}

export interface InvigilatorsResponseContent {
  SuccessfullyRemoved: string[];
  Errors: InvigilatorError[];
}

export type PassedStatus = 'NOT_SATISFACTORY' | 'SATISFACTORY' | 'NOT_SUBMITTED' | 'VOIDED';

export interface ReviewSessionResult {
  CandidateExtId: string;
  ScheduleExtId?: string | null;
  ScheduleTitle?: string | null;
  ScheduleGroupName?: string | null;
  FirstName?: string | null;
  LastName?: string | null;
  UserName?: string | null;
  Email?: string | null;
  DateOfBirth?: string | null;
  SpecialNeeds?: boolean;
  Labels?: string[];
  LastSatDate?: string | null;
  PassedStatus: PassedStatus;
  Score?: number | null;
  PublishedDate?: string | null;
  IsVisited?: boolean;
  VisitedDate?: string | null;
  HasConflicts?: boolean;
  Keycode?: string | null;
  Grade?: string | null;
  [extra: string]: unknown;
}

export interface ReviewSession {
  ExternalId: string;
  AssessmentExtId?: string;
  ScheduleExtId?: string | null;
  Results: ReviewSessionResult[];
  Title?: string;
  Hierarchy?: { ExternalId: string; FullPath: string } | null;
  Code?: string;
  ReviewPeriodMode?: 'ALWAYS' | 'TIME_SPAN';
  StartDate?: string | null;
  EndDate?: string | null;
  NumOfCandidates?: number;
  Status?: 'ACTIVE' | 'DRAFT';
  Owner?: string;
  IsArchived?: boolean;
  UseKeycode?: boolean;
  ResultsOptions?: Record<string, unknown>;
  OverviewOptions?: Record<string, unknown>;
  NavigationType?: 'CANDIDATE_DELIVERY' | 'ORIGINAL_FORM';
  UseLockDownBrowser?: boolean;
  UsePin?: boolean;
  Pin?: string | null;
  [extra: string]: unknown;
}
