/**
 * What an export's column most likely means, for the unknown-columns message's `--map` hint (nothing is mapped
 * unasked). Keys compared as headers are; the first field the command takes wins. SIS and HR exports.
 */
import { normalizeColumnName } from '../domain/field-names.js';

const SYNONYMS: readonly (readonly [readonly string[], readonly string[]])[] = [
  [
    [
      'Student ID',
      'Student number',
      'Student no',
      'Pupil ID',
      'Matriculation number',
      'Matrikelnummer',
      'Employee ID',
      'Employee number',
      'Staff ID',
      'Person ID',
      'User ID',
      'ID',
      'SIS ID',
    ],
    ['ExternalId', 'CandidateExtId', 'UserExtId'],
  ],
  [
    ['Candidate ID', 'Candidate number'],
    ['CandidateExtId', 'ExternalId'],
  ],
  [['Given name', 'Forename', 'First', 'Vorname', 'Prénom', 'Prenom'], ['FirstName']],
  [['Surname', 'Family name', 'Last', 'Nachname', 'Nom'], ['LastName']],
  [['E-mail address', 'Email address', 'Mail', 'Mail address'], ['Email']],
  [['Mobile', 'Mobile phone', 'Mobile number', 'Cell', 'Cell phone', 'Handy'], ['CellularPhone']],
  [['Phone', 'Telephone', 'Tel', 'Telefon'], ['PhoneNumber']],
  [['Login', 'Login name', 'Account', 'User'], ['UserName']],
  [['DOB', 'Birth date', 'Birthdate', 'Birthday', 'Geburtsdatum', 'Date of birth'], ['DateOfBirth']],
  [['Zip', 'Zip code', 'Postcode', 'PLZ'], ['PostalCode']],
  [['Country'], ['CountryCode']],
  [['Town', 'Ort'], ['City']],
  [['Street', 'Address'], ['AddressLine1']],
  [['School', 'Organisation', 'Organization', 'Institution'], ['Company']],
  [['Class', 'Cohort', 'Department', 'Hierarchy', 'Groups'], ['Hierarchies']],
  [['Tags'], ['Labels']],
  [['Start', 'Start time', 'Start date', 'Exam start', 'Begin'], ['StartDateTime']],
  [['End', 'End time', 'Exam end', 'Finish'], ['EndDateTime']],
  [['Exam', 'Exam ID', 'Assessment', 'Assessment ID'], ['AssessmentExtId']],
  [['Sitting', 'Sitting ID', 'Session', 'Session ID', 'Schedule ID'], ['ScheduleExtId']],
  [['Extra time', 'Extra time %'], ['ReasonableAdjustmentPercentage']],
  [['Registration', 'Registration no'], ['RegistrationNumber']],
];

const BY_KEY: ReadonlyMap<string, readonly string[]> = new Map(
  SYNONYMS.flatMap(([names, fields]) => names.map((name) => [normalizeColumnName(name), fields] as const)),
);

/** The field of `taken` (the command's fields) a column named `header` most likely holds. */
export function likelyField(header: string, taken: ReadonlySet<string>): string | undefined {
  return BY_KEY.get(normalizeColumnName(header))?.find((field) => taken.has(field));
}
