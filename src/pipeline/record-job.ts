import type { CallOptions, IntegrationApi, StoreKeyKind } from '../port/integration-api.js';
import type { LocalDirectory } from '../port/local-directory.js';
import { IdsOfOneInput, withProblem, type IdRule } from '../domain/one-id-per-file.js';
import { idOf } from '../domain/record-id.js';
import type { Problem, Validation } from '../domain/problem.js';
import { withReaderProblems } from '../domain/spreadsheet-warnings.js';
import type { WrittenTime } from '../domain/local-time.js';
import { quoteWrittenProblems } from '../domain/written-times.js';
import type { InputRecord } from '../input/record.js';
import type { SummaryNote } from '../report/report-writers.js';
import { actionOf, type PlanAction } from '../report/plan-actions.js';
import type {
  ItemAction,
  ItemStatus,
  ReportItem,
  ReportSummary,
  SourceRow,
  SyncMemoryNote,
} from '../report/run-report.js';
import type { CommandDeps } from '../context/command-deps.js';
import type { GlobalOptions } from '../flags/global-options.js';
import type { LostAttemptDid } from '../runs/resume-plan.js';

/** One thing to send: a user, a collection, a whole schedule request... with where it came from. */
export interface Unit<P> extends Pick<ReportItem, 'source' | 'id' | 'warnings' | 'mapped'> {
  prepared: Validation<P>;
  /** The CSV rows behind the unit, for a CSV report. */
  rows?: SourceRow[];
  /** Dates and times as the file or a flag wrote them: every message about one quotes it so (written-times.ts). */
  written?: WrittenTime[];
  /** Settled unsent: --changed-only's `unchanged` (`since`: the run that sent it), or `left` (docs/sync.md). */
  unsent?: { note: string; since?: string; action?: 'left' | 'unchanged' | 'sent' };
  /**
   * What a dry run that asks no target plans for it (a leaver: `disabled`), and its note (`re-enables`, a schedule's
   * withdrawn candidates).
   */
  plannedAction?: ItemAction;
  plannedNote?: string;
  /** Why it goes though the file did not change it (sent-memory.ts, goingAgain): its note unless the answer has one. */
  goesAgain?: string;
  /** --prune-memberships: what the request removes and adds (docs/sync.md). */
  membership?: Pick<ReportItem, 'removed' | 'joined' | 'moved'>;
  /** Each field the request changes, before and after (docs/plan.md); not reported when created or unchanged. */
  changes?: ReportItem['changes'];
}

/** What the run does with `unit`, reported as `item` (plan-actions.ts): said once, on its report item. */
export function unitAction(
  unit: Unit<unknown>,
  item: Pick<ReportItem, 'status' | 'action'>,
  command: string,
): PlanAction {
  return actionOf(
    {
      valid: unit.prepared.ok,
      unsent: unit.unsent === undefined ? undefined : unit.unsent.action === 'left' ? 'left' : 'unchanged',
      disables: unit.plannedAction === 'disabled',
      prunes: unit.membership?.removed !== undefined,
      enables: unit.plannedNote === 're-enables',
      removes: command === 'invigilators remove',
      knownChanges: unit.changes !== undefined,
    },
    item,
  );
}

/** A unit with its record's findings: unreadable cells fail it first, doubtful values are warnings. */
export function withRecordFindings<P>(unit: Unit<P>, record: InputRecord): Unit<P> {
  const problems = record.problems;
  const warnings = record.warnings;
  const mapped = record.mapped;
  const written = record.written === undefined ? unit.written : [...(unit.written ?? []), ...record.written];
  if (
    (problems === undefined || problems.length === 0) &&
    (warnings === undefined || warnings.length === 0) &&
    mapped === undefined &&
    written === undefined
  )
    return unit;
  let prepared = withReaderProblems(problems, unit.prepared);
  if (!prepared.ok && written !== undefined)
    prepared = { ok: false, problems: quoteWrittenProblems(prepared.problems, written) };
  const found: Unit<P> =
    warnings !== undefined && warnings.length > 0
      ? { ...unit, prepared, warnings: [...(unit.warnings ?? []), ...warnings] }
      : { ...unit, prepared };
  if (mapped !== undefined) found.mapped = mapped;
  if (written !== undefined) found.written = written;
  return found;
}

