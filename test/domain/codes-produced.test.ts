import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/domain/codes.js';
import { outcomeOf } from '../../src/pipeline/service-answer.js';
import { ROOT } from '../support/cli.js';

/*
 * Each documented code has a test that produces it (docs/architecture.md, "Recipes"): for every
 * code of codes.ts, the test file and the line of it that asserts the code in a produced
 * problem, answer or report (a platform-only code: examctl carrying the service's answer through).
 * A new code fails here (and in tsc) until its line names the test that produces it.
 */
const PRODUCED = {
  UnknownError: ['test/domain/codes-produced.test.ts', "Errors: [{ Code: 102, Message: 'Unknown error' }]"],
  RootHierarchyNotFound: ['test/engine/user.test.ts', "it('130"],
  HierarchyNotFound: ['test/engine/user.test.ts', "{ ExternalId: 'H-NOPE', Code: 131"],
  PermissionsCannotBeSet: ['test/engine/user.test.ts', "{ ExternalId: 'root', Code: 133"],
  UserNotFound: [
    'test/cli/export-report-columns.test.ts',
    'ing ? { status: 400, body: { Content: null, Success: false, Errors: [{ Code: 202',
  ],
  UserExternalIdEmpty: [
    'test/domain/user.test.ts',
    "['206 ExternalId missing', { ExternalId: undefined }, 'ExternalId', 206",
  ],
  EmailInvalid: ['test/domain/user.test.ts', "['209 Email invalid', { Email: 'not-an-address' }, 'Email', 209"],
  FirstNameEmpty: ['test/domain/user.test.ts', "['210 FirstName empty', { FirstName: '' }, 'FirstName', 210"],
  FirstNameTooLong: [
    'test/domain/user.test.ts',
    "['211 FirstName over 500', { FirstName: 'x'.repeat(501) }, 'FirstName', 211",
  ],
  LastNameEmpty: ['test/domain/user.test.ts', "['212 LastName null', { LastName: null }, 'LastName', 212"],
  LastNameTooLong: [
    'test/domain/user.test.ts',
    "['213 LastName over 500', { LastName: 'x'.repeat(501) }, 'LastName', 213",
  ],
  UserNameTaken: ['test/store/hint-lookup.test.ts', 'expect(expected[1]!.codes).toEqual([ErrorCode.UserNameTaken'],
  UserExternalIdTooLong: [
    'test/domain/user.test.ts',
    "['218 ExternalId over 64', { ExternalId: 'a'.repeat(65) }, 'ExternalId', 218",
  ],
  UserExternalIdInvalid: [
    'test/domain/user.test.ts',
    "['219 ExternalId bad chars', { ExternalId: 'a b' }, 'ExternalId', 219",
  ],
  CellularPhoneTooLong: [
    'test/domain/user.test.ts',
    "['220 CellularPhone', { CellularPhone: '1'.repeat(51) }, 'CellularPhone', 220",
  ],
  PhoneNumberTooLong: [
    'test/domain/user.test.ts',
    "['221 PhoneNumber', { PhoneNumber: '1'.repeat(51) }, 'PhoneNumber', 221",
  ],
  AddressLine1TooLong: [
    'test/domain/user.test.ts',
    "['222 AddressLine1', { AddressLine1: 'x'.repeat(501) }, 'AddressLine1', 222",
  ],
  AddressLine2TooLong: [
    'test/domain/user.test.ts',
    "['223 AddressLine2', { AddressLine2: 'x'.repeat(501) }, 'AddressLine2', 223",
  ],
  PostalCodeTooLong: [
    'test/domain/user.test.ts',
    "['224 PostalCode', { PostalCode: 'x'.repeat(51) }, 'PostalCode', 224",
  ],
  PostalAddressTooLong: [
    'test/domain/user.test.ts',
    "['225 PostalAddress', { PostalAddress: 'x'.repeat(501) }, 'PostalAddress', 225",
  ],
  UserNameInvalid: ['test/domain/user.test.ts', "['226 UserName with space', { UserName: 'ann lee' }, 'UserName', 226"],
  CompanyTooLong: ['test/domain/integer-rule.test.ts', 'const CODE = ErrorCode.CompanyTooLong'],
  CityTooLong: ['test/domain/user.test.ts', "['228 City', { City: 'x'.repeat(51) }, 'City', 228"],
  StateTooLong: ['test/domain/user.test.ts', "['229 State', { State: 'x'.repeat(51) }, 'State', 229"],
  CountryCodeTooLong: [
    'test/domain/user.test.ts',
    "['230 CountryCode', { CountryCode: 'x'.repeat(21) }, 'CountryCode', 230",
  ],
  SynchronizationKeyInvalid: [
    'test/domain/user.test.ts',
    "['231 SynchronizationKey', { SynchronizationKey: 'not-a-guid' }, 'SynchronizationKey', 231",
  ],
  SynchronizationKeyTaken: [
    'test/store/hint-lookup.test.ts',
    'expect(expected[15]!.codes).toContain(ErrorCode.SynchronizationKeyTaken',
  ],
  UserExternalIdTaken: [
    'test/store/hint-lookup.test.ts',
    'expect(expected[11]!.codes).toContain(ErrorCode.UserExternalIdTaken',
  ],
  TooManyLabels: [
    'test/domain/user.test.ts',
    "er 20', { Labels: Array.from({ length: 21 }, (_, i) => `l${i}`) }, 'Labels', 234",
  ],
  LabelInvalid: ['test/domain/user.test.ts', "['235 Label empty', { Labels: ['ok', '  '] }, 'Labels[1]', 235"],
  LabelsDuplicate: [
    'test/domain/user.test.ts',
    "['236 Labels duplicate', { Labels: ['a', 'b', 'a'] }, 'Labels[2]', 236",
  ],
  TooManyIpAddresses: [
    'test/domain/user.test.ts',
    "(_, i) => `10.0.${Math.floor(i / 250)}.${i % 250}`) }, 'AllowedIpAddresses', 237",
  ],
  IpAddressInvalid: [
    'test/domain/user.test.ts',
    "{ AllowedIpAddresses: ['10.0.0.1', '300.1.1.1'] }, 'AllowedIpAddresses[1]', 238",
  ],
  IpAddressesDuplicate: [
    'test/domain/user.test.ts',
    "ate IP', { AllowedIpAddresses: ['::1', '0:0::1'] }, 'AllowedIpAddresses[1]', 239",
  ],
  RoleEmpty: ['test/domain/user.test.ts', "it('240"],
  RoleNotFound: ['test/engine/dry-run.test.ts', 'expect(codes(refused.envelope.Errors)).toEqual([241'],
  HierarchiesContainNull: [
    'test/domain/user.test.ts',
    "ierarchy', { Hierarchies: [{ ExternalId: 'H-1' }, null] }, 'Hierarchies[1]', 242",
  ],
  HierarchiesDuplicate: ['test/domain/schemas.test.ts', "['Hierarchies[1].ExternalId', 243"],
  HierarchyActionInvalid: [
    'test/domain/user.test.ts',
    "H-1' }, { ExternalId: 'H-2', Action: 'REMOVE' }] }, 'Hierarchies[1].Action', 244",
  ],
  PhotoInvalid: ['test/domain/user.test.ts', "['245 Photo not a URL', { Photo: 'me.png' }, 'Photo', 245"],
  DateOfBirthInvalid: [
    'test/domain/user.test.ts',
    "['246 DateOfBirth format', { DateOfBirth: '01/02/1990' }, 'DateOfBirth', 246",
  ],
  PasswordLength: ['test/domain/user.test.ts', "['247 Password short', { Password: 'abcd' }, 'Password', 247"],
  AdjustmentPercentageInvalid: [
    'test/domain/coercion.test.ts',
    "al([expect.objectContaining({ field: 'ReasonableAdjustmentPercentage', code: 249",
  ],
  AdjustmentWithoutSpecialNeeds: [
    'test/domain/schedule.test.ts',
    "AdjustmentPercentage: 10 }), 'Candidates[1].ReasonableAdjustmentPercentage', 250",
  ],
  HierarchyInactive: ['test/engine/user.test.ts', "{ ExternalId: 'H-OLD', Code: 1134"],
  ReviewSessionNotFound: [
    'test/engine/invigilators-review.test.ts',
    'expect(codes(result.envelope.Errors)).toEqual([1101',
  ],
  CollectionExternalIdInvalid: [
    'test/domain/collection.test.ts',
    "['802 ExternalId with a dash', { ExternalId: 'col-1' }, 'ExternalId', 802",
  ],
  CollectionTitleEmpty: ['test/domain/collection.test.ts', "['804 Title missing', { Title: undefined }, 'Title', 804"],
  CollectionTitleTooLong: [
    'test/domain/collection.test.ts',
    "['805 Title of 100 characters', { Title: 't'.repeat(100) }, 'Title', 805",
  ],
  CollectionOwnerNotFound: [
    'test/engine/collection.test.ts',
    "{ name: '806 owner not found', body: { Title: 'T', Owner: 'ghost' }, code: 806",
  ],
  CollectionOwnerNotSet: ['test/engine/collection.test.ts', "name: '807"],
  CollectionOwnerNoPermission: [
    'test/engine/collection.test.ts',
    "8 owner cannot view collections', body: { Title: 'T', Owner: 'jdoe' }, code: 808",
  ],
  CollectionExternalIdTaken: [
    'test/engine/collection.test.ts',
    "nalId already used', body: { Title: 'T', ExternalId: 'mathcore2026' }, code: 810",
  ],
  TaxonomyNotFound: [
    'test/engine/collection.test.ts',
    ": { Title: 'T', Taxonomies: [{ ExternalId: 'TX-NOPE', Title: 'x' }] }, code: 900",
  ],
  TaxonomyEmpty: [
    'test/domain/collection.test.ts',
    "['901 null taxonomy', { Taxonomies: [null] }, 'Taxonomies[0]', 901",
  ],
  TaxonomyExternalIdEmpty: [
    'test/domain/collection.test.ts',
    "onomies: [{ ExternalId: '', Title: 'Bloom' }] }, 'Taxonomies[0].ExternalId', 902",
  ],
  RepositoryNotFound: [
    'test/engine/collection.test.ts',
    "T', ObjectiveRepositories: [{ ExternalId: 'LO-NOPE', Title: 'x' }] }, code: 1000",
  ],
  RepositoryNotARepository: [
    'test/engine/collection.test.ts',
    "bjectiveRepositories: [{ ExternalId: 'LO-ALGEBRA-1', Title: 'x' }] }, code: 1001",
  ],
  RepositoryNotPublished: [
    'test/engine/collection.test.ts',
    "LoRepositoryExternalIds: [{ ExternalId: 'LO-DRAFT', Title: 'x' }] }, code: 1002",
  ],
  RepositoryNoAccess: [
    'test/engine/collection.test.ts',
    "ObjectiveRepositories: [{ ExternalId: 'LO-PRIVATE', Title: 'x' }] }, code: 1003",
  ],
  RepositoryExternalIdEmpty: [
    'test/domain/collection.test.ts',
    "Repositories: [{ Title: 'Core' }] }, 'ObjectiveRepositories[0].ExternalId', 1004",
  ],
  InvigilatorBodyEmpty: ['test/domain/invigilators.test.ts', "['100 body null', 'S-1', null, 'UserExtIds', 100]"],
  InvigilatorNoValidIds: [
    'test/domain/invigilators.test.ts',
    "['200 only empty ids', 'S-1', ['', '  '], 'UserExtIds', 200",
  ],
  InvigilatorScheduleIdEmpty: [
    'test/domain/invigilators.test.ts',
    "['300 schedule id empty', '', ['inv-1'], 'ScheduleExtId', 300",
  ],
  InvigilatorScheduleNotFound: [
    'test/engine/invigilators-review.test.ts',
    "{ name: '301 schedule not found', schedule: 'S-NOPE', ids: ['inv-1'], code: 301",
  ],
  InvigilatorScheduleArchived: [
    'test/engine/invigilators-review.test.ts',
    "{ name: '302 archived', schedule: 'S-ARCHIVED', ids: ['inv-2'], code: 302",
  ],
  InvigilatorScheduleFinished: [
    'test/engine/invigilators-review.test.ts',
    "{ name: '305 finished (end passed)', schedule: 'S-PAST', ids: ['inv-1'], code: 305",
  ],
  NotAnInvigilator: [
    'test/engine/dry-run.test.ts',
    'expect(again.envelope.Content!.Errors.map((e) => e.Code)).toEqual([319',
  ],
  InvisibleCharacterRemoved: [
    'test/xlsx/spreadsheet-warnings.test.ts',
    'expect(new Set(warnings.map((w) => w.code))).toEqual(new Set([9000',
  ],
  CharacterLostInEncoding: [
    'test/xlsx/spreadsheet-warnings.test.ts',
    'expect(warnings.map((w) => w.code)).toEqual([9002, 9002, 9001',
  ],
  QuestionMarkForLetter: [
    'test/xlsx/spreadsheet-warnings.test.ts',
    'expect(warnings.map((w) => w.code)).toEqual([9002, 9002',
  ],
  NumberInExponentForm: ['test/cli/strict.test.ts', 'errors: [expect.objectContaining({ code: 9003 })]'],
  ListCellNotSplit: ['test/corpus/csv-messages.test.ts', "expect.objectContaining({ field: 'Hierarchies', code: 9004"],
  DateCellInTextField: ['test/xlsx/xlsx-reader.test.ts', 'expect(record?.warnings?.[0]?.code).toBe(9005)'],
  NumberCellPastFifteenDigits: [
    'test/xlsx/xlsx-cells.test.ts',
    "PhoneNumber'))).toMatchObject({ text: 'N1234567890123456', warning: { code: 9006",
  ],
  WiderThanApiText: ['test/cli/strict.test.ts', "['Physics2027', 'failed', 9007"],
  DoubleEncodedLetters: ['test/corpus/encodings.test.ts', "['u-1', 'failed', [9008, 9008"],
  IdRepeatedInFile: ['test/domain/duplicate-ids.test.ts', 'expect(problems.map((p) => p?.code)).toEqual([9009, 9009'],
  ScheduleRowsDisagree: ['test/domain/sittings.test.ts', "{ line: 4, field: 'Schedule.StartDateTime', code: 9010 }"],
  CandidateDiffersAcrossSchedules: [
    'test/domain/sittings.test.ts',
    "problems: [{ line: 2, field: 'CandidateExtId', code: 9011 }]",
  ],
  FieldGivenTwice: ['test/input/input-flags.test.ts', "expect.objectContaining({ field: 'FirstName', code: 9012 })"],
  UnknownInputKey: ['test/input/input-flags.test.ts', "expect.objectContaining({ field: 'phone', code: 9013 })"],
  CellNotReadable: ['test/xlsx/xlsx-reader.test.ts', "['PhoneNumber', 9014]"],
  HierarchyCellInvalid: [
    'test/domain/coercion.test.ts',
    "expect.objectContaining({ field: 'Hierarchies[1]', code: 9015 })",
  ],
  ComputedValueRefused: ['test/input/map-file.test.ts', "field: 'Hierarchies', code: 9016,"],
  YesNoCellInvalid: [
    'test/domain/coercion.test.ts',
    "expect.objectContaining({ field: 'DisablePasswordReset', code: 9017 })",
  ],
  IdsOneWithoutLeadingZeros: ['test/sync/leaver-ids.test.ts', "toMatchObject({ field: 'ExternalId', code: 9018 })"],
  NotOnLocalStore: ['test/sync/adopt-entries.test.ts', "toMatchObject({ field: 'CandidateExtId', code: 9019 })"],
  NothingToAdopt: ['test/sync/adopt-entries.test.ts', "toMatchObject({ field: 'ScheduleExtId', code: 9020 })"],
  StaleRow: ['test/sync/older-run-rows.test.ts', "['u1', '9021'],"],
  RowOfAnotherPopulation: ['test/sync/older-run-rows.test.ts', "errors: [{ field: 'ExternalId', code: 9022 }]"],
  PinWouldBeCleared: ['test/sync/schedule-fields-left-out.test.ts', "errors: [{ field: 'Schedule.PIN', code: 9023 }]"],
  NotInPlan: ['test/cli/plan-guard.test.ts', "problems: [{ field: '', code: 9024 }]"],
  NotSentRunStopped: ['test/runs/lock-refused-run.test.ts', 'expect(item.errors[0].code).toBe(9025)'],
  NoDefiniteAnswer: ['test/runs/transient-resume.test.ts', 'item.errors[0]?.code === 9026'],
  RemovalNotConfirmed: ['test/cli/run-pipeline.test.ts', "const unconfirmed = 'failed 9027'"],
  FailedWithoutErrors: ['test/remote/envelope-errors.test.ts', "toMatchObject({ field: '', code: 9028 })"],
  ErrorsLeftOut: ['test/remote/envelope-errors.test.ts', 'expect(cut[100]).toMatchObject({ code: 9029 })'],
} as const satisfies Record<keyof typeof ErrorCode, readonly [file: string, line: string]>;

describe('every code of codes.ts has a test that produces it', () => {
  it('lists every code, and nothing else', () => {
    expect(Object.keys(PRODUCED).sort()).toEqual(Object.keys(ErrorCode).sort());
  });

  it.each(Object.entries(PRODUCED))('%s: the named test asserts its number or name', (name, [file, line]) => {
    const code = ErrorCode[name as keyof typeof ErrorCode];
    expect(file, 'a test file, not a doc check').toMatch(/^test\/(?!docs\/).+\.test\.ts$/);
    // The formatter lays lines out as it likes: compared without white space.
    const squeezed = (text: string) => text.replace(/\s+/g, '');
    expect(squeezed(readFileSync(join(ROOT, file), 'utf8'))).toContain(squeezed(line));
    expect(line).toMatch(new RegExp(`\\b${code}\\b|ErrorCode\\.${name}\\b`));
  });

  it('102, which only the platform gives, reaches the item as the service said it', () => {
    const envelope = { Success: false, Content: null, Errors: [{ Code: 102, Message: 'Unknown error' }] };
    expect(outcomeOf({ status: 200, envelope })).toEqual({
      status: 'failed',
      errors: [expect.objectContaining({ code: 102, message: 'Unknown error' })],
    });
  });
});
