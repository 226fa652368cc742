import { resolve } from 'node:path';
import type { InputRecord } from '../input/record.js';
import type { XlsxReadOptions } from '../input/xlsx-reader.js';
import type { ColumnSpec } from '../domain/columns.js';
import { batchedRecords, type BatchedRecords } from '../input/batches.js';
import { countRecordsOf, readRecords } from '../input/format.js';
import { recordShaping, splitPair, type InputFlags, type RecordShaping } from '../input/field-map.js';
import { resolveSettings, settingText, type RunSettings, type SettingFlags } from '../context/settings.js';
import { trustedFileCheck } from '../context/loose-permissions.js';
import { refuseUnknownEncoding } from '../formats/encoding-name.js';
import type { SourceRow } from '../report/run-report.js';
import type { CommandDeps } from '../context/command-deps.js';
import type { InputFingerprint } from '../runs/journal-lines.js';
import { UsageError } from '../system/errors.js';
import { STDIN_NAME } from '../system/stdin-file.js';
import { say } from '../formats/terminal-text.js';
import { isKnownTimeZone, parseDateFormat, type DateFormat } from '../domain/local-time.js';
import { idLengthProblem } from '../domain/review-session.js';

/** The flags that say how an export is read (file-options.ts), plus the global ones that choose the profile. */
export type InputFlagOptions = Pick<
  SettingFlags,
  'map' | 'mapFile' | 'set' | 'dateFormat' | 'timezone' | 'encoding' | 'profile' | 'baseUrl' | 'target' | 'store'
>;

/** How an .xlsx input's sheet is read (file-options.ts, SHEET_OPTIONS): `--sheet`, `--hidden-rows`. */
export type SheetFlagOptions = Pick<XlsxReadOptions, 'sheet' | 'hiddenRows'>;

/** The input flags with the profile's (docs/input-formats.md, "Mapping an export"); a flag wins over the profile. */
async function resolveInputFlags(options: InputFlagOptions, deps: CommandDeps): Promise<InputFlags> {
  const map: InputFlags['map'][number][] = [];
  const computed: NonNullable<InputFlags['computed']>[number][] = [];
  const set: InputFlags['set'][number][] = [];
  const settings = await resolveSettings(options, deps, deps.runProfile, deps.cwd);
  const profile = settings.profile;
  let profileFile;
  if (profile !== undefined) {
    const { name, defaults, configDir, mapFileAt } = profile;
    for (const [source, field] of Object.entries(defaults.map ?? {}))
      map.push({ source, field, origin: `profile ${name}: map`, level: 0 });
    if (defaults.mapFile !== undefined) {
      // Judged as the config file naming it is: a map file others can write chooses what is sent.
      profileFile = await mapFileFlags(
        resolve(configDir, defaults.mapFile),
        `profile ${name}: mapFile ${defaults.mapFile}`,
        0,
        deps,
        true,
        mapFileAt,
      );
      map.push(...profileFile.map);
      computed.push(...profileFile.computed);
    }
    for (const [field, value] of Object.entries(defaults.set ?? {}))
      set.push({ field, value, origin: `profile ${name}: set`, level: 0 });
  }
  const file =
    options.mapFile === undefined
      ? undefined
      : await mapFileFlags(resolve(deps.cwd, options.mapFile), `--map-file ${options.mapFile}`, 1, deps);
  map.push(...(file?.map ?? []));
  computed.push(...(file?.computed ?? []));
  // What the journal keeps (run-journaling.ts): the profile as read here, not after the prompt.
  PROFILE_READ.set(deps.stderr, {
    settings,
    shapes:
      profileFile !== undefined &&
      (await import('../input/map-file.js')).mapFileShapes(profileFile.entries, file?.entries),
  });
  for (const entry of options.map ?? []) {
    const [source, field] = splitPair(entry, '--map', true);
    map.push({ source, field, origin: '--map', level: 2 });
  }
  for (const entry of options.set ?? []) {
    const [field, value] = splitPair(entry, '--set', false);
    set.push({ field, value, origin: '--set', level: 2 });
  }
  const { dateFormat, timezone, encoding } = settings.values;
  return {
    map,
    computed,
    set,
    dateFormat: settingText(dateFormat, 'dateFormat'),
    timezone: settingText(timezone, 'timezone'),
    encoding: settingText(encoding, 'encoding'),
  };
}

