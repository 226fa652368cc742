import { ErrorCode } from '../domain/codes.js';
import type { CallOptions, IntegrationApi } from '../port/integration-api.js';
import { problem, type Problem } from '../domain/problem.js';
import { quoteWrittenProblems } from '../domain/written-times.js';
import {
  AnswerLostError,
  AnswerUnreadableError,
  InterruptedError,
  StoreLockedError,
  StoreReplacedError,
  TransientTargetError,
} from '../system/errors.js';
import {
  noDefiniteAnswerReason,
  notSentReason,
  stoppedItemReason,
  type ReportItem,
  type ReportEntry,
} from '../report/run-report.js';
import { unitAction, type Outcome, type RecordJob, type Unit } from './record-job.js';
import type { RunJournaling } from './run-journaling.js';
import { chosenId } from '../runs/run-id.js';

/** Why a run stopped sending before its input ended. */
type StopReason = { kind: 'max-errors' } | { kind: 'interrupted' } | { kind: 'target-failed'; error: Error };

interface DispatchOptions {
  api: IntegrationApi | null;
  callOptions: CallOptions;
  maxErrors: number | undefined;
  signal: AbortSignal | undefined;
  /** A failure outside the dispatcher that stops the run as a target failure would (the --report file failed). */
  stopWhen?: () => Error | undefined;
  journal?: RunJournaling;
  /** With a journal: the positions that may go on record as sent ahead (docs/runs.md, "Sent ahead"); 0: none. */
  recordAhead?: number;
  /** The run read stdin or a pipe (journaled as `--file -`): it cannot be resumed. */
  piped?: boolean;
}

/** A unit the pipeline announced (`expect`) and has not dispatched yet. */
interface Upcoming<P> {
  unit: Unit<P>;
  /** On a resume, the recorded entry of a unit whose outcome stands. */
  kept: ReportEntry | undefined;
  recorded: Recorded | undefined;
}

/** One write of `sent` lines put on record ahead, shared by its units: once durable, they go at once. */
interface Recorded {
  durable: Promise<void>;
  done: boolean;
  failure?: unknown;
}

function recordedOf(durable: Promise<void>): Recorded {
  const recorded: Recorded = { durable, done: false };
  // A failed write is met by the units waiting for it, never as an unhandled rejection.
  durable.then(
    () => (recorded.done = true),
    (error: unknown) => (recorded.failure = error),
  );
  return recorded;
}

/** Each unit's fate in input order, and the stop rules (docs/architecture.md, "The life of a record"). */
export class RecordDispatcher<P, R> {
  private failures = 0;
  /** Why the run stopped sending, once it did. */
  stopReason: StopReason | undefined;
  /** The next unit's position, its key in the run journal. */
  private position = 0;
  /** Units announced by `expect` and not dispatched yet, in input order from `upcomingHead`. */
  private upcoming: Upcoming<P>[] = [];
  private upcomingHead = 0;
  private lookedAhead = 0;
  private readonly recordAhead: number;
  answered = 0;
  /** Units sent whose answer was lost to an interrupt (they may have been applied). */
  lost = 0;
  /** Units answered 2xx whose answer could not be read: the run ends as a target failure. */
  unreadable = 0;
  readonly remembered: R[] = [];

  constructor(
    private readonly job: Pick<
      RecordJob<P, R>,
      | 'send'
      | 'remember'
      | 'acknowledged'
      | 'unsettled'
      | 'refused'
      | 'intend'
      | 'intentsDurable'
      | 'withChosenId'
      | 'lostAttemptDid'
      | 'headWatch'
      | 'command'
    >,
    private readonly options: DispatchOptions,
  ) {
    this.recordAhead = options.journal === undefined || options.api === null ? 0 : (options.recordAhead ?? 0);
  }

  /** The units dispatched next, in order (one input batch): the journal may record them as sent ahead. */
  expect(units: readonly Unit<P>[]): void {
    if (this.recordAhead === 0) return;
    // Dispatched entries dropped once per batch: memory stays about one batch.
    if (this.upcomingHead > 0) {
      this.upcoming = this.upcoming.slice(this.upcomingHead);
      this.upcomingHead = 0;
    }
    // Every field from the start: one object shape, not two transitions per unit as they are set.
    for (const unit of units) this.upcoming.push({ unit, kept: undefined, recorded: undefined });
    // Read in idle time: put on record now, not at the next dispatch, which would then wait for the fsync.
    this.recordAheadFrom(this.position, this.upcomingHead);
  }

