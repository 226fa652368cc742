import { resolve } from 'node:path';
import type { ColumnSpec, InputRecord } from '../../input/record.js';
import { readRecords } from '../../input/index.js';
import { checkTimeZone } from '../../input/xlsx-reader.js';
import { isKnownEncoding } from '../../input/text-source.js';
import type { SourceRow } from '../../report/report-writers.js';
import type { CommandDeps } from '../context.js';
import { UsageError } from '../../errors.js';
import { STDIN_NAME } from '../stdin-file.js';

/** Reads an input file named as the user typed it (relative to the working directory); messages keep that name. */
export function readInput(
  file: string,
  deps: CommandDeps,
  options: { columns: readonly ColumnSpec[]; ignoreUnknownColumns: boolean; sheet?: string | undefined; timezone?: string | undefined; encoding?: string | undefined },
): AsyncIterable<InputRecord> {
  checkTimeZone(options.timezone);
  const { sheet, timezone, encoding, ...read } = options;
  if (encoding !== undefined && !isKnownEncoding(encoding)) {
    throw new UsageError(`--encoding ${encoding}: not an encoding name examctl knows (e.g. windows-1252, iso-8859-15, utf-16le, shift_jis)`);
  }
  // The pipeline merges each record's reader problems (withRecordFindings): an unreadable cell fails its record only.
  return readRecords(inputPathOf(file, deps), {
    ...read,
    displayName: displayNameOf(file),
    cellProblems: 'record',
    ...(sheet !== undefined ? { sheet } : {}),
    ...(timezone !== undefined ? { timeZone: timezone } : {}),
    ...(encoding !== undefined ? { encoding } : {}),
  });
}

/** Where `--file` is read from: `-` (or a named pipe) is its copy (made before the command ran, see stdin-file.ts). */
export function inputPathOf(file: string, deps: CommandDeps): string {
  if (file !== '-' && file !== deps.pipedFile) return resolve(deps.cwd, file);
  if (deps.stdinFile === undefined) throw new UsageError('--file -: stdin was not read');
  return deps.stdinFile;
}

export function displayNameOf(file: string): string {
  return file === '-' ? STDIN_NAME : file;
}

export { idOf } from '../../domain/record-id.js';

export function sourceRowsOf(record: InputRecord): SourceRow[] | undefined {
  const raw = record.raw;
  if (raw === undefined) return undefined;
  return [raw.dialect === undefined ? { line: record.source.line, header: raw.header, cells: raw.cells } : { line: record.source.line, header: raw.header, cells: raw.cells, dialect: raw.dialect }];
}