/** The run's zone and date format (a flag, else the profile's) for a report workbook; none from a bad profile. */
export async function reportDates(
  options: InputFlagOptions,
  deps: CommandDeps,
): Promise<{ timeZone?: string; dateFormat?: DateFormat }> {
  const values = (await resolveSettings(options, deps, deps.runProfile).catch(() => undefined))?.values;
  const timeZone = values?.timezone?.value;
  const format = values?.dateFormat?.value;
  const parsed = format === undefined ? undefined : parseDateFormat(format);
  return {
    ...(timeZone !== undefined && isKnownTimeZone(timeZone) ? { timeZone } : {}),
    ...(parsed?.ok === true ? { dateFormat: parsed.format } : {}),
  };
}

/** A map file's entries (input/map-file.ts) as input flags of one level. */
async function mapFileFlags(
  path: string,
  origin: string,
  level: number,
  deps: CommandDeps,
  trusted = false,
  /** Where the config file names it (a profile's): said when it cannot be read. */
  at?: string,
) {
  const { readMapFile } = await import('../input/map-file.js');
  const entries = await readMapFile(
    path,
    origin,
    trusted ? await trustedFileCheck(origin, path, deps.env) : undefined,
    noteRead(deps, path),
    at,
  );
  const { columns, computed } = entries;
  return {
    entries,
    map: columns.map(({ source, field, values, line }) => ({
      source,
      field,
      origin,
      level,
      file: path,
      line,
      ...(values !== undefined ? { values } : {}),
    })),
    computed: computed.map((entry) => ({ entry, level })),
  };
}

/** The command's shaping (field-map.ts): every input flag checked against its fields before anything is read. */
export async function inputShaping(
  options: InputFlagOptions,
  deps: CommandDeps,
  columns: readonly ColumnSpec[],
  command: string,
): Promise<RecordShaping> {
  const shaping = recordShaping(await resolveInputFlags(options, deps), columns, command);
  if (shaping.skipped !== undefined) await sayOnce(deps, shaping.skipped);
  return shaping;
}

const SAID = new WeakMap<CommandDeps, Set<string>>();
/** Each file a command read, as its last read found it, for its journal (keyed by stderr: a deps spread keeps it). */
export const FILES_READ = new WeakMap<object, Map<string, FileRead>>();
type FileRead = { stat?: string; sha256?: string };
/** The settings the input flags were resolved with, by stderr as FILES_READ; `shapes`: see mapFileShapes. */
export const PROFILE_READ = new WeakMap<object, { settings: RunSettings; shapes: boolean }>();

export function noteRead(deps: Pick<CommandDeps, 'stderr'>, path: string): FileRead {
  const files = FILES_READ.get(deps.stderr) ?? new Map<string, FileRead>();
  FILES_READ.set(deps.stderr, files.set(path, {}));
  return files.get(path) as FileRead;
}

/** A line on stderr said once per run, though a command may read its file (and resolve its flags) more than once. */
export async function sayOnce(deps: CommandDeps, text: string): Promise<void> {
  const said = SAID.get(deps) ?? new Set<string>();
  SAID.set(deps, said);
  if (said.has(text)) return;
  said.add(text);
  await say(deps, text);
}

