/**
 * The rule machinery: every field of every request is one FieldRule in one table, and a table
 * is checked by one loop (validateFields). Tables are built once at module load, so checking a
 * record allocates only its output object and any problems found.
 */
import type { ProblemCode } from './codes.js';
import type { Problem } from './problem.js';
import { exceedsLength } from './text-rules.js';

/**
 * Checks one field's value (undefined when the field is absent) and returns the wire value,
 * or undefined to leave the field out. Problems are pushed with `path` as their field.
 */
export type FieldCheck = (value: unknown, path: string, problems: Problem[]) => unknown;

export interface FieldRule {
  readonly name: string;
  readonly check: FieldCheck;
  /** True when the rule must also run for an absent field (it reports the field as missing). */
  readonly required?: boolean;
}

export interface RuleTable {
  /** What one record is called in messages ("user", "candidate"). */
  readonly entity: string;
  readonly rules: readonly FieldRule[];
  readonly names: ReadonlySet<string>;
  readonly byName: ReadonlyMap<string, FieldRule>;
  readonly requiredRules: readonly FieldRule[];
  /** Lower-cased name -> API name, to suggest the right spelling of a mistyped field. */
  readonly byLowerName: ReadonlyMap<string, string>;
}

export function ruleTable(entity: string, rules: readonly FieldRule[]): RuleTable {
  return {
    entity,
    rules,
    names: new Set(rules.map((r) => r.name)),
    byName: new Map(rules.map((r) => [r.name, r])),
    requiredRules: rules.filter((r) => r.required === true),
    byLowerName: new Map(rules.map((r) => [r.name.toLowerCase(), r.name])),
  };
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Unset for an optional field: absent, null, or the empty string (CSV empty cell, interpretations.md). */
export function isUnset(v: unknown): boolean {
  return v === undefined || v === null || v === '';
}

export function unknownFieldProblem(table: RuleTable, prefix: string, key: string): Problem {
  const suggestion = table.byLowerName.get(key.toLowerCase());
  const hint = suggestion !== undefined ? `; did you mean ${suggestion}? (field names are case-sensitive)` : '';
  return { field: prefix + key, code: null, message: `Unknown field "${key}" in a ${table.entity}${hint}` };
}

/**
 * Checks every field of `input` against `table`, reporting keys the table does not know
 * (unknown fields are reported, not dropped, so a typo cannot silently lose data).
 * Returns the wire object, or null when `input` is not an object at all.
 */
export function validateFields(
  input: unknown,
  table: RuleTable,
  prefix: string,
  problems: Problem[],
): Record<string, unknown> | null {
  if (!isPlainObject(input)) {
    problems.push({
      field: prefix.endsWith('.') ? prefix.slice(0, -1) : prefix,
      code: null,
      message: `A ${table.entity} must be a JSON object`,
    });
    return null;
  }
  const out: Record<string, unknown> = {};
  // Driven by the fields present (a CSV row sets a few of ~30), then the required ones absent.
  // for-in avoids allocating a key array per record; JSON-parsed and reader objects have no inherited keys.
  for (const key in input) {
    const rule = table.byName.get(key);
    if (rule === undefined) {
      problems.push(unknownFieldProblem(table, prefix, key));
      continue;
    }
    const wire = rule.check(input[key], prefix + key, problems);
    if (wire !== undefined) out[key] = wire;
  }
  const required = table.requiredRules;
  for (let i = 0; i < required.length; i++) {
    const rule = required[i] as FieldRule;
    if (!Object.hasOwn(input, rule.name)) rule.check(undefined, prefix + rule.name, problems);
  }
  return out;
}

/** The field's own name, the last segment of its path, for messages. */
export function leafName(path: string): string {
  const dot = path.lastIndexOf('.');
  return dot < 0 ? path : path.slice(dot + 1);
}

export interface StringRuleSpec {
  max: number;
  /** Present when the field is required: the code for "null or empty" (null when not numbered). */
  required?: ProblemCode;
  tooLongCode?: ProblemCode;
  pattern?: RegExp;
  patternCode?: ProblemCode;
  /** What the pattern allows, for the message: "letters, digits and dashes". */
  patternHint?: string;
  /** A format check after length and pattern: returns the wire value, or undefined after pushing a problem. */
  format?: (s: string, path: string, problems: Problem[]) => string | undefined;
}

/** A string(N) field: required or optional, maximum length in code points, optional pattern and format. */
export function stringRule(name: string, spec: StringRuleSpec): FieldRule {
  const { max, required, tooLongCode = null, pattern, patternCode = null, patternHint, format } = spec;
  const isRequired = required !== undefined;
  const requiredCode: ProblemCode = required ?? null;
  return {
    name,
    required: isRequired,
    check(value, path, problems) {
      if (isUnset(value)) {
        if (isRequired) problems.push({ field: path, code: requiredCode, message: `${name} is required and must not be empty` });
        return undefined;
      }
      if (typeof value !== 'string') {
        problems.push({ field: path, code: null, message: `${name} must be a string` });
        return undefined;
      }
      if (isRequired && value.trim() === '') {
        problems.push({ field: path, code: requiredCode, message: `${name} is required and must not be blank` });
        return undefined;
      }
      let valid = true;
      if (exceedsLength(value, max)) {
        problems.push({ field: path, code: tooLongCode, message: `${name} is longer than ${max} characters` });
        valid = false;
      }
      if (pattern !== undefined && !pattern.test(value)) {
        problems.push({ field: path, code: patternCode, message: `${name} may contain only ${patternHint ?? 'allowed characters'}` });
        valid = false;
      }
      if (!valid) return undefined;
      return format === undefined ? value : format(value, path, problems);
    },
  };
}

export const BOOLEAN_SPELLINGS = 'true/false, yes/no or 1/0';

/** A JSON boolean field; null means unset. */
export function booleanRule(name: string): FieldRule {
  return {
    name,
    check(value, path, problems) {
      if (value === undefined || value === null) return undefined;
      if (typeof value !== 'boolean') {
        problems.push({ field: path, code: null, message: `${name} must be true or false` });
        return undefined;
      }
      return value;
    },
  };
}

/** A field whose value is one of a fixed set, accepted in any case and sent in the API's case. */
export function enumRule(name: string, values: readonly string[], code: ProblemCode = null): FieldRule {
  const byUpper = new Map(values.map((v) => [v.toUpperCase(), v]));
  const list = values.join(' or ');
  return {
    name,
    check(value, path, problems) {
      if (isUnset(value)) return undefined;
      const wire = typeof value === 'string' ? byUpper.get(value.trim().toUpperCase()) : undefined;
      if (wire === undefined) {
        problems.push({ field: path, code, message: `${name} must be ${list}` });
        return undefined;
      }
      return wire;
    },
  };
}

/** A field sent as given (the spec gives it no format). */
export function passThroughRule(name: string): FieldRule {
  return {
    name,
    check(value, path, problems) {
      if (isUnset(value)) return undefined;
      if (typeof value !== 'string') {
        problems.push({ field: path, code: null, message: `${name} must be a string` });
        return undefined;
      }
      return value;
    },
  };
}
