import type { ApiResult, CallOptions, IntegrationApi, PlannedAction } from '../api/integration-api.js';
import { errorsOf } from '../api/envelope-errors.js';
import type { Problem, Validation } from '../domain/problem.js';
import { InterruptedError, UsageError } from '../errors.js';
import { recordBatches, reportStatusOf, type BatchedRecords } from '../input/index.js';
import type { InputRecord, SourceRef } from '../input/record.js';
import { exitCodeFor, type ReportEntry, type SourceRow } from '../report/report-writers.js';
import type { ItemStatus } from '../report/run-report.js';
import { noInput, promptIoOf, promptsAllowed, type CommandDeps, type GlobalOptions } from './context.js';
import { checkReportOption, openRunReport, type OpenReport } from './output.js';
import { createProgress, progressEnabled } from './progress.js';
import { openTargetApi, resolveTarget, type ResolvedTarget } from './target.js';

/** One thing to send: a user, a collection, a whole schedule request... with where it came from. */
export interface Unit<P> {
  source: SourceRef;
  id: string | null;
  prepared: Validation<P>;
  /** The CSV rows behind the unit, for a CSV report that gives them back. */
  rows?: SourceRow[];
}

/** What the target said about one unit, in report terms. */
export interface Outcome {
  status: Exclude<ItemStatus, 'skipped'>;
  errors: Problem[];
  /** Replaces the unit's id when the service chose it (generated schedule or collection id). */
  id?: string;
  action?: PlannedAction;
}

export interface RecordJob<P> {
  command: string;
  /**
   * Reads the input. A real run calls it twice: first to the end for structure only (an
   * InputFileError ends the run before anything is sent or created), then again to send.
   * A dry run sends nothing and reads once; its report is held back until the read completed.
   */
  records(): AsyncIterable<InputRecord>;
  /** Turns records into units (coercion, grouping, local validation). */
  units(records: AsyncIterable<InputRecord>): AsyncIterable<Unit<P>>;
  /**
   * The same as `units` for a job whose every record is one unit, as a plain function: the run
   * then takes records in batches and spends no promise per record unless it sends.
   */
  unit?(record: InputRecord): Unit<P>;
  send(api: IntegrationApi, payload: P, options: CallOptions): Promise<Outcome>;
  /** True when each record is one unit, so the record count is the progress line's total. */
  oneUnitPerRecord?: boolean;
  /**
   * What the remote confirmation says will be sent, when a unit is not one record (schedule
   * push: "3 schedules (120 candidates)"); reads the given records (the structure is sound by
   * then). Default: the record count.
   */
  describeSend?(records: AsyncIterable<InputRecord>): Promise<string>;
}

export interface RunOptions extends GlobalOptions {
  onlyFailed?: boolean;
}

/**
 * In flight at once on the local engine: the store group-commits what is queued, so this is
 * about the records per fsync. 64 made a 100k-user sync ~1,560 fsyncs (10-15 s); 256 makes
 * ~390 (~5 s on a loaded 2-core machine); 1024 was no faster and used more memory and CPU.
 */
const LOCAL_CONCURRENCY = 256;

/** Answered items waiting behind an unanswered one; bounds memory when most items need no call. */
const MAX_PENDING = 1024;

/** One item of the reorder buffer: its entry once known, and the call's answer while it is pending. */
interface Slot {
  entry?: ReportEntry;
  answer?: Promise<ReportEntry>;
}

function isNotOk(record: InputRecord): boolean {
  return reportStatusOf(record)?.trim().toLowerCase() !== 'ok';
}

/**
 * input -> coerce -> validate -> target -> run report. Returns the exit code of a completed
 * run (0/1); throws TargetError (3) or InterruptedError (130) after the report is written.
 */
