import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { wireSchema } from '../../src/domain/schemas.js';
import { TABLES } from '../../scripts/doc-tables.js';

/*
 * A format rule (an e-mail, a date-time, a padded text refused) must say its format in the wire
 * schema, so the OpenAPI document refuses what the engine refuses. Checked over every rule of
 * every table docs/api-reference.md lists, not left to what a property test's seed happens to generate
 * (test/server/openapi-contract.test.ts).
 */
const formatRules = Object.entries(TABLES).flatMap(([table, { rules }]) =>
  rules.filter((rule) => rule.format !== undefined).map((rule) => [`${table}.${rule.name}`, rule] as const),
);

describe('a format rule says its format in the OpenAPI document', () => {
  it('the tables have format rules (e-mail, date-time)', () => {
    expect(formatRules.map(([field]) => field)).toEqual(
      expect.arrayContaining(['user.Email', 'schedule.StartDateTime']),
    );
  });

  it.each(formatRules)('%s: its format has a wire schema, a pattern or a format', (_field, rule) => {
    expect(rule.format?.wire, 'StringFormat.wire: the pattern of what the format accepts').toBeDefined();
    const json = z.toJSONSchema(wireSchema(rule), { io: 'input', unrepresentable: 'any' }) as {
      pattern?: string;
      format?: string;
    };
    expect(json.pattern ?? json.format).toBeDefined();
  });
});
