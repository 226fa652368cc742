/**
 * The map file's values: value tables and computed fields (docs/input-formats.md, "Map files"), from a row's
 * cells by its header or a JSON record's keys as written; what was computed is kept on the record (`mapped`).
 */
import { ErrorCode } from '../domain/codes.js';
import { coerceCell, hierarchyEntryCell, hierarchyEntryParts, parseBooleanSpelling } from '../domain/coercion.js';
import { listCellEntries } from '../domain/list-cells.js';
import type { FieldRule } from '../domain/field-rules.js';
import { quotedValue, type Problem } from '../domain/problem.js';
import { valueWordKey } from '../formats/column-name.js';
import { normalizeColumnName } from '../domain/field-names.js';
import { counted } from '../formats/number-format.js';
import { listWithCount } from './name-hints.js';
import type { ComputedEntry, HierarchyFlag, TemplatePart, ValueTable } from './map-file.js';
import type { InputRecord, MappedValue } from './record.js';

/** Characters a template may make: far beyond any field (the longest takes a few thousand). */
const MAX_COMPUTED_CHARS = 1_000_000;

/** A column named by an entry: as written, and as headers are compared. */
interface NamedColumn {
  name: string;
  key: string;
}

/** One way to a value: one column, or a template (a value only when every column it names has one). */
interface Source {
  columns: readonly NamedColumn[];
  parts?: readonly TemplatePart[];
}

/** One field the map file computes or translates, checked against the command's fields. */
interface Computation {
  field: string;
  /** The field reads a `|` list (Hierarchies, Labels): each entry translated on its own. */
  list: boolean;
  /** The field's rule: a JSON record's value is typed by it, as a cell's is later. */
  rule?: FieldRule | undefined;
  /** `--map-file hr.json:9 "Hierarchies"`, for messages. */
  where: string;
  /** A column read as the field through a table: the reader mapped the column already; this replaces its value. */
  translates: boolean;
  sources: readonly Source[];
  table?: ReturnType<typeof lookupOf> | undefined;
  flags: readonly (NamedColumn & { flag: HierarchyFlag })[];
}

/** A computation as the map file gave it, with its field's own name and kind. */
export type ComputationSpec = Pick<Computation, 'field' | 'list' | 'rule' | 'where' | 'translates'> &
  Pick<ComputedEntry, 'sources' | 'values' | 'flags'>;

const named = (name: string): NamedColumn => ({ name, key: normalizeColumnName(name) });

/** A value table ready for lookups: words compared by valueWordKey (case and extra whitespace forgiven). */
function lookupOf(table: ValueTable) {
  const byKey = new Map<string, string>();
  for (const [word, value] of Object.entries(table.words)) byKey.set(valueWordKey(word), value.trim());
  return {
    byKey,
    // As a message lists them (the first ten), made once for every row that misses.
    known: listWithCount(Object.keys(table.words), ', ', quotedValue),
    default: table.default?.trim(),
  };
}

export function compileComputation({ sources, values, flags, ...spec }: ComputationSpec): Computation {
  return {
    ...spec,
    sources: sources.map((source) =>
      'column' in source
        ? { columns: [named(source.column)] }
        : {
            columns: source.template.flatMap((part) => ('column' in part ? [named(part.column)] : [])),
            parts: source.template,
          },
    ),
    table: values === undefined ? undefined : lookupOf(values),
    flags: (flags ?? []).map(({ column, flag }) => ({ ...named(column), flag })),
  };
}

/** Why a computation gave no value for a row (one of them), and the column (as written) whose cell is at fault. */
interface ComputationProblem {
  problem: string;
  column: string | undefined;
}

/** A row's cells by column (normalized name -> text), however the record was read. */
type CellOf = (key: string) => { name: string; text: string } | undefined;

/** Which sources of each computation a file's header has (a computation with none does nothing for that file). */
type HeaderPlan = readonly (readonly Source[])[];

