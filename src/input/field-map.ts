/**
 * The admin's export as exported: `--map`, a map file, `--set`, `--date-format`, `--timezone`
 * (docs/input-formats.md, "Mapping an export"): every flag checked first (exit 2), then each record shaped.
 */
import { ErrorCode } from '../domain/codes.js';
import { quotedValue, type Problem } from '../domain/problem.js';
import { UsageError } from '../system/errors.js';
import { coerceCell } from '../domain/coercion.js';
import { listCellEntries } from '../domain/list-cells.js';
import { RECORD_COLUMNS, type ColumnSpec } from '../domain/columns.js';
import { readRecordDates, readTimeSettings, type LocalTimeOptions, type WrittenTime } from '../domain/local-time.js';
import type { TimeSettings } from '../domain/local-time.js';
import { ROW_SCHEDULE_FIELDS } from '../domain/sittings.js';
import { isUnset, requestParts } from '../domain/field-rules.js';
import { normalizeColumnName, SECRET_FIELDS } from '../domain/field-names.js';
import { refuseUnknownEncoding } from '../formats/encoding-name.js';
import { closestName } from './name-hints.js';
import { isScheduleRequestRecord, type InputRecord } from './record.js';
import { compileComputation, ComputedFields, type ComputationSpec } from './computed-fields.js';
import { mapFileRefusal, type ComputedEntry, type ValueTable } from './map-file.js';

/**
 * The input flags as given, each entry with where it came from and its level (0 a profile, 1 a
 * map file, 2 a flag): a higher level overrides what a lower one says about a column or a field.
 */
export interface InputFlags extends TimeSettings {
  /** Source column -> field, in order, a later entry for a column winning; a map file's may translate words. */
  map: readonly MapEntry[];
  /** Fields a map file computes from columns (map-file.ts), with the file's level. */
  computed?: readonly { entry: ComputedEntry; level: number }[] | undefined;
  set: readonly { field: string; value: string; origin: string; level: number }[];
  /** CSV without a BOM: its encoding (`--encoding`, a profile's `encoding`). */
  encoding?: { text: string; origin: string } | undefined;
}

/** One column read as a field: from --map, a map file or a profile. */
interface MapEntry {
  source: string;
  field: string;
  origin: string;
  level: number;
  /** A map file's entry: its path and line, and the table its words are read through. */
  file?: string | undefined;
  line?: number | undefined;
  values?: ValueTable | undefined;
}

/** Where an entry comes from, with its line in a map file: `--map-file hr.json:9`, `--map`. */
function originAt(entry: Pick<MapEntry, 'origin' | 'line'>): string {
  return `${entry.origin}${entry.line === undefined ? '' : `:${entry.line}`}`;
}

/** Where a map file's entry is written, as messages name it: `--map-file hr.json:9 "Department"`. */
function entryPlace(origin: string, line: number | undefined, key: string): string {
  return `${originAt({ origin, line })} ${quotedValue(key)}`;
}

/** What the readers and the record shaping use. */
export interface RecordShaping {
  /** Normalized header -> API field (readers: CSV and xlsx headers; JSON keys). */
  map: ReadonlyMap<string, string>;
  /** Field -> value (already coerced) for a missing column or an empty cell. */
  set: ReadonlyMap<string, unknown>;
  dates: LocalTimeOptions;
  /** Map-file entries onto another record command's field, left out: one line for stderr. */
  skipped?: string | undefined;
  /** The map file's value tables and computed fields (computed-fields.ts), when it has any. */
  computed?: ComputedFields | undefined;
  /** The encoding of a CSV without a BOM, from the flag or the profile (checked). */
  encoding?: string | undefined;
}

/** Every record command's fields (the first spec of each): a misspelt field is told from one of another command. */
const ALL_COLUMNS: readonly ColumnSpec[] = Object.values(RECORD_COLUMNS)
  .flat()
  .filter((spec, i, all) => all.findIndex((other) => other.name === spec.name) === i);
const ALL_FIELDS: readonly string[] = ALL_COLUMNS.map((spec) => spec.name);

/**
 * The command's column for a field name; a field of another command is refused, except from a profile or a
 * map file (`lenient`), which serve every command: left out there. An unknown field is refused from anywhere.
 */
