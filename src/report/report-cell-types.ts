/** A run report workbook's cells typed by their column's field, and a dry run's marked cells: docs/input-formats.md. */
import { COLLECTION_COLUMNS, SCHEDULE_COLUMNS, USER_COLUMNS, CANDIDATE_COLUMNS } from '../domain/columns.js';
import { parseBooleanSpelling } from '../domain/coercion.js';
import { DATE_FIELDS, DATE_TIME_FIELDS } from '../domain/local-time.js';
import type { Problem } from '../domain/problem.js';
import { normalizeColumnName } from '../formats/column-name.js';
import { calendarDateOf, excelDate, excelDateTime, instantOf, plainNumber } from './output-times.js';
import { Column, onRow } from './report-writers.js';
import { type SourceRow } from './run-report.js';
import { CellFormat, type SheetCell } from './xlsx-workbook.js';

type FieldKind = 'number' | 'boolean' | 'date' | 'dateTime';

let kinds: ReadonlyMap<string, FieldKind> | undefined;

/** Every record field's kind by name, from the rule tables (a name two tables type differently is left as text). */
function fieldKinds(): ReadonlyMap<string, FieldKind> {
  if (kinds !== undefined) return kinds;
  const found = new Map<string, FieldKind | null>();
  const note = (name: string, kind: FieldKind): void => {
    const before = found.get(name);
    found.set(name, before === undefined || before === kind ? kind : null);
  };
  for (const spec of [...USER_COLUMNS, ...CANDIDATE_COLUMNS, ...SCHEDULE_COLUMNS, ...COLLECTION_COLUMNS]) {
    const cell = spec.rule?.cell;
    if (cell === 'boolean') note(spec.name, 'boolean');
    else if (typeof cell === 'object' && cell.kind === 'integer') note(spec.name, 'number');
  }
  for (const name of DATE_FIELDS) note(name, 'date');
  for (const name of DATE_TIME_FIELDS) note(name, 'dateTime');
  kinds = new Map([...found].filter((entry): entry is [string, FieldKind] => entry[1] !== null));
  return kinds;
}

/** How a report's input columns are typed: the run's zone, when it has one (`--timezone`, a profile's). */
export interface ReportCellOptions {
  timeZone?: string | undefined;
}

/** One input column of the report as written: its index in the source row, and its field's kind. */
interface KeptColumn {
  source: number;
  field: string | undefined;
  kind: FieldKind | undefined;
}

/** The field an error names, without its place in a schedule request or a list (`Candidates[2].Email` -> `Email`). */
function baseField(field: string): string {
  const last = field.replace(/^Schedule\./, '').replace(/^Candidates\[\d+\]\./, '');
  return /^[^.[]*/.exec(last)?.[0] ?? last;
}

/** The report cells of one input header, worked out once per header (all rows of a file share one array). */
export class ReportCellTypes {
  private readonly layouts = new WeakMap<readonly string[], KeptColumn[]>();

  constructor(private readonly options: ReportCellOptions = {}) {}

  /** The kept input columns of `row`'s header, in the report's order. */
  private layoutOf(row: SourceRow, modes: readonly Column[]): KeptColumn[] {
    let layout = this.layouts.get(row.header);
    if (layout === undefined) {
      layout = [];
      const byName = fieldKinds();
      for (let i = 0; i < row.header.length; i++) {
        if (modes[i] === Column.Drop) continue;
        const field = row.names?.[i];
        // A secret written blank or withheld is text whatever its field.
        layout.push({ source: i, field, kind: modes[i] === Column.Keep && field !== undefined ? byName.get(field) : undefined });
      }
      this.layouts.set(row.header, layout);
    }
    return layout;
  }

  /** How each column of the report is shown, for the sheet's header: its input columns by kind, the report's own as text. */
  formats(row: SourceRow, modes: readonly Column[], reportColumns: number): CellFormat[] {
    const formats = this.layoutOf(row, modes).map(({ kind }) =>
      kind === 'date' ? CellFormat.date : kind === 'dateTime' && this.options.timeZone !== undefined ? CellFormat.dateTime : kind === undefined ? CellFormat.text : CellFormat.general,
    );
    for (let i = 0; i < reportColumns; i++) formats.push(CellFormat.text);
    return formats;
  }

  /**
   * The report row's cells (`cells`, as the CSV report writes them, changed in place) with its
   * input cells typed where they read back the same. A header with no typed column costs nothing more.
   */
  typed(cells: SheetCell[], row: SourceRow, modes: readonly Column[], failedFields: ReadonlySet<string>): SheetCell[] {
    const layout = this.layoutOf(row, modes);
    for (let at = 0; at < layout.length; at++) {
      const { field, kind } = layout[at] as KeptColumn;
      if (kind === undefined || field === undefined) continue;
      const text = (cells[at] as string).trim();
      if (text === '' || failedFields.has(field)) continue;
      const value = this.valueOf(kind, field, text, row);
      if (value !== undefined) cells[at] = value;
    }
    return cells;
  }

  private valueOf(kind: FieldKind, field: string, text: string, row: SourceRow): SheetCell | undefined {
    if (kind === 'number') return plainNumber(text);
    if (kind === 'boolean') return parseBooleanSpelling(text);
    // Dates as the run read them (a `--date-format` text is in the API's form in the record).
    const read = row.fields?.[field];
    if (kind === 'date') {
      const date = calendarDateOf(typeof read === 'string' ? read : text);
      return date === undefined ? undefined : excelDate(date);
    }
    const zone = this.options.timeZone;
    const instant = instantOf(read);
    if (zone === undefined || instant === undefined) return undefined;
    // Read back in the same zone, the wall clock must give this instant again, not one of two.
    return excelDateTime(instant, zone);
  }

  /**
   * The cells of a dry run's invalid row its errors name (docs/input-formats.md, "A dry run marks
   * the cell"). `statusAt` is the status cell's index in the row.
   */
  marks(errors: readonly Problem[], row: SourceRow | undefined, modes: readonly Column[], statusAt: number): number[] {
    const layout = row === undefined ? [] : this.layoutOf(row, modes);
    const marked = new Set<number>();
    for (const error of row === undefined ? errors : onRow(errors, row.line)) {
      const field = error.field === undefined || error.field === '' ? undefined : baseField(error.field);
      let places = field === undefined ? [] : [layout.findIndex((column) => column.field === field)].filter((at) => at !== -1);
      if (places.length === 0 && field !== undefined && row !== undefined) {
        // A field the map file computes is no column: the cells it came from are (or the one at fault).
        const keys = new Set((row.cellsOf?.[field] ?? [field]).map(normalizeColumnName));
        places = layout.flatMap((column, at) => (keys.has(normalizeColumnName(row.header[column.source] as string)) ? [at] : []));
      }
      for (const at of places.length === 0 ? [statusAt] : places) marked.add(at);
    }
    return [...marked];
  }
}

const NONE: ReadonlySet<string> = new Set();

/** The fields a row's errors name (base names), whose cells stay the text that failed. */
export function failedFieldsOf(errors: readonly Problem[], line: number | undefined): ReadonlySet<string> {
  if (errors.length === 0) return NONE;
  const fields = new Set<string>();
  for (const error of line === undefined ? errors : onRow(errors, line)) if (error.field) fields.add(baseField(error.field));
  return fields;
}