/** What the target said about one unit, in the report item's terms. */
export interface Outcome extends Pick<ReportItem, 'errors' | 'action' | 'changedFields' | 'changes' | 'note'> {
  status: Exclude<ItemStatus, 'skipped'>;
  /** The id the service chose, replacing the unit's. */
  id?: string;
  /** A failure that may have been applied (ApiResult.contradictory). */
  mayHaveApplied?: boolean;
}

/** What a command runs through run-pipeline.ts; `R`: what it keeps from the answers to say after the report. */
export interface RecordJob<P, R = never> {
  command: string;
  /** Reads the input, once per pass (docs/cli.md, "How a run reads and sends"). */
  records(): AsyncIterable<InputRecord>;
  /** Records to units, in batches (one per chunk read): 500k records cost a few thousand awaits, not 500k. */
  units(records: AsyncIterable<readonly InputRecord[]>): AsyncIterable<readonly Unit<P>[]>;
  /** A read of the whole input before `units` (OneIdPerFile.read), so both records of a repeated id fail. */
  readIds?(records: AsyncIterable<InputRecord>): Promise<void>;
  /** The summary's words beside the counts (`4,950 unchanged (not sent)`). */
  summaryNotes?: readonly SummaryNote[];
  /** The unit count given the record count, after `prepare`: the progress line's total, kept in the journal. */
  unitCount?(records: number): number;
  send(api: IntegrationApi, payload: P, options: CallOptions): Promise<Outcome>;
  /** What the remote confirmation says will be sent ("3 schedules (120 candidates)"); default: the record count. */
  describeSend?(records: AsyncIterable<InputRecord>): Promise<string>;
  /** The action of each valid unit's request, for the remote confirmation's counts (unitPlanWords). */
  confirmAction?: 'send' | 'remove';
  /** What a real run would do, per action (`11 to send, 3 to disable`): the remote confirmation says it. */
  describePlan?(records: AsyncIterable<InputRecord>): Promise<string>;
  /** Before the run is opened and the remote confirmation: a check refusing the whole run (--max-disable). */
  prepare?(): Promise<void>;
  /** After `prepare`: the sync memory the run decides from, said in every report sink (docs/ci.md). */
  syncMemory?(): SyncMemoryNote | undefined;
  /** A dry run: the run it planned against (docs/cli.md, "Run report"). */
  plannedAgainst?(): string | undefined;
  /** The target's API once open (null: none), before any unit is read. */
  opened?(api: IntegrationApi | null): void;
  /** The store's head as the sync memory's open asked it, if it did: the run's start head, asked once. */
  headSeen?(): string | undefined;
  /** A real run started as `run` at the store's `head`, nothing sent yet (docs/sync.md, "When the memory is lost"). */
  started?(run: string, head: string | undefined): Promise<void>;
  /** Just before a request goes: what to tell the head its answer stood on (CallOptions.onHead), if asked. */
  headWatch?(): ((head: string) => void) | undefined;
  /** Before the report sinks complete: the sync memory stores the run's end (docs/sync.md, "Format"; docs/ci.md). */
  ending?(): Promise<void>;
  /** A unit acknowledged `ok` (Kept: in an earlier attempt; `held`: and the store holds it); false: sent again. */
  acknowledged?(unit: Unit<P>, payload: P, outcome: Outcome, run: string, kept: Kept): boolean | void;
  /** A real run's unit that may have changed the target without an ok (docs/sync.md, "--changed-only"). */
  unsettled?(unit: Unit<P>): void;
  /** A real run's unit refused; `taken`: it exists already; `unsent`: never sent (the run stopped first). */
  refused?(unit: Unit<P>, taken: boolean, unsent?: boolean): void;
  /** A unit about to go on record as sent (docs/sync.md, "A request cut short"); true: wait for `intentsDurable`. */
  intend?(unit: Unit<P>, run: string): boolean;
  intentsDurable?(): Promise<void>;
  /** A create the service would name, with the `id` examctl chose (run-id.ts); undefined: the payload has one. */
  withChosenId?(payload: P, id: string): P | undefined;
  /** Keeps something from an answer for the outcome's `remembered`. */
  remember?(unit: Unit<P>, payload: P, outcome: Outcome): R | undefined;
  /** Every unit rides on one request (invigilators remove): all dispatched before any answer is awaited. */
  sendsTogether?: boolean;
  /** The command read --only-failed's run report itself (an id list): records taken as they are. */
  readsOnlyFailedItself?: boolean;
  /** On `runs resume`: what a refused resend says the lost attempt did (docs/runs.md, "runs resume"). */
  lostAttemptDid?: LostAttemptDid;
  /** The store collection a unit's id keys: on a resume, a key the store changed since may be done (docs/runs.md). */
  storeKeys?: StoreKeyKind;
  /** Whether the local store holds what `payload` would write under `key`: then the run applied it (`storeKeys`). */
  holds?(directory: LocalDirectory, payload: P, key: string): boolean;
}