/** Adds permission flags to a Hierarchies entry (`DEPT-MATH` -> `DEPT-MATH:coordinator+reports`), keeping its own. */
function withFlags(entry: string, flags: readonly HierarchyFlag[]): string {
  if (flags.length === 0) return entry;
  const written = hierarchyEntryParts(entry);
  return hierarchyEntryCell(written.id, [...new Set([...written.flags, ...flags])]);
}

/** The map file's computations for one command: the columns they read, the header's checks, each record's shaping. */
export class ComputedFields {
  readonly sources: ReadonlySet<string>;
  private readonly plans = new WeakMap<readonly string[], { plan: HeaderPlan; index: ReadonlyMap<string, number> }>();

  /** Columns read as a field through a table (normalized): a JSON key of one gives way to the translated value. */
  private readonly translated: ReadonlySet<string>;

  constructor(
    readonly computations: readonly Computation[],
    /** JSON keys that stay (normalized): the command's fields and the columns the map renames; other sources go. */
    private readonly keep: ReadonlySet<string>,
  ) {
    const sources = new Set<string>();
    const translated = new Set<string>();
    for (const computation of computations) {
      for (const source of computation.sources) for (const column of source.columns) sources.add(column.key);
      for (const flag of computation.flags) sources.add(flag.key);
      if (computation.translates)
        for (const source of computation.sources) for (const column of source.columns) translated.add(column.key);
    }
    this.sources = sources;
    this.translated = translated;
  }

  /** The sources a header has, per computation: a source is there when every column it names is. */
  private planOf(keys: ReadonlySet<string>): HeaderPlan {
    return this.computations.map((computation) =>
      computation.sources.filter((source) => source.columns.every((column) => keys.has(column.key))),
    );
  }

  /** What a header cannot give: the reader refuses the file (docs/input-formats.md, "Which entries apply"). */
  headerProblems(keys: ReadonlySet<string>, fieldsOfColumns: ReadonlySet<string>): string[] {
    const problems: string[] = [];
    const plan = this.planOf(keys);
    this.computations.forEach((computation, i) => {
      for (const source of computation.sources) {
        const missing = source.columns.filter((column) => !keys.has(column.key));
        if (source.parts !== undefined && missing.length > 0 && missing.length < source.columns.length) {
          problems.push(
            `${computation.where}: the template names ${missing.map((column) => quotedValue(column.name)).join(', ')}, which the header does not have`,
          );
        }
      }
      if ((plan[i] as readonly Source[]).length === 0) return;
      const flagsMissing = computation.flags.filter((flag) => !keys.has(flag.key));
      if (flagsMissing.length > 0)
        problems.push(
          `${computation.where}: the flag ${flagsMissing.length === 1 ? 'column' : 'columns'} ${flagsMissing.map((flag) => quotedValue(flag.name)).join(', ')} not in the header`,
        );
      if (!computation.translates && fieldsOfColumns.has(computation.field)) {
        problems.push(
          `${computation.field} is both a column of the file and computed by ${computation.where}: one or the other`,
        );
      }
    });
    return problems;
  }

  /** The fields the map file computes for a file with this header: counted among its columns, as a mapped column is. */
  fieldsOf(header: readonly string[]): string[] {
    const { plan } = this.headerPlan(header);
    return this.computations
      .filter((_, i) => (plan[i] as readonly Source[]).length > 0)
      .map((computation) => computation.field);
  }

  /** A CSV or xlsx header's plan and column positions, made once per file (its rows share the header array). */
  private headerPlan(header: readonly string[]): { plan: HeaderPlan; index: ReadonlyMap<string, number> } {
    let known = this.plans.get(header);
    if (known === undefined) {
      const index = new Map<string, number>();
      header.forEach((name, i) => {
        const key = normalizeColumnName(name);
        if (!index.has(key)) index.set(key, i);
      });
      known = { plan: this.planOf(new Set(index.keys())), index };
      this.plans.set(header, known);
    }
    return known;
  }

