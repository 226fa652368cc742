/**
 * `examctl template <kind> -o csv|xlsx|json`: a file examctl accepts as input as it is.
 * CSV: the header row only. xlsx: the header on a first sheet whose columns are formatted as
 * text (so `00456` typed in stays `00456`), and a second sheet, "Columns", describing each
 * column (required, type, limit, example, the rule). JSON: an array holding one example record
 * (valid as it is: replace or delete it). `examctl schema <kind>` gives the JSON Schema.
 */
import type { Writable } from 'node:stream';
import { coerceCandidateFields, coerceCollectionFields, coerceScheduleFields, coerceUserFields } from '../domain/coercion.js';
import { CANDIDATE_FIELDS } from '../domain/schedule.js';
import { templateColumnSpecs, templateColumns, templateExampleRow, type TemplateKind } from '../domain/templates.js';
import { mapHeader, rowFields } from '../input/csv-reader.js';
import { csvLine } from './csv-cell.js';
import { writeTablesXlsx } from './xlsx-report-writer.js';

export type TemplateFormat = 'csv' | 'xlsx' | 'json';

const SHEET_NAMES: Readonly<Record<TemplateKind, string>> = {
  users: 'Users',
  candidates: 'Candidates',
  sittings: 'Sittings',
  collection: 'Collections',
  invigilators: 'Invigilators',
};

const DESCRIPTION_HEADER = ['Column', 'Required', 'Type', 'Limit', 'Example', 'Rules'];

export function templateCsv(kind: TemplateKind): string {
  return csvLine(templateColumnSpecs(kind).map((column) => column.name));
}

/** The example row as the record a JSON file holds (booleans, numbers and lists as JSON). */
export function templateExampleRecord(kind: TemplateKind): unknown {
  const columns = templateColumnSpecs(kind);
  const header = columns.map((column) => column.name);
  const fields = rowFields(templateExampleRow(kind), mapHeader(header, { columns }, 'template', 1));
  switch (kind) {
    case 'users':
      return coerceUserFields(fields).fields;
    case 'candidates':
      return coerceCandidateFields(fields).fields;
    case 'collection':
      return coerceCollectionFields(fields).fields;
    case 'invigilators':
      return fields['UserExtId'];
    case 'sittings': {
      // A sittings JSON file holds whole requests: the schedule, then its candidates.
      const candidate: Record<string, unknown> = {};
      const schedule: Record<string, unknown> = {};
      const candidateNames = new Set(CANDIDATE_FIELDS);
      for (const [name, value] of Object.entries(fields)) {
        if (name === 'Workflow' || name === 'Upsert') continue;
        (candidateNames.has(name) ? candidate : schedule)[name] = value;
      }
      const request = coerceScheduleFields({ ...schedule, Workflow: fields['Workflow'], Upsert: fields['Upsert'] }).fields;
      const { Workflow, Upsert, ...scheduleFields } = request;
      return { Workflow, Upsert, Schedule: scheduleFields, Candidates: [coerceCandidateFields(candidate).fields] };
    }
  }
}

export function templateJson(kind: TemplateKind): string {
  const example = templateExampleRecord(kind);
  return `${JSON.stringify([example], null, 2)}\n`;
}

/** The xlsx template: the input sheet (header only, text columns) and the "Columns" sheet. */
export async function writeTemplateXlsx(kind: TemplateKind, stream: Writable): Promise<void> {
  const columns = templateColumns(kind);
  await writeTablesXlsx(stream, [
    { name: SHEET_NAMES[kind], header: columns.map((column) => column.name), rows: [] },
    {
      name: 'Columns',
      header: DESCRIPTION_HEADER,
      rows: columns.map((column) => [column.name, column.required, column.type, column.limit, column.example, column.notes]),
    },
  ]);
}
