/**
 * `examctl template <kind> --map-example`: a map file with every kind of entry, valid as printed,
 * with no "default" in a value table: why, docs/input-formats.md, "Map files".
 */
import type { TemplateKind } from '../domain/templates.js';

type Entries = readonly (readonly [string, unknown])[];

const HOW = [
  [
    '//',
    'A map file for examctl (docs/input-formats.md, "Map files"). Keys starting with // are notes: examctl ignores them.',
  ],
  [
    '// use it',
    'examctl COMMAND --file export.csv --map-file this.json --dry-run; or keep it in a profile: examctl config set-profile NAME --map-file this.json',
  ],
  [
    '// keys',
    "Each key is a column of the export (its header as written; case, spaces, _ and - do not matter), or a field computed from columns. One map file may serve several exports and commands: an entry whose columns a file does not have does nothing, and an entry onto another command's field is left out.",
  ],
] as const;

const COLUMN = ['// a column read as a field', '"Column in the export": "ApiField"'] as const;
const VALUES = [
  '// a column whose words are translated',
  'Words are matched as written but for case and spaces around or repeated (Year 1-2, Year_12 and Year12 are not Year 12). A word with no entry fails its row, naming the word and the known ones; an empty cell stays empty. A "default" would stand for every other word, a typo or a new arrangement too, without a word said: give one only where that is meant.',
] as const;
const TEMPLATE = [
  '// a field computed from columns',
  "{Column} is that column's cell ({{ and }} are braces); a template gives a value only when every column it names has one.",
] as const;
const FALLBACK = [
  '// a fallback column',
  'The first of "column", then "fallback" (one column or a list), that has a value.',
] as const;

const USERS: Entries = [
  ...HOW,
  COLUMN,
  ['Student ID', 'ExternalId'],
  ['Given name', 'FirstName'],
  ['Surname', 'LastName'],
  ['Date of birth', 'DateOfBirth'],
  VALUES,
  ['Year group', { field: 'Labels', values: { 'Year 10': 'Y10', 'Year 11': 'Y11', 'Year 12': 'Y12' } }],
  TEMPLATE,
  ['UserName', { template: '{Given name}.{Surname}' }],
  FALLBACK,
  ['Email', { column: 'School email', fallback: 'Home email' }],
  [
    '// Hierarchies',
    'Memberships from a department column, through "values" like any column (several departments in one cell: separated by | or a line break). Each "flags" column holding yes (Y/N, yes/no, true/false, 1/0; empty is no) adds its flag: coordinator, administrator, reports or rescoring. Sent as DEPT-MATH:coordinator+reports.',
  ],
  [
    'Hierarchies',
    {
      column: 'Department',
      values: { Mathematics: 'DEPT-MATH', Science: 'DEPT-SCI', English: 'DEPT-ENG' },
      flags: { 'Exams Officer': 'coordinator', 'Sees Reports': 'reports' },
    },
  ],
];

const CANDIDATE_ENTRIES: Entries = [
  COLUMN,
  ['Candidate number', 'CandidateExtId'],
  ['Forename', 'FirstName'],
  ['Surname', 'LastName'],
  TEMPLATE,
  ['UserName', { template: '{Forename}.{Surname}' }],
  FALLBACK,
  ['Email', { column: 'School email', fallback: ['Home email', 'Parent email'] }],
  VALUES,
  ['Access arrangements', { field: 'SpecialNeeds', values: { 'Extra time': 'yes', None: 'no' } }],
];

const SITTINGS: Entries = [
  ...HOW,
  [
    '// dates',
    "Give the dates' format and zone with --date-format and --timezone (or the profile's): a message about a time quotes it as the file wrote it, with the zone used.",
  ],
  ...CANDIDATE_ENTRIES.slice(0, 2),
  ['Exam start', 'StartDateTime'],
  ...CANDIDATE_ENTRIES.slice(2),
  ['Paper', { field: 'AssessmentExtId', values: { 'Maths Paper 1': 'A-MATH-1', 'Physics Paper 2': 'A-PHYS-2' } }],
  ['ScheduleExtId', { template: 'S-{Centre}-{Session}' }],
  ['GroupExtId', { template: 'H-{Centre}' }],
  ['GroupName', { template: '{Centre} - {Session}' }],
];

const CANDIDATES: Entries = [...HOW, ...CANDIDATE_ENTRIES];

const COLLECTION: Entries = [
  ...HOW,
  COLUMN,
  ['Item code', 'ExternalId'],
  TEMPLATE,
  ['Title', { template: '{Subject} - {Item code}' }],
  VALUES,
  ['Subject', { field: 'Taxonomies', values: { Mathematics: 'TAX-MATH', Science: 'TAX-SCI' } }],
];

const EXAMPLES: Partial<Readonly<Record<TemplateKind, Entries>>> = {
  users: USERS,
  candidates: CANDIDATES,
  sittings: SITTINGS,
  collection: COLLECTION,
};

/** The kinds a map example exists for (invigilators remove reads one id column: --map UserExtId is its map). */
export function hasMapExample(kind: TemplateKind): boolean {
  return EXAMPLES[kind] !== undefined;
}

/** The example map file of a kind, as printed: pretty JSON, one entry a line where it fits. */
export function mapExample(kind: TemplateKind): string {
  const entries = EXAMPLES[kind];
  if (entries === undefined) throw new Error(`no map example for ${kind}`);
  const lines = entries.map(([key, value]) => `  ${JSON.stringify(key)}: ${valueText(value)}`);
  return `{\n${lines.join(',\n')}\n}\n`;
}

/** An entry's value: on one line when short, else its members one a line. */
function valueText(value: unknown): string {
  const flat = JSON.stringify(value);
  if (typeof value !== 'object' || value === null) return flat;
  // Spaced as a person writes JSON; the keys and words of an example hold no quotes.
  if (flat.length <= 90) return flat.replace(/":/g, '": ').replace(/,"/g, ', "');
  const members = Object.entries(value).map(([key, inner]) => `    ${JSON.stringify(key)}: ${valueText(inner)}`);
  return `{\n${members.join(',\n')}\n  }`;
}
