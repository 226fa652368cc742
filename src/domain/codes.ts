/**
 * Every numbered error code a problem can carry (docs/domain-rules.md, "Codes per endpoint"): the
 * spec's SPEC_CODES, then examctl's OWN_CODES (tsc refuses a number outside 9000..9999:
 * FourDigitsFrom9). Use them through ErrorCode, the union of both blocks.
 */
export const SPEC_CODES = {
  // user (400)
  UnknownError: 102,
  RootHierarchyNotFound: 130,
  HierarchyNotFound: 131,
  PermissionsCannotBeSet: 133,
  UserNotFound: 202,
  UserExternalIdEmpty: 206,
  EmailInvalid: 209,
  FirstNameEmpty: 210,
  FirstNameTooLong: 211,
  LastNameEmpty: 212,
  LastNameTooLong: 213,
  UserNameTaken: 214,
  UserExternalIdTooLong: 218,
  UserExternalIdInvalid: 219,
  CellularPhoneTooLong: 220,
  PhoneNumberTooLong: 221,
  AddressLine1TooLong: 222,
  AddressLine2TooLong: 223,
  PostalCodeTooLong: 224,
  PostalAddressTooLong: 225,
  UserNameInvalid: 226,
  CompanyTooLong: 227,
  CityTooLong: 228,
  StateTooLong: 229,
  CountryCodeTooLong: 230,
  SynchronizationKeyInvalid: 231,
  SynchronizationKeyTaken: 232,
  UserExternalIdTaken: 233,
  TooManyLabels: 234,
  LabelInvalid: 235,
  LabelsDuplicate: 236,
  TooManyIpAddresses: 237,
  IpAddressInvalid: 238,
  IpAddressesDuplicate: 239,
  RoleEmpty: 240,
  RoleNotFound: 241,
  HierarchiesContainNull: 242,
  HierarchiesDuplicate: 243,
  HierarchyActionInvalid: 244,
  PhotoInvalid: 245,
  DateOfBirthInvalid: 246,
  PasswordLength: 247,
  // user and schedule (candidates)
  AdjustmentPercentageInvalid: 249,
  AdjustmentWithoutSpecialNeeds: 250,
  HierarchyInactive: 1134,
  // review session
  ReviewSessionNotFound: 1101,
  // collection
  CollectionExternalIdInvalid: 802,
  CollectionTitleEmpty: 804,
  CollectionTitleTooLong: 805,
  CollectionOwnerNotFound: 806,
  CollectionOwnerNotSet: 807,
  CollectionOwnerNoPermission: 808,
  CollectionExternalIdTaken: 810,
  TaxonomyNotFound: 900,
  TaxonomyEmpty: 901,
  TaxonomyExternalIdEmpty: 902,
  RepositoryNotFound: 1000,
  RepositoryNotARepository: 1001,
  RepositoryNotPublished: 1002,
  RepositoryNoAccess: 1003,
  RepositoryExternalIdEmpty: 1004,
  // invigilators (HTTP 200)
  InvigilatorBodyEmpty: 100,
  InvigilatorNoValidIds: 200,
  InvigilatorScheduleIdEmpty: 300,
  InvigilatorScheduleNotFound: 301,
  InvigilatorScheduleArchived: 302,
  InvigilatorScheduleFinished: 305,
  NotAnInvigilator: 319,
} as const;

type Digit = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9';
type NumberOf<S extends string> = S extends `${infer N extends number}` ? N : never;
/** 9000 | 9001 | ... | 9999: tsc refuses any other number in OWN_CODES. */
type FourDigitsFrom9 = NumberOf<`9${Digit}${Digit}${Digit}`>;

/**
 * The codes of examctl's warnings (docs/input-formats.md, "Warnings"): a value sent as it is that looks
 * damaged or wider than the API text's words; under --strict a failure with that code (docs/cli.md, "--strict").
 */
