import { ErrorCode } from '../domain/codes.js';
import type { ApiResult, CallOptions, IntegrationApi } from '../port/integration-api.js';
import { say } from '../formats/terminal-text.js';
import { RunJournalWriteError } from '../runs/run-errors.js';
import { exitCodeFor, keptHeader } from '../report/report-writers.js';
import { reportFormatOf } from '../report/report-file.js';
import type { InputRecord } from '../input/record.js';
import type { Problem } from '../domain/problem.js';
import { resolveSettings } from '../context/settings.js';
import { pipedInputWay, type ReportEntry } from '../report/run-report.js';
import { counted, formatCount } from '../formats/number-format.js';
import {
  CLOSED_PIPE,
  ClosedPipeError,
  errorLine,
  ExamctlError,
  InputFileError,
  InputRefusedError,
  InterruptedError,
  NeverSentTargetError,
  ReportWriteError,
  TargetError,
  TransientTargetError,
  UsageError,
} from '../system/errors.js';
import type { CodeOfExit } from '../system/error-codes.js';
import type { CommandDeps } from '../context/command-deps.js';
import type { TargetOf } from '../context/resolved-target.js';
import { checkReportOption, openRunReport } from './report-sinks.js';
import { createRunProgress, progressEnabled, type Progress } from '../terminal/progress.js';
import { colorEnabled } from '../terminal/table-format.js';
import { AfterWrites } from './after-writes.js';
import { InOrderScheduler } from './in-order-scheduler.js';
import { openRun } from './open-run.js';
import { RecordDispatcher } from './record-dispatcher.js';
import type { RecordJob, RunOptions, RunOutcome, Unit } from './record-job.js';
import { RecordSource } from './record-source.js';
import { LOCAL_CONCURRENCY } from '../defaults.js';
import { firstRecord } from './command-input.js';

/** Answered items waiting behind an unanswered one; bounds memory when most items need no call. */
const MAX_PENDING = 1024;

/** Records in the first piece at least: a window of 1 must not cost an await per record. */
const MIN_PIECE = 16;

