/** The rule machinery (one table per request, one loop): docs/domain-rules.md, "One definition per field". */
import { UNNUMBERED, type ProblemCode } from './codes.js';
import type { z } from 'zod';
import { quotedValue, type Problem } from './problem.js';
import { exceedsLength, hasForbiddenNameCharacter } from './text-rules.js';
import { NAME_FORBIDDEN_CLASS } from './forbidden-characters.js';

/** The zod namespace, passed to the wire builders by the one module that imports zod at run time. */
export type Zod = typeof z;

type WireBuilder = (zod: Zod) => z.ZodType;

/**
 * `Name` is the field's API name as a literal type, `Value` the wire value its check returns and
 * `Required` whether it is required, so a table is also the type of its records (RecordOf).
 */
export interface FieldRule<Name extends string = string, Value = unknown, Required extends boolean = boolean> {
  readonly name: Name;
  /**
   * Checks one field's value (undefined when the field is absent) and returns the wire value,
   * or undefined to leave the field out. Problems are pushed with `path` as their field.
   */
  readonly check: (value: unknown, path: string, problems: Problem[]) => Value | undefined;
  /** True when the rule must also run for an absent field (it reports the field as missing). */
  readonly required?: Required;
  /**
   * The field's wire value as a zod schema, without `.optional()` (tables add it from `required`); every
   * value the check returns satisfies it (test/domain/schemas.test.ts). Read it through wireOf (built once).
   */
  readonly wire: WireBuilder;
  /**
   * What the API takes beyond the wire value where the check tolerates more (any case of an enum): the
   * OpenAPI document declares it (docs/interpretations.md, "Tolerance (engine and local serve)").
   */
  readonly input?: WireBuilder;
  /** True when the check reads '' as "not set" (null always is, for an optional field). */
  readonly emptyIsUnset?: boolean;
  /**
   * How a CSV cell's text becomes this field's value before the check (coercion.ts); absent: the text as is.
   * A whole-number cell carries its field's own problem (IntegerCell): use integerRule, not a copy.
   */
  readonly cell?: CellKind;
  /** A string field's format check: its `wire` must say it (test/server/openapi-formats.test.ts). */
  readonly format?: StringFormat;
}

/** The cell syntaxes of coercion.ts; a list kind makes a list column (columns.ts), an integer names its problem. */
export type CellKind = 'boolean' | IntegerCell | 'list' | 'hierarchies' | 'idTitleList';

/** A whole-number cell (`42`, `+7`, `-3`; a percentage's `25%`); `invalid`: the problem of any other value. */
interface IntegerCell {
  readonly kind: 'integer';
  readonly invalid: (path: string, value: unknown) => Problem;
  /** The field is a percentage: a cell may end in `%`, as a spreadsheet shows a percent-formatted number. */
  readonly percent?: boolean;
}

export interface RuleTable<Rule extends FieldRule = FieldRule> {
  /** What one record is called in messages ("user", "candidate"). */
  readonly entity: string;
  readonly rules: readonly Rule[];
  readonly names: ReadonlySet<string>;
  readonly byName: ReadonlyMap<string, FieldRule>;
  readonly requiredRules: readonly FieldRule[];
  /** Lower-cased name -> API name, to suggest the right spelling of a mistyped field. */
  readonly byLowerName: ReadonlyMap<string, string>;
}

export function ruleTable<const Rule extends FieldRule>(entity: string, rules: readonly Rule[]): RuleTable<Rule> {
  return {
    entity,
    rules,
    names: new Set(rules.map((r) => r.name)),
    byName: new Map(rules.map((r) => [r.name, r])),
    requiredRules: rules.filter((r) => r.required === true),
    byLowerName: new Map(rules.map((r) => [r.name.toLowerCase(), r.name])),
  };
}

/** The field names of a table, as a union of literal types ('ExternalId' | 'LastName' | ...). */
export type FieldOf<Table> = Table extends RuleTable<infer Rule> ? Rule['name'] : never;

type WireValue<Rule> = Rule extends FieldRule<string, infer Value> ? Value : never;
type RequiredRule = FieldRule<string, unknown, true>;

