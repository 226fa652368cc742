import { resolve } from 'node:path';
import { githubActionsEnabled, GithubAnnotationsWriter } from '../report/github-annotations.js';
import { openAtomicFile, reportFormatOf, type AtomicFile, type ReportFormat } from '../report/report-file.js';
import {
  CsvReportWriter,
  HumanSummaryWriter,
  JsonReportWriter,
  RunReportBuilder,
  type ReportHeader,
  type ReportSink,
} from '../report/report-writers.js';
import type { ReportSummary } from '../report/run-report.js';
import { BufferedSink, SpoolSink, type TextSink } from '../report/text-sink.js';
import type { CommandDeps, GlobalOptions } from './context.js';

/** Fails fast on a bad --report name, before any input is read. */
export function checkReportOption(options: GlobalOptions): void {
  if (options.report !== undefined) reportFormatOf(options.report);
}

async function reportSinkOf(format: ReportFormat, sink: TextSink, header: ReportHeader, options: { onlyFailed?: boolean }): Promise<ReportSink> {
  if (format === 'json') return new JsonReportWriter(sink, header);
  if (format === 'csv') return new CsvReportWriter(sink, options.onlyFailed ?? false);
  const { JunitReportWriter } = await import('../report/junit-report-writer.js');
  return new JunitReportWriter(sink, header);
}

/** On a terminal the counts are a small table; in logs and pipes one plain, greppable line. */
async function countsRenderer(deps: CommandDeps): Promise<((summary: ReportSummary, dryRun: boolean) => string) | undefined> {
  if (!deps.isTTY) return undefined;
  const [{ renderRunSummaryTable }, { colorEnabled }] = await Promise.all([import('./run-summary-table.js'), import('./table-format.js')]);
  const color = colorEnabled({ isTTY: deps.isTTY, env: deps.env });
  const width = (deps.progressStream as { columns?: number } | undefined)?.columns;
  return (summary, dryRun) => renderRunSummaryTable(summary, { color, dryRun, width });
}

export interface OpenReport {
  builder: RunReportBuilder;
  /** Writes the summaries and puts the report file in place. */
  close(): Promise<void>;
  /** Drops a half-written report file (the run ended before any report could be complete). */
  discard(): Promise<void>;
}

/**
 * The run report's destinations: the JSON document on stdout with --json, the --report file,
 * and always the human summary on stderr.
 */
export async function openRunReport(
  header: ReportHeader,
  options: GlobalOptions & { onlyFailed?: boolean },
  deps: CommandDeps,
): Promise<OpenReport> {
  const sinks: ReportSink[] = [];
  const buffers: BufferedSink[] = [];
  const buffered = (target: TextSink): BufferedSink => {
    const sink = new BufferedSink(target);
    buffers.push(sink);
    return sink;
  };
  // A dry run reads its input once, so a structural error late in the file comes after items
  // were reported: its document reaches stdout only once the run completed, never half of it.
  // A real run checked the structure first and streams (a consumer sees sending under way).
  const spool = options.json && header.dryRun ? new SpoolSink(deps.stdout) : undefined;
  if (options.json) sinks.push(new JsonReportWriter(buffered(spool ?? deps.stdout), header));
  let file: Pick<AtomicFile, 'commit' | 'discard'> | undefined;
  if (options.report !== undefined) {
    const format = reportFormatOf(options.report);
    const path = resolve(deps.cwd, options.report);
    if (format === 'xlsx') {
      // The workbook writer streams its own zip: no text sink in between (exceljs loads here only).
      const { openXlsxReportFile } = await import('../report/xlsx-report-writer.js');
      const workbook = await openXlsxReportFile(path, { onlyNotOk: options.onlyFailed ?? false });
      file = workbook;
      sinks.push(workbook.sink);
    } else {
      const text = await openAtomicFile(path);
      file = text;
      const sink = buffered(text.sink);
      sinks.push(await reportSinkOf(format, sink, header, options));
    }
  }
  if (githubActionsEnabled(deps.env)) sinks.push(new GithubAnnotationsWriter(deps.stderr, { cwd: deps.cwd, workspace: deps.env.GITHUB_WORKSPACE }));
  sinks.push(new HumanSummaryWriter(deps.stderr, header, await countsRenderer(deps), { reportFile: options.report }));
  const builder = new RunReportBuilder(sinks);
  return {
    builder,
    async close() {
      await builder.finish();
      for (const buffer of buffers) await buffer.flush();
      try {
        await file?.commit();
      } catch (error) {
        await spool?.discard();
        throw error;
      }
      await spool?.commit();
    },
    async discard() {
      await file?.discard();
      await spool?.discard();
    },
  };
}
