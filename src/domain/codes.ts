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

/** examctl's own codes, 9000 up in the order added (see the header); not named EXAMCTL_*, which names environment variables. */
export const OWN_CODES = { ...WARNING_CODES } as const satisfies Record<string, FourDigitsFrom9>;

export const ErrorCode = { ...SPEC_CODES, ...OWN_CODES } as const;

type ErrorCodeName = keyof typeof ErrorCode;
type ErrorCodeNumber = (typeof ErrorCode)[ErrorCodeName];
/** A problem's code: a documented number, or null for the spec's "not numbered" conditions. */
export type ProblemCode = ErrorCodeNumber | null;

/** A code's name in words, as docs/api-reference.md ("Errors") lists it: `UserExternalIdTooLong` -> `user ExternalId too long`. */
export function codeCondition(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .replace(/\bexternal id\b/g, 'ExternalId');
}

/**
 * What `examctl explain 209` says of a record's numbered code: its condition, and the exit a run ends
 * with for it: 1 for a record refused, 0 for a warning (sent all the same; with --strict it fails, exit 1).
 */
export interface RecordCodeEntry {
  readonly code: string;
  readonly exit: 0 | 1;
  readonly title: string;
  readonly cause: string;
  readonly fix: string;
}

const LISTED = 'docs/api-reference.md, "Errors", lists every record code and where it is given';

/** The entry of a record's code (`209`, `9007`), or undefined for a number no problem carries. */
export function recordCodeEntry(code: string): RecordCodeEntry | undefined {
  const name = Object.keys(ErrorCode).find((key) => String(ErrorCode[key as ErrorCodeName]) === code.trim());
  if (name === undefined) return undefined;
  const title = codeCondition(name);
  const warning = Object.hasOwn(WARNING_CODES, name);
  return {
    code: code.trim(),
    exit: warning ? 0 : 1,
    title,
    cause: warning
      ? `A record's warning, examctl's own, not a run's code: ${title}. The record is sent all the same; with --strict it fails with this code, exit 1 (docs/input-formats.md, "Warnings").`
      : `A record's code, the API's, not a run's: ${title}. examctl checks it before sending where the rule needs no platform state; otherwise the platform (or the local engine) answers it. The record's message names the field and the value.`,
    fix: warning
      ? `Check the value the message names: correct it in the file, or leave it if it is right. ${LISTED}.`
      : `Correct the named field in that row (a report's error_messages column says which), then send only the rows that failed: --file <report>.csv --only-failed. ${LISTED}.`,
  };
}
