import type { Problem } from '../domain/problem.js';
import type { WrittenTime } from '../domain/local-time.js';
import type { FieldWarning } from '../domain/spreadsheet-warnings.js';
import type { CsvDialect } from '../formats/csv-cell.js';
import { isScheduleRequest } from '../domain/sittings.js';

/** What `--hidden-rows` may say (not in the xlsx reader: every command loads the flag tables). */
export const HIDDEN_ROWS_CHOICES = ['include', 'skip'] as const;
export type HiddenRows = (typeof HIDDEN_ROWS_CHOICES)[number];

/** The file a record answered at a prompt names as its source. */
export const PROMPT_SOURCE = '<prompt>';

/** Where a record came from: the file as the user named it, and the line where the record starts
 * (CSV: the physical line of the record's first character; JSON array: the line of the element's
 * opening brace; NDJSON: the line). `index` is the 0-based record index (JSON arrays: the array index). */
export interface SourceRef {
  file: string;
  line: number;
  index?: number;
}

/**
 * A value the map file computed or translated (computed-fields.ts), beside the cells it came from as written
 * (`Hierarchies` `DEPT-MATH:coordinator` from `{Department: "Mathematics", "Exams Officer": "Y"}`).
 */
export interface MappedValue {
  field: string;
  /** As a cell would write it: list entries joined by `|`. */
  value: string;
  from: Readonly<Record<string, string>>;
  /** The row it was computed on, where one item spans rows (a sitting's candidates). */
  line?: number;
}

/** A table's row as read: the file's header, the row's cells, how the file is written. */
export interface RawRow {
  header: readonly string[];
  cells: readonly string[];
  /** How the CSV input is written (a CSV report answers in the same dialect). */
  dialect?: CsvDialect;
  /** The field each column was read as (one array per file): a workbook report types a cell by its field. */
  names?: readonly (string | undefined)[];
}

/**
 * One record as read, before coercion and validation: a table's `fields` by API field name (an empty cell
 * absent), `raw` the row for the report; JSON/NDJSON: `fields` is the parsed object as-is.
 */
export interface InputRecord {
  source: SourceRef;
  fields: Record<string, unknown>;
  raw?: RawRow;
  /**
   * Cells the reader could not turn into a value (xlsx: an error value, a formula never calculated); left
   * out of `fields`, they fail the record, before its validation problems (mergeReaderProblems).
   */
  problems?: Problem[];
  /** Values read but doubtful (xlsx: a date cell in a text field, a 16-digit number); reported, not refused. */
  warnings?: FieldWarning[];
  /** What the map file computed or translated for this record, for the reports. */
  mapped?: MappedValue[];
  /** The cells behind each field the map file computed, or the cell at fault: a dry run's workbook marks them. */
  cellsOf?: Readonly<Record<string, readonly string[]>>;
  /** Fields read from a General number cell's digits: a leading zero typed there was already gone (for warnings). */
  bareNumbers?: readonly string[];
  /** Dates and times read from the file's own text (`28/03/2027 09:00` in Europe/London): messages quote them so. */
  written?: WrittenTime[];
}

/** A whole schedule request (a JSON input's element with Schedule and Candidates), not a sittings or candidates row. */
export function isScheduleRequestRecord(record: InputRecord): boolean {
  return !record.raw && isScheduleRequest(record.fields);
}