/** One record of a table as its checks return it: the request types are these, so a field is declared once. */
export type RecordOf<Table> =
  Table extends RuleTable<infer Rule>
    ? {
        [R in Rule as R extends RequiredRule ? R['name'] : never]: WireValue<R>;
      } & {
        [R in Rule as R extends RequiredRule ? never : R['name']]?: WireValue<R>;
      }
    : never;

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Unset for an optional field: absent, null, or '' (an empty CSV cell; docs/interpretations.md, "Field rules"). */
export function isUnset(v: unknown): boolean {
  return v === undefined || v === null || v === '';
}

/** Given by a file or a profile: not unset and not all blank. */
export function isGiven(v: unknown): boolean {
  return !isUnset(v) && !(typeof v === 'string' && v.trim() === '');
}

/**
 * A whole schedule request with `each` applied to its Schedule and each Candidate (`prefix`: `Schedule.`,
 * `Candidates[3].`); a missing or mistyped part is the validator's. The request itself when nothing changed.
 */
export function requestParts(
  request: Record<string, unknown>,
  each: (part: Record<string, unknown>, prefix: string) => Record<string, unknown>,
): Record<string, unknown> {
  const given = request.Schedule;
  const schedule = isPlainObject(given) ? each(given, 'Schedule.') : given;
  const list = request.Candidates;
  const candidates = Array.isArray(list)
    ? list.map((candidate: unknown, i) => (isPlainObject(candidate) ? each(candidate, `Candidates[${i}].`) : candidate))
    : list;
  const same =
    schedule === given &&
    (!Array.isArray(list) || (candidates as unknown[]).every((candidate, i) => candidate === list[i]));
  return same ? request : { ...request, Schedule: schedule, Candidates: candidates };
}

/** A list field's check: `entry` on each element and its path (undefined: left out); the list only with no problem. */
export function checkList<T>(
  value: unknown,
  path: string,
  problems: Problem[],
  name: string,
  what: string,
  entry: (item: unknown, at: string) => T | undefined,
): T[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    problems.push({ field: path, code: UNNUMBERED, message: `${name} must be a list of ${what}` });
    return undefined;
  }
  const before = problems.length;
  const out: T[] = [];
  for (let i = 0; i < value.length; i++) {
    const kept = entry(value[i], `${path}[${i}]`);
    if (kept !== undefined) out.push(kept);
  }
  return problems.length === before ? out : undefined;
}

export function unknownFieldProblem(table: RuleTable, prefix: string, key: string): Problem {
  const suggestion = table.byLowerName.get(key.toLowerCase());
  const hint = suggestion !== undefined ? `; did you mean ${suggestion}? (field names are case-sensitive)` : '';
  return { field: prefix + key, code: UNNUMBERED, message: `Unknown field "${key}" in a ${table.entity}${hint}` };
}

const wireCache = new WeakMap<FieldRule, z.ZodType>();
const inputCache = new WeakMap<FieldRule, z.ZodType>();

/** A rule's schema from `cache`, built on first use and kept (zod schemas are immutable). */
function kept(cache: WeakMap<FieldRule, z.ZodType>, rule: FieldRule, build: () => z.ZodType): z.ZodType {
  let schema = cache.get(rule);
  if (schema === undefined) cache.set(rule, (schema = build()));
  return schema;
}

export function wireOf(zod: Zod, rule: FieldRule): z.ZodType {
  return kept(wireCache, rule, () => rule.wire(zod));
}

/**
 * What the API takes for an optional field, as the document declares it: the rule's input (or wire) value,
 * or what its check reads as "not set" (null, and '' where the rule says so). Built once per rule.
 */
function optionalInputOf(zod: Zod, rule: FieldRule): z.ZodType {
  return kept(inputCache, rule, () => {
    const value = rule.input !== undefined ? rule.input(zod) : wireOf(zod, rule);
    const options: z.ZodType[] = [value];
    if (rule.emptyIsUnset === true && !value.safeParse('').success) options.push(zod.literal(''));
    options.push(zod.null());
    return zod.union(options as [z.ZodType, z.ZodType, ...z.ZodType[]]).describe(value.description ?? rule.name);
  });
}

/** One record of `table` as the API takes it: each rule's input value, optional and nullable unless required. */
export function tableWire(zod: Zod, table: RuleTable): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const rule of table.rules) {
    const input = rule.input !== undefined ? rule.input(zod) : wireOf(zod, rule);
    shape[rule.name] = rule.required === true ? input : optionalInputOf(zod, rule).optional();
  }
  return zod.strictObject(shape);
}

/**
 * A pattern matching `values` in any case with surrounding whitespace, as the enum checks read them; character
 * classes, not a flag, because JSON Schema patterns have none.
 */