function fieldOf(
  name: string,
  columns: readonly ColumnSpec[],
  what: string,
  command: string,
  lenient = false,
  named = true,
  /** A map file's entry is refused as that file is (mapFileRefusal); a flag's or a profile's is E2000. */
  refuse: (message: string) => UsageError = (message) => new UsageError(message),
): ColumnSpec | undefined {
  const key = normalizeColumnName(name);
  const spec = columns.find((column) => normalizeColumnName(column.name) === key);
  if (spec !== undefined) return spec;
  const fields = columns.map((column) => column.name);
  const elsewhere = ALL_FIELDS.find((field) => normalizeColumnName(field) === key);
  if (elsewhere !== undefined) {
    if (lenient) return undefined;
    throw refuse(`${what}: ${command} takes no field ${elsewhere} (its fields: ${fields.join(', ')})`);
  }
  const meant = closestName(name, fields);
  const unknown = named ? `unknown field ${quotedValue(name)}` : 'its value is not a field name';
  throw refuse(
    `${what}: ${unknown}${meant !== undefined ? ` (did you mean ${meant}?)` : ''}; the fields of ${command}: ${fields.join(', ')}`,
  );
}

/**
 * A profile's `map` or `set` entry checked when `config set-profile` stores it: a field of some record command,
 * never a secret, and a `--set` value its rule passes (the profile's date format and zone).
 */
export function checkProfileField(
  flag: '--map' | '--set',
  field: string,
  value: string | undefined,
  dates: LocalTimeOptions,
): string {
  const spec = fieldOf(field, ALL_COLUMNS, `${flag} ${field}`, 'the record commands') as ColumnSpec;
  if (value === undefined) return spec.name;
  if (SECRET_FIELDS.has(spec.name))
    throw new UsageError(`${flag} ${spec.name}: ${spec.name} is a secret and is not kept in a profile`);
  if (value === '') throw new UsageError(`${flag} ${spec.name}=: no value`);
  checkedConstant(spec, value, dates, `${flag} ${spec.name}=${value}`);
  return spec.name;
}

/** `SOURCE=Field` / `Field=value`: split at the last `=` for a map (a header may hold one), at the first for --set. */
export function splitPair(entry: string, flag: string, last: boolean): [string, string] {
  const at = last ? entry.lastIndexOf('=') : entry.indexOf('=');
  if (at <= 0)
    throw new UsageError(
      `${flag} ${quotedValue(entry)}: expected ${flag === '--set' ? 'Field=value, e.g. --set Role=Candidate' : 'SOURCE=Field, e.g. --map "Student ID=ExternalId"'}`,
    );
  return [entry.slice(0, at).trim(), entry.slice(at + 1).trim()];
}

/**
 * Checks every input flag against the command's fields and rules and builds the shaping; any refusal (an
 * unknown field, two columns onto one, a refused `--set` value, a bad date format or zone) is a UsageError.
 */
