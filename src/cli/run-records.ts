import type { ApiResult, CallOptions, IntegrationApi, PlannedAction } from '../api/integration-api.js';
import { errorsOf } from '../api/envelope-errors.js';
import type { Problem, Validation } from '../domain/problem.js';
import { InterruptedError, UsageError } from '../errors.js';
import { reportStatusOf } from '../input/index.js';
import type { InputRecord, SourceRef } from '../input/record.js';
import { exitCodeFor, type ReportEntry, type SourceRow } from '../report/report-writers.js';
import type { ItemStatus } from '../report/run-report.js';
import { noInput, promptsAllowed, type CommandDeps, type GlobalOptions } from './context.js';
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
   * Reads the input. Called twice on every run: first to the end for structure only (an
   * InputFileError ends the run before anything is sent or created), then again to send.
   */
  records(): AsyncIterable<InputRecord>;
  /** Turns records into units (coercion, grouping, local validation). */
  units(records: AsyncIterable<InputRecord>): AsyncIterable<Unit<P>>;
  send(api: IntegrationApi, payload: P, options: CallOptions): Promise<Outcome>;
  /** True when each record is one unit, so the record count is the progress line's total. */
  oneUnitPerRecord?: boolean;
}

export interface RunOptions extends GlobalOptions {
  onlyFailed?: boolean;
}

/** In flight at once on the local engine: enough for the store to group-commit. */
const LOCAL_CONCURRENCY = 64;

/**
 * input -> coerce -> validate -> target -> run report. Returns the exit code of a completed
 * run (0/1); throws TargetError (3) or InterruptedError (130) after the report is written.
 */
export async function runRecords<P>(job: RecordJob<P>, options: RunOptions, deps: CommandDeps): Promise<number> {
  checkReportOption(options);
  const maxErrors = options.maxErrors;
  const dryRun = options.dryRun ?? false;
  const read = (): AsyncIterable<InputRecord> => (options.onlyFailed ? notOkRows(job.records()) : job.records());

  let recordCount = 0;
  for await (const _record of read()) recordCount += 1;

  const { api, report, target } = await openRun(job.command, recordCount, options, deps);
  const progress = createProgress({
    enabled: deps.progressStream !== undefined && progressEnabled({ isTTY: deps.isTTY, json: options.json ?? false, env: deps.env }),
    stream: deps.progressStream ?? process.stderr,
    total: job.oneUnitPerRecord ? recordCount : undefined,
    label: job.command,
  });
  const emit = async (entry: ReportEntry): Promise<void> => {
    progress.tick(entry.item.status);
    await report.builder.add(entry);
  };
  const window = target.kind === 'local' ? LOCAL_CONCURRENCY : target.remote.concurrency;
  const callOptions: CallOptions = dryRun ? { dryRun: true } : {};
  let failures = 0;
  let stop: 'max-errors' | 'interrupted' | Error | undefined;
  const pending: Promise<ReportEntry>[] = [];

  const skipped = (unit: Unit<P>, errors: Problem[] = []): ReportEntry => ({
    item: { source: unit.source, id: unit.id, status: 'skipped', errors },
    rows: unit.rows,
  });

  const countFailure = (): void => {
    failures += 1;
    if (maxErrors !== undefined && failures >= maxErrors && stop === undefined) stop = 'max-errors';
  };

  const dispatch = (unit: Unit<P>): Promise<ReportEntry> => {
    if (stop === undefined && deps.signal?.aborted) stop = 'interrupted';
    if (stop !== undefined) return Promise.resolve(skipped(unit));
    if (!unit.prepared.ok) {
      countFailure();
      return Promise.resolve({ item: { source: unit.source, id: unit.id, status: 'failed', errors: unit.prepared.problems }, rows: unit.rows });
    }
    if (api === null) return Promise.resolve({ item: { source: unit.source, id: unit.id, status: 'ok', errors: [] }, rows: unit.rows });
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

  try {
    for await (const unit of job.units(read())) {
      pending.push(dispatch(unit));
      while (pending.length >= window) await emit(await pending.shift()!);
    }
    while (pending.length > 0) await emit(await pending.shift()!);
  } catch (error) {
    progress.stop();
    await Promise.allSettled(pending);
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
export async function openRun(command: string, recordCount: number, options: RunOptions, deps: CommandDeps): Promise<OpenedRun> {
  const dryRun = options.dryRun ?? false;
  const target = await resolveTarget(options, deps);
  if (!dryRun) await confirmRemote(target, recordCount, options, deps);
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
async function confirmRemote(target: ResolvedTarget, count: number, options: GlobalOptions, deps: CommandDeps): Promise<void> {
  if (target.kind !== 'remote' || options.yes) return;
  if (!promptsAllowed(options, deps)) {
    const why = noInput(options, deps) ? 'with --no-input (or CI=true)' : 'without a terminal';
    throw new UsageError(`sending to remote ${target.baseUrl} needs confirmation: add --yes (${why})`);
  }
  const question = `${count} ${count === 1 ? 'record' : 'records'} to send to remote ${target.baseUrl}.`;
  const confirmed = deps.confirm ? await deps.confirm(question) : await (await import('./prompts.js')).confirmSend(question, { signal: deps.signal });
  if (!confirmed) throw new UsageError('not confirmed: nothing was sent');
}

/** --only-failed on a run report CSV: the rows whose status column says anything but ok. */
async function* notOkRows(records: AsyncIterable<InputRecord>): AsyncIterable<InputRecord> {
  for await (const record of records) {
    if (reportStatusOf(record)?.trim().toLowerCase() === 'ok') continue;
    yield record;
  }
}

/**
 * A service answer in report terms: Success false is a failure with every error it gave;
 * Success true is ok, or partial when the content carries per-entry problems.
 */
export function outcomeOf<T>(result: ApiResult<T>, partialProblems: (content: T) => Problem[] = () => []): Outcome {
  const action = result.action;
  const note: Problem[] = result.note ? [{ field: '', code: null, message: result.note }] : [];
  if (!result.envelope.Success) return withAction({ status: 'failed', errors: [...failureProblems(result), ...note] }, action);
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