export async function runRecords<P>(job: RecordJob<P>, options: RunOptions, deps: CommandDeps): Promise<number> {
  checkReportOption(options);
  const maxErrors = options.maxErrors;
  const dryRun = options.dryRun ?? false;
  const onlyFailed = options.onlyFailed ?? false;
  // Told the input's header when --only-failed passes over a row, so an empty CSV report keeps it.
  let onHeader: ((header: readonly string[]) => void) | undefined;
  const read = (): AsyncIterable<InputRecord> => (onlyFailed ? notOkRows(job.records(), (header) => onHeader?.(header)) : job.records());
  if (onlyFailed) await checkIsRunReport(job.records());

  // A real run checks the whole file's structure before anything is sent or created. A dry run
  // sends nothing, so it reads once and counts as it goes; a structural error late in the file
  // still ends it with exit 2 and no report (stdout and report files are held back until the end).
  let recordCount: number | undefined;
  if (!dryRun) {
    const source: AsyncIterable<InputRecord> & Partial<BatchedRecords> = job.records();
    if (source.countRecords !== undefined) recordCount = await source.countRecords(onlyFailed);
    else {
      recordCount = 0;
      for await (const batch of recordBatches(source)) {
        if (!onlyFailed) recordCount += batch.length;
        else for (const record of batch) if (isNotOk(record)) recordCount += 1;
      }
    }
  }

  const sendCount = async (): Promise<string> => {
    if (job.describeSend !== undefined) return job.describeSend(read());
    const count = recordCount ?? 0;
    return `${count} ${count === 1 ? 'record' : 'records'}`;
  };
  const { api, report, target } = await openRun(job.command, sendCount, options, deps);
  let headerTold = false;
  onHeader = (header) => {
    if (headerTold) return;
    headerTold = true;
    report.builder.sourceHeader(header);
  };
  const progress = createProgress({
    enabled: deps.progressStream !== undefined && progressEnabled({ isTTY: deps.isTTY, json: options.json ?? false, env: deps.env }),
    stream: deps.progressStream ?? process.stderr,
    total: job.oneUnitPerRecord ? recordCount : undefined,
    label: job.command,
  });
  const emit = (entry: ReportEntry): void | Promise<void> => {
    progress.tick(entry.item.status);
    return report.builder.add(entry);
  };
  const window = target.kind === 'local' ? LOCAL_CONCURRENCY : target.remote.concurrency;
  const callOptions: CallOptions = dryRun ? { dryRun: true } : {};
  let failures = 0;
  let stop: 'max-errors' | 'interrupted' | Error | undefined;
  // Items in input order. A slot without its entry is an unanswered call (at most `window`).
  // Reporting waits for the oldest answer (input order); sending waits only for a free slot,
  // so one slow request does not idle the other connections.
  const pending: Slot[] = [];
  let inFlight = 0;
  let wakeSender: (() => void) | undefined;
  const skipped = (unit: Unit<P>, errors: Problem[] = []): ReportEntry => ({
    item: { source: unit.source, id: unit.id, status: 'skipped', errors },
    rows: unit.rows,
  });

  const countFailure = (): void => {
    failures += 1;
    if (maxErrors !== undefined && failures >= maxErrors && stop === undefined) stop = 'max-errors';
  };

  // Synchronous unless the unit is sent: validation-only items cost no promise.
  const dispatch = (unit: Unit<P>): ReportEntry | Promise<ReportEntry> => {
    if (stop === undefined && deps.signal?.aborted) stop = 'interrupted';
    if (stop !== undefined) return skipped(unit);
    if (!unit.prepared.ok) {
      countFailure();
      return { item: { source: unit.source, id: unit.id, status: 'failed', errors: unit.prepared.problems }, rows: unit.rows };
    }
    if (api === null) return { item: { source: unit.source, id: unit.id, status: 'ok', errors: [] }, rows: unit.rows };
    const payload = unit.prepared.value;
    return job.send(api, payload, callOptions).then(
      (outcome): ReportEntry => {
        if (outcome.status === 'failed') countFailure();
        const item = { source: unit.source, id: outcome.id ?? unit.id, status: outcome.status, errors: outcome.errors };
        return { item: outcome.action ? { ...item, action: outcome.action } : item, rows: unit.rows };
      },
      (error: unknown): ReportEntry => {
        // The target itself failed (403, network, store locked) or examctl did: stop, report, then end the run.
        const fatal = error instanceof Error ? error : new Error(String(error));
        if (!(stop instanceof Error)) stop = fatal;
        return skipped(unit, [{ field: '', code: null, message: fatal.message }]);
      },
    );
  };

  /** Emits the oldest item, waiting for its answer when it is a call. */
  const emitHead = async (): Promise<void> => {
    const head = pending.shift() as Slot;
    await emit(head.entry ?? ((await head.answer) as ReportEntry));
  };

  /** Emits what is answered at the head; waits while the window or the reorder buffer is full. */
  const settle = (): void | Promise<void> => {
    while (pending.length > 0 && pending[0]!.entry !== undefined) {
      const wait = emit((pending.shift() as Slot).entry as ReportEntry);
      if (wait !== undefined) return wait.then(settle);
    }
    if (pending.length >= MAX_PENDING) return emitHead().then(settle);
    if (inFlight >= window) return new Promise<void>((wake) => (wakeSender = wake)).then(settle);
  };

  /** Dispatches one unit; returns a promise only when the caller must wait (window full, back-pressure). */
  const accept = (unit: Unit<P>): void | Promise<void> => {
    const result = dispatch(unit);
    if (!(result instanceof Promise)) {
      if (pending.length === 0) return emit(result);
      pending.push({ entry: result });
      return settle();
    }
    const slot: Slot = {
      answer: result.then((entry) => {
        slot.entry = entry;
        inFlight -= 1;
        const wake = wakeSender;
        wakeSender = undefined;
        wake?.();
        return entry;
      }),
    };
    inFlight += 1;
    pending.push(slot);
    return settle();
  };

  try {
    if (job.unit !== undefined) {
      const unitOf = job.unit.bind(job);
      for await (const batch of recordBatches(job.records())) {
        for (const record of batch) {
          if (onlyFailed && !isNotOk(record)) {
            if (!headerTold && record.raw !== undefined) onHeader(record.raw.header);
            continue;
          }
          const wait = accept(unitOf(record));
          if (wait !== undefined) await wait;
        }
      }
    } else {
      for await (const unit of job.units(read())) {
        const wait = accept(unit);
        if (wait !== undefined) await wait;
      }
    }
    while (pending.length > 0) await emitHead();
  } catch (error) {
    progress.stop();
    await Promise.allSettled(pending.map((slot) => slot.answer));
    await api?.close();
    await report.discard();
    throw error;
  }
  progress.stop();
  await api?.close();
  await report.close();

  if (stop === 'interrupted') throw new InterruptedError('interrupted: in-flight work finished, the rest was not sent (see the report)');
  if (stop instanceof Error) throw stop;
  if (stop === 'max-errors') await deps.stderr.write(`stopped after ${maxErrors} failed: the rest was skipped (--max-errors)\n`);
  return exitCodeFor(report.builder.summary);
}

