import fc from 'fast-check';
import { END_OF_INPUT } from '../../src/domain/portable-pattern.js';

/**
 * fast-check arbitraries of the values a JSON Schema (draft 2020-12, the subset the OpenAPI
 * document's request schemas use) accepts. The schemas are the ones z.toJSONSchema made from the
 * domain's zod request schemas, so the bodies come from the same zod schemas the server checks with.
 * Lengths and list sizes are capped (`maxString`, `maxItems`) to keep runs quick; every generated
 * value is also checked against the schema by Ajv in the test, so a generator mistake shows.
 */
export type JsonSchema = {
  $ref?: string;
  anyOf?: JsonSchema[];
  type?: string;
  const?: unknown;
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  properties?: Record<string, JsonSchema>;
  required?: string[];
};

export interface ArbitraryOptions {
  /** Resolves `#/components/schemas/X`. */
  resolve: (ref: string) => JsonSchema;
  maxString?: number;
  maxItems?: number;
}

const codePoints = (s: string): number => [...s].length;

function dateTime(): fc.Arbitrary<string> {
  const instant = fc.date({
    min: new Date('1971-01-01T00:00:00Z'),
    max: new Date('2099-12-31T00:00:00Z'),
    noInvalidDate: true,
  });
  const offset = fc.constantFrom('Z', 'z', '+01:00', '-05:30', '+00:00');
  return fc.tuple(instant, offset, fc.boolean()).map(([date, zone, fraction]) => {
    const iso = date.toISOString();
    return `${fraction ? iso.slice(0, 23) : iso.slice(0, 19)}${zone}`;
  });
}

function stringOf(schema: JsonSchema, options: Required<Omit<ArbitraryOptions, 'resolve'>>): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? Number.POSITIVE_INFINITY;
  const fits = (s: string): boolean =>
    codePoints(s) >= min &&
    codePoints(s) <= max &&
    (schema.pattern === undefined || new RegExp(schema.pattern, 'u').test(s));
  if (schema.format === 'date-time') return dateTime().filter(fits);
  if (schema.pattern !== undefined) {
    // fast-check generates no lookahead; the served patterns end in END_OF_INPUT, which means `$`
    // in JavaScript (src/domain/portable-pattern.ts), so generate from that and keep only what fits
    // the pattern as served.
    const generating = schema.pattern.split(END_OF_INPUT).join('$');
    return fc.stringMatching(new RegExp(generating), { size: 'small' }).filter(fits);
  }
  // Also the longest allowed value now and then: limits are where documents and servers part.
  const cap = Math.min(max, options.maxString);
  const strings = fc.string({ unit: 'binary', minLength: min, maxLength: Math.max(min, cap) });
  return Number.isFinite(max) && max > cap
    ? fc.oneof({ weight: 9, arbitrary: strings }, { weight: 1, arbitrary: fc.constant('x'.repeat(max)) })
    : strings;
}

export function arbitraryOf(schema: JsonSchema, options: ArbitraryOptions): fc.Arbitrary<unknown> {
  const limits = { maxString: options.maxString ?? 24, maxItems: options.maxItems ?? 3 };
  const build = (s: JsonSchema): fc.Arbitrary<unknown> => {
    if (s.$ref !== undefined) return build(options.resolve(s.$ref));
    if (s.anyOf !== undefined) return fc.oneof(...s.anyOf.map(build));
    if (s.const !== undefined) return fc.constant(s.const);
    if (s.enum !== undefined) return fc.constantFrom(...s.enum);
    switch (s.type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return fc.integer({ min: s.minimum ?? -1_000_000, max: s.maximum ?? 1_000_000 });
      case 'number':
        return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true });
      case 'string':
        return stringOf(s, limits);
      case 'array': {
        const items = build(s.items ?? {});
        const minLength = s.minItems ?? 0;
        const maxLength = Math.max(minLength, Math.min(s.maxItems ?? limits.maxItems, limits.maxItems));
        return s.uniqueItems === true
          ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
          : fc.array(items, { minLength, maxLength });
      }
      case 'object': {
        const properties = s.properties ?? {};
        const shape = Object.fromEntries(Object.entries(properties).map(([name, p]) => [name, build(p)]));
        return fc.record(shape, { requiredKeys: (s.required ?? []) as never[] });
      }
      default:
        return fc.jsonValue();
    }
  };
  return build(schema);
}
