import { UsageError } from '../system/errors.js';
import { changedDigestedFile, fingerprintInput, inputChange, recordedFlags } from '../runs/resume-plan.js';
import { unlinedItem, unjournaledCount, unitsOf, type JournalHead, type RunIndex } from '../runs/read-run.js';
import type { KeptOptions } from '../flags/option-table.js';
import { firstRecord, namedCopyOf } from './command-input.js';
import { RecordSource } from './record-source.js';
import type { ProfileDefaults } from '../context/config-file.js';
import { reportFormatOf } from '../report/report-file.js';
import { countAction, exitCodeFor, type SummaryNote } from '../report/report-writers.js';
import type { ReportItem, SourceRow } from '../report/run-report.js';
import type { CommandDeps } from '../context/command-deps.js';
import type { GlobalOptions } from '../flags/global-options.js';
import type { InputRecord } from '../input/record.js';
import type { TableHeader } from '../input/batches.js';
import { say } from '../formats/terminal-text.js';
import { formatCount } from '../formats/number-format.js';
import { checkReportOption, openRunReport, type RunTimes } from './report-sinks.js';
import type { RerunInput, Unit } from './record-job.js';

/** The input's units in order (a fresh read each call), or why it cannot be read; `count`: how many it gives. */
export type RunInput =
  | {
      units?: () => AsyncIterable<Unit<unknown>>;
      count: number;
      summaryNotes?: readonly SummaryNote[];
      /** A table input's first row as read (its header, names, dialect). */
      table?: NonNullable<InputRecord['raw']>;
      /** The table input's header as read, also when it has no row. */
      header?: TableHeader;
    }
  | { unlisted: string };

/** The leavers' rows of a CSV or xlsx report: a file's rows under the leavers' header, and a leaver's own row. */
export type LeaverRows = { fileRows: (rows: SourceRow[]) => SourceRow[]; row: (item: ReportItem) => SourceRow };

/** The profile a run read its input with, as its journal records it (none: an older examctl's run, today's used). */
export function runProfileOf(header: Pick<JournalHead['header'], 'profile'>): Pick<CommandDeps, 'runProfile'> {
  const recorded = header.profile;
  if (recorded === undefined) return {};
  return {
    runProfile:
      recorded === null
        ? null
        : { name: recorded.name, defaults: recorded.defaults as ProfileDefaults, configDir: recorded.configDir },
  };
}

/** What `showRun` reads besides the journal: the run's input again, and user sync's leaver rows. */
export interface RunShowSources {
  readonly input: (withUnits: boolean) => Promise<RunInput>;
  readonly leavers: (
    run: RunIndex,
    input: Extract<RunInput, { count: number }>,
    deps: CommandDeps,
  ) => Promise<LeaverRows | undefined>;
}

/** The run's start and last end as dates, when the journal's texts read as instants (else the report's own time). */
function runTimes(startedAt: string, endedAt: string | undefined): RunTimes | undefined {
  const start = new Date(startedAt);
  const end = endedAt === undefined ? undefined : new Date(endedAt);
  if (Number.isNaN(start.getTime())) return undefined;
  return end === undefined || Number.isNaN(end.getTime()) ? { startedAt: start } : { startedAt: start, endedAt: end };
}

/** `runs show`'s report of one run (docs/runs.md, "runs show"), the input read again with the command's builder. */
export async function showRun(
  run: RunIndex,
  options: GlobalOptions,
  deps: CommandDeps,
  { input: inputOf, leavers: leaverRows }: RunShowSources,
): Promise<number> {
  // Read again only where it adds to the journal: units it never saw, or the input's cells of a CSV or xlsx report.
  const cells = options.report !== undefined && ['csv', 'xlsx'].includes(reportFormatOf(options.report));
  // The run's profile, not today's (its zone and format type the workbook's dates), and its input, never written over.
  const runDeps = { ...deps, ...runProfileOf(run.header), invocation: { ...options, file: run.header.input?.path } };
  await checkReportOption(options, runDeps);
  const input = await inputOf(cells || !run.coversUnits());
  const [read, gone] = 'unlisted' in input ? [undefined, input.unlisted] : [input, undefined];
  const missing = read === undefined ? unjournaledCount(run) : unreachedLeavers(run, read.count);
  const reason = gone ?? LEAVERS_UNLISTED;
  const unlisted = missing !== 0 ? { count: missing, reason } : undefined;
  const { command, target } = run.header;
  const notes = read?.summaryNotes;
  // Without the input, every unchanged unit of a --changed-only run is counted, not listed: said in the document too.
  const unlistedUnchanged =
    gone !== undefined && run.unchanged.count > 0 ? { count: run.unchanged.count, reason: gone } : undefined;
  // The run's own zone and date format: a report workbook types its dates as the run's did.
  const { timezone, dateFormat } = run.header.options;
  const report = await openRunReport(
    { command, target, ...run.header.origin, dryRun: false, run: run.id, unlisted, unlistedUnchanged },
    {
      ...options,
      ...(typeof timezone === 'string' ? { timezone } : {}),
      ...(typeof dateFormat === 'string' ? { dateFormat } : {}),
    },
    runDeps,
    { notes },
    runTimes(run.header.startedAt, run.end?.at),
  );
  if (unlisted !== undefined) {
    // Without a count on record (a schedule push killed in its first attempt) they are neither listed nor counted.
    const what =
      unlisted.count === null
        ? 'the items it never reached are neither listed nor counted (how many there were is not on record)'
        : `${unlisted.count} ${unlisted.count === 1 ? 'item' : 'items'} it never reached ${unlisted.count === 1 ? 'is' : 'are'} counted as skipped but not listed`;
    await say(deps, `run ${run.id}: ${what}: ${unlisted.reason}`);
  }
  // A CSV or xlsx report without the input's cells is no retry file: said why.
  if (cells && gone !== undefined) await say(deps, `run ${run.id}: the report has no input cells: ${gone}`);
  const builder = report.builder;
  // The input's header and dialect: a CSV report of no row is still written as the input was.
  if (read?.header !== undefined) builder.sourceHeader(read.header.cells, read.header.dialect);
  let position = 0;
  const leavers = cells && read !== undefined ? await leaverRows(run, read, deps) : undefined;
  if (read?.units !== undefined) {
    for await (const unit of read.units()) {
      const refused = unit.prepared.ok ? undefined : unit.prepared.problems;
      const item = (await run.itemAt(position)) ?? unlinedItem(run, { ...unit, n: position }, refused);
      position += 1;
      await builder.add({
        item,
        rows: leavers === undefined || unit.rows === undefined ? unit.rows : leavers.fileRows(unit.rows),
      });
    }
  }
  for await (const item of run.items(position))
    await builder.add(leavers === undefined ? { item } : { item, rows: [leavers.row(item)] });
  // Units --changed-only did not send: with no input to name them, counted (ok), not listed.
  const unnamed = run.unchanged.count - run.unchanged.countBelow(position);
  if (unnamed > 0) {
    builder.summary.total += unnamed;
    builder.summary.ok += unnamed;
    countAction(builder.summary, 'unchanged', unnamed);
    await say(
      deps,
      `run ${run.id}: ${formatCount(unnamed)} unchanged ${unnamed === 1 ? 'item' : 'items'} (not sent, --changed-only) counted as ok but not listed: ${gone ?? 'past the input'}`,
    );
  }
  if (unlisted?.count) {
    builder.summary.total += unlisted.count;
    builder.summary.skipped += unlisted.count;
  }
  await report.close();
  // Nothing is sent here: a report that cannot be written stays the usage error (exit 2) it always was.
  const failure = report.failure();
  if (failure !== undefined) throw new UsageError(failure.message);
  return exitCodeFor(builder.summary);
}

