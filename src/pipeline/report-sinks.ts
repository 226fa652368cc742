import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describeSystemError } from '../system/system-error-words.js';
import { githubActionsEnabled, GithubAnnotationsWriter } from '../report/github-annotations.js';
import { openReportFile, reportFormatOf, type ReportFile, type ReportFormat } from '../report/report-file.js';
import {
  CsvReportWriter,
  HumanSummaryWriter,
  JsonReportWriter,
  RunReportBuilder,
  type SummaryNote,
} from '../report/report-writers.js';
import { type ReportEntry, type ReportHeader, type ReportSink, type ReportSummary } from '../report/run-report.js';
import { messageOf, ReportWriteError, UsageError } from '../system/errors.js';
import { ReplaceFailedError } from '../system/atomic-file.js';
import { assertNotRead, earlierIs } from '../context/out-file.js';
import { BufferedSink, SpoolSink, type TextSink } from '../system/text-sink.js';
import type { CommandDeps } from '../context/command-deps.js';
import type { GlobalOptions } from '../flags/global-options.js';
import type { RunOptions } from './record-job.js';
import type { XlsxReportWriter } from '../report/xlsx-report-writer.js';
import { say, terminalLine } from '../formats/terminal-text.js';
import type { CsvDialect } from '../formats/csv-cell.js';

/** Fails fast on a bad --report, before any input is read or a store made. */
export async function checkReportOption(options: GlobalOptions, deps: CommandDeps): Promise<void> {
  if (options.report === undefined) return;
  reportFormatOf(options.report);
  const place = resolve(deps.cwd, options.report);
  // Before the target is opened (a first run makes the store): nothing is left behind.
  const unwritable = unwritableReport(place);
  if (unwritable !== undefined) throw new UsageError(terminalLine(`cannot write report ${place}: ${unwritable}`));
  await assertNotRead('--report', options.report, deps.invocation ?? options, deps);
}

/** Why a report at `path` cannot be written (a directory of that name, a directory this user cannot write in). */
function unwritableReport(path: string): string | undefined {
  try {
    const entry = statSync(path);
    if (entry.isDirectory()) return describeSystemError({ code: 'EISDIR' }, 'file');
    if (!entry.isFile()) return undefined;
  } catch {
    // Not there: it is made beside its siblings.
  }
  try {
    accessSync(dirname(path), constants.W_OK);
    return undefined;
  } catch (error) {
    return describeSystemError(error, 'directory');
  }
}

/** When a run report's run happened, for a report rebuilt after it (`runs show`): JUnit's `timestamp` and `time`. */
export interface RunTimes {
  startedAt: Date;
  /** Its last attempt's end; absent for a run that was killed (its `time` is then 0). */
  endedAt?: Date;
}

async function reportSinkOf(
  format: ReportFormat,
  sink: TextSink,
  header: ReportHeader,
  options: { onlyFailed?: boolean; plannedRun?: string | undefined },
  times?: RunTimes,
): Promise<ReportSink> {
  if (format === 'json') return new JsonReportWriter(sink, header);
  if (format === 'csv') return new CsvReportWriter(sink, options.onlyFailed ?? false, header.run ?? options.plannedRun);
  const endedAt = times?.endedAt ?? times?.startedAt;
  const now = endedAt === undefined ? undefined : () => endedAt;
  if (format === 'html') {
    const { HtmlReportWriter } = await import('../report/html-report-writer.js');
    return new HtmlReportWriter(sink, header, now);
  }
  const { JunitReportWriter } = await import('../report/junit-report-writer.js');
  return new JunitReportWriter(sink, header, { startedAt: times?.startedAt, now });
}

/** On a UTF-8 terminal the counts are a small table; in logs and pipes one plain, greppable line. */
async function countsRenderer(
  deps: CommandDeps,
): Promise<((summary: ReportSummary, dryRun: boolean) => string) | undefined> {
  if (!deps.isTTY) return undefined;
  const [{ renderRunSummaryTable }, { colorEnabled, utf8Locale }] = await Promise.all([
    import('../terminal/run-summary-table.js'),
    import('../terminal/table-format.js'),
  ]);
  if (!utf8Locale(deps.env, deps.platform)) return undefined;
  const color = colorEnabled({ isTTY: deps.isTTY, env: deps.env });
  const width = (deps.progressStream as { columns?: number } | undefined)?.columns;
  return (summary, dryRun) => renderRunSummaryTable(summary, { color, dryRun, width });
}

/** The --report file's sink, turned off by its first write failure: the run then stops as at a target failure. */
class GuardedFileSink implements ReportSink {
  failure: ReportWriteError | undefined;
  discard = async (): Promise<void> => this.inner.discard?.();

  constructor(
    private readonly inner: ReportSink,
    readonly path: string,
  ) {}

  item(entry: ReportEntry): void | Promise<void> {
    return this.guard(() => this.inner.item(entry));
  }

  finish(summary: ReportSummary): void | Promise<void> {
    return this.guard(() => this.inner.finish(summary));
  }

  sourceHeader(header: readonly string[], dialect?: CsvDialect): void {
    void this.guard(() => this.inner.sourceHeader?.(header, dialect));
  }

  stopped(error: unknown): void {
    void this.guard(() => this.inner.stopped?.(error));
  }