/** A run in named steps (docs/architecture.md, "The life of a record"); exit 2 before any send, 3 or 130 after. */
export async function runPipeline<P, R = never>(
  job: RecordJob<P, R>,
  options: RunOptions,
  deps: CommandDeps,
  targetOf: TargetOf,
): Promise<RunOutcome<R>> {
  await checkReportOption(options, deps);
  const dryRun = options.dryRun ?? false;
  const planOut = typeof deps.invocation?.planOut === 'string' ? deps.invocation.planOut : undefined;
  const planning = planOut !== undefined || deps.applying !== undefined ? await import('./plan-tap.js') : undefined;
  if (planOut !== undefined && !dryRun)
    throw new UsageError(
      `--plan-out goes with --dry-run: a dry run writes the plan, examctl apply ${planOut} sends it`,
    );
  const onlyFailed = (options.onlyFailed ?? false) && job.readsOnlyFailedItself !== true;
  const input = new RecordSource(() => job.records(), onlyFailed, job.command);
  await input.checkIsRunReport();
  // A dry run reads once: a late structural error still ends it with exit 2 and no report (outputs are held back).
  const total = dryRun ? undefined : await input.checkStructure();
  await checkReportFits(() => input.records(), total, options);
  const describeSend = async (): Promise<string | { plan: string }> => {
    // A resume's plan would count what its journal settled: it says what is left instead.
    if (job.describePlan && deps.resume === undefined) return { plan: await job.describePlan(input.records()) };
    if (job.confirmAction !== undefined && deps.resume === undefined) {
      const holding = job.describeSend ? await job.describeSend(input.records()) : undefined;
      return { plan: await unitPlanWords(job.units(input.batches()), job.confirmAction, holding) };
    }
    const what = job.describeSend ? await job.describeSend(input.records()) : counted(total ?? 0, 'record');
    const kept = deps.resume === undefined ? 0 : deps.resume.plan.keptBelow(total ?? 0);
    if (kept === 0) return what;
    const run = deps.resume?.record.id;
    if (job.describeSend)
      return `${what}, of which ${formatCount(kept)} already settled by run ${run} (kept, not sent again)`;
    return `${counted(Math.max(0, (total ?? 0) - kept), 'record')} left of ${formatCount(total ?? 0)} (run ${run}: ${formatCount(kept)} settled, kept)`;
  };
  // Where the store and memory stand before the memory is read (docs/plan.md).
  const plan = planOut === undefined ? undefined : await planning!.PlanTap.open(job.command, planOut, deps, targetOf);
  try {
    await job.prepare?.();
  } catch (error) {
    await plan?.discard();
    throw await writeRefusedRun(job, input, options, deps, targetOf, error);
  }
  const unitTotal = total === undefined ? undefined : job.unitCount?.(total);
  const { api, report, target, journal } = await openRun(job, describeSend, options, deps, targetOf, unitTotal).catch(
    async (error: unknown) => {
      await plan?.discard();
      throw error;
    },
  );
  job.opened?.(api);
  input.tellHeaderTo((header, dialect) => report.builder.sourceHeader(header, dialect));
  const progress = runProgress(job, unitTotal, options, deps);
  const callOptions: CallOptions = dryRun ? { dryRun: true } : {};
  const window = job.sendsTogether ? Infinity : target.kind === 'local' ? LOCAL_CONCURRENCY : target.remote.concurrency;
  const remote = target.kind === 'remote' && job.sendsTogether !== true ? target.remote : undefined;
  const scheduler = new InOrderScheduler<ReportEntry>({
    // A remote window may widen mid-run (the default toward `local serve`, context/target.ts).
    get window() {
      return remote?.concurrency ?? window;
    },
    maxBuffered: job.sendsTogether ? Infinity : MAX_PENDING,
    emit(entry) {
      progress.tick(entry.item.status);
      if (plan === undefined) return report.builder.add(entry);
      return plan.entry(entry).then(() => report.builder.add(entry));
    },
  });
  const afterWrites = new AfterWrites();
  const dispatcher = new RecordDispatcher(job, {
    api: api !== null && remote !== undefined ? answersInTurns(api, scheduler, afterWrites) : api,
    callOptions,
    maxErrors: options.maxErrors,
    signal: deps.signal,
    stopWhen: () => report.failure() ?? units.inputFailed,
    journal,
    // Why 256 ahead, and what it costs: docs/runs.md, "Sent ahead".
    recordAhead: job.sendsTogether ? 0 : Math.max(256, window),
    piped: deps.invocation?.file === '-',
  });

  // Read a piece at a time, the next while requests are in flight (docs/runs.md, "Sent ahead").
  const sends = !dryRun && api !== null && job.sendsTogether !== true;
  const ahead = sends ? Math.max(64, window) : 0;
  const piece = Math.max(MIN_PIECE, window);
  const read = job.units(input.batches(sends ? { first: piece, then: Math.max(piece, ahead) } : undefined));
  const jobUnits =
    plan !== undefined ? plan.watch(read) : deps.applying !== undefined ? planning!.guarded(read, deps.applying) : read;
  // --strict: a warned record fails before anything of it is sent (failingWarned, below).
  const units = new UnitQueue(
    (await warningsFail(options, deps)) ? failingWarned(jobUnits) : jobUnits,
    (next) => dispatcher.expect(next),
    !dryRun,
  );
  try {
    // After the run says its target and settings, which a dry run's header error follows.
    await job.readIds?.(input.records());
    if (journal !== undefined) await job.started?.(journal.id, journal.startHead);
    await dispatchAll(units, scheduler, dispatcher, afterWrites, ahead);
  } catch (error) {
    await plan?.discard();
    await units.close().catch(() => undefined);
    progress.stop();
    await scheduler.abandon();
    await api?.close();
    await report.discard();
    await journal?.close();
    throw error;
  }
  progress.stop();
  await api?.close();
  const retries = api?.retryCounts?.();
  const summary = report.builder.summary;
  if (retries !== undefined) Object.assign(summary, { retried: retries.total, retriedByCause: retries.byCause });
  // Units of the checked file not read again (it changed): skipped, counted, not listed (as by `runs show`).
  if (units.inputFailed !== undefined && unitTotal !== undefined)
    Object.assign(summary, { total: unitTotal, skipped: summary.skipped + unitTotal - summary.total });
  const stop = dispatcher.stopReason ?? (units.inputFailed && { kind: 'target-failed', error: units.inputFailed });
  // Retries after an answer with a status (503, 429...): those requests reached the service.
  const retriedStatuses = Object.entries(retries?.byCause ?? {}).reduce(
    (sum, [cause, count]) => (/^\d{3}$/.test(cause) ? sum + count : sum),
    0,
  );
  const rebuildHint =
    journal === undefined || options.report === undefined
      ? ''
      : `; examctl runs show ${journal.id} --report ${options.report} writes the report again`;
  const closedPipe = stop?.kind === 'interrupted' && deps.signal?.reason === CLOSED_PIPE;
  const resumeHint =
    journal === undefined
      ? ''
      : deps.invocation?.file === '-'
        ? ` (this run ${pipedInputWay(journal.id)})`
        : ` (examctl runs resume ${journal.id} sends the rest)`;
  // Sent, their answer lost at the interrupt's grace or unreadable after it: they may have been applied.
  const unanswered = dispatcher.lost + dispatcher.unreadable;
  const stopError = closedPipe
    ? new ClosedPipeError(`output closed: in-flight work finished, the rest was not sent${resumeHint}`)
    : stop?.kind === 'interrupted'
      ? new InterruptedError(
          unanswered > 0
            ? `interrupted: ${unanswered} ${unanswered === 1 ? 'request' : 'requests'} sent got no whole answer before the grace ended, so ${unanswered === 1 ? 'it' : 'they'} may have been applied; the rest was not sent (see the report)${resumeHint}`
            : dispatcher.answered === 0 && retriedStatuses === 0
              ? `interrupted before sending: nothing was sent${resumeHint}`
              : dispatcher.answered === 0
                ? // Requests went out and were answered "try again later" (a 503, a 429): not done, but not "nothing was sent".
                  `interrupted while waiting to retry: the service answered ${counted(retriedStatuses, 'request')} with "try again later" (not done); the rest was not sent (see the report)${resumeHint}`
                : `interrupted: in-flight work finished, the rest was not sent (see the report)${resumeHint}`,
          { code: unanswered > 0 ? 'E1301' : 'E1300' },
        )
      : stop?.kind === 'target-failed'
        ? withWayBack(stop.error, resumeHint, rebuildHint, dispatcher.answered)
        : unreadableAnswers(dispatcher.unreadable, journal?.id);
  // Stored before the sinks complete: its failure is the run's error in each (docs/ci.md), unless it stopped otherwise.
  const endFailure = await job.ending?.().then(
    () => undefined,
    (error: unknown) => error,
  );
  if (stopError !== undefined && endFailure !== undefined) await say(deps, errorLine(endFailure));
  // Not stored at the end: the run stays resumable, and its resume stores it (docs/sync.md, "Exit codes").
  const unstored = stopError === undefined && endFailure instanceof Error ? endFailure : undefined;
  if (unstored !== undefined && journal !== undefined)
    unstored.message += `; once it can be written, examctl runs resume ${journal.id} stores it`;
  const runError = stopError ?? endFailure;
  if (plan !== undefined && runError === undefined) {
    try {
      await plan.finish();
    } catch (error) {
      await report.discard();
      throw error;
    }
  } else await plan?.discard();
  if (runError !== undefined) report.builder.stopped(runError);
  try {
    await report.close();
  } catch (error) {
    await journal?.close();
    throw error;
  }
  try {
    await journal?.end(
      stop?.kind === 'target-failed' || stopError instanceof TransientTargetError || unstored !== undefined
        ? 'target-error'
        : stop === undefined
          ? 'completed'
          : closedPipe
            ? 'closed-pipe'
            : stop.kind,
      summary,
      stopError,
      dispatcher.answered + unanswered === 0 &&
        (deps.resume === undefined || deps.resume.record.end?.stopped === 'refused'),
    );
  } catch (error) {
    // A journal that failed mid-run takes no end line either: the run stays resumable.
    if (stopError instanceof RunJournalWriteError) throw stopError;
    // It failed after the last record went: the report is whole, the journal is not.
    if (error instanceof RunJournalWriteError)
      throw new RunJournalWriteError(
        `${error.message}: every record was processed (see the report), the run's record is incomplete${resumeHint}`,
      );
    throw error;
  }
  const reportFailure = report.failure();
  // Stopped for something else while the report file failed too: that stop keeps its exit code.
  if (runError !== undefined && reportFailure !== undefined && !(runError instanceof ReportWriteError)) {
    await say(deps, `${errorLine(reportFailure)}: ${reportFileFate(reportFailure, rebuildHint)}`);
  }
  if (runError !== undefined) throw runError;
  if (reportFailure !== undefined) {
    throw new ReportWriteError(
      `${reportFailure.message}: every record was processed, ${reportFileFate(reportFailure, rebuildHint)}`,
      { keptAt: reportFailure.keptAt },
    );
  }
  // Requests already in flight when the limit was reached still finish: their failures count in the summary.
  if (stop?.kind === 'max-errors') {
    const inFlight =
      summary.failed > (options.maxErrors ?? 0)
        ? `, ${summary.failed} failed in all (requests already in flight finished)`
        : '';
    await say(deps, `stopped sending at ${options.maxErrors} failed (--max-errors)${inFlight}: the rest was skipped`);
  }
  // A signal once every record was in flight: nothing was left unsent, so the run finished (docs/runs.md).
  if (stop === undefined && deps.signal?.aborted === true) {
    await say(
      deps,
      dryRun
        ? 'interrupted after every record was checked: the dry run is complete'
        : 'interrupted after every record was sent: all of them finished, so the run is complete (nothing left to resume)',
    );
  }
  return {
    exitCode: exitCodeFor(summary),
    summary,
    remembered: dispatcher.remembered,
  };
}