export function caseInsensitivePattern(values: readonly string[]): RegExp {
  const spell = (value: string): string =>
    [...value]
      .map((c) =>
        /[A-Za-z]/.test(c) ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('');
  return new RegExp(`^\\s*(?:${values.map(spell).join('|')})\\s*$`);
}

/** The character rule of a name, with or without "not blank", as one pattern. */
export function textPattern(required: boolean, name: boolean): RegExp | undefined {
  const c = NAME_FORBIDDEN_CLASS;
  if (required && name) return new RegExp(`^[^${c}]*[^\\s${c}][^${c}]*$`);
  if (name) return new RegExp(`^[^${c}]*$`);
  // Not blank: at least one character that is not whitespace (what trim() leaves).
  if (required) return /\S/;
  return undefined;
}

/**
 * What a name may not hold (NAME_FORBIDDEN_CLASS), in the words of the document's descriptions:
 * the ranges named are the ones its patterns refuse (test/server/openapi-descriptions.test.ts).
 */
export const NAME_CHARACTERS_DOC =
  'No control characters (U+0000-U+001F, U+007F-U+009F: NUL, ESC, tab, newline...) and no bidirectional overrides or isolates (U+202A-U+202E, U+2066-U+2069).';

/** " (code 219)" for a numbered problem, '' for code null: descriptions name the API's codes. */
export function codeNote(code: ProblemCode): string {
  return code === null ? '' : ` (code ${code})`;
}

/** Checks each field of `input` against `table`, reporting unknown keys (a typo loses no data); null: not an object. */
export function validateFields<Rule extends FieldRule>(
  input: unknown,
  table: RuleTable<Rule>,
  prefix: string,
  problems: Problem[],
): RecordOf<RuleTable<Rule>> | null {
  if (!isPlainObject(input)) {
    // `prefix` is the record's path plus `.` (or '').
    problems.push({
      field: prefix.endsWith('.') ? prefix.slice(0, -1) : prefix,
      code: UNNUMBERED,
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
  // Each key holds what its rule's check returned; a required one is absent only with a problem pushed.
  return out as RecordOf<RuleTable<Rule>>;
}

/** A string format checked after length and pattern; one object feeds the check and the wire schema. */
export interface StringFormat {
  /** The wire value (the input itself, or its normalised form), or undefined when not in the format. */
  normalise(s: string): string | undefined;
  code: ProblemCode;
  /** The problem's message for a value that is not in the format. It must not quote the value. */
  message(s: string): string;
  /** The format in words, for the schema description: "a real date YYYY-MM-DD or YYYYMMDD". */
  doc: string;
  /** Narrows the wire schema where zod can say the format (a pattern, a JSON Schema format). */
  wire?: (s: z.ZodString) => z.ZodType;
}

interface StringRuleSpec<Required extends ProblemCode | undefined = ProblemCode | undefined> {
  max: number;
  /** Present when the field is required: the code for "null or empty" (null when not numbered). */
  required?: Required;
  /** Default: the format's code (the API's one code for an invalid field), else null. */
  tooLongCode?: ProblemCode;
  pattern?: RegExp;
  patternCode?: ProblemCode;
  /** What the pattern allows, for the message: "letters, digits and dashes". */
  patternHint?: string;
  /** The message of a value the pattern refuses, where the hint says too little (a function is given the value). */
  patternMessage?: string | ((value: string) => string);
  format?: StringFormat;
  /** Extra words for the description (what the spec says the field is for). */
  doc?: string;
  /** A name people read: control characters and bidirectional overrides are refused (code null). */
  name?: boolean;
}

/** A string(N) field: required or optional, maximum length in code points, optional pattern and format. */
export function stringRule<Name extends string, Required extends ProblemCode | undefined = undefined>(
  name: Name,
  spec: StringRuleSpec<Required>,
): FieldRule<Name, string, undefined extends Required ? false : true> {
  const { max, required, format, tooLongCode = format?.code ?? null, pattern, patternCode = null, patternHint } = spec;
  const patternMessage = spec.patternMessage ?? `${name} may contain only ${patternHint ?? 'allowed characters'}`;
  const patternProblem = typeof patternMessage === 'string' ? () => patternMessage : patternMessage;
  const isRequired = required !== undefined;
  const requiredCode: ProblemCode = required ?? null;
  const isName = spec.name === true;
  return {
    name,
    required: isRequired as undefined extends Required ? false : true,
    emptyIsUnset: !isRequired,
    format,
    wire(zod) {
      // zod 4 measures string lengths in code points, as the check does (exceedsLength).
      let base = zod.string();
      if (isRequired) base = base.min(1);
      base = base.max(max);
      // One pattern per field (a second one would become an allOf): the field's own pattern and
      // formats already exclude blanks and controls; otherwise the text rules are the pattern.
      const text = pattern ?? (format?.wire === undefined ? textPattern(isRequired, isName) : undefined);
      if (text !== undefined) base = base.regex(text);
      const wire = format?.wire !== undefined ? format.wire(base) : base;
      const doc = [
        spec.doc,
        isRequired
          ? `Required: null, empty or blank is refused${codeNote(requiredCode)}.`
          : 'Optional: null or empty leaves it unset.',
        isName ? NAME_CHARACTERS_DOC : undefined,
        `At most ${max} characters${codeNote(tooLongCode)}.`,
        pattern !== undefined ? `Only ${patternHint ?? 'allowed characters'}${codeNote(patternCode)}.` : undefined,
        format !== undefined ? `Must be ${format.doc}${codeNote(format.code)}.` : undefined,
      ];
      return wire.describe(doc.filter((d) => d !== undefined).join(' '));
    },
    check(value, path, problems) {
      if (isUnset(value)) {
        if (isRequired)
          problems.push({ field: path, code: requiredCode, message: `${name} is required and must not be empty` });
        return undefined;
      }
      if (typeof value !== 'string') return notAString(name, path, problems);
      if (isRequired && value.trim() === '') {
        problems.push({ field: path, code: requiredCode, message: `${name} is required and must not be blank` });
        return undefined;
      }
      let valid = true;
      if (isName && hasForbiddenNameCharacter(value)) {
        problems.push({ field: path, code: UNNUMBERED, message: forbiddenNameCharacterMessage(name) });
        valid = false;
      }
      if (exceedsLength(value, max)) {
        problems.push({ field: path, code: tooLongCode, message: `${name} is longer than ${max} characters` });
        valid = false;
      }
      if (pattern !== undefined && !pattern.test(value)) {
        problems.push({ field: path, code: patternCode, message: patternProblem(value) });
        valid = false;
      }
      if (!valid) return undefined;
      if (format === undefined) return value;
      const normalised = format.normalise(value);
      if (normalised === undefined) problems.push({ field: path, code: format.code, message: format.message(value) });
      return normalised;
    },
  };
}

/** The problem of a value that is not a string (never quoted: it may be a password). */
export function notAString(name: string, path: string, problems: Problem[]): undefined {
  problems.push({ field: path, code: UNNUMBERED, message: `${name} must be a string` });
  return undefined;
}

export function forbiddenNameCharacterMessage(name: string): string {
  return `${name} must not contain control characters (NUL, ESC, tab, newline...) or bidirectional overrides`;
}

export const BOOLEAN_SPELLINGS = 'true/false, yes/no, Y/N or 1/0';

/** A JSON boolean field; null means unset. */
export function booleanRule<Name extends string>(name: Name, doc?: string): FieldRule<Name, boolean, false> {
  return {
    name,
    cell: 'boolean',
    wire: (zod) =>
      zod
        .boolean()
        .describe(`${doc === undefined ? '' : `${doc} `}true or false (a JSON boolean); null leaves it unset.`),
    check(value, path, problems) {
      if (value === undefined || value === null) return undefined;
      if (typeof value !== 'boolean') {
        problems.push({ field: path, code: UNNUMBERED, message: `${name} must be true or false` });
        return undefined;
      }
      return value;
    },
  };
}

/** A field whose value is one of a fixed set, accepted in any case and sent in the API's case. */
export function enumRule<Name extends string, const Value extends string>(
  name: Name,
  values: readonly [Value, ...Value[]],
  code: ProblemCode = null,
): FieldRule<Name, Value, false> {
  const byUpper = new Map(values.map((v) => [v.toUpperCase(), v]));
  const list = values.join(' or ');
  const anyCase = caseInsensitivePattern(values);
  const doc = `${list} in any case, surrounding spaces ignored, sent in upper case${codeNote(code)}. Null or empty leaves it unset.`;
  return {
    name,
    emptyIsUnset: true,
    wire: (zod) => zod.enum(values).describe(doc),
    // The upper-case values first: generators and readers see the canonical spelling.
    input: (zod) => zod.union([zod.enum(values), zod.string().regex(anyCase)]).describe(doc),
    check(value, path, problems) {
      if (isUnset(value)) return undefined;
      // The pattern, not toUpperCase, decides: 'ſ'.toUpperCase() is 'S', which the document would not say.
      const wire =
        typeof value === 'string' && anyCase.test(value) ? byUpper.get(value.trim().toUpperCase()) : undefined;
      if (wire === undefined) {
        problems.push({ field: path, code, message: `${name} must be ${list}` });
        return undefined;
      }
      return wire;
    },
  };
}

/** A field sent as given (the spec gives it no format). */
export function passThroughRule<Name extends string>(name: Name): FieldRule<Name, string, false> {
  return {
    name,
    emptyIsUnset: true,
    wire: (zod) => zod.string().describe('Any string, sent as given; null or empty leaves it unset.'),
    check(value, path, problems) {
      if (isUnset(value)) return undefined;
      return typeof value === 'string' ? value : notAString(name, path, problems);
    },
  };
}

interface StringListSpec {
  max: number;
  tooManyCode: ProblemCode;
  /** What one entry is called in the duplicate message ("Label", "Allowed IP"). */
  entryName: string;
  /** A trimmed, non-empty entry's identity for the duplicate check, or null when the entry is invalid. */
  keyOf(trimmed: string): string | null;
  invalidCode: ProblemCode;
  invalidMessage: string;
  duplicateCode: ProblemCode;
  wire: WireBuilder;
}

/** A list of strings sent trimmed: at most `max`, each checked trimmed (blank: invalid), no two keys alike. */
export function stringListRule<Name extends string>(
  name: Name,
  spec: StringListSpec,
): FieldRule<Name, string[], false> {
  const { max, tooManyCode, entryName, keyOf, invalidCode, invalidMessage, duplicateCode } = spec;
  return {
    name,
    cell: 'list',
    wire: spec.wire,
    check(value, path, problems) {
      const before = problems.length;
      if (Array.isArray(value) && value.length > max) {
        problems.push({
          field: path,
          code: tooManyCode,
          message: `${name} has ${value.length} entries; at most ${max} are allowed`,
        });
      }
      const seen = new Set<string>();
      const list = checkList(value, path, problems, name, 'strings', (entry, at) => {
        const text = typeof entry === 'string' ? entry.trim() : '';
        const key = text === '' ? null : keyOf(text);
        if (key === null) {
          problems.push({ field: at, code: invalidCode, message: invalidMessage });
        } else if (seen.has(key)) {
          problems.push({ field: at, code: duplicateCode, message: `${entryName} "${text}" appears more than once` });
        } else {
          seen.add(key);
          return text;
        }
        return undefined;
      });
      return problems.length === before ? list : undefined;
    },
  };
}

interface IntegerRuleSpec {
  min: number;
  max: number;
  /** The code of a value that is not a whole number in min..max (null when not numbered). */
  code: ProblemCode;
  /** Extra words for the description, after the range (another rule the record checks). */
  doc?: string;
  percent?: boolean;
}

/**
 * A whole-number field in min..max: one problem, with the caller's code, for every way a value can miss, quoting
 * the value (`not "25,0"`) so the admin sees which cell to fix.
 */
export function integerRule<Name extends string>(
  name: Name,
  spec: IntegerRuleSpec,
): FieldRule<Name, number, false> & { readonly cell: IntegerCell } {
  const { min, max, code } = spec;
  const invalid = (path: string, value: unknown): Problem => ({
    field: path,
    code,
    // A text as written (quoted); a JSON number or other value as JSON writes it.
    message: `${name} must be a whole number from ${min} to ${max}, not ${quotedValue(value)}`,
  });
  return {
    name,
    emptyIsUnset: true,
    cell: { kind: 'integer', invalid, ...(spec.percent === true ? { percent: true } : {}) },
    wire: (zod) =>
      zod
        .number()
        .int()
        .min(min)
        .max(max)
        .describe(`A whole number ${min}..${max}${codeNote(code)}${spec.doc === undefined ? '.' : `; ${spec.doc}`}`),
    check(value, path, problems) {
      if (isUnset(value)) return undefined;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
        problems.push(invalid(path, value));
        return undefined;
      }
      return value;
    },
  };
}