export const WARNING_CODES = {
  InvisibleCharacterRemoved: 9000,
  CharacterLostInEncoding: 9001,
  QuestionMarkForLetter: 9002,
  NumberInExponentForm: 9003,
  ListCellNotSplit: 9004,
  DateCellInTextField: 9005,
  NumberCellPastFifteenDigits: 9006,
  WiderThanApiText: 9007,
  DoubleEncodedLetters: 9008,
} as const satisfies Record<string, FourDigitsFrom9>;

/**
 * The codes of the problems only examctl finds (docs/errors.md, "A record's own codes"): a rule of a file, of
 * the sync memory, of a plan or of a run, which no API endpoint has; or of a field of examctl's own, which the
 * local engine answers too (docs/architecture.md, "Add a field, with a code of examctl's own"). A rule of the API that the spec leaves
 * unnumbered keeps code null, as the API and the local engine answer it (docs/domain-rules.md, "Codes per endpoint").
 */
export const ITEM_CODES = {
  IdRepeatedInFile: 9009,
  ScheduleRowsDisagree: 9010,
  CandidateDiffersAcrossSchedules: 9011,
  FieldGivenTwice: 9012,
  UnknownInputKey: 9013,
  CellNotReadable: 9014,
  HierarchyCellInvalid: 9015,
  ComputedValueRefused: 9016,
  YesNoCellInvalid: 9017,
  IdsOneWithoutLeadingZeros: 9018,
  NotOnLocalStore: 9019,
  NothingToAdopt: 9020,
  StaleRow: 9021,
  RowOfAnotherPopulation: 9022,
  PinWouldBeCleared: 9023,
  NotInPlan: 9024,
  NotSentRunStopped: 9025,
  NoDefiniteAnswer: 9026,
  RemovalNotConfirmed: 9027,
  FailedWithoutErrors: 9028,
  ErrorsLeftOut: 9029,
} as const satisfies Record<string, FourDigitsFrom9>;

const STALE = 'docs/sync.md, "Stale input"';

/**
 * Each item code's cause and fix, as `examctl explain 9019` prints them and docs/errors.md lists them.
 * `exit: null`: the item is skipped because the run ended on its own error, whose code (E3020...) gives the exit.
 */
export const ITEM_CODE_TEXT: Record<
  keyof typeof ITEM_CODES,
  { readonly cause: string; readonly fix: string; readonly exit?: null }
