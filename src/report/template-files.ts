/**
 * `examctl template <kind> -o csv|xlsx|json` (docs/input-formats.md, "Templates and schemas"): a
 * file examctl accepts as input as it is; an xlsx one's columns are formatted as text, so `00456`
 * typed in stays `00456`.
 */
import type { Writable } from 'node:stream';
import { coerceAndValidateCandidate, coerceAndValidateCollection, coerceAndValidateUser } from '../domain/coercion.js';
import { validateInvigilatorRemoval } from '../domain/invigilators.js';
import type { Validation } from '../domain/problem.js';
import { InternalError } from '../system/errors.js';
import { Sittings, type Sitting } from '../domain/sittings.js';
import { templateColumnSpecs, templateColumns, templateExampleRow, type TemplateKind } from '../domain/templates.js';
import { mapHeader, rowFields } from '../input/csv-reader.js';
import { csvLine } from '../formats/csv-cell.js';
import { TEMPLATE_DESCRIPTION_SHEET } from '../domain/columns.js';
import { writeTablesXlsx } from './xlsx-report-writer.js';

export function templateCsv(kind: TemplateKind): string {
  return csvLine(templateColumnSpecs(kind).map((column) => column.name));
}

/** The example row as a JSON file's record, in the API's own form, so it passes the JSON Schema too. */
export function templateExampleRecord(kind: TemplateKind): unknown {
  const columns = templateColumnSpecs(kind);
  const header = columns.map((column) => column.name);
  const fields = rowFields(templateExampleRow(kind), mapHeader(header, { columns }, 'template', 1));
  switch (kind) {
    case 'users':
      return validValue(coerceAndValidateUser(fields, { isCreate: true }));
    case 'candidates':
      return validValue(coerceAndValidateCandidate(fields, { workflow: 'DEFAULT' }));
    case 'collection':
      return validValue(coerceAndValidateCollection(fields));
    case 'invigilators':
      return validValue(validateInvigilatorRemoval('S-1', [fields['UserExtId']])).userExtIds[0];
    case 'sittings': {
      // A sittings JSON file holds whole requests: the example row grouped as a run groups a sittings file's rows.
      const sittings = new Sittings({ schedule: {} });
      sittings.add({ line: 2, csv: true, fields }, undefined);
      const [sitting] = sittings.all();
      return validValue((sitting as Sitting<undefined>).prepare()).request;
    }
  }
}

function validValue<T>(validation: Validation<T>): T {
  if (!validation.ok)
    throw new InternalError(
      `template example refused: ${validation.problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`,
    );
  return validation.value;
}

export function templateJson(kind: TemplateKind): string {
  const example = templateExampleRecord(kind);
  return `${JSON.stringify([example], null, 2)}\n`;
}

/** The xlsx template: the input sheet (header only, text columns) and the "Columns" sheet. */
export async function writeTemplateXlsx(kind: TemplateKind, stream: Writable): Promise<void> {
  const columns = templateColumns(kind);
  const sheet = kind.replace(/^./, (first) => first.toUpperCase()).replace(/s?$/, 's');
  await writeTablesXlsx(stream, [
    { name: sheet, header: columns.map((column) => column.Column), rows: [] },
    {
      ...TEMPLATE_DESCRIPTION_SHEET,
      rows: columns.map((column) => TEMPLATE_DESCRIPTION_SHEET.header.map((h) => column[h])),
    },
  ]);
}
