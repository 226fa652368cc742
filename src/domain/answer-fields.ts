/** The API's answer objects, declared once as data (docs/domain-rules.md, "Answers"); zod-free for the CLI. */

/** One answer field: its kind, whether the object always carries it, whether it may be null. */
type AnswerField = AnswerValue & { readonly required?: true; readonly nullable?: true; readonly description: string };

export type AnswerValue =
  | { readonly kind: 'string' | 'boolean' | 'number' | 'integer' | 'date-time' }
  | { readonly kind: 'enum'; readonly values: readonly string[] }
  | { readonly kind: 'list'; readonly of: AnswerValue }
  | { readonly kind: 'object'; readonly fields: AnswerFields };

export type AnswerFields = Readonly<Record<string, AnswerField>>;

/** The value type of one field kind. */
type AnswerValueOf<V> = V extends { kind: 'string' | 'date-time' }
  ? string
  : V extends { kind: 'boolean' }
    ? boolean
    : V extends { kind: 'number' | 'integer' }
      ? number
      : V extends { kind: 'enum'; values: readonly (infer E)[] }
        ? E
        : V extends { kind: 'list'; of: infer I }
          ? AnswerValueOf<I>[]
          : V extends { kind: 'object'; fields: infer F }
            ? AnswerObject<F>
            : never;

type FieldValue<F> = F extends { nullable: true } ? AnswerValueOf<F> | null : AnswerValueOf<F>;
type RequiredNames<F> = { [N in keyof F]: F[N] extends { required: true } ? N : never }[keyof F];

/** The object an answer declaration describes; a server may send more than the API text lists (kept as it came). */
export type AnswerObject<F> = { [N in RequiredNames<F>]: FieldValue<F[N]> } & {
  [N in Exclude<keyof F, RequiredNames<F>>]?: FieldValue<F[N]>;
} & { [extra: string]: unknown };

const text = (description: string) => ({ kind: 'string', description }) as const;
const nullableText = (description: string) => ({ kind: 'string', nullable: true, description }) as const;
const flag = (description: string) => ({ kind: 'boolean', description }) as const;
const oneOf = <const V extends readonly string[]>(values: V, description: string) =>
  ({ kind: 'enum', values, description }) as const;

/** Result PassedStatus (integration-api reading: "States and transitions"), passes first. */
export const PASSED_STATUSES = ['SATISFACTORY', 'NOT_SATISFACTORY', 'NOT_SUBMITTED', 'VOIDED'] as const;
const REVIEW_PERIOD_MODES = ['ALWAYS', 'TIME_SPAN'] as const;
const REVIEW_SESSION_STATUSES = ['ACTIVE', 'DRAFT'] as const;
const NAVIGATION_TYPES = ['CANDIDATE_DELIVERY', 'ORIGINAL_FORM'] as const;
const FEEDBACK_MODES = ['ON_ALTERNATIVES', 'ON_QUESTIONS', 'NO_FEEDBACK'] as const;

/** A Results entry, in the API text's order (the CSV export's first columns). */
export const RESULT_FIELDS = {
  CandidateExtId: { ...text('Candidate external id.'), required: true },
  ScheduleExtId: nullableText('Schedule external id.'),
  ScheduleTitle: nullableText('Schedule title.'),
  ScheduleGroupName: nullableText('Hierarchy name.'),
  FirstName: nullableText('Candidate first name.'),
  LastName: nullableText('Candidate last name.'),
  UserName: nullableText('Candidate user name.'),
  Email: nullableText('Candidate e-mail address.'),
  DateOfBirth: { kind: 'date-time', nullable: true, description: 'Date of birth (DateTime); null when unknown.' },
  SpecialNeeds: flag('True for candidates with special needs.'),
  Labels: { kind: 'list', of: { kind: 'string' }, description: 'Candidate labels.' },
  LastSatDate: nullableText('Date of the last submitted attempt.'),
  PassedStatus: { ...oneOf(PASSED_STATUSES, 'Result status.'), required: true },
  Score: { kind: 'number', nullable: true, description: 'Result score (decimal).' },
  PublishedDate: { kind: 'date-time', nullable: true, description: 'Publish date of the result (DateTime).' },
  IsVisited: flag('True if the candidate viewed the review session.'),
  VisitedDate: nullableText('Date the candidate viewed it; null when not visited.'),
  HasConflicts: flag('True if the same result is in another ongoing review session.'),
  Keycode: nullableText('Result keycode; null when empty.'),
  Grade: nullableText('Result grade.'),
} as const satisfies AnswerFields;

export const RESULTS_OPTIONS_FIELDS = {
  ShowSummary: flag('Show summary information.'),
  ShowDetailed: flag('Show detailed information.'),
  ScoreReportWithSubjects: flag('Score report by subjects.'),
  ScoreReportWithObjectives: flag('Score report by learning objectives.'),
  ScoreReportWithTopics: flag('Score report by topics.'),
  ShowMarkingScheme: flag('Show the marking scheme if set.'),
  ShowAnnotations: flag('Show annotations and feedback from markers.'),
  Feedback: oneOf(FEEDBACK_MODES, 'Feedback shown to candidates.'),
} as const satisfies AnswerFields;