  /**
   * One record with the map file's values: a CSV or xlsx row from its cells; a JSON record from its keys as
   * written, before the map renames them (keys read only as sources are then dropped).
   */
  apply(record: InputRecord): InputRecord {
    const raw = record.raw;
    let plan: HeaderPlan;
    let cellOf: CellOf;
    if (raw !== undefined) {
      const { plan: headerPlan, index } = this.headerPlan(raw.header);
      plan = headerPlan;
      cellOf = (key) => {
        const at = index.get(key);
        const text = at === undefined ? '' : (raw.cells[at] ?? '');
        return text === '' ? undefined : { name: raw.header[at as number] as string, text };
      };
    } else {
      plan = this.computations.map((computation) => computation.sources);
      const keys = new Map<string, string>();
      for (const key of Object.keys(record.fields))
        if (!keys.has(normalizeColumnName(key))) keys.set(normalizeColumnName(key), key);
      cellOf = (key) => {
        const name = keys.get(key);
        const text = name === undefined ? '' : jsonCellText(record.fields[name]);
        return text === '' ? undefined : { name: name as string, text };
      };
    }
    const results = this.computations.map((computation, i) => {
      const sources = plan[i] as readonly Source[];
      return sources.length === 0 ? undefined : this.computed(computation, sources, cellOf);
    });
    let fields: Record<string, unknown> | undefined;
    if (raw === undefined) {
      // A JSON key read only as a source is no field: dropped, so it is not an unknown key; a
      // translated key gives way to its field's value.
      for (const key of Object.keys(record.fields)) {
        const normalized = normalizeColumnName(key);
        if (this.sources.has(normalized) && (!this.keep.has(normalized) || this.translated.has(normalized)))
          delete (fields ??= { ...record.fields })[key];
      }
    }
    const problems: Problem[] = [];
    const mapped: MappedValue[] = [];
    const cellsOf: Record<string, readonly string[]> = {};
    this.computations.forEach((computation, i) => {
      const result = results[i];
      if (result === undefined) return;
      fields ??= { ...record.fields };
      if (Array.isArray(result)) {
        delete fields[computation.field];
        for (const { problem } of result)
          problems.push({ field: computation.field, code: ErrorCode.ComputedValueRefused, message: problem });
        const columns = result.flatMap(({ column }) => (column === undefined ? [] : [column]));
        if (columns.length > 0) cellsOf[computation.field] = columns;
        return;
      }
      if (!computation.translates && fields[computation.field] !== undefined && fields[computation.field] !== '') {
        problems.push({
          field: computation.field,
          code: ErrorCode.FieldGivenTwice,
          message: `${computation.field} is given twice: as ${computation.field} and computed by ${computation.where}`,
        });
        return;
      }
      const value = computation.list ? result.entries : result.entries[0];
      // A CSV or xlsx row's cells are typed by the command, a JSON record's values are taken as
      // typed: a value the map file made for one is typed here, as its cell would have been.
      fields[computation.field] =
        raw === undefined && computation.rule?.cell !== undefined
          ? coerceCell(computation.field, computation.rule.cell, value, problems)
          : value;
      mapped.push({ field: computation.field, value: result.entries.join('|'), from: result.from });
      // The cells of the value itself: a flag's yes only adds to it.
      const valueCells = Object.keys(result.from).filter(
        (name) => !computation.flags.some((flag) => flag.key === normalizeColumnName(name)),
      );
      cellsOf[computation.field] = valueCells.length > 0 ? valueCells : Object.keys(result.from);
    });
    if (fields === undefined) return record;
    const shaped: InputRecord = { ...record, fields };
    if (problems.length > 0) shaped.problems = [...(record.problems ?? []), ...problems];
    if (mapped.length > 0) shaped.mapped = mapped;
    if (Object.keys(cellsOf).length > 0) shaped.cellsOf = cellsOf;
    return shaped;
  }

