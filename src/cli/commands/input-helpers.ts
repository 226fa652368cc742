import { resolve } from 'node:path';
import type { ColumnSpec, InputRecord } from '../../input/record.js';
import { readRecords } from '../../input/index.js';
import type { SourceRow } from '../../report/report-writers.js';
import type { CommandDeps } from '../context.js';

/** Reads an input file named as the user typed it (relative to the working directory); messages keep that name. */
export function readInput(
  file: string,
  deps: CommandDeps,
  options: { columns: readonly ColumnSpec[]; ignoreUnknownColumns: boolean },
): AsyncIterable<InputRecord> {
  return readRecords(resolve(deps.cwd, file), { ...options, displayName: file });
}

export { idOf } from '../../domain/record-id.js';

export function sourceRowsOf(record: InputRecord): SourceRow[] | undefined {
  return record.raw ? [{ line: record.source.line, header: record.raw.header, cells: record.raw.cells }] : undefined;
}