export function recordShaping(flags: InputFlags, columns: readonly ColumnSpec[], command: string): RecordShaping {
  const times = readTimeSettings(flags);
  if (!times.ok) throw new UsageError(times.message);
  const dates: LocalTimeOptions = { format: times.format, timeZone: times.zone };
  if (flags.encoding !== undefined) refuseUnknownEncoding(flags.encoding.origin, flags.encoding.text);

  const chosen = new Map<string, MapEntry>();
  const skipped: { origin: string; text: string }[] = [];
  for (const entry of flags.map) {
    if (entry.source === '')
      throw new UsageError(`${entry.origin} "=${entry.field}": a column name is needed before =`);
    // A profile and a map file serve every record command: an entry for another command's field is left out.
    // A map file's values are never quoted: a token file given as one leaks nothing (docs/security.md).
    const where =
      entry.line === undefined
        ? `${entry.origin} ${quotedValue(`${entry.source}=${entry.field}`)}`
        : entryPlace(entry.origin, entry.line, entry.source);
    const { file, line } = entry;
    const refuse = (message: string) =>
      file === undefined ? new UsageError(message) : mapFileRefusal(file, line, message);
    const spec = fieldOf(entry.field, columns, where, command, entry.level <= 1, entry.line === undefined, refuse);
    if (spec === undefined) {
      if (entry.level === 1)
        skipped.push({ origin: entry.origin, text: `${quotedValue(entry.source)} -> ${entry.field}` });
      continue;
    }
    const key = normalizeColumnName(entry.source);
    for (const [other, earlier] of chosen) {
      if (earlier.level < entry.level && (other === key || earlier.field === spec.name)) chosen.delete(other);
    }
    const twice = chosen.get(key);
    if (twice !== undefined && twice.field !== spec.name) {
      throw refuse(
        `${originAt(entry)}: ${quotedValue(entry.source)} is mapped twice, onto ${twice.field} (${originAt(twice)}) and onto ${spec.name}`,
      );
    }
    for (const [other, earlier] of chosen) {
      if (other !== key && earlier.field === spec.name) {
        throw refuse(
          `${originAt(entry)}: ${quotedValue(earlier.source)} (${originAt(earlier)}) and ${quotedValue(entry.source)} both map onto ${spec.name}; one column per field`,
        );
      }
    }
    chosen.set(key, { ...entry, field: spec.name });
  }
  const computations = computedFields(flags.computed ?? [], chosen, columns, command, skipped);
  const map = new Map<string, string>([...chosen].map(([key, entry]) => [key, entry.field]));

  const set = new Map<string, unknown>();
  for (const entry of flags.set) {
    const what = `${entry.origin} ${entry.field}`;
    const spec = fieldOf(entry.field, columns, what, command, entry.level === 0);
    if (spec === undefined) continue;
    if (SECRET_FIELDS.has(spec.name))
      throw new UsageError(
        `${what}: ${spec.name} is a secret and is not taken from a command line or profile (other users can see a command line)`,
      );
    if (entry.value === '') throw new UsageError(`${what}=: no value (to leave ${spec.name} out, leave out --set)`);
    set.set(spec.name, checkedConstant(spec, entry.value, dates, `${entry.origin} ${spec.name}=${entry.value}`));
  }
  const line =
    skipped[0] === undefined
      ? undefined
      : `${skipped[0].origin}: left out, ${command} takes no such field: ${skipped.map((entry) => entry.text).join(', ')}`;
  let computed: ComputedFields | undefined;
  if (computations.length > 0) {
    const keep = new Set([...columns.map((spec) => normalizeColumnName(spec.name)), ...map.keys()]);
    computed = new ComputedFields(computations.map(compileComputation), keep);
  }
  return {
    map,
    set,
    dates,
    skipped: line,
    computed,
    encoding: flags.encoding?.text,
  };
}

/** The map files' value tables and computed fields (docs/input-formats.md, "Which entries apply"). */
function computedFields(
  entries: readonly { entry: ComputedEntry; level: number }[],
  chosen: Map<string, MapEntry>,
  columns: readonly ColumnSpec[],
  command: string,
  skipped: { origin: string; text: string }[],
): ComputationSpec[] {
  const byField = new Map<string, { spec: ComputationSpec; level: number }>();
  for (const { entry, level } of entries) {
    const where = entryPlace(entry.origin, entry.line, entry.key);
    const refuse = (message: string) => mapFileRefusal(entry.file, entry.line, message);
    const spec = fieldOf(entry.field, columns, where, command, true, true, refuse);
    if (spec === undefined) {
      if (level === 1) skipped.push({ origin: entry.origin, text: `${quotedValue(entry.key)} (computed)` });
      continue;
    }
    let overridden = false;
    for (const [key, mapped] of chosen) {
      if (mapped.field !== spec.name) continue;
      if (mapped.level > level) overridden = true;
      else if (mapped.level < level) chosen.delete(key);
      else
        throw refuse(
          `${where}: ${spec.name} is computed here and also read from ${quotedValue(mapped.source)} (${entryPlace(mapped.origin, mapped.line, mapped.source)}); one or the other`,
        );
    }
    const earlier = byField.get(spec.name);
    if (overridden || (earlier !== undefined && earlier.level > level)) continue;
    byField.set(spec.name, {
      spec: {
        field: spec.name,
        list: spec.kind === 'list',
        rule: spec.rule,
        where,
        translates: false,
        sources: entry.sources,
        values: entry.values,
        flags: entry.flags,
      },
      level,
    });
  }
  const specs = [...byField.values()].map(({ spec }) => spec);
  // A column read through a table: its words translated where the reader put its value.
  for (const entry of chosen.values()) {
    if (entry.values === undefined) continue;
    const spec = columns.find((column) => column.name === entry.field) as ColumnSpec;
    specs.push({
      field: entry.field,
      list: spec.kind === 'list',
      rule: spec.rule,
      where: entryPlace(entry.origin, entry.line, entry.source),
      translates: true,
      sources: [{ column: entry.source }],
      values: entry.values,
    });
  }
  return specs;
}