  /** One computation's value for a row, with the cells it came from, or its problems; undefined when it gives none. */
  private computed(
    computation: Computation,
    sources: readonly Source[],
    cellOf: CellOf,
  ): { entries: string[]; from: Record<string, string> } | ComputationProblem[] | undefined {
    // No prototype: a column named __proto__ is a column like any other.
    const from: Record<string, string> = Object.create(null) as Record<string, string>;
    let value: string | undefined;
    for (const source of sources) {
      const cells = source.columns.map((column) => cellOf(column.key));
      if (cells.some((cell) => cell === undefined)) continue;
      for (const cell of cells) from[(cell as { name: string }).name] = (cell as { text: string }).text;
      if (source.parts === undefined) {
        value = (cells[0] as { text: string }).text;
        break;
      }
      const pieces = source.parts.map((part) =>
        'text' in part ? part.text : (cellOf(normalizeColumnName(part.column)) as { text: string }).text,
      );
      // Measured before it is joined: cells repeated by a template could outgrow any string.
      const length = pieces.reduce((sum, piece) => sum + piece.length, 0);
      if (length > MAX_COMPUTED_CHARS) {
        return [
          {
            problem: `the template of ${computation.where} makes a value of ${counted(length, 'character')}, more than the ${counted(MAX_COMPUTED_CHARS, 'character')} a computed value may have`,
            column: cells[0]?.name,
          },
        ];
      }
      value = pieces.join('');
      break;
    }
    const flags: HierarchyFlag[] = [];
    const givers: string[] = [];
    const faults: ComputationProblem[] = [];
    for (const flag of computation.flags) {
      const cell = cellOf(flag.key);
      if (cell === undefined) continue;
      from[cell.name] = cell.text;
      const yes = parseBooleanSpelling(cell.text);
      if (yes === undefined)
        faults.push({
          problem: `${cell.name} ${quotedValue(cell.text)} is not yes or no (Y/N, yes/no, true/false, 1/0): it gives the ${flag.flag} flag of ${computation.field} (${computation.where})`,
          column: cell.name,
        });
      else if (yes) {
        flags.push(flag.flag);
        givers.push(`${cell.name} ${quotedValue(cell.text)}`);
      }
    }
    if (value === undefined && flags.length > 0) {
      const empty = sources.flatMap((source) => source.columns.map((column) => column.name));
      // The empty cell a hierarchy should be in is the one to fill (or the flag's yes to take back).
      faults.push({
        problem: `${givers.join(', ')} ${flags.length === 1 ? 'gives the flag' : 'give the flags'} ${flags.join(', ')} but ${empty.map((name) => quotedValue(name)).join(' or ')} is empty: a flag needs a hierarchy (${computation.where})`,
        column: empty[0],
      });
    }
    let entries = value === undefined ? [] : computation.list ? listCellEntries(value) : [value.trim()];
    if (entries.length === 0) return faults.length === 0 ? undefined : faults;
    const table = computation.table;
    if (table !== undefined) {
      const translated: string[] = [];
      for (const entry of entries) {
        const found = table.byKey.get(valueWordKey(entry)) ?? table.default;
        if (found === undefined) {
          const column = Object.keys(from).find(
            (name) => !computation.flags.some((flag) => flag.key === normalizeColumnName(name)),
          );
          const said = column === undefined ? quotedValue(entry) : `${column} ${quotedValue(entry)}`;
          faults.push({
            problem: `${said} has no entry in the value table of ${computation.where} (known: ${table.known}); it is not sent as it is: add it to "values", or give a "default"`,
            column: column ?? sources[0]?.columns[0]?.name,
          });
        } else translated.push(found);
      }
      entries = translated;
    }
    if (faults.length > 0) return faults;
    if (computation.flags.length > 0) entries = entries.map((entry) => withFlags(entry, flags));
    return { entries, from };
  }
}

/** A JSON value as a cell's text: strings trimmed, numbers and booleans written, a list of strings joined by `|`. */
function jsonCellText(value: unknown): string {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((entry) => typeof entry === 'string')) return value.join('|');
  return '';
}