/** "One file, one id" (domain/one-id-per-file.ts): each record of a repeated id fails; without `readIds`, the later. */
export class OneIdPerFile {
  private before: IdsOfOneInput | undefined;
  private now: IdsOfOneInput | undefined;

  constructor(
    private readonly rule: IdRule,
    private readonly idIn: (record: InputRecord) => string | null = (record) => idOf(record.fields, rule.field),
  ) {}

  /** `known`: these records' ids from an earlier read (user-sync-memory.ts): not read again. */
  async read(records: AsyncIterable<InputRecord>, known?: IdsOfOneInput): Promise<void> {
    const before = known ?? new IdsOfOneInput(this.rule);
    if (known === undefined) for await (const record of records) before.repeated(this.idIn(record), record.source);
    this.before = before;
  }

  /** Starts a read of the units (a real run reads its file again for each). */
  start(): void {
    this.now = this.before?.hasRepeats === false ? undefined : new IdsOfOneInput(this.rule);
  }

  problemOf(record: InputRecord): Problem | undefined {
    const id = this.idIn(record);
    return this.now?.repeated(id, record.source) ?? this.before?.repeatedLater(record.source, id);
  }

  checked<P>(unit: Unit<P>, record: InputRecord): Unit<P> {
    const repeated = this.problemOf(record);
    return repeated === undefined ? unit : { ...unit, prepared: withProblem(unit.prepared, repeated) };
  }
}

/** `units` and `unitCount` for a job whose every record is one unit; with `idRule`, OneIdPerFile too. */
export function unitPerRecord<P>(
  unitOf: (record: InputRecord) => Unit<P>,
  idRule?: IdRule,
  known?: () => IdsOfOneInput | undefined,
): Pick<RecordJob<P>, 'units' | 'unitCount' | 'readIds'> {
  const ids = idRule === undefined ? undefined : new OneIdPerFile(idRule);
  return {
    unitCount: (records) => records,
    ...(ids === undefined ? {} : { readIds: (records) => ids.read(records, known?.()) }),
    async *units(batches) {
      ids?.start();
      for await (const batch of batches) {
        yield batch.map((record) => {
          const unit = withRecordFindings(unitOf(record), record);
          return ids === undefined ? unit : ids.checked(unit, record);
        });
      }
    },
  };
}

export type RunOptions = GlobalOptions & {
  onlyFailed?: boolean;
  /** The input's `--timezone` and `--date-format`: a report workbook's date-times are shown so. */
  timezone?: string | undefined;
  dateFormat?: string | undefined;
};

/** How a completed run ended (an interrupted or failed one throws after its report is written). */
export interface RunOutcome<R = never> {
  exitCode: 0 | 1;
  summary: ReportSummary;
  remembered: R[];
}

/** How an acknowledged unit came (RecordJob.acknowledged). */
export type Kept = boolean | 'held';

/** A run's input read again with the job its command builds: its records and how they group into units. */
export type RerunInput = (
  options: Record<string, unknown>,
  deps: CommandDeps,
) => Promise<Pick<RecordJob<unknown>, 'records' | 'units' | 'readsOnlyFailedItself' | 'summaryNotes'>>;