> = {
  IdRepeatedInFile: {
    cause:
      "An id (a user's or collection's ExternalId, an invigilator id, a sitting's ScheduleExtId and CandidateExtId) appears twice in one input file (user ids compared ignoring case, collection and schedule ids exactly): both rows fail, each naming the other's line, so neither is taken as the one the file meant.",
    fix: 'Keep one row per id: merge the two rows, or correct the id that is wrong.',
  },
  ScheduleRowsDisagree: {
    cause:
      'Two rows of one schedule (one ScheduleExtId) in a sittings file give a schedule field two values: the schedule fails, the message naming the field and both lines.',
    fix: 'Give the field the same value on every row of the schedule (or on its first row only).',
  },
  CandidateDiffersAcrossSchedules: {
    cause:
      "One candidate (CandidateExtId) is given another first name, last name or e-mail under another schedule of the same file: both schedules fail, each naming the other's line.",
    fix: 'Give the candidate the same names and e-mail on every row; the platform keeps one user per candidate.',
  },
  FieldGivenTwice: {
    cause:
      'A row gives a field twice: as its own column or key and through --map / a map file (mapped or computed from other columns).',
    fix: 'Drop the column, or the map entry that makes the field, so one of them gives it.',
  },
  UnknownInputKey: {
    cause: 'A JSON record holds a key that is neither an API field nor a mapped column.',
    fix: 'Correct the key (the message suggests the nearest field), map it with --map, or drop it.',
  },
  CellNotReadable: {
    cause:
      "A spreadsheet cell holds no value examctl can send as its field's: an error value (#N/A, #REF!), a formula that failed or has no saved result, a number cell too large to be exact, a date cell with a time of day where a date is asked, or a secret field's cell typed as a number or date.",
    fix: 'Type the value in the cell (as text for a secret such as a password or PIN), then run again.',
  },
  HierarchyCellInvalid: {
    cause:
      'A Hierarchies cell is not a list of hierarchy ids with their permission flags (`H-1:flag+flag`): an unknown flag, delete joined with flags, or a `[` that starts no valid JSON array.',
    fix: 'Write each entry as `id` or `id:flag+flag` (docs/input-formats.md lists the flags), or a whole JSON array of memberships.',
  },
  ComputedValueRefused: {
    cause:
      'A field a map file computes (a template, Y/N flag columns, a value table) cannot be made for this row: a flag cell not yes or no, a flag with no hierarchy, a word missing from the value table, or a value too long.',
    fix: 'Correct the cell the message names, or the map file (add the word to "values", or give a "default").',
  },
  YesNoCellInvalid: {
    cause:
      "A true/false field's cell is not one of the spellings examctl reads (true/false, yes/no, y/n, 1/0, any case).",
    fix: 'Write the cell as one of those spellings, or leave it empty to leave the field unset.',
  },
  IdsOneWithoutLeadingZeros: {
    cause:
      'Two rows give ids that are one once leading zeros are removed (007 and 7): a spreadsheet that read the id column as numbers. Neither is sent.',
    fix: 'Keep the ids as text (docs/input-formats.md, "Leading zeros"); if they are two users, the message says how to send them.',
  },
  NotOnLocalStore: {
    cause:
      '`synced adopt` was given a user, a schedule or candidates that the local store does not hold, or a user it holds with other values than the row gives: adopting them would remember as sent what was never sent.',
    fix: 'Send them first (`user sync`, `schedule push --upsert`), or drop the rows from the file you adopt.',
  },
  NothingToAdopt: {
    cause:
      '`synced adopt` was given a row without an id (no ExternalId, no ScheduleExtId): each run names such a record anew, so the memory has nothing to remember it by.',
    fix: 'Give the row its id, or leave it out of the file you adopt.',
  },
  StaleRow: {
    cause: `The row comes from a run older than one that since sent the same user or schedule other values: sent now, it would undo the later run (${STALE}).`,
    fix: "Send today's file; if the row is meant, run again with --allow-old-file.",
  },
  RowOfAnotherPopulation: {
    cause:
      'A report row being retried is of a run made with another --population (or without one): sent with this one, its users would be judged against the wrong population.',
    fix: 'Retry the report with the --population the message names, as the run that wrote it did.',
  },
  PinWouldBeCleared: {
    cause:
      'The upsert gives no PIN for a schedule an earlier run sent a PIN: sent, it would clear the PIN and open the sitting to anyone with its link.',
    fix: 'Give the PIN (--pin-file), or clear it on purpose with --clear-pin.',
  },
  NotInPlan: {
    cause:
      '`apply` built a request that is not the one the plan holds at that item (the message names its "n"): apply was given another PIN than the dry run (the plan keeps none), or the item\'s digest was edited by hand. The item is not sent.',
    fix: 'Make a new plan (`--dry-run --plan-out FILE`), review it, and apply that file as it is (docs/plan.md, "Apply").',
  },
  NotSentRunStopped: {
    cause:
      "The run stopped before this item, or was refused, and did not send it: --max-errors reached, an interrupt, or a refusal of the whole run (a lock held by another examctl, a token refused). A refusal's code (E3020...) is in the item's message; the run's error says why.",
    fix: "`examctl explain` the run's code and do what it says, then `examctl runs resume <id>` (or run the file again) sends the rest.",
    exit: null,
  },
  NoDefiniteAnswer: {
    cause:
      'The request went out and no definite answer came back (a network failure, 429 or 5xx after retries, an answer lost at an interrupt): it may have been applied.',
    fix: '`examctl runs resume <id>` checks and sends it again; `examctl runs show <id>` lists these items.',
    exit: null,
  },
  RemovalNotConfirmed: {
    cause:
      'The service answered the invigilator removal without naming this id as removed or with an error: it may still be an invigilator.',
    fix: 'Check the schedule on the platform, and remove the id again if it is still listed.',
  },
  FailedWithoutErrors: {
    cause: 'The service answered Success: false and gave no error message: nothing says what was refused.',
    fix: "Check the record on the platform; send it again, and ask the platform's administrators if it repeats.",
  },
  ErrorsLeftOut: {
    cause:
      "The service's answer held more errors than a report keeps (100, or 8 KiB of messages), or nested deeper than examctl reads: the message says how many were left out.",
    fix: 'Correct the errors shown and send the record again; the rest show once these are gone.',
  },
};

