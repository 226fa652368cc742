import { describe, expect, it } from 'vitest';
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import ExcelJS from 'exceljs';
import {
  coerceAndValidateCandidate,
  coerceAndValidateCollection,
  coerceAndValidateScheduleRequest,
  coerceAndValidateUser,
} from '../../src/domain/coercion.js';
import { validateInvigilatorRemoval } from '../../src/domain/invigilators.js';
import {
  jsonSchemaOf,
  TEMPLATE_KINDS,
  templateColumns,
  templateColumnSpecs,
  type TemplateKind,
} from '../../src/domain/templates.js';
import type { Validation } from '../../src/domain/problem.js';
import { readRecords } from '../../src/input/format.js';
import type { InputRecord } from '../../src/input/record.js';
import {
  templateCsv,
  templateExampleRecord,
  templateJson,
  writeTemplateXlsx,
} from '../../src/report/template-files.js';
import { inTempDir } from './helpers.js';

/** What the command of each kind does with one JSON record. */
function validate(kind: TemplateKind, record: unknown): Validation<unknown> {
  const fields = record as Record<string, unknown>;
  switch (kind) {
    case 'users':
      return coerceAndValidateUser(fields, { isCreate: true });
    case 'candidates':
      return coerceAndValidateCandidate(fields, { workflow: 'DEFAULT' });
    case 'sittings':
      return coerceAndValidateScheduleRequest(fields);
    case 'collection':
      return coerceAndValidateCollection(fields);
    case 'invigilators':
      return validateInvigilatorRemoval('S-1', [record]);
  }
}

async function readBack(path: string, kind: TemplateKind): Promise<InputRecord[]> {
  const records: InputRecord[] = [];
  for await (const record of readRecords(path, { columns: templateColumnSpecs(kind), displayName: path }))
    records.push(record);
  return records;
}

describe.each(TEMPLATE_KINDS)('template %s', (kind) => {
  it('csv and xlsx templates are accepted as input as they are (a header, no record)', async () => {
    await inTempDir(async (dir) => {
      const csv = join(dir, `${kind}.csv`);
      await writeFile(csv, templateCsv(kind));
      expect(await readBack(csv, kind)).toEqual([]);
      const xlsx = join(dir, `${kind}.xlsx`);
      const stream = createWriteStream(xlsx);
      await writeTemplateXlsx(kind, stream);
      await new Promise<void>((resolve) => stream.on('close', () => resolve()));
      expect(await readBack(xlsx, kind)).toEqual([]);

      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.readFile(xlsx);
      const [input, columns] = workbook.worksheets as [ExcelJS.Worksheet, ExcelJS.Worksheet];
      const names = templateColumnSpecs(kind).map((column) => column.name);
      expect(input.name).toBe(
        {
          users: 'Users',
          candidates: 'Candidates',
          sittings: 'Sittings',
          collection: 'Collections',
          invigilators: 'Invigilators',
        }[kind],
      );
      expect((input.getRow(1).values as unknown[]).slice(1)).toEqual(names);
      names.forEach((_, i) => expect(input.getColumn(i + 1).numFmt).toBe('@'));
      expect(columns.name).toBe('Columns');
      expect((columns.getRow(1).values as unknown[]).slice(1)).toEqual([
        'Column',
        'Required',
        'Type',
        'Limit',
        'Example',
        'Rules',
      ]);
      expect(columns.rowCount).toBe(names.length + 1);
    });
  });

  it('the json template is one example record that validates', async () => {
    await inTempDir(async (dir) => {
      const json = join(dir, `${kind}.json`);
      await writeFile(json, templateJson(kind));
      if (kind === 'invigilators') {
        expect(JSON.parse(templateJson(kind))).toEqual(['inv-3001']);
        return;
      }
      const records = await readBack(json, kind);
      expect(records).toHaveLength(1);
      const validation = validate(kind, records[0]?.fields);
      expect(validation.ok ? [] : validation.problems).toEqual([]);
    });
  });

  it('every column is described: required, type, an example that passes validation', () => {
    const described = templateColumns(kind);
    expect(described.map((column) => column.Column)).toEqual(templateColumnSpecs(kind).map((column) => column.name));
    for (const column of described) {
      expect(column.Example, column.Column).not.toBe('');
      expect(column.Type, column.Column).not.toBe('');
      expect(['yes', 'no'].includes(column.Required) || column.Required.startsWith('when '), column.Column).toBe(true);
    }
  });

  it('the JSON Schema (2020-12) compiles with ajv, accepts the json template and refuses an unknown field', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    // With the formats: the template's date-times are checked as date-times, not ignored.
    (addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
    const check = ajv.compile(jsonSchemaOf(kind));
    const template = JSON.parse(templateJson(kind)) as unknown[];
    expect(check(template), JSON.stringify(check.errors)).toBe(true);
    if (kind === 'invigilators') {
      expect(check([])).toBe(false);
      return;
    }
    expect(check(template[0])).toBe(true);
    expect(check({ ...(template[0] as object), Nickname: 'x' })).toBe(false);
    expect(check([{}])).toBe(false);
  });
});

describe('template descriptions', () => {
  it('say what the rule tables say', () => {
    const users = Object.fromEntries(templateColumns('users').map((column) => [column.Column, column]));
    expect(users['ExternalId']).toMatchObject({ Required: 'yes', Type: 'text', Limit: 'at most 64 characters' });
    expect(users['Role']?.Required).toBe('when the user is created');
    expect(users['SpecialNeeds']?.Type).toBe('yes/no (also true/false, 1/0)');
    expect(users['ReasonableAdjustmentPercentage']).toMatchObject({ Type: 'whole number', Limit: '0 to 999' });
    expect(users['Labels']).toMatchObject({ Type: 'list, entries separated by |', Limit: 'at most 20 entries' });
    const sittings = Object.fromEntries(templateColumns('sittings').map((column) => [column.Column, column]));
    expect(sittings['StartDateTime']?.Type).toMatch(/^date-time with a zone, as text/);
    expect(sittings['Workflow']?.Type).toBe('one of DEFAULT, EXTERNAL_ATTEMPTS (any case)');
    expect(sittings['AttemptExtId']?.Required).toBe('when Workflow is EXTERNAL_ATTEMPTS');
    expect(templateExampleRecord('sittings')).toMatchObject({
      Workflow: 'DEFAULT',
      Upsert: true,
      Candidates: [expect.objectContaining({ CandidateExtId: 'stu-2001' })],
    });
  });
});
