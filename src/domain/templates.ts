/**
 * What `examctl template <kind>` and `examctl schema <kind>` describe (docs/input-formats.md, "Templates and
 * schemas"), read from the rule tables and their wire schemas but the examples. Loads zod: never on a run's path.
 */
import type { z } from 'zod';
import {
  CANDIDATE_COLUMNS,
  COLLECTION_COLUMNS,
  SCHEDULE_COLUMNS,
  TEMPLATE_DESCRIPTION_SHEET,
  USER_COLUMNS,
  type ColumnSpec,
} from './columns.js';
import type { UserField } from './user.js';
import type { CandidateField, ScheduleField } from './schedule.js';
import type { CollectionField } from './collection.js';
import { HIERARCHY_CELL_FLAGS } from './coercion.js';
import {
  candidateSchema,
  collectionRequestSchema,
  inputJsonSchema,
  invigilatorIdsSchema,
  scheduleRequestSchema,
  userRequestSchema,
  wireSchema,
  type JsonSchema,
} from './schemas.js';

export const TEMPLATE_KINDS = ['users', 'candidates', 'sittings', 'collection', 'invigilators'] as const;
export type TemplateKind = (typeof TEMPLATE_KINDS)[number];

export function isTemplateKind(kind: string): kind is TemplateKind {
  return (TEMPLATE_KINDS as readonly string[]).includes(kind);
}

/** One column described on the template's "Columns" sheet, under that sheet's header (columns.ts). */
type ColumnDescription = Record<(typeof TEMPLATE_DESCRIPTION_SHEET.header)[number], string>;

/** The column of an invigilators id list (src/input/id-list.ts accepts this name first). */
const INVIGILATOR_ID_COLUMN = 'UserExtId' as const;

/** Every column a template shows: the tables' fields, a sittings row's Workflow and Upsert, the invigilator id. */
type ExampleField =
  | UserField
  | CandidateField
  | ScheduleField
  | CollectionField
  | 'Workflow'
  | 'Upsert'
  | typeof INVIGILATOR_ID_COLUMN;

/**
 * One example cell per field, as an admin types it; every example row passes validation
 * (test/xlsx/templates.test.ts), and a field without an example here fails to compile.
 */
const EXAMPLES: Readonly<Record<string, string>> = {
  ExternalId: 'u-1001',
  LastName: 'Lee',
  FirstName: 'Ann',
  Email: 'ann.lee@example.test',
  UserName: 'ann.lee',
  Role: 'Candidate',
  Photo: 'https://example.test/photos/u-1001.jpg',
  DateOfBirth: '1990-02-28',
  Company: 'Acme',
  CountryCode: 'FR',
  State: 'Ile-de-France',
  City: 'Paris',
  PostalCode: '02134',
  PostalAddress: '1 rue Exemple, 75001 Paris',
  AddressLine1: '1 rue Exemple',
  AddressLine2: 'Building B',
  PhoneNumber: '0612345678',
  CellularPhone: '0698765432',
  SpecialNeeds: 'yes',
  ReasonableAdjustmentPercentage: '25',
  EnableReadSpeaker: 'no',
  DisableLogin: 'no',
  DisablePasswordReset: 'no',
  SynchronizationKey: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
  Labels: 'year-1|math',
  AllowedIpAddresses: '10.0.0.0/8|192.168.1.10',
  Password: 'Correct-Horse-7',
  Hierarchies: `H-NORTH:${Object.keys(HIERARCHY_CELL_FLAGS)[0]}+reports|H-SOUTH`,
  CandidateExtId: 'stu-2001',
  AttemptExtId: 'att-2001',
  RegistrationNumber: 'R-2001',
  VoucherId: 'V-2001',
  CompId: 'C-1',
  ProctorUIds: 'proctor-1|proctor-2',
  AssessmentExtId: 'A-MATH-1',
  Title: 'Mathematics 1 - December sitting',
  ScheduleExtId: 'S-MATH1-DEC',
  StartDateTime: '2026-12-14T09:00:00+01:00',
  EndDateTime: '2026-12-14T12:00:00+01:00',
  GroupExtId: 'H-NORTH-DEC',
  GroupName: 'North campus - December',
  ScheduleGroupExtId: 'SG-DEC',
  ScheduleGroupName: 'December sittings',
  LockExamOnConnectionLoss: 'no',
  Owner: 'admin@example.test',
  PIN: '0420',
  UseProctoringService: 'no',
  ProctoringServiceTemplateExternalId: 'PTSTD',
  UseKeyCode: 'no',
  enableAutomaticDataCleanup: 'no',
  dataCleanupNoticePeriod: '30',
  Workflow: 'DEFAULT',
  Upsert: 'yes',
  Taxonomies: 'TAX-1|TAX-2',
  LoRepositoryExternalIds: 'LO-1',
  ObjectiveRepositories: 'OBJ-1',
  [INVIGILATOR_ID_COLUMN]: 'inv-3001',
} satisfies Record<ExampleField, string>;

/** Examples that differ by kind (a collection's ExternalId allows lower-case letters and digits only). */
const KIND_EXAMPLES: Partial<Record<TemplateKind, Readonly<Record<string, string>>>> = {
  collection: { ExternalId: 'col2026', Title: 'Mathematics item bank', Owner: 'admin' } satisfies Partial<
    Record<CollectionField, string>
  >,
};

/** Fields an example row leaves empty: they need another field set a particular way. */
const EXAMPLE_ROW_OMITS: ReadonlySet<string> = new Set<ExampleField>(['AttemptExtId']);

