/** POST /user (docs/api-reference.md, "User", codes 206-250; docs/interpretations.md, "Users"). */
import { ErrorCode } from './codes.js';
import { quotedValue, type Problem, type Validation } from './problem.js';
import type { AnswerObject, GROUP_ERROR_FIELDS } from './answer-fields.js';
import {
  booleanRule,
  checkList,
  codeNote,
  enumRule,
  isUnset,
  notAString,
  ruleTable,
  stringListRule,
  stringRule,
  tableWire,
  validateFields,
  type FieldOf,
  type FieldRule,
  type RecordOf,
} from './field-rules.js';
import { checkAdjustmentNeedsSpecialNeeds, emailFormat, reasonableAdjustmentRule } from './common-rules.js';
import {
  canonicalIpEntry,
  codePointLength,
  exceedsLength,
  DATE_OF_BIRTH_PATTERN,
  GUID_PATTERN,
  hasForbiddenNameCharacter,
  HTTP_URL_PATTERN,
  normaliseDateOfBirth,
  USER_EXTERNAL_ID,
  WHITESPACE,
} from './text-rules.js';
import { NAME_FORBIDDEN_CLASS } from './forbidden-characters.js';

const MAX_LABELS = 20;
const MAX_LABEL_LENGTH = 100;
const MAX_IP_ADDRESSES = 100;
const PASSWORD_MIN = 5;
const PASSWORD_MAX = 500;
const HIERARCHY_ACTIONS = ['UPSERT', 'DELETE'] as const;

export const HIERARCHY_FLAG_FIELDS = [
  'IsCoordinator',
  'IsAdministrator',
  'HasViewReportsPermissions',
  'HasReScoringPermissions',
] as const;

export const HIERARCHY_TABLE = ruleTable('hierarchy membership', [
  stringRule('ExternalId', { max: 64, required: null }),
  ...HIERARCHY_FLAG_FIELDS.map((name) => booleanRule(name)),
  enumRule('Action', HIERARCHY_ACTIONS, ErrorCode.HierarchyActionInvalid),
]);

/** One element of a user's Hierarchies, as HIERARCHY_TABLE's checks return it. */
export type HierarchyMembership = RecordOf<typeof HIERARCHY_TABLE>;

const labelsRule = stringListRule('Labels', {
  max: MAX_LABELS,
  tooManyCode: ErrorCode.TooManyLabels,
  entryName: 'Label',
  keyOf: (label) => (exceedsLength(label, MAX_LABEL_LENGTH) ? null : label),
  invalidCode: ErrorCode.LabelInvalid,
  invalidMessage: `Each label must be 1 to ${MAX_LABEL_LENGTH} characters (after trimming spaces)`,
  duplicateCode: ErrorCode.LabelsDuplicate,
  wire: (zod) =>
    zod
      .array(zod.string().min(1).max(MAX_LABEL_LENGTH).regex(/\S/))
      .max(MAX_LABELS)
      .meta({ uniqueItems: true })
      .describe(
        `At most ${MAX_LABELS} labels${codeNote(ErrorCode.TooManyLabels)}, each 1 to ${MAX_LABEL_LENGTH} characters after trimming` +
          `${codeNote(ErrorCode.LabelInvalid)}, no duplicates after trimming, case-sensitive${codeNote(ErrorCode.LabelsDuplicate)}. Sent trimmed. ` +
          `An item's maxLength counts it as sent, spaces included; the API counts it trimmed, so it also takes a label padded past ${MAX_LABEL_LENGTH} characters.`,
      ),
});

// Duplicates are compared in canonical form (how the address is spelled does not matter); each entry is sent as
// written, trimmed.
const allowedIpAddressesRule = stringListRule('AllowedIpAddresses', {
  max: MAX_IP_ADDRESSES,
  tooManyCode: ErrorCode.TooManyIpAddresses,
  entryName: 'Allowed IP',
  keyOf: canonicalIpEntry,
  invalidCode: ErrorCode.IpAddressInvalid,
  invalidMessage:
    'Each allowed IP must be an IPv4/IPv6 address, a CIDR block (10.0.0.0/8) or a range of one family (10.0.0.1-10.0.0.9, first <= last)',
  duplicateCode: ErrorCode.IpAddressesDuplicate,
  wire: (zod) =>
    zod
      .array(zod.string().min(1).regex(/\S/))
      .max(MAX_IP_ADDRESSES)
      .describe(
        `At most ${MAX_IP_ADDRESSES} entries${codeNote(ErrorCode.TooManyIpAddresses)}; each not blank, an IPv4/IPv6 address, a CIDR block ` +
          `(10.0.0.0/8) or a range first-last of one family${codeNote(ErrorCode.IpAddressInvalid)}; no duplicates in canonical form` +
          `${codeNote(ErrorCode.IpAddressesDuplicate)}. Sent trimmed. The address syntax and first <= last are rules this document states in words only.`,
      ),
});

