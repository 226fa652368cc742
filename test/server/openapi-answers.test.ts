import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { USER_VIEW_FIELDS } from '../../src/domain/user.js';
import { buildOpenApiDocument } from '../../src/server/openapi.js';

/*
 * The answers the API text describes (test/support/spec-answer-fields.json, transcribed from the
 * text) are typed in the served document: every listed field is there, with a type (never the
 * empty schema a client generator reads as `unknown`), and the enums the text names. The same
 * list drives the openapi-typescript check of `npm run test:interop`. The file holds the API text
 * only: a user field of examctl's own (USER_TABLE, shown through USER_VIEW_FIELDS) is served
 * beyond it and checked apart (OWN_FIELDS), never written into the transcription.
 */
type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  $ref?: string;
};
interface SpecObject {
  name: string;
  path: string[];
  fields: string[];
  enums: Record<string, string[]>;
}
const spec = JSON.parse(readFileSync(new URL('../support/spec-answer-fields.json', import.meta.url), 'utf8')) as {
  objects: SpecObject[];
};
const document = JSON.parse(JSON.stringify(buildOpenApiDocument('1.0.0'))) as {
  components: { schemas: Record<string, Schema> };
};
const schemas = document.components.schemas;
const specUserFields = spec.objects.find((o) => o.name === 'Content.User')!.fields;
/** The fields an answer object serves beyond the API text: Content.User's from the user table. */
const OWN_FIELDS: Record<string, readonly string[]> = {
  'Content.User': USER_VIEW_FIELDS.filter((f) => !specUserFields.includes(f)),
};

/** The schema's branches that are not null (a nullable field is `anyOf: [value, null]`; a union envelope is anyOf too). */
function branches(schema: Schema | undefined): Schema[] {
  if (schema === undefined) return [];
  if (schema.$ref !== undefined) return branches(schemas[schema.$ref.replace('#/components/schemas/', '')]);
  if (schema.anyOf !== undefined) return schema.anyOf.flatMap(branches);
  return schema.type === 'null' ? [] : [schema];
}

function walk(path: readonly string[]): Schema | undefined {
  let current: Schema | undefined = schemas[path[0]!];
  for (const step of path.slice(1)) {
    const options = branches(current);
    current =
      step === '[]'
        ? options.find((s) => s.items)?.items
        : options.find((s) => s.properties?.[step])?.properties?.[step];
  }
  return current;
}

/** A type a generator can name: a type keyword or enum on some non-null branch. */
const typed = (schema: Schema | undefined) =>
  branches(schema).some((s) => s.type !== undefined || s.enum !== undefined);

describe('the served OpenAPI document types every answer field the API text lists', () => {
  it('transcribes the counts the API text gives', () => {
    const count = (name: string) => spec.objects.find((o) => o.name === name)?.fields.length;
    expect([
      count('review session'),
      count('Results entry'),
      count('ResultsOptions'),
      count('OverviewOptions'),
      count('Content.User'),
    ]).toEqual([21, 20, 8, 3, 26]);
  });

  it('the engine shows every Content.User field the API text lists (USER_VIEW_FIELDS)', () => {
    expect(specUserFields.filter((f) => !(USER_VIEW_FIELDS as readonly string[]).includes(f))).toEqual([]);
  });

  it.each(spec.objects.map((o) => [o.name, o] as const))(
    '%s: exactly the listed fields, each typed, enums as named',
    (_name, object) => {
      const properties = branches(walk(object.path)).find((s) => s.properties)?.properties ?? {};
      const fields = [...object.fields, ...(OWN_FIELDS[object.name] ?? [])];
      expect(Object.keys(properties).sort()).toEqual([...fields].sort());
      expect(Object.keys(properties)).toHaveLength(fields.length);
      for (const field of fields) expect(typed(properties[field]), `${object.name}.${field}`).toBe(true);
      for (const [field, values] of Object.entries(object.enums)) {
        const declared = branches(properties[field]).flatMap((s) => s.enum ?? []);
        expect(declared.sort(), `${object.name}.${field}`).toEqual([...values].sort());
      }
    },
  );
});