  fail(error: unknown): void {
    if (this.failure !== undefined) return;
    // The report's own words without its path: the path is named once, as given.
    const reason = (error as { reason?: unknown } | undefined)?.reason;
    const why = typeof reason === 'string' ? reason : messageOf(error);
    // A final replace that failed (cannotWriteReport's cause, report-file.ts) kept the finished file.
    const kept = error instanceof Error && error.cause instanceof ReplaceFailedError ? error.cause : undefined;
    this.failure = new ReportWriteError(
      `cannot write report ${this.path}: ${why}`,
      kept === undefined ? {} : { keptAt: kept.keptAt, cause: kept },
    );
    void this.discard().catch(() => undefined);
  }

  private guard(write: () => void | Promise<void>): void | Promise<void> {
    if (this.failure !== undefined) return;
    try {
      const pending = write();
      if (pending instanceof Promise) return pending.catch((error: unknown) => this.fail(error));
    } catch (error) {
      this.fail(error);
    }
  }
}

/** The run report's destinations: --json's document on stdout, the --report file, the summary on stderr. */
export async function openRunReport(
  header: ReportHeader,
  /** With the input's `--timezone` and `--date-format`, by which a report workbook types its dates. */
  options: RunOptions & { plannedRun?: string | undefined },
  deps: CommandDeps,
  /** A refused run (run-pipeline.ts): the summary says only the counts (and RecordJob.summaryNotes). */
  summary: { countsOnly?: boolean; notes?: readonly SummaryNote[] | undefined } = {},
  /** A report rebuilt after its run (`runs show`): the run's own times, not the moment it is written. */
  times?: RunTimes,
) {
  const sinks: ReportSink[] = [];
  // A dry run's late structural error comes after items were reported: its document waits for the end.
  const spool = options.json && header.dryRun ? new SpoolSink(deps.stdout) : undefined;
  const stdout = options.json ? new BufferedSink(spool ?? deps.stdout) : undefined;
  if (stdout !== undefined) sinks.push(new JsonReportWriter(stdout, header));
  let file: Pick<ReportFile, 'commit' | 'discard'> | undefined;
  let guarded: GuardedFileSink | undefined;
  let fileBuffer: BufferedSink | undefined;
  let xlsx: XlsxReportWriter | undefined;
  if (options.report !== undefined) {
    // The name the user typed, said in the summary; apply's run is given the path resolved from where it was typed.
    const named = deps.reportName ?? options.report;
    const format = reportFormatOf(options.report);
    const path = resolve(deps.cwd, options.report);
    // A failed night's report moved aside may be this run's input: kept.
    const earlier = await earlierIs('--report', path, deps.invocation ?? options, deps);
    if (format === 'xlsx') {
      // The workbook writer streams its own zip: no text sink in between (loaded here only).
      const [{ openXlsxReportFile }, { reportDates }] = await Promise.all([
        import('../report/xlsx-report-writer.js'),
        import('./command-input.js'),
      ]);
      const workbook = await openXlsxReportFile(
        path,
        {
          onlyNotOk: options.onlyFailed ?? false,
          run: header.run ?? options.plannedRun,
          ...(await reportDates(options, deps)),
        },
        earlier,
      );
      xlsx = workbook.sink;
      file = workbook;
      guarded = new GuardedFileSink(workbook.sink, named);
    } else {
      const text = await openReportFile(path, earlier);
      file = text;
      fileBuffer = new BufferedSink(text.sink);
      guarded = new GuardedFileSink(await reportSinkOf(format, fileBuffer, header, options, times), named);
    }
    sinks.push(guarded);
  }
  if (githubActionsEnabled(deps.env))
    sinks.push(
      new GithubAnnotationsWriter(deps.stderr, {
        cwd: deps.cwd,
        workspace: deps.env.GITHUB_WORKSPACE,
        header,
        refused: summary.countsOnly,
      }),
    );
  // Last: it says "report written to ..." only once the file is in place (finish's beforeLast).
  sinks.push(
    new HumanSummaryWriter(deps.stderr, header, await countsRenderer(deps), {
      reportFile: () => (guarded?.failure === undefined ? guarded?.path : undefined),
      ...(options.report !== undefined && reportFormatOf(options.report) === 'html'
        ? { reportPage: pathToFileURL(resolve(deps.cwd, options.report)).href }
        : {}),
      ...summary,
    }),
  );
  const builder = new RunReportBuilder(sinks, header.dryRun);
  return {
    builder,
    /** Writes the summaries and puts the report file in place, or removes one that failed (`failure()`). */
    async close() {
      await builder.finish(async () => {
        await stdout?.flush();
        if (guarded !== undefined && guarded.failure === undefined) {
          try {
            await fileBuffer?.flush();
            await file?.commit();
          } catch (error) {
            guarded.fail(error);
          }
        }
        // A report file that failed is not left half-written, nor its temp file beside it.
        if (guarded?.failure !== undefined) await file?.discard().catch(() => undefined);
        else if (xlsx !== undefined)
          for (const warning of xlsx.warnings(options.report as string)) await say(deps, `warning: ${warning}`);
      });
      await spool?.commit();
    },
    /** Drops a half-written report file (the run ended before any report could be complete). */
    async discard() {
      await file?.discard();
      await guarded?.discard();
      await spool?.discard();
    },
    /** Set once the --report file failed: the run stops, the other reports go on. */
    failure: () => guarded?.failure,
  };
}