export interface OpenedRun {
  target: ResolvedTarget;
  /** null: validate only (dry run without a store, or remote dry run). */
  api: IntegrationApi | null;
  report: OpenReport;
}

/**
 * Everything between "the input is structurally sound" and "send": the target, the remote
 * confirmation, the API (creating the local store on first use) and the report destinations.
 */
export async function openRun(
  command: string,
  sendCount: number | (() => Promise<string>),
  options: RunOptions,
  deps: CommandDeps,
): Promise<OpenedRun> {
  const dryRun = options.dryRun ?? false;
  const target = await resolveTarget(options, deps);
  const describe = typeof sendCount === 'number' ? async () => `${sendCount} ${sendCount === 1 ? 'record' : 'records'}` : sendCount;
  if (!dryRun) await confirmRemote(command, target, describe, options, deps);
  const api = await (deps.openApi ?? openTargetApi)(target, { dryRun, deps });
  try {
    const report = await openRunReport({ command, target: target.report, dryRun }, options, deps);
    return { target, api, report };
  } catch (error) {
    await api?.close();
    throw error;
  }
}

/** Before sending to a remote target: a person confirms, or --yes says so up front. */
async function confirmRemote(
  command: string,
  target: ResolvedTarget,
  describe: () => Promise<string>,
  options: GlobalOptions,
  deps: CommandDeps,
): Promise<void> {
  if (target.kind !== 'remote' || options.yes) return;
  if (!promptsAllowed(options, deps)) {
    const why = noInput(options, deps) ? 'with --no-input (or CI=true)' : 'without a terminal';
    throw new UsageError(`sending to remote ${target.baseUrl} needs confirmation: add --yes (${why})`);
  }
  // What, how many, where: enough to catch the wrong file or the wrong profile before anything leaves.
  // Counted only now: a job that groups records (schedule push) reads its input again for it.
  const question = `${command}: ${await describe()} to send to remote ${target.baseUrl} (records that fail the local checks are not sent).`;
  const confirmed = deps.confirm ? await deps.confirm(question) : await (await import('./prompts.js')).confirmSend(question, promptIoOf(deps));
  if (!confirmed) throw new UsageError('not confirmed: nothing was sent');
}