/** Every unit dispatched in input order, then every answer reported; its own function so V8 optimizes this body. */
async function dispatchAll<P, R>(
  units: UnitQueue<P>,
  scheduler: InOrderScheduler<ReportEntry>,
  dispatcher: RecordDispatcher<P, R>,
  afterWrites: AfterWrites,
  ahead: number,
): Promise<void> {
  let readingAhead = false;
  const readAhead = (): void => {
    readingAhead = false;
    void units.fill(ahead);
  };
  for (;;) {
    // Synchronous while units are at hand: a job that sends its units together sees them in one turn.
    const unit = units.take();
    if (unit === undefined) {
      if (await units.read()) continue;
      break;
    }
    const wait = scheduler.accept(dispatcher.dispatch(unit));
    if (units.announced < ahead && !readingAhead && units.reading === undefined) {
      readingAhead = true;
      afterWrites.add(readAhead);
    }
    afterWrites.behind();
    if (wait !== undefined) await wait;
  }
  await scheduler.drain();
}

/** The API as a run's dispatcher sees it (bench/README.md, "Session 40: sending"). */
function answersInTurns(
  api: IntegrationApi,
  slots: Pick<InOrderScheduler<ReportEntry>, 'answered' | 'retake'>,
  afterWrites: AfterWrites,
): IntegrationApi {
  const inTurns = <T>(call: Promise<ApiResult<T>>): Promise<ApiResult<T>> =>
    call.then((result) => {
      if (result.envelope.Success !== true) return result;
      slots.answered();
      return new Promise<ApiResult<T>>((resolve) => afterWrites.add(() => (slots.retake(), resolve(result))));
    });
  return {
    createSchedule: (request, options) => inTurns(api.createSchedule(request, options)),
    getReviewSession: (externalId, options) => inTurns(api.getReviewSession(externalId, options)),
    addCollection: (request, options) => inTurns(api.addCollection(request, options)),
    upsertUser: (request, options) => inTurns(api.upsertUser(request, options)),
    removeInvigilators: (scheduleExtId, userExtIds, options) =>
      inTurns(api.removeInvigilators(scheduleExtId, userExtIds, options)),
    close: () => api.close(),
  };
}