  /** Synchronous unless the unit is sent: validation-only items cost no promise. */
  dispatch(given: Unit<P>): ReportEntry | Promise<ReportEntry> {
    const n = this.position++;
    const journal = this.options.journal;
    const upcoming = this.nextUpcoming(given, n);
    const unit = this.sentAgain(given, n);
    const prepared = unit.prepared;
    // A resumed run's settled outcomes stand whatever stops this attempt, but an ok one the memory takes back.
    const kept = upcoming === undefined ? journal?.kept(n, unit) : upcoming.kept;
    if (kept !== undefined) {
      if (kept.item.status !== 'ok' || !prepared.ok || journal === undefined) return kept;
      // One the store holds by its own word stands, acknowledged to the attempt that applied it.
      const inStore = journal.inStore?.(n) === true;
      if (
        this.job.acknowledged?.(
          unit,
          prepared.value,
          {
            status: 'ok',
            errors: [],
            ...(kept.item.action === undefined ? {} : { action: kept.item.action }),
            ...(kept.item.note === undefined ? {} : { note: kept.item.note }),
          },
          journal.id,
          inStore ? 'held' : true,
        ) !== false ||
        inStore
      )
        return kept;
    }
    this.checkStop();
    if (this.stopReason !== undefined)
      return this.notSentAfterAll(unit, this.notSent(prepared.ok ? undefined : prepared.problems));
    if (!prepared.ok) {
      this.countFailure();
      if (journal !== undefined) this.journalled(() => journal.refused(n, unit, prepared.problems), undefined);
      return this.entryOf({ source: unit.source, id: unit.id, status: 'failed', errors: prepared.problems }, unit);
    }
    if (unit.unsent !== undefined) {
      const action = unit.unsent.action ?? 'unchanged';
      const outcome: Outcome = { status: 'ok', errors: [], action, note: unit.unsent.note };
      // Unchanged since a run: journaled compactly; one acknowledged to this run's lost attempt (`sent`): a line.
      const since = action === 'unchanged' ? unit.unsent.since : undefined;
      if (journal !== undefined)
        this.journalled(
          () => (since === undefined ? journal.answered(n, unit, outcome) : journal.unchanged(n, since)),
          undefined,
        );
      return this.entryOf({ source: unit.source, id: unit.id, ...outcome }, unit);
    }
    const api = this.options.api;
    if (api === null) {
      const note = unit.plannedNote ?? unit.goesAgain;
      const item: ReportItem = { source: unit.source, id: unit.id, status: 'ok', errors: [] };
      if (note !== undefined) item.note = note;
      if (unit.plannedAction !== undefined) item.action = unit.plannedAction;
      return this.entryOf(item, unit);
    }
    if (journal === undefined) {
      const payload = prepared.value;
      // A dry run of a create examctl would name: the engine's made-up id is no id (docs/plan.md, "Ids").
      const unnamed =
        this.options.callOptions.dryRun === true && this.job.withChosenId !== undefined && unit.id === null;
      return this.job.send(api, payload, this.options.callOptions).then(
        (answer) => {
          const outcome = goesAgain(unit, answer);
          return this.answer(unit, payload, unnamed ? withoutId(outcome) : outcome);
        },
        (error: unknown) => this.failed(unit, error),
      );
    }
    const chosen = this.job.withChosenId === undefined ? undefined : chosenId(journal.id, n);
    const named = chosen === undefined ? undefined : this.job.withChosenId!(prepared.value, chosen);
    const payload = named ?? prepared.value;
    const recorded = upcoming?.recorded;
    // Put on record ahead and durable already (the usual case): sent now.
    if (recorded?.done === true)
      return this.sendRecorded(api, journal, n, unit, payload, named === undefined ? undefined : chosen);
    if (recorded?.failure !== undefined) return this.failed(unit, recorded.failure);
    return (recorded?.durable ?? this.onRecordNow(journal, n, unit)).then(
      () => this.sendRecorded(api, journal, n, unit, payload, named === undefined ? undefined : chosen),
      (error: unknown) => this.failed(unit, error),
    );
  }