export const OVERVIEW_OPTIONS_FIELDS = {
  ShowGrade: flag('Show the grade on the dashboard and the overview.'),
  ShowPercentageToPass: flag('Show the percentage to pass on the dashboard and the overview.'),
  ShowResultOutcome: flag('Show the result outcome on the dashboard and the overview.'),
} as const satisfies AnswerFields;

const REVIEW_HIERARCHY_FIELDS = {
  ExternalId: { ...text('Hierarchy external id.'), required: true },
  FullPath: { ...text('Path up to the root hierarchy.'), required: true },
} as const satisfies AnswerFields;

/** The review session (GET /external/review-sessions/{externalId}), in the API text's order. */
export const REVIEW_SESSION_FIELDS = {
  ExternalId: { ...text('Review session external id.'), required: true },
  AssessmentExtId: text('Assessment external id.'),
  ScheduleExtId: nullableText('Schedule external id; not set for review sessions based on an assessment.'),
  Results: {
    kind: 'list',
    of: { kind: 'object', fields: RESULT_FIELDS },
    required: true,
    description: 'Candidate result entries.',
  },
  Title: text('Review session title.'),
  Hierarchy: {
    kind: 'object',
    fields: REVIEW_HIERARCHY_FIELDS,
    nullable: true,
    description: 'Only for review sessions based on a schedule.',
  },
  Code: text('Assessment code.'),
  ReviewPeriodMode: oneOf(REVIEW_PERIOD_MODES, 'Review period mode.'),
  StartDate: { kind: 'date-time', nullable: true, description: 'Start of the review window (DateTime).' },
  EndDate: { kind: 'date-time', nullable: true, description: 'End of the review window (DateTime).' },
  NumOfCandidates: { kind: 'integer', description: 'Number of candidates.' },
  Status: oneOf(REVIEW_SESSION_STATUSES, 'Review session status.'),
  Owner: text('User name of the creator.'),
  IsArchived: flag('True if archived.'),
  UseKeycode: flag('Keycode is used.'),
  ResultsOptions: { kind: 'object', fields: RESULTS_OPTIONS_FIELDS, description: 'Candidate review options.' },
  OverviewOptions: { kind: 'object', fields: OVERVIEW_OPTIONS_FIELDS, description: 'Dashboard and overview options.' },
  NavigationType: oneOf(NAVIGATION_TYPES, 'Navigation type.'),
  UseLockDownBrowser: flag('Lockdown browser is used.'),
  UsePin: flag('PIN is used.'),
  Pin: nullableText('Null when UsePin is false, otherwise the PIN (withheld by examctl unless --show-pin).'),
} as const satisfies AnswerFields;

/** One entry of the collection's Content.Errors: the envelope's error shape (docs/domain-rules.md, "Answers"). */
const ERROR_ENTRY_FIELDS = {
  Code: {
    kind: 'integer',
    required: true,
    nullable: true,
    description: 'The API code; null where the API does not number the condition.',
  },
  Message: { ...text('The problem in words.'), required: true },
  Field: text('The field the problem is about.'),
} as const satisfies AnswerFields;

/** POST /collections: Content. */
export const COLLECTION_CONTENT_FIELDS = {
  ExternalId: { ...text('External id of the created collection.'), required: true },
  Errors: {
    kind: 'list',
    of: { kind: 'object', fields: ERROR_ENTRY_FIELDS },
    required: true,
    description: 'Problems with the collection.',
  },
} as const satisfies AnswerFields;

export const INVIGILATOR_ERROR_FIELDS = {
  UserExtId: { ...text('The invigilator external id.'), required: true },
  Code: { kind: 'integer', required: true, description: 'The API code (319: not an invigilator of this schedule).' },
  Error: { ...text('The problem in words.'), required: true },
} as const satisfies AnswerFields;

/** DELETE /schedule/{externalId}/invigilators: Content. */
export const INVIGILATORS_CONTENT_FIELDS = {
  SuccessfullyRemoved: {
    kind: 'list',
    of: { kind: 'string' },
    required: true,
    description: 'The removed invigilator external ids.',
  },
  Errors: {
    kind: 'list',
    of: { kind: 'object', fields: INVIGILATOR_ERROR_FIELDS },
    required: true,
    description: 'One entry per id that was not removed.',
  },
} as const satisfies AnswerFields;

export const GROUP_ERROR_FIELDS = {
  ExternalId: { ...text('The hierarchy external id.'), required: true },
  Code: { kind: 'integer', required: true, description: 'The API code (131, 133, 1134).' },
  Error: { ...text('The problem in words.'), required: true },
} as const satisfies AnswerFields;