/** The job's units in input order, each piece announced as read; a read ahead that failed fails the next `take`. */
class UnitQueue<P> {
  private readonly source: AsyncIterator<readonly Unit<P>[]>;
  private piece: readonly Unit<P>[] = [];
  private at = 0;
  private readonly later: (readonly Unit<P>[])[] = [];
  private ended = false;
  private failure: { error: unknown } | undefined;
  reading: Promise<boolean> | undefined;
  announced = 0;
  /** A real run's input failing once checked (it changed): the end of its units, the run's stop. */
  inputFailed: InputFileError | undefined;

  constructor(
    units: AsyncIterable<readonly Unit<P>[]>,
    private readonly onPiece: (piece: readonly Unit<P>[]) => void,
    private readonly realRun: boolean,
  ) {
    this.source = units[Symbol.asyncIterator]();
  }

  /** The next unit read, or undefined when none is at hand. */
  take(): Unit<P> | undefined {
    if (this.failure !== undefined) throw this.failure.error;
    while (this.at === this.piece.length) {
      const later = this.later.shift();
      if (later === undefined) return undefined;
      this.piece = later;
      this.at = 0;
    }
    this.announced -= 1;
    return this.piece[this.at++];
  }

  /** Reads pieces until `count` units are at hand or the input ended; a failure is kept for `take`. */
  async fill(count: number): Promise<void> {
    try {
      while (this.announced < count && (await this.read()));
    } catch (error) {
      this.failure ??= { error };
    }
  }