/** --only-failed on a run report CSV: the rows whose status column says anything but ok. */
async function* notOkRows(records: AsyncIterable<InputRecord>, onSkippedHeader: (header: readonly string[]) => void): AsyncIterable<InputRecord> {
  for await (const record of records) {
    if (reportStatusOf(record)?.trim().toLowerCase() === 'ok') {
      if (record.raw !== undefined) onSkippedHeader(record.raw.header);
      continue;
    }
    yield record;
  }
}

/**
 * --only-failed reads a run report CSV (from --report x.csv). Any other file (the original
 * CSV picked by mistake, JSON) has no status to go by and would re-send every record: a usage
 * error before anything is created or sent. Reads only up to the first record.
 */
async function checkIsRunReport(records: AsyncIterable<InputRecord>): Promise<void> {
  for await (const record of records) {
    if (reportStatusOf(record) !== undefined) return;
    const file = record.source.file;
    throw notARunReport(record.raw === undefined ? `${file} is not a CSV file` : `no status column in ${file}`);
  }
}

/** The usage error for --only-failed on a file that is not a run report CSV. */
export function notARunReport(why: string): UsageError {
  return new UsageError(`--only-failed needs a run report CSV (written by --report x.csv): ${why}`);
}

/**
 * A service answer in report terms: Success false is a failure with every error it gave (unless
 * a lost attempt already created the entity: ok with the client's note); Success true is ok, or
 * partial when the content carries per-entry problems.
 */
export function outcomeOf<T>(result: ApiResult<T>, partialProblems: (content: T) => Problem[] = () => []): Outcome {
  const action = result.action;
  const note: Problem[] = result.note ? [{ field: '', code: null, message: result.note }] : [];
  if (!result.envelope.Success && result.createdByLostAttempt !== true) return withAction({ status: 'failed', errors: [...failureProblems(result), ...note] }, action);
  const content = result.envelope.Content;
  const problems = content === null || content === undefined ? [] : partialProblems(content);
  return withAction({ status: problems.length > 0 ? 'partial' : 'ok', errors: [...problems, ...note] }, action);
}

/** Every error of a `Success: false` answer; never empty, so a failed item always says why. */
export function failureProblems(result: ApiResult<unknown>): Problem[] {
  const errors = errorsOf(result.envelope);
  return errors.length > 0 ? errors : [{ field: '', code: null, message: `the service answered Success: false (HTTP ${result.status}) without an error message` }];
}

function withAction(outcome: Outcome, action: PlannedAction | undefined): Outcome {
  return action ? { ...outcome, action } : outcome;
}
