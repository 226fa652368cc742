/**
 * Wire shapes of the integration API (docs/api-reference.md, "Fields"), after local validation and
 * normalisation: DateTimes in UTC `yyyy-mm-ddThh:mm:ss.sssZ`, candidate SpecialNeeds as the
 * string "true"/"false", unset optional fields absent (never empty strings).
 * The validators of this folder produce exactly these types.
 *
 * The request types list the fields their rule tables declare (domain/user.ts, schedule.ts):
 * each table module has an `AssertSameNames` check, so a field added to a table and not here
 * (or here and not there) fails to compile. The answer objects the API describes (review
 * session, Content of collections and invigilators) derive from answer-fields.ts.
 */
import type {
  AnswerObject,
  COLLECTION_CONTENT_FIELDS,
  GROUP_ERROR_FIELDS,
  INVIGILATOR_ERROR_FIELDS,
  INVIGILATORS_CONTENT_FIELDS,
  PASSED_STATUSES,
  RESULT_FIELDS,
  REVIEW_SESSION_FIELDS,
} from './answer-fields.js';

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

export type GroupError = AnswerObject<typeof GROUP_ERROR_FIELDS>;

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

export type CollectionResponseContent = AnswerObject<typeof COLLECTION_CONTENT_FIELDS>;

export type InvigilatorError = AnswerObject<typeof INVIGILATOR_ERROR_FIELDS>;

export type InvigilatorsResponseContent = AnswerObject<typeof INVIGILATORS_CONTENT_FIELDS>;

export type PassedStatus = (typeof PASSED_STATUSES)[number];

/** A Results entry (answer-fields.ts RESULT_FIELDS). */
export type ReviewSessionResult = AnswerObject<typeof RESULT_FIELDS>;

/** The review session answer (answer-fields.ts REVIEW_SESSION_FIELDS). */
export type ReviewSession = AnswerObject<typeof REVIEW_SESSION_FIELDS>;