  /** Stops reading (the input's file is closed). */
  async close(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.reading?.catch(() => undefined);
    await this.source.return?.();
  }

  /** Reads the next non-empty piece; false at the end of the input. */
  read(): Promise<boolean> {
    if (this.failure !== undefined) return Promise.reject(this.failure.error);
    if (this.ended) return Promise.resolve(false);
    return (this.reading ??= this.readPiece());
  }

  private async readPiece(): Promise<boolean> {
    try {
      while (!this.ended) {
        const next = await this.source.next();
        if (next.done === true) {
          this.ended = true;
          break;
        }
        if (next.value.length === 0) continue;
        this.onPiece(next.value);
        this.later.push(next.value);
        this.announced += next.value.length;
        return true;
      }
      return false;
    } catch (error) {
      if (!this.realRun || !(error instanceof InputFileError)) throw error;
      this.inputFailed = error;
      return false;
    } finally {
      this.reading = undefined;
    }
  }
}

/** Answers lost after a 2xx: exit 3 (docs/runs.md, "Honest ends"). */
function unreadableAnswers(count: number, run: string | undefined): TransientTargetError | undefined {
  if (count === 0) return undefined;
  const resumeHint =
    run === undefined ? '' : ` (examctl runs resume ${run} sends ${count === 1 ? 'it' : 'them'} again)`;
  return new TransientTargetError(
    `${counted(count, 'answer')} of the service could not be read after it said 2xx (too large, cut, or past the answer budget): ` +
      `${count === 1 ? 'that record' : 'those records'} may have been applied (see the report)${resumeHint}`,
  );
}

