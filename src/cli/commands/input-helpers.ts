import { resolve } from 'node:path';
import type { ColumnSpec, InputRecord } from '../../input/record.js';
import { readRecords } from '../../input/index.js';
import { checkTimeZone } from '../../input/xlsx-reader.js';
import type { SourceRow } from '../../report/report-writers.js';
import type { CommandDeps } from '../context.js';

/** Reads an input file named as the user typed it (relative to the working directory); messages keep that name. */
export function readInput(
  file: string,
  deps: CommandDeps,
  options: { columns: readonly ColumnSpec[]; ignoreUnknownColumns: boolean; sheet?: string | undefined; timezone?: string | undefined },
): AsyncIterable<InputRecord> {
  checkTimeZone(options.timezone);
  const { sheet, timezone, ...read } = options;
  // The pipeline merges each record's reader problems (withRecordFindings): an unreadable cell fails its record only.
  return readRecords(resolve(deps.cwd, file), {
    ...read,
    displayName: file,
    cellProblems: 'record',
    ...(sheet !== undefined ? { sheet } : {}),
    ...(timezone !== undefined ? { timeZone: timezone } : {}),
  });
}

export { idOf } from '../../domain/record-id.js';

export function sourceRowsOf(record: InputRecord): SourceRow[] | undefined {
  return record.raw ? [{ line: record.source.line, header: record.raw.header, cells: record.raw.cells }] : undefined;
}