const passwordRule: FieldRule<'Password', string, false> = {
  name: 'Password',
  emptyIsUnset: true,
  wire: (zod) =>
    zod
      .string()
      .min(PASSWORD_MIN)
      .max(PASSWORD_MAX)
      .describe(
        `${PASSWORD_MIN} to ${PASSWORD_MAX} characters${codeNote(ErrorCode.PasswordLength)}. Never echoed in messages.`,
      ),
  check(value, path, problems) {
    if (isUnset(value)) return undefined;
    // The value never enters a message: passwords stay out of reports and logs.
    if (typeof value !== 'string') return notAString('Password', path, problems);
    const n = value.length > PASSWORD_MAX * 2 ? value.length : codePointLength(value);
    if (n < PASSWORD_MIN || n > PASSWORD_MAX) {
      problems.push({
        field: path,
        code: ErrorCode.PasswordLength,
        message: `Password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long`,
      });
      return undefined;
    }
    return value;
  },
};

const hierarchiesRule: FieldRule<'Hierarchies', HierarchyMembership[], false> = {
  name: 'Hierarchies',
  cell: 'hierarchies',
  wire: (zod) =>
    zod
      .array(tableWire(zod, HIERARCHY_TABLE))
      .describe(
        `Hierarchy memberships: no null entries${codeNote(ErrorCode.HierarchiesContainNull)}, each ExternalId once` +
          `${codeNote(ErrorCode.HierarchiesDuplicate)}. Action DELETE removes the membership.`,
      ),
  check(value, path, problems) {
    const seen = new Set<string>();
    return checkList(value, path, problems, 'Hierarchies', 'hierarchy objects', (entry, at) => {
      if (entry === null || entry === undefined) {
        problems.push({
          field: at,
          code: ErrorCode.HierarchiesContainNull,
          message: 'Hierarchies must not contain null entries',
        });
        return undefined;
      }
      const membership = validateFields(entry, HIERARCHY_TABLE, `${at}.`, problems);
      if (membership === null) return undefined;
      const id = membership['ExternalId'];
      if (typeof id === 'string') {
        if (seen.has(id)) {
          problems.push({
            field: `${at}.ExternalId`,
            code: ErrorCode.HierarchiesDuplicate,
            message: `Hierarchy ${id} is listed more than once`,
          });
        }
        seen.add(id);
      }
      return membership;
    });
  },
};

/** A user's ExternalId is string(64): an invigilator's id too. */
export const USER_EXTERNAL_ID_MAX = 64;

export const USER_TABLE = ruleTable('user', [
  stringRule('ExternalId', {
    max: USER_EXTERNAL_ID_MAX,
    required: ErrorCode.UserExternalIdEmpty,
    tooLongCode: ErrorCode.UserExternalIdTooLong,
    pattern: USER_EXTERNAL_ID,
    patternCode: ErrorCode.UserExternalIdInvalid,
    patternHint: 'letters, digits, -, _ and @',
  }),
  stringRule('LastName', {
    max: 500,
    required: ErrorCode.LastNameEmpty,
    tooLongCode: ErrorCode.LastNameTooLong,
    name: true,
  }),
  stringRule('FirstName', {
    max: 500,
    required: ErrorCode.FirstNameEmpty,
    tooLongCode: ErrorCode.FirstNameTooLong,
    name: true,
  }),
  stringRule('Email', { max: 100, format: emailFormat(ErrorCode.EmailInvalid) }),
  stringRule('UserName', {
    max: 50,
    format: {
      normalise: (s) => (WHITESPACE.test(s) || hasForbiddenNameCharacter(s) ? undefined : s),
      code: ErrorCode.UserNameInvalid,
      message: () =>
        'UserName must not contain spaces, other whitespace, control characters or bidirectional overrides',
      doc: 'free of whitespace (space, tab, newline...), control characters (U+0000-U+001F, U+007F-U+009F) and bidirectional overrides or isolates (U+202A-U+202E, U+2066-U+2069)',
      wire: (s) => s.regex(new RegExp(`^[^\\s${NAME_FORBIDDEN_CLASS}]+$`)),
    },
  }),
  stringRule('Role', {
    max: 500,
    doc: 'Required when the user is created (code 240; decided with the platform state).',
  }),
  stringRule('Photo', {
    max: 500,
    format: {
      normalise: (s) => (HTTP_URL_PATTERN.test(s) ? s : undefined),
      code: ErrorCode.PhotoInvalid,
      message: () => 'Photo must be an absolute http:// or https:// URL',
      doc: 'an absolute http:// or https:// URL with a host (a name of letters, digits, dots and dashes, or [IPv6]), optionally user@ before the host and :port after it, no whitespace',
      wire: (s) => s.regex(HTTP_URL_PATTERN),
    },
  }),
  stringRule('DateOfBirth', {
    max: 10,
    format: {
      normalise: (s) => normaliseDateOfBirth(s) ?? undefined,
      code: ErrorCode.DateOfBirthInvalid,
      message: (s) => `DateOfBirth ${quotedValue(s)} must be a real date written YYYY-MM-DD or YYYYMMDD`,
      doc: 'a real date written YYYY-MM-DD or YYYYMMDD (sent as YYYY-MM-DD); whether the day exists is a calendar rule the pattern does not say',
      wire: (s) => s.regex(DATE_OF_BIRTH_PATTERN),
    },
  }),
  stringRule('Company', { max: 100, tooLongCode: ErrorCode.CompanyTooLong }),
  stringRule('CountryCode', { max: 20, tooLongCode: ErrorCode.CountryCodeTooLong }),
  stringRule('State', { max: 50, tooLongCode: ErrorCode.StateTooLong }),
  stringRule('City', { max: 50, tooLongCode: ErrorCode.CityTooLong }),
  stringRule('PostalCode', { max: 50, tooLongCode: ErrorCode.PostalCodeTooLong }),
  stringRule('PostalAddress', { max: 500, tooLongCode: ErrorCode.PostalAddressTooLong }),
  stringRule('AddressLine1', { max: 500, tooLongCode: ErrorCode.AddressLine1TooLong }),
  stringRule('AddressLine2', { max: 500, tooLongCode: ErrorCode.AddressLine2TooLong }),
  stringRule('PhoneNumber', { max: 50, tooLongCode: ErrorCode.PhoneNumberTooLong }),
  stringRule('CellularPhone', { max: 50, tooLongCode: ErrorCode.CellularPhoneTooLong }),
  booleanRule('SpecialNeeds'),
  reasonableAdjustmentRule,
  booleanRule('EnableReadSpeaker'),
  booleanRule('DisableLogin'),
  booleanRule('DisablePasswordReset'),
  stringRule('SynchronizationKey', {
    max: 64,
    format: {
      normalise: (s) => (GUID_PATTERN.test(s) ? s : undefined),
      code: ErrorCode.SynchronizationKeyInvalid,
      message: () => 'SynchronizationKey must be a GUID such as 3f2504e0-4f89-11d3-9a0c-0305e82c3301 (braces optional)',
      doc: 'a GUID 8-4-4-4-12 hex digits, any case, braces optional (deprecated field)',
      wire: (s) => s.regex(GUID_PATTERN),
    },
  }),
  labelsRule,
  allowedIpAddressesRule,
  passwordRule,
  hierarchiesRule,
]);