/** A run `prepare` refused: its documents (docs/ci.md, "`--json` on exit 2 or 3"). */
async function writeRefusedRun<P, R>(
  job: RecordJob<P, R>,
  input: RecordSource,
  options: RunOptions,
  deps: CommandDeps,
  targetOf: TargetOf,
  error: unknown,
): Promise<unknown> {
  if (
    !(error instanceof ExamctlError) ||
    error instanceof InterruptedError ||
    (error.exitCode !== 2 && error.exitCode !== 3)
  )
    return error;
  // The input itself is at fault: no document, as when the structure pass finds it.
  if (error instanceof InputFileError && !(error instanceof InputRefusedError)) return error;
  let report: Awaited<ReturnType<typeof openRunReport>>;
  try {
    const target = await targetOf();
    const syncMemory = job.syncMemory?.();
    const header = { command: job.command, target: target.report, dryRun: options.dryRun ?? false, syncMemory };
    // A resume refused leaves the run's --report file as the run left it (its report, not this refusal's).
    report = await openRunReport(
      header,
      deps.resume === undefined ? options : { ...options, report: undefined },
      deps,
      { countsOnly: true },
    );
  } catch {
    return error;
  }
  const reason = [
    {
      field: '',
      code: ErrorCode.NotSentRunStopped,
      message: `not sent: the run was refused: ${firstClause(error.message)}`,
    },
  ];
  let reported = 0;
  try {
    input.tellHeaderTo((header, dialect) => report.builder.sourceHeader(header, dialect));
    for await (const units of job.units(input.batches())) {
      for (const unit of units) {
        await report.builder.add({
          item: { source: unit.source, id: unit.id, status: 'skipped', errors: reason },
          rows: unit.rows,
        });
        reported += 1;
      }
    }
  } catch {
    // Unreadable at all: no documents, as when a real run's structure pass meets it.
    if (reported === 0) {
      await report.discard().catch(() => undefined);
      return error;
    }
  }
  report.builder.stopped(error);
  try {
    await report.close();
  } catch {
    // The refusal is what the run ends with; the report's failure is said below.
  }
  const failure = report.failure();
  if (failure !== undefined) await say(deps, errorLine(failure));
  return error;
}

/** A refusal's first clause, short enough to repeat on every item (the whole message is the run's error). */
function firstClause(message: string): string {
  const end = message.search(/; |\. /);
  const clause = end === -1 ? message : message.slice(0, end);
  return clause.length > 200 ? `${clause.slice(0, 199)}…` : clause;
}

/** What became of a --report file that failed: kept under another name (its final replace failed), or not kept. */
function reportFileFate(failure: ReportWriteError, rebuildHint: string): string {
  if (failure.keptAt === undefined) return `the report file was not kept${rebuildHint}`;
  // Another user's entry now at the name (atomic-file.ts, `planted`) is not closed like a file in Excel.
  const planted = (failure.cause as { planted?: string } | undefined)?.planted !== undefined;
  return `the finished report was kept at ${failure.keptAt}${planted ? '' : ' (move it into place once the file is closed)'}`;
}

/** A run stopped by its own file or by a target that answered some requests first, said with how to finish. */
function withWayBack(error: Error, resumeHint: string, rebuildHint: string, answered: number): Error {
  if (error instanceof RunJournalWriteError)
    return new RunJournalWriteError(
      `${error.message}: the run stopped, in-flight work finished (see the report)${resumeHint}`,
    );
  if (error instanceof ReportWriteError)
    return new ReportWriteError(
      `${error.message}: the run stopped, in-flight work finished, the report file was not kept${resumeHint}${rebuildHint}`,
    );
  if (error instanceof InputFileError)
    return new TargetError(
      `${error.message}: the rest was not sent; to resume, put back the file checked${resumeHint}`,
      { code: 'E3060' },
    );
  if (
    answered > 0 &&
    resumeHint !== '' &&
    (error instanceof NeverSentTargetError || error instanceof TransientTargetError)
  ) {
    const Stopped = error instanceof NeverSentTargetError ? NeverSentTargetError : TransientTargetError;
    return new Stopped(
      `${error.message}: the run stopped there, after ${counted(answered, 'request')} the service answered (see the report)${resumeHint}`,
      { code: error.code as CodeOfExit<3>, cause: error },
    );
  }
  return error;
}

/** The progress line on a terminal; elsewhere a plain stderr line every ~10 s. */
function runProgress(
  job: RecordJob<unknown, unknown>,
  units: number | undefined,
  options: RunOptions,
  deps: CommandDeps,
): Progress {
  return createRunProgress({
    terminal:
      deps.progressStream !== undefined &&
      progressEnabled({ isTTY: deps.isTTY, json: options.json ?? false, env: deps.env }),
    stream: deps.progressStream ?? process.stderr,
    write: (line) => void deps.stderr.write(line),
    total: units,
    label: job.command,
    color: colorEnabled({ isTTY: true, env: deps.env }),
  });
}