const LEAVERS_UNLISTED =
  'they are leavers (--disable-missing) that come from the sync memory, not the file, and its journal does not name them';

/** Units after the input's (user sync's leavers) that the journal has no line for: the header's count tells. */
function unreachedLeavers(run: RunIndex, inputUnits: number): number {
  const total = unitsOf(run);
  if (total === undefined) return 0;
  return Math.max(0, total - inputUnits - run.countFrom(inputUnits));
}

/** The command's own input builder (its rerunInput, loaded on demand: resume-registry.ts), or why it has none. */
type InputBuilder =
  | { readonly notResumable: string }
  | { readonly input: () => Promise<RerunInput>; readonly keptOptions: KeptOptions };

/** Why a run whose items were not read from a file is not listed. */
const FROM_PROMPTS = 'its items were given at prompts, which the journal does not keep';

/** `runs show` reads a run's input again with its command's job (docs/runs.md); `withUnits` false: only checked. */
export async function runInput(
  record: Pick<JournalHead, 'header' | 'end'>,
  entry: InputBuilder,
  deps: CommandDeps,
  withUnits = true,
): Promise<RunInput> {
  const { header } = record;
  const { cwd } = header.options;
  if ('notResumable' in entry)
    return { unlisted: `${header.command} runs cannot be read again: ${entry.notResumable}` };
  const recorded = recordedFlags(header.options, entry.keptOptions.digested);
  if (recorded.file === '-') return { unlisted: 'it read its input from stdin (--file -), which cannot be read again' };
  if (header.input !== null) {
    const changed = inputChange(
      header.input,
      await fingerprintInput(header.input.path).catch(() => 'missing' as const),
    );
    if (changed !== undefined) return { unlisted: changed };
  }
  const fileChanged = await changedDigestedFile(record);
  if (fileChanged !== undefined) return { unlisted: fileChanged };
  const build = await entry.input();
  const onlyFailed = recorded.onlyFailed === true;
  const named = namedCopyOf(header.input);
  const readDeps: CommandDeps = {
    ...deps,
    cwd: typeof cwd === 'string' ? cwd : deps.cwd,
    ...runProfileOf(header),
    ...named?.deps,
  };
  let tableHeader: TableHeader | undefined;
  const units = async function* (input: Awaited<ReturnType<RerunInput>>): AsyncIterable<Unit<unknown>> {
    const source = new RecordSource(() => input.records(), onlyFailed && input.readsOnlyFailedItself !== true);
    source.tellHeaderTo((cells, dialect) => (tableHeader = { cells, dialect }));
    for await (const batch of input.units(source.batches())) yield* batch;
  };
  try {
    const input = await build({ ...recorded, ...(named && { file: named.file }), input: false }, readDeps);
    const notes = input.summaryNotes === undefined ? {} : { summaryNotes: input.summaryNotes };
    if (!withUnits) return { count: unitsOf(record) ?? 0, ...notes };
    let count = 0;
    // Read through once: an error surfaces here, before anything is reported.
    for await (const _unit of units(input)) count += 1;
    // A table's first row as read: one record, then the read is closed.
    const table = (await firstRecord(input.records()))?.raw;
    return { units: () => units(input), count, ...notes, table, header: tableHeader };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { unlisted: header.input === null ? FROM_PROMPTS : `reading its input again failed: ${message}` };
  }
}