  private async sendRecorded(
    api: IntegrationApi,
    journal: RunJournaling,
    n: number,
    unit: Unit<P>,
    payload: P,
    chosen: string | undefined,
  ): Promise<ReportEntry> {
    // Stopped while it waited for its fsync: not sent (a resume sends it). One before --max-errors was reached is.
    this.checkStop();
    if (this.stopReason !== undefined && this.stopReason.kind !== 'max-errors') return this.notSentAfterAll(unit);
    let outcome: Outcome;
    let committed: string | undefined;
    try {
      const watch = this.job.headWatch?.();
      let options = this.options.callOptions;
      if (watch !== undefined) options = { ...options, onHead: watch };
      if (journal.commitHeads) options = { ...options, onCommitted: (head: string) => void (committed = head) };
      outcome = goesAgain(unit, await this.job.send(api, payload, options));
    } catch (error) {
      journal.unanswered(n, unit, error);
      const entry = this.failed(unit, error);
      // Maybe applied under the id examctl chose.
      if (chosen && (error instanceof TransientTargetError || error instanceof AnswerLostError))
        Object.assign(entry.item, { inDoubt: true, id: chosen });
      return entry;
    }
    const settled = this.journalled(() => journal.answered(n, unit, outcome, committed), outcome);
    // The id examctl chose, where the answer names none (an "already exists" of a resend, settled ok).
    return this.answer(
      unit,
      payload,
      chosen !== undefined && settled.id === undefined && settled.status !== 'failed'
        ? { ...settled, id: chosen }
        : settled,
    );
  }

  /** The unit as it goes: one a restore of the store lost (RunJournaling.lost) is sent again, memory or not. */
  private sentAgain(unit: Unit<P>, n: number): Unit<P> {
    return unit.unsent !== undefined && this.options.journal?.lost?.(n, unit) === true
      ? { ...unit, unsent: undefined }
      : unit;
  }

  /** The announced entry of the unit at position n, after `recordAheadFrom`; undefined if not announced. */
  private nextUpcoming(unit: Unit<P>, n: number): Upcoming<P> | undefined {
    const upcoming = this.upcoming;
    if (this.upcomingHead === upcoming.length || upcoming[this.upcomingHead]!.unit !== unit) return undefined;
    const entry = upcoming[this.upcomingHead++]!;
    this.recordAheadFrom(n, this.upcomingHead - 1);
    if (n >= this.lookedAhead) {
      // Stopped before this unit was looked at: its outcome may still stand (a resume).
      entry.kept = (this.options.journal as RunJournaling).kept(n, unit);
      this.lookedAhead = n + 1;
    }
    return entry;
  }

  /** Puts announced units up to `recordAhead` past n on record when fewer than half are: half a window a write. */
  private recordAheadFrom(n: number, head: number): void {
    if (this.recordAhead === 0 || this.stopReason !== undefined || this.lookedAhead - n >= this.recordAhead / 2) return;
    const upcoming = this.upcoming;
    const journal = this.options.journal as RunJournaling;
    const from = Math.max(this.lookedAhead, n);
    const to = Math.min(n + this.recordAhead, n + upcoming.length - head);
    const writes: [Upcoming<P>, Promise<void>][] = [];
    let intents = false;
    for (let k = from; k < to; k++) {
      const ahead = upcoming[head + (k - n)]!;
      ahead.kept = journal.kept(k, ahead.unit);
      // Only what would be sent: a unit whose outcome stands, that failed the local checks or that is unchanged is not.
      if (ahead.kept === undefined && ahead.unit.prepared.ok && this.sentAgain(ahead.unit, k).unsent === undefined) {
        writes.push([ahead, journal.sending(k, ahead.unit)]);
        if (this.job.intend?.(ahead.unit, journal.id) === true) intents = true;
      }
    }
    this.lookedAhead = Math.max(this.lookedAhead, to);
    // One turn's units share a write (RunJournaling.sending) and wait for the memory's intents too (RecordJob.intend).
    const memory = intents ? this.job.intentsDurable?.() : undefined;
    let last: Promise<void> | undefined;
    let recorded: Recorded | undefined;
    for (const [ahead, durable] of writes) {
      if (durable !== last || recorded === undefined)
        recorded = recordedOf(
          onRecord(journal, bothDurable(durable, memory), writes.filter(([, other]) => other === durable).length),
        );
      last = durable;
      ahead.recorded = recorded;
    }
  }