/** docs/input-formats.md, "Never past Excel's limits": exit 2, nothing sent. */
async function checkReportFits(
  records: () => AsyncIterable<InputRecord>,
  total: number | undefined,
  options: RunOptions,
): Promise<void> {
  const report = options.report;
  if (report === undefined || reportFormatOf(report) !== 'xlsx') return;
  const header = (await firstRecord(records()))?.raw?.header;
  const [{ SHEET_REPORT_COLUMNS }, { MAX_SHEET_COLUMNS, MAX_SHEET_ROWS }] = await Promise.all([
    import('../report/xlsx-report-writer.js'),
    import('../input/sheet-rows.js'),
  ]);
  const kept = header === undefined ? 0 : keptHeader(header).length;
  const columns = kept + SHEET_REPORT_COLUMNS.length;
  const refusal = (would: string, holds: string) =>
    new UsageError(
      `--report ${report}: the report would have ${would}, more than a sheet holds (${holds}); nothing was sent: write the report as .csv or .json`,
    );
  if (header !== undefined && columns > MAX_SHEET_COLUMNS) {
    throw refusal(
      `${formatCount(columns)} columns (the input's ${formatCount(kept)}, then ${SHEET_REPORT_COLUMNS.join(', ')})`,
      `${formatCount(MAX_SHEET_COLUMNS)}, A to XFD`,
    );
  }
  if (total === undefined || total + 1 <= MAX_SHEET_ROWS) return;
  throw refusal(
    `${formatCount(total + 1)} rows (a header and ${formatCount(total)} records)`,
    formatCount(MAX_SHEET_ROWS),
  );
}

/** Whether a run fails its warned records (docs/cli.md, "--strict"); an unreadable profile says nothing here. */
async function warningsFail(
  options: Pick<RunOptions, 'strict' | 'profile' | 'baseUrl' | 'target' | 'store'>,
  deps: Pick<CommandDeps, 'env' | 'config' | 'runProfile'>,
): Promise<boolean> {
  if (options.strict !== undefined) return options.strict;
  return (await resolveSettings(options, deps, deps.runProfile).catch(() => undefined))?.values.strict?.value === true;
}

/** The units, each one with a warning failed by it (after any problem it had). */
async function* failingWarned<P>(batches: AsyncIterable<readonly Unit<P>[]>): AsyncIterable<readonly Unit<P>[]> {
  for await (const batch of batches) {
    yield batch.some(warned) ? batch.map((unit) => (warned(unit) ? failed(unit) : unit)) : batch;
  }
}

const warned = (unit: Unit<unknown>): boolean => (unit.warnings?.length ?? 0) > 0;

function failed<P>(unit: Unit<P>): Unit<P> {
  const problems = (unit.warnings ?? []).map(
    ({ field, code, message, line }): Problem => ({ field, code, message, ...(line === undefined ? {} : { line }) }),
  );
  return {
    ...unit,
    prepared: { ok: false, problems: unit.prepared.ok ? problems : [...unit.prepared.problems, ...problems] },
  };
}

/** The remote confirmation's plan: `3 to send, 1 invalid (not sent)`, then the rest (docs/plan.md, "At a terminal"). */
async function unitPlanWords<P>(
  units: AsyncIterable<readonly Unit<P>[]>,
  action: NonNullable<RecordJob<P>['confirmAction']>,
  holding?: string,
): Promise<string> {
  let valid = 0;
  let invalid = 0;
  for await (const batch of units) for (const unit of batch) unit.prepared.ok ? (valid += 1) : (invalid += 1);
  return [
    `${formatCount(valid)} to ${action}`,
    ...(invalid > 0 ? [`${formatCount(invalid)} invalid (not sent)`] : []),
    ...(holding === undefined ? [] : [`in all ${holding}`]),
  ].join(', ');
}