/** A --set value read like a cell of its column, checked by the field's rule; its problem is a UsageError. */
function checkedConstant(spec: ColumnSpec, text: string, dates: LocalTimeOptions, what: string): unknown {
  const problems: Problem[] = [];
  const read = readRecordDates({ [spec.name]: text }, dates, problems);
  let value: unknown = read[spec.name];
  if (value !== undefined) {
    if (spec.kind === 'list') value = listCellEntries(text);
    if (spec.rule?.cell !== undefined) value = coerceCell(spec.name, spec.rule.cell, value, problems);
    if (problems.length === 0 && spec.rule !== undefined) spec.rule.check(value, spec.name, problems);
  }
  const first = problems[0];
  if (first !== undefined)
    throw new UsageError(`${what}: ${first.message}${first.code !== null ? ` (code ${first.code})` : ''}`);
  return value;
}

/** True when a value counts as not given (an absent or empty cell, an empty list). */
function unset(value: unknown): boolean {
  return isUnset(value) || (Array.isArray(value) && value.length === 0);
}

/** Keys renamed by the map; a mapped key whose field is also given is a problem of the record. */
function renamed(
  fields: Record<string, unknown>,
  map: ReadonlyMap<string, string>,
  record: InputRecord,
  prefix: string,
): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(fields)) {
    const field = map.get(normalizeColumnName(key));
    if (field === undefined || field === key) continue;
    out ??= { ...fields };
    const value = out[key];
    delete out[key];
    if (Object.hasOwn(out, field)) {
      (record.problems ??= []).push({
        field: prefix + field,
        code: ErrorCode.FieldGivenTwice,
        message: `${field} is given twice: as ${quotedValue(key)} (mapped) and as ${field}`,
      });
      continue;
    }
    out[field] = value;
  }
  return out ?? fields;
}

/** `--set` values where the fields lack them (`only`: the fields that belong here). */
function withConstants(
  fields: Record<string, unknown>,
  set: ReadonlyMap<string, unknown>,
  only?: (field: string) => boolean,
): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  if (set.size === 0) return fields;
  for (const [field, value] of set) {
    if ((only !== undefined && !only(field)) || !unset(fields[field])) continue;
    (out ??= { ...fields })[field] = value;
  }
  return out ?? fields;
}

/** What shapeRecord's date reading found, copied out when there is any: most records have no date. */
const dateProblems: Problem[] = [];
const datesWritten: WrittenTime[] = [];

/** One record shaped: keys mapped, `--set` values, dates read (one that cannot be read fails its record only). */
export function shapeRecord(record: InputRecord, shaping: RecordShaping): InputRecord {
  let fields = record.fields;
  if (isScheduleRequestRecord(record)) {
    fields = requestParts(fields, (part, prefix) =>
      withConstants(
        renamed(part, shaping.map, record, prefix),
        shaping.set,
        (field) => ROW_SCHEDULE_FIELDS.has(field) === (prefix === 'Schedule.'),
      ),
    );
  } else {
    if (shaping.computed !== undefined) {
      record = shaping.computed.apply(record);
      fields = record.fields;
    }
    if (record.raw === undefined && shaping.map.size > 0) fields = renamed(fields, shaping.map, record, '');
    fields = withConstants(fields, shaping.set);
  }
  // Also without --date-format: a local date gets the hint that names it.
  const problems = dateProblems;
  const written = datesWritten;
  problems.length = 0;
  written.length = 0;
  fields = readRecordDates(fields, shaping.dates, problems, '', written);
  if (problems.length > 0) record = { ...record, problems: [...(record.problems ?? []), ...problems] };
  if (written.length > 0) record = { ...record, written: [...(record.written ?? []), ...written] };
  return fields === record.fields ? record : { ...record, fields };
}