/** Required-ness the rule table cannot say (it depends on the platform or another field). */
const CONDITIONS: Readonly<Record<string, string>> = {
  Role: 'when the user is created',
  AttemptExtId: 'when Workflow is EXTERNAL_ATTEMPTS',
} satisfies Partial<Record<ExampleField, string>>;

interface KindSpec {
  /** The columns, each with its rule (columns.ts). */
  columns: readonly ColumnSpec[];
  /** One record of the kind's JSON input, and its name in the JSON Schema's $defs. */
  record: z.ZodType;
  recordName: string;
}

const KINDS: Readonly<Record<TemplateKind, KindSpec>> = {
  users: { columns: USER_COLUMNS, record: userRequestSchema, recordName: 'user' },
  candidates: { columns: CANDIDATE_COLUMNS, record: candidateSchema, recordName: 'candidate' },
  // The schedule's columns first: one sitting is the rows sharing a ScheduleExtId.
  sittings: {
    columns: [...SCHEDULE_COLUMNS, ...CANDIDATE_COLUMNS],
    record: scheduleRequestSchema,
    recordName: 'scheduleRequest',
  },
  collection: { columns: COLLECTION_COLUMNS, record: collectionRequestSchema, recordName: 'collection' },
  invigilators: {
    columns: [{ name: INVIGILATOR_ID_COLUMN, kind: 'string' }],
    record: invigilatorIdsSchema,
    recordName: 'invigilatorIds',
  },
};

/** The columns of a kind's input file, in template order. */
export function templateColumnSpecs(kind: TemplateKind): readonly ColumnSpec[] {
  return KINDS[kind].columns;
}

function describeType(schema: JsonSchema, list: boolean): string {
  if (Array.isArray(schema['enum'])) return `one of ${(schema['enum'] as string[]).join(', ')} (any case)`;
  switch (schema['type']) {
    case 'boolean':
      return 'yes/no (also true/false, 1/0)';
    case 'integer':
      return 'whole number';
    case 'array':
      return list ? 'list, entries separated by |' : 'list';
    default:
      break;
  }
  if (schema['format'] === 'date-time') return 'date-time with a zone, as text (2026-03-01T09:00:00+01:00 or ...Z)';
  if (schema['format'] === 'uri') return 'text: an http(s) URL';
  return 'text';
}

function describeLimit(schema: JsonSchema): string {
  const parts: string[] = [];
  if (typeof schema['maxLength'] === 'number') parts.push(`at most ${schema['maxLength']} characters`);
  if (typeof schema['minLength'] === 'number' && (schema['minLength'] as number) > 1)
    parts.push(`at least ${schema['minLength']} characters`);
  if (typeof schema['minimum'] === 'number' && typeof schema['maximum'] === 'number')
    parts.push(`${schema['minimum']} to ${schema['maximum']}`);
  if (typeof schema['maxItems'] === 'number') parts.push(`at most ${schema['maxItems']} entries`);
  return parts.join('; ');
}

function exampleOf(kind: TemplateKind, name: string): string {
  return KIND_EXAMPLES[kind]?.[name] ?? EXAMPLES[name] ?? '';
}

/** Every column of a kind's file, described for the template's second sheet. */
export function templateColumns(kind: TemplateKind): ColumnDescription[] {
  return templateColumnSpecs(kind).map((column) => {
    const Example = exampleOf(kind, column.name);
    const rule = column.rule;
    if (rule === undefined) {
      const Rules = 'The user external id of one invigilator to remove from the schedule.';
      return { Column: column.name, Required: 'yes', Type: 'text', Limit: '', Example, Rules };
    }
    const schema = inputJsonSchema(wireSchema(rule));
    return {
      Column: column.name,
      // "yes", "no", or the condition ("when the user is created").
      Required: CONDITIONS[column.name] ?? (rule.required === true ? 'yes' : 'no'),
      Type: describeType(schema, column.kind === 'list'),
      Limit: describeLimit(schema),
      Example,
      // The rule's description: what is checked, with the API's codes.
      Rules: typeof schema['description'] === 'string' ? schema['description'] : '',
    };
  });
}

/** An example row (cells as typed), valid as it is: conditional fields left empty. */
export function templateExampleRow(kind: TemplateKind): string[] {
  return templateColumnSpecs(kind).map((column) =>
    EXAMPLE_ROW_OMITS.has(column.name) ? '' : exampleOf(kind, column.name),
  );
}

/**
 * JSON Schema (2020-12) of a kind's JSON input file, from the OpenAPI document's zod schemas: one record, or an
 * array of them (NDJSON: each line a record). The invigilators list is one array of user ids.
 */
export function jsonSchemaOf(kind: TemplateKind): JsonSchema {
  const record = inputJsonSchema(KINDS[kind].record);
  // zod's own $defs are referenced from the root (#/$defs/...): they move to the root with the record.
  const { $schema: _ignored, $defs: shared, ...body } = record;
  const title = `examctl ${kind} input`;
  const dialect = 'https://json-schema.org/draft/2020-12/schema';
  if (kind === 'invigilators')
    return { $schema: dialect, title, ...body, ...(shared === undefined ? {} : { $defs: shared }) };
  const name = KINDS[kind].recordName;
  return {
    $schema: dialect,
    title,
    description: `One ${name} object, or an array of them (NDJSON: one object per line). Field names are the API's, case-sensitive.`,
    anyOf: [{ $ref: `#/$defs/${name}` }, { type: 'array', items: { $ref: `#/$defs/${name}` } }],
    $defs: { ...(shared as JsonSchema | undefined), [name]: body },
  };
}
