/**
 * Every numbered error code of the integration API (integration-api.md, "Errors").
 * Conditions the spec lists as "not numbered" carry `null` (interpretations.md) and are
 * told apart by their message only.
 */
export const ErrorCode = {
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

export type ErrorCodeName = keyof typeof ErrorCode;
export type ErrorCodeNumber = (typeof ErrorCode)[ErrorCodeName];
/** A problem's code: a documented number, or null for the spec's "not numbered" conditions. */
export type ProblemCode = ErrorCodeNumber | null;