/** Reads an input file named as the user typed it; the input flags are checked first (exit 2 before it is read). */
export function readInput(
  file: string,
  deps: CommandDeps,
  options: {
    columns: readonly ColumnSpec[];
    ignoreUnknownColumns: boolean;
    command: string;
    shaping?: RecordShaping;
  } & SheetFlagOptions &
    InputFlagOptions,
): AsyncIterable<InputRecord> {
  const { sheet, hiddenRows, encoding, columns, ignoreUnknownColumns, command } = options;
  if (encoding !== undefined) refuseUnknownEncoding('--encoding', encoding);
  let shaped: BatchedRecords | undefined;
  const open = async (): Promise<BatchedRecords> => {
    if (shaped !== undefined) return shaped;
    const shaping = options.shaping ?? (await inputShaping(options, deps, columns, command));
    const ignoreUnknown =
      ignoreUnknownColumns ||
      (await resolveSettings(options, deps, deps.runProfile)).values.ignoreUnknownColumns?.value === true;
    const timeZone = shaping.dates.timeZone;
    const csvEncoding = encoding ?? shaping.encoding;
    // The pipeline merges each record's reader problems (withRecordFindings): an unreadable cell fails its record only.
    const path = inputPathOf(file, deps);
    shaped = readRecords(
      path,
      {
        columns,
        ignoreUnknownColumns: ignoreUnknown,
        displayName: displayNameOf(file),
        shaping,
        notice: (text) => sayOnce(deps, text),
        ...(sheet !== undefined ? { sheet } : {}),
        ...(hiddenRows !== undefined ? { hiddenRows } : {}),
        ...(timeZone !== undefined ? { timeZone } : {}),
        ...(csvEncoding !== undefined ? { encoding: csvEncoding } : {}),
      },
      noteRead(deps, path),
    );
    return shaped;
  };
  return batchedRecords(
    async function* () {
      yield* (await open()).batches();
    },
    {
      countRecords: async (notOkOnly) => countRecordsOf(await open(), notOkOnly),
      header: () => shaped?.header?.(),
      keptRecords: (field) => shaped?.keptRecords?.(field),
    },
  );
}

/** The first record an input reads (the read then closed), or undefined for an input of none. */
export async function firstRecord(records: AsyncIterable<InputRecord>): Promise<InputRecord | undefined> {
  for await (const record of records) return record;
  return undefined;
}

/** Where `--file` is read from: `-` (or a named pipe) is its copy (made before the command ran, see stdin-file.ts). */
export function inputPathOf(file: string, deps: CommandDeps): string {
  if (file !== '-' && file !== deps.pipedFile) return resolve(deps.cwd, file);
  if (deps.stdinFile === undefined) throw new UsageError('--file -: stdin was not read');
  return deps.stdinFile;
}

/**
 * A journaled run's --file as its rows name it: a copy read under a name recorded beside it (apply's kept copy,
 * named as the plan's dry run read it: docs/plan.md) is given as that name, read from the copy; else undefined.
 */
export function namedCopyOf(
  input: InputFingerprint | null,
): { file: string; deps: Pick<CommandDeps, 'pipedFile' | 'stdinFile'> } | undefined {
  if (input?.name === undefined) return undefined;
  return { file: input.name, deps: { pipedFile: input.name, stdinFile: input.path } };
}

export function displayNameOf(file: string): string {
  return file === '-' ? STDIN_NAME : file;
}

/** An id over its API string(N) is refused before anything is sent, saying where it was given. */
export function refuseTooLong(id: string, where: string, max?: number, what?: string): void {
  const problem = idLengthProblem(id, max, what);
  if (problem !== null) throw new UsageError(`${where}: ${problem.message}: nothing was sent`);
}

export function sourceRowsOf(record: InputRecord): SourceRow[] | undefined {
  const raw = record.raw;
  if (raw === undefined) return undefined;
  const row: SourceRow = { line: record.source.line, header: raw.header, cells: raw.cells, fields: record.fields };
  if (raw.dialect !== undefined) row.dialect = raw.dialect;
  if (raw.names !== undefined) row.names = raw.names;
  if (record.cellsOf !== undefined) row.cellsOf = record.cellsOf;
  return [row];
}