  /** A unit put on record as it is dispatched (no record ahead): the journal's line and the memory's intent. */
  private onRecordNow(journal: RunJournaling, n: number, unit: Unit<P>): Promise<void> {
    const durable = journal.sending(n, unit);
    return onRecord(
      journal,
      this.job.intend?.(unit, journal.id) === true ? bothDurable(durable, this.job.intentsDurable?.()) : durable,
      1,
    );
  }

  /** A unit the stopped run never sent: withdrawn at the end, its memory intent taken back as for a refusal. */
  private notSentAfterAll(unit: Unit<P>, problems: Problem[] = this.notSent()): ReportEntry {
    if (this.options.journal !== undefined) this.job.refused?.(unit, false, true);
    return this.skipped(unit, problems);
  }

  /** The reason on an item the stopped run did not send (`refused`: its problems), in `runs show`'s words. */
  private notSent(refused?: Problem[]): Problem[] {
    const gone = this.stopReason?.kind === 'target-failed' && this.stopReason.error instanceof StoreReplacedError;
    const reason = notSentReason(
      this.stopReason?.kind === 'max-errors',
      this.options.journal?.id,
      gone,
      this.options.piped,
      refused !== undefined,
    );
    return [problem('', ErrorCode.NotSentRunStopped, reason), ...(refused ?? [])];
  }

  /** An interrupt, or a failure outside (stopWhen), stops the run before the next unit goes. */
  private checkStop(): void {
    if (this.stopReason !== undefined) return;
    if (this.options.signal?.aborted) {
      this.stopReason = { kind: 'interrupted' };
      return;
    }
    const failure = this.options.stopWhen?.();
    if (failure !== undefined) this.targetFailed(failure);
  }

  /** The first target failure stops the run and is the one it ends with. */
  private targetFailed(error: unknown): Error {
    const fatal = error instanceof Error ? error : new Error(String(error));
    if (this.stopReason?.kind !== 'target-failed') this.stopReason = { kind: 'target-failed', error: fatal };
    return fatal;
  }

  /** A journal write, else `otherwise`: a failed journal (a full disk) stops the run as a target failure would. */
  private journalled<T>(write: () => T, otherwise: T): T {
    try {
      return write();
    } catch (error) {
      this.targetFailed(error);
      return otherwise;
    }
  }

  /** A send that threw: an interrupt met while queued, else a target failure that stops the run. */
  private failed(unit: Unit<P>, error: unknown): ReportEntry {
    if (error instanceof InterruptedError && this.options.signal?.aborted) {
      this.stopReason ??= { kind: 'interrupted' };
      if (!(error instanceof AnswerLostError)) return this.skipped(unit, this.notSent());
      // Sent, answer lost: said on the item as `runs show` says it; a resume sends it again.
      this.lost += 1;
      this.unsettled(unit);
      return this.skipped(unit, [problem('', ErrorCode.NoDefiniteAnswer, error.message)]);
    }
    // Answered 2xx but unreadable: the others go on; the run ends as a target failure (exit 3, resumable).
    if (error instanceof AnswerUnreadableError) {
      // After the interrupt (a 2xx cut by the service, or too large): interrupted, not failed by the target.
      if (this.options.signal?.aborted) this.stopReason ??= { kind: 'interrupted' };
      this.unreadable += 1;
      this.unsettled(unit);
      return this.skipped(unit, [
        problem('', ErrorCode.NoDefiniteAnswer, noDefiniteAnswerReason(error.message, this.options.journal?.id)),
      ]);
    }
    const fatal = this.targetFailed(error);
    if (error instanceof StoreReplacedError) return this.skipped(unit, this.notSent());
    // Refused by the store's lock: nothing reached the store, so the memory's intent is taken back too.
    if (error instanceof StoreLockedError)
      return this.notSentAfterAll(unit, [problem('', ErrorCode.NotSentRunStopped, stoppedItemReason(error))]);
    if (!(error instanceof TransientTargetError))
      return this.skipped(unit, [problem('', ErrorCode.NotSentRunStopped, fatal.message)]);
    this.unsettled(unit);
    const reason = noDefiniteAnswerReason(fatal.message, this.options.journal?.id);
    return this.skipped(unit, [problem('', ErrorCode.NoDefiniteAnswer, reason)]);
  }

