import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/api/openapi.js';
import {
  CANDIDATE_FIELDS,
  COLLECTION_FIELDS,
  HIERARCHY_FIELDS,
  SCHEDULE_FIELDS,
  SCHEDULE_REQUEST_FIELDS,
  USER_FIELDS,
} from '../../src/domain/index.js';

type Schema = { properties?: Record<string, Schema>; items?: Schema; required?: string[]; type?: string };

const document = JSON.parse(JSON.stringify(buildOpenApiDocument('1.2.3'))) as {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, Schema> };
};
const schemas = document.components.schemas;
const names = (schema: Schema | undefined) => Object.keys(schema?.properties ?? {}).sort();

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 with the five routes and their methods', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.2.3');
    expect(Object.fromEntries(Object.entries(document.paths).map(([p, ops]) => [p, Object.keys(ops)]))).toEqual({
      '/schedule': ['post'],
      '/external/review-sessions/{externalId}': ['get'],
      '/collections': ['post'],
      '/user': ['post'],
      '/schedule/{externalId}/invigilators': ['delete'],
    });
  });

  it('resolves every $ref to a component schema', () => {
    const refs = JSON.stringify(document).match(/"#\/components\/schemas\/[A-Za-z]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(5);
    for (const ref of refs) expect(schemas).toHaveProperty(ref.slice(22, -1));
  });

  it('documents exactly the fields of the domain rule tables', () => {
    expect(names(schemas.UserRequest)).toEqual([...USER_FIELDS].sort());
    expect(names(schemas.UserRequest?.properties?.Hierarchies?.items)).toEqual([...HIERARCHY_FIELDS].sort());
    expect(names(schemas.ScheduleRequest)).toEqual([...SCHEDULE_REQUEST_FIELDS].sort());
    expect(names(schemas.ScheduleRequest?.properties?.Schedule)).toEqual([...SCHEDULE_FIELDS].sort());
    expect(names(schemas.ScheduleRequest?.properties?.Candidates?.items)).toEqual([...CANDIDATE_FIELDS].sort());
    expect(names(schemas.CollectionRequest)).toEqual([...COLLECTION_FIELDS].sort());
  });

  it('marks the spec required fields', () => {
    expect(schemas.UserRequest?.required?.sort()).toEqual(['ExternalId', 'FirstName', 'LastName']);
    expect(schemas.CollectionRequest?.required).toEqual(['Title']);
    expect(schemas.ScheduleRequest?.required?.sort()).toEqual(['Candidates', 'Schedule']);
  });
});