/** A rule the spec leaves unnumbered: code null, as the API answers it (docs/domain-rules.md, "Codes per endpoint"). */
export const UNNUMBERED = null;

/** examctl's own codes, 9000 up in the order added; not named EXAMCTL_*, which names environment variables. */
export const OWN_CODES = { ...WARNING_CODES, ...ITEM_CODES } as const satisfies Record<string, FourDigitsFrom9>;

export const ErrorCode = { ...SPEC_CODES, ...OWN_CODES } as const;

type ErrorCodeName = keyof typeof ErrorCode;
type ErrorCodeNumber = (typeof ErrorCode)[ErrorCodeName];
/** A problem's code: a documented number, or null for the spec's "not numbered" conditions. */
export type ProblemCode = ErrorCodeNumber | null;

/** Whether `code` is one of the API's (SPEC_CODES), not examctl's own or null. */
export function isApiCode(code: ProblemCode): boolean {
  return code !== null && code < 9000;
}

/** A code's name in words, as docs/api-reference.md ("Errors") lists it: `UserNameTaken` -> `user name taken`. */
export function codeCondition(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .replace(/\bexternal id\b/g, 'ExternalId');
}

const LISTED = 'docs/api-reference.md, "Errors", lists every record code and where it is given';

/**
 * What `examctl explain 209` says of a record's numbered code (`209`, `9007`; undefined for a number no problem
 * carries): its condition, and the exit a run ends with for it: 1 for a record refused, 0 for a warning (sent all
 * the same; with --strict it fails, exit 1), null for an item skipped as its run ended on its own error.
 */
export function recordCodeEntry(code: string) {
  const name = Object.keys(ErrorCode).find((key) => String(ErrorCode[key as ErrorCodeName]) === code.trim());
  if (name === undefined) return undefined;
  const title = codeCondition(name);
  if (Object.hasOwn(ITEM_CODES, name)) {
    const { cause, fix, exit = 1 } = ITEM_CODE_TEXT[name as keyof typeof ITEM_CODES];
    return { code: code.trim(), exit, title, cause, fix };
  }
  const warning = Object.hasOwn(WARNING_CODES, name);
  // `review-session show` reads one session by the id it is given: no row, no report to feed back.
  const fix =
    name === 'ReviewSessionNotFound'
      ? `Check the id given to examctl review-session show: the target holds no review session by it (its ExternalId, as the platform shows it). ${LISTED}.`
      : warning
        ? `Check the value the message names: correct it in the file, or leave it if it is right. ${LISTED}.`
        : `Correct the named field in that row (a report's error_messages column says which), then send only the rows that failed: --file <report>.csv --only-failed. ${LISTED}.`;
  return {
    code: code.trim(),
    exit: warning ? 0 : 1,
    title,
    cause: warning
      ? `A record's warning, examctl's own, not a run's code: ${title}. The record is sent all the same; with --strict it fails with this code, exit 1 (docs/input-formats.md, "Warnings").`
      : `A record's code, the API's, not a run's: ${title}. examctl checks it before sending where the rule needs no platform state; otherwise the platform (or the local engine) answers it. The record's message names the field and the value.`,
    fix,
  };
}