  private answer(unit: Unit<P>, payload: P, outcome: Outcome): ReportEntry {
    this.answered += 1;
    if (outcome.status === 'failed') this.countFailure();
    const kept = this.job.remember?.(unit, payload, outcome);
    if (kept !== undefined) this.remembered.push(kept);
    if (outcome.status === 'ok' && this.options.journal !== undefined)
      this.job.acknowledged?.(unit, payload, outcome, this.options.journal.id, false);
    else if (outcome.status === 'partial' || outcome.mayHaveApplied === true) this.unsettled(unit);
    else if (outcome.status === 'failed' && this.options.journal !== undefined)
      this.job.refused?.(unit, this.job.lostAttemptDid?.(outcome) === 'created');
    // The target words its errors with the UTC it was sent: a time the file wrote otherwise is quoted as written first.
    const item: ReportItem = {
      source: unit.source,
      id: outcome.id ?? unit.id,
      status: outcome.status,
      errors: quoteWrittenProblems(outcome.errors, unit.written),
    };
    if (outcome.note !== undefined) item.note = outcome.note;
    if (outcome.action) {
      item.action = outcome.action;
      if (outcome.changedFields) item.changedFields = outcome.changedFields;
      if (outcome.changes) item.changes = outcome.changes;
    }
    return this.entryOf(item, unit);
  }

  private unsettled(unit: Unit<P>): void {
    if (this.options.journal !== undefined) this.job.unsettled?.(unit);
  }

  private countFailure(): void {
    this.failures += 1;
    const maxErrors = this.options.maxErrors;
    if (maxErrors !== undefined && this.failures >= maxErrors && this.stopReason === undefined)
      this.stopReason = { kind: 'max-errors' };
  }

  private skipped(unit: Unit<P>, errors: Problem[]): ReportEntry {
    return this.entryOf({ source: unit.source, id: unit.id, status: 'skipped', errors }, unit);
  }

  /** The unit's report entry: its warnings (no key when none), what its request removed (--prune-memberships). */
  private entryOf(item: ReportItem, unit: Unit<P>): ReportEntry {
    // Every item comes here new: its keys are added in the report's order.
    item.plan = unitAction(unit, item, this.job.command);
    const done = item.status === 'ok' || item.status === 'partial';
    if (unit.membership !== undefined && done) Object.assign(item, unit.membership);
    if (unit.changes !== undefined && done && item.action !== 'created' && item.action !== 'unchanged')
      item.changes = unit.changes;
    if (unit.warnings !== undefined && unit.warnings.length > 0) item.warnings = unit.warnings;
    if (unit.mapped !== undefined) item.mapped = unit.mapped;
    return { item, rows: unit.rows };
  }
}

/** `recorded`, told to the journal before a request waiting on it goes. */
function onRecord(journal: RunJournaling, recorded: Promise<void>, count: number): Promise<void> {
  recorded.then(
    () => journal.onRecord?.(count),
    () => undefined,
  );
  return recorded;
}

function bothDurable(journal: Promise<void>, memory: Promise<void> | undefined): Promise<void> {
  return memory === undefined ? journal : Promise.all([journal, memory]).then(() => undefined);
}

function withoutId(outcome: Outcome): Outcome {
  const { id: _id, ...rest } = outcome;
  return rest;
}

/** An answer to a unit the memory sends again: its reason (Unit.goesAgain) is the note, unless failed or noted. */
function goesAgain<P>(unit: Unit<P>, outcome: Outcome): Outcome {
  if (unit.goesAgain === undefined || outcome.status === 'failed' || outcome.note !== undefined) return outcome;
  return { ...outcome, note: unit.goesAgain };
}