/** POST /user's body as USER_TABLE's checks return it: the table is the one declaration of a user's fields. */
export type UserRequest = RecordOf<typeof USER_TABLE>;

/** A user field's API name. */
export type UserField = FieldOf<typeof USER_TABLE>;

/** The API names of every user field, in the spec's order. */
export const USER_FIELDS: readonly UserField[] = USER_TABLE.rules.map((rule) => rule.name);

/** Request fields Content.User never shows: the password is stored as its hash, memberships merged into the user's. */
export const USER_FIELDS_NOT_IN_VIEW = ['Password', 'Hierarchies'] as const satisfies readonly UserField[];
type UserFieldNotInView = (typeof USER_FIELDS_NOT_IN_VIEW)[number];
/** A field of the stored user, as Content.User shows it and the world file holds it. */
export type StoredUserField = Exclude<UserField, UserFieldNotInView>;

/** Content.User of POST /user: the stored user, never the password. */
export type StoredUserView = Omit<UserRequest, UserFieldNotInView>;

export type GroupError = AnswerObject<typeof GROUP_ERROR_FIELDS>;

export interface UserResponseContent {
  User: StoredUserView;
  GroupErrors: GroupError[];
}

const notInView: ReadonlySet<string> = new Set(USER_FIELDS_NOT_IN_VIEW);
/** The fields Content.User shows (docs/api-reference.md, "Add a user"), in the spec's order; never the password. */
export const USER_VIEW_FIELDS: readonly StoredUserField[] = USER_FIELDS.filter(
  (name): name is StoredUserField => !notInView.has(name),
);

/**
 * Checks one user request: the wire-ready value or every problem. Role (240) depends on whether the user
 * exists, which only the engine knows (roleRequiredProblem); `isCreate: true` applies it here too.
 */
export function validateUser(input: unknown, context?: { isCreate?: boolean }): Validation<UserRequest> {
  const problems: Problem[] = [];
  const out = validateFields(input, USER_TABLE, '', problems);
  if (out !== null) {
    const record = input as Record<string, unknown>;
    // 250: SpecialNeeds as given; one that is not a boolean fails its own check, and 250 is not decided.
    const specialNeeds = record['SpecialNeeds'];
    checkAdjustmentNeedsSpecialNeeds(
      record['ReasonableAdjustmentPercentage'],
      specialNeeds === undefined || specialNeeds === null
        ? undefined
        : typeof specialNeeds === 'boolean'
          ? specialNeeds
          : 'invalid',
      'ReasonableAdjustmentPercentage',
      problems,
    );
    if (context?.isCreate === true && isUnset(record['Role'])) problems.push(roleRequiredProblem());
  }
  if (problems.length > 0 || out === null) return { ok: false, problems };
  return { ok: true, value: out };
}

/** 240: the user is being created and has no Role. */
export function roleRequiredProblem(): Problem {
  return { field: 'Role', code: ErrorCode.RoleEmpty, message: 'Role is required when a user is created' };
}
