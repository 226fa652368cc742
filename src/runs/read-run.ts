import { ErrorCode, type ProblemCode } from '../domain/codes.js';
import type { Problem } from '../domain/problem.js';
import type { ErrorCodeId } from '../system/error-codes.js';
import { readSync } from 'node:fs';
import { readdir, rm, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { LOCK_FILE, isStale, readLockInfo } from '../system/lock.js';
import {
  noDefiniteAnswerReason,
  notSentReason,
  targetIdentity,
  type ItemStatus,
  type ReportItem,
  type ReportSummary,
} from '../report/run-report.js';
import {
  checkJournalLine,
  digestedFiles,
  finishesRun,
  isCount,
  type EndLine,
  type ItemRef,
  type OutcomeLine,
  type RunHeaderLine,
  type UnchangedLine,
  type UnsentLine,
  unsentVerdict,
} from './journal-lines.js';
import { NothingToResumeError, RunJournalError } from './run-errors.js';
import { chosenId } from './run-id.js';
import { isRunId } from '../domain/record-id.js';
import { openRegularFile } from '../system/regular-file.js';
import { currentTrust, runProblem, runsDirProblem, type RunTrust } from './run-trust.js';
import { RM_RETRY } from '../system/busy-retry.js';
import { journalPath, lockRun } from './run-journal.js';
import {
  BEFORE_IN_FLIGHT,
  BEFORE_SENT,
  HAS_OUTCOME,
  IN_FLIGHT,
  ItemStates,
  KNOWN,
  TRANSIENT,
  statusIn,
  withStatus,
} from './item-index.js';
import { streamLines } from '../system/file-lines.js';
import { PRUNE_KEEP_FINISHED, PRUNE_MAX_AGE_DAYS } from '../defaults.js';
import { describeSystemError } from '../system/system-error-words.js';

/** What the journal says about one item over every attempt: its report item and a resume decide from it. */
export interface ResumeView {
  ref: ItemRef;
  outcome?: OutcomeLine;
  /** Sent after its latest outcome (or never answered): the answer was lost when an attempt died. */
  inFlight: boolean;
  /** A request went out with no definite answer (lost, network, 429, 5xx): the service may hold it. */
  maybeApplied: boolean;
  /** Withdrawn (`unsent`) with the failure that stopped the run at it, in its report's words. */
  withdrawn?: string;
}

/** What a journal says of the run as a whole; the items are each reader's own. */
export interface JournalHead {
  id: string;
  file: string;
  header: RunHeaderLine;
  /** The last attempt's end line (a killed attempt writes none). */
  end?: EndLine;
  /** Bytes up to the end of the last whole line: where a resume appends. */
  validLength: number;
  unchanged: UnchangedPositions;
  /** Each resume's attempt: its `resume` line's offset and its `head` line's store head, if any. */
  attempts: { at: number; head?: string }[];
}

type RunState = 'running' | 'interrupted' | 'finished' | 'store-replaced' | 'refused';

/** What a reader does with what the lines say of items; `at` is the line's byte offset. */
interface ItemFold {
  sent(ref: ItemRef, at: number): void;
  unsent(line: UnsentLine, at: number): void;
  outcome(line: OutcomeLine, at: number): void;
  /** An `unchanged` line takes a position over from its earlier lines (in flight when an attempt died). */
  forget(n: number): void;
}

// A newer examctl's run is not damaged: moving it aside would hide it from the examctl that can resume it.
const damagedAt = (file: string, where: string | number, reason: string): RunJournalError =>
  new RunJournalError(
    reason.startsWith('written by a newer')
      ? `${file}: ${reason}: show or resume the run with that examctl`
      : `${file}:${where}: run journal damaged: ${reason}; the run cannot be shown or resumed (move the run's directory aside to keep it)`,
  );

const notARunId = (id: string) =>
  new RunJournalError(
    `not a run id: ${JSON.stringify(id.slice(0, 60))} (ids look like 20261122T110502.481Z-3f9a; see examctl runs list)`,
  );
class NoRunError extends RunJournalError {
  static override readonly defaultCode: ErrorCodeId = 'E2201';
}
const noRun = (id: string, runsDir: string) => new NoRunError(`no run ${id} in ${runsDir}`);

/** Refuses (exit 2), as `runs show` does, an id that names no run in `runsDir`: before a resume locks it. */
export async function assertRunHere(runsDir: string, id: string): Promise<void> {
  if (!isRunId(id)) throw notARunId(id);
  await stat(journalPath(runsDir, id)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') throw noRun(id, runsDir);
  });
}

/** Streams a run's journal (docs/runs.md, "Reading"): item lines go to `fold`; the journal is returned open. */
export async function readJournal(
  runsDir: string,
  id: string,
  fold: ItemFold,
): Promise<{ head: JournalHead; handle: FileHandle }> {
  if (!isRunId(id)) throw notARunId(id);
  const file = journalPath(runsDir, id);
  // Never a FIFO or device (it would hang the read past any signal): refused, naming it.
  const handle = await openRegularFile(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOTREG') throw new RunJournalError(error.message);
    throw error.code === 'ENOENT'
      ? noRun(id, runsDir)
      : new RunJournalError(`cannot read the run journal ${file}: ${describeSystemError(error, 'file')}`);
  });
  let header: RunHeaderLine | undefined;
  let end: EndLine | undefined;
  let validLength = 0;
  const unchanged = new UnchangedPositions();
  const attempts: JournalHead['attempts'] = [];
  try {
    await streamLines(handle, (raw) => {
      // A write a kill cut short (the newline is its last byte): never acknowledged, so a sent
      // line in it went out with no request, and an outcome in it is resent. Ignored.
      if (!raw.terminated) return;
      const line = checkJournalLine(raw.bytes, raw.lineNo === 1);
      if (typeof line === 'string') throw damagedAt(file, raw.lineNo, line);
      validLength = raw.end;
      switch (line.t) {
        case 'run':
          header = line;
          break;
        case 'head': {
          // Before any resume: a format 3 journal's start head, as if in its header.
          const attempt = attempts.at(-1);
          if (attempt === undefined) header = { ...header!, storeHead: header!.storeHead ?? line.head };
          else attempt.head ??= line.head;
          break;
        }
        case 'resume':
          end = undefined;
          attempts.push({ at: raw.start });
          break;
        case 'end':
          end = line;
          break;
        case 'unchanged':
          for (let k = 0; k < line.r.length; k += 3)
            for (let n = line.r[k]!; n < line.r[k]! + line.r[k + 1]!; n++) fold.forget(n);
          if (!unchanged.addLine(line))
            throw damagedAt(file, raw.lineNo, 'unchanged positions an earlier line settled');
          break;
        case 'unsent':
          fold.unsent(line, raw.start);
          break;
        default:
          // A resume sends again a position an earlier attempt settled unchanged when the store lost what that
          // matched (docs/runs.md, "A store restored under a run"): from there its own lines decide.
          if (unchanged.since(line.n) !== undefined && (attempts.length === 0 || !unchanged.release(line.n)))
            throw damagedAt(file, raw.lineNo, `a line for item ${line.n}, settled unchanged before`);
          if (line.t === 'sent') fold.sent(line, raw.start);
          else fold.outcome(line, raw.start);
      }
    });
    if (header === undefined) {
      // Killed before its header was on disk: the run never sent anything.
      throw new NoRunError(
        `${file}: run journal empty: the run was stopped before it started (nothing was sent); remove ${join(runsDir, id)}`,
      );
    }
    return {
      head: { id, file, header, ...(end !== undefined ? { end } : {}), validLength, unchanged, attempts },
      handle,
    };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

/** A run read (item-index.ts), its lines read again through a bounded cache; open until `close`. */
export interface RunIndex extends Readonly<JournalHead> {}
export class RunIndex {
  private readonly lines: LineReader;

  constructor(
    head: JournalHead,
    private readonly states: ItemStates,
    private readonly handle: FileHandle,
  ) {
    Object.assign(this, head);
    this.lines = new LineReader(handle, head.validLength);
  }

  get journaled(): number {
    return this.states.size;
  }

  countFrom(from: number): number {
    let count = 0;
    for (const _n of this.states.numbers(from)) count += 1;
    return count;
  }

  /** A line for every unit of the header; never with `unchanged` units (the input names them). */
  coversUnits(): boolean {
    const units = unitsOf(this);
    return units !== undefined && this.unchanged.count === 0 && this.states.size - this.countFrom(units) === units;
  }

  *statuses(): Generator<ItemStatus> {
    for (const n of this.states.numbers()) yield this.kept(n) ? statusIn(this.states.flags(n)) : 'skipped';
  }

  /** Whether a resume keeps journaled item `n`'s outcome: answered definitely, and not sent again since. */
  private kept(n: number): boolean {
    return (this.states.flags(n) & (IN_FLIGHT | HAS_OUTCOME | TRANSIENT)) === HAS_OUTCOME;
  }

  async itemAt(n: number): Promise<ReportItem | undefined> {
    const history = this.historyAt(n);
    return history === undefined ? undefined : reportItemOf(this, history);
  }

  /** Item `n`'s deciding line read back (synchronously); one naming another item than `input` is damage. */
  historyAt(n: number, input?: Omit<ItemRef, 'n'>): ResumeView | undefined {
    const flags = this.states.flags(n);
    if (flags === 0) return undefined;
    const at = this.states.offset(n);
    const bytes = this.lines.lineAt(at);
    const line = bytes === undefined ? 'changed while it was read' : checkJournalLine(bytes, at === 0);
    if (typeof line === 'string') throw damagedAt(this.file, `byte ${at}`, line);
    // The deciding line of an item withdrawn is its unsent line only with its reason (scanRun).
    const ref =
      line.t === 'sent' || line.t === 'outcome' || (line.t === 'unsent' && line.reason !== undefined)
        ? line
        : undefined;
    const outcome = line.t === 'outcome' ? line : undefined;
    const withdrawn = line.t === 'unsent' ? line.reason : undefined;
    if (ref === undefined || ref.n !== n || ((flags & HAS_OUTCOME) !== 0) !== (outcome !== undefined))
      throw damagedAt(this.file, `byte ${at}`, `not the line of item ${n}`);
    const was = `line ${ref.source.line} (${ref.id})`;
    const is = input && `line ${input.source.line} (${input.id})`;
    if (is !== undefined && is !== was) {
      throw damagedAt(this.file, `byte ${at}`, `item ${n} is ${was} here but ${is} of the unchanged input`);
    }
    const inFlight = (flags & IN_FLIGHT) !== 0;
    const maybeApplied = inFlight || (outcome !== undefined && (flags & TRANSIENT) !== 0);
    return {
      ref: { n, source: ref.source, id: ref.id },
      inFlight,
      maybeApplied,
      ...(outcome === undefined ? {} : { outcome }),
      ...(withdrawn === undefined || inFlight ? {} : { withdrawn }),
    };
  }

  /** Journaled items below `below` whose outcome a resume keeps, from the state bytes alone. */
  keptBelow(below: number): number {
    let kept = 0;
    for (const n of this.states.numbers()) {
      if (n >= below) break;
      if (this.kept(n)) kept += 1;
    }
    return kept;
  }

  /** The store head the attempt that wrote item `n`'s deciding line began at (else the attempt's before it). */
  headBefore(n: number): string | undefined {
    const at = this.states.offset(n);
    let head = this.header.storeHead;
    for (const attempt of this.attempts) {
      if (attempt.at > at) break;
      head = attempt.head ?? head;
    }
    return head;
  }

  /**
   * Each journaled item whose outcome a resume keeps, its line read back, with the head after the commit that holds
   * its changes where the store said it (resume-plan.ts, keptButLost).
   */
  *keptItems(): Generator<[number, ReportItem, string | undefined]> {
    for (const n of this.states.numbers()) {
      if (!this.kept(n)) continue;
      const history = this.historyAt(n)!;
      yield [n, reportItemOf(this, history), history.outcome?.committed];
    }
  }

  async *items(from = 0): AsyncGenerator<ReportItem> {
    for (const n of this.states.numbers(from)) yield (await this.itemAt(n)) as ReportItem;
  }

  async close(): Promise<void> {
    await this.handle.close().catch(() => undefined);
  }
}

/** A run's journal streamed into a RunIndex (`close` it); an unsent line undoes its item's latest sent line. */
export async function scanRun(runsDir: string, id: string): Promise<RunIndex> {
  const states = new ItemStates();
  const { head, handle } = await readJournal(runsDir, id, {
    sent(ref, at) {
      const flags = states.flags(ref.n);
      const before = (flags & IN_FLIGHT) !== 0 ? BEFORE_IN_FLIGHT : 0;
      // An item's deciding line is its latest outcome; until it has one, its latest sent line.
      states.set(
        ref.n,
        (flags & ~(BEFORE_IN_FLIGHT | BEFORE_SENT)) | KNOWN | IN_FLIGHT | BEFORE_SENT | before,
        (flags & HAS_OUTCOME) === 0 ? at : undefined,
      );
    },
    unsent(line, at) {
      const flags = states.flags(line.n);
      if ((flags & BEFORE_SENT) === 0) return;
      const restored =
        (flags & ~(IN_FLIGHT | BEFORE_SENT | BEFORE_IN_FLIGHT)) | ((flags & BEFORE_IN_FLIGHT) !== 0 ? IN_FLIGHT : 0);
      // Withdrawn with the failure that stopped the run at it: that line decides its report item.
      const decides = line.reason !== undefined && (restored & (HAS_OUTCOME | IN_FLIGHT)) === 0;
      states.set(line.n, restored, decides ? at : undefined);
    },
    outcome(line, at) {
      const flags =
        (states.flags(line.n) & ~(IN_FLIGHT | TRANSIENT)) | KNOWN | HAS_OUTCOME | (line.transient ? TRANSIENT : 0);
      states.set(line.n, withStatus(flags, line.status), at);
    },
    forget(n) {
      states.set(n, 0);
    },
  });
  return new RunIndex(head, states, handle);
}

async function scanCounts(runsDir: string, id: string): Promise<RunIndex> {
  const run = await scanRun(runsDir, id);
  await run.close();
  return run;
}

/** finished: its last attempt ended the run; running: a live process holds its lock; else interrupted. */
export async function runState(runsDir: string, record: Pick<JournalHead, 'id' | 'end'>): Promise<RunState> {
  if (record.end !== undefined && finishesRun(record.end.reason)) return 'finished';
  const holder = await readLockInfo(join(runsDir, record.id, LOCK_FILE));
  // An unreadable lock, or one of another host: assume its holder lives.
  if (holder === 'unreadable' || (holder !== 'missing' && !isStale(holder))) return 'running';
  return record.end?.stopped ?? 'interrupted';
}

/** How many units the run has (docs/runs.md, "Every view of a run counts its last attempt's units"). */
export function unitsOf(run: Pick<JournalHead, 'header' | 'end'>): number | undefined {
  const endTotal: unknown = run.end?.summary.total;
  return isCount(endTotal) ? endTotal : run.header.units;
}

const journaledCount = (run: CountedRun): number => run.journaled + run.unchanged.count;

type CountedRun = Pick<RunIndex, 'journaled' | 'statuses' | 'unchanged' | 'header' | 'end'>;

/** Counts over the items the journal knows; never-sent units as skipped when the total is known (`unitsOf`). */
export function summarize(run: CountedRun): ReportSummary {
  const summary: ReportSummary = { total: 0, ok: 0, partial: 0, failed: 0, skipped: 0 };
  for (const status of run.statuses()) summary[status] += 1;
  summary.ok += run.unchanged.count;
  const known = journaledCount(run);
  const units = unitsOf(run) ?? known;
  summary.skipped += Math.max(0, units - known);
  summary.total = Math.max(units, known);
  return summary;
}

type RunFacts = Pick<JournalHead, 'id' | 'end' | 'header'>;

/** A unit without a line of its own: unchanged (`--changed-only`), or the run stopped before it (`refused`: why). */
export function unlinedItem(
  record: RunFacts & Pick<JournalHead, 'unchanged'>,
  ref: ItemRef,
  refused?: readonly Problem[],
): ReportItem {
  const since = record.unchanged.since(ref.n);
  if (since !== undefined)
    return { source: ref.source, id: ref.id, status: 'ok', errors: [], ...unsentVerdict(since, record.id) };
  const item = skippedItem(ref, ErrorCode.NotSentRunStopped, notSent(record, refused !== undefined));
  if (refused !== undefined) item.errors.push(...refused);
  return item;
}

const notSent = (record: RunFacts, refused = false): string =>
  notSentReason(record.end?.reason === 'max-errors', record.id, false, record.header.options.file === '-', refused);

const skippedItem = (ref: Omit<ItemRef, 'n'>, code: ProblemCode, message: string, doubt = {}): ReportItem => ({
  source: ref.source,
  id: ref.id,
  status: 'skipped',
  errors: [{ field: '', code, message }],
  ...doubt,
});

/** Units never reached, with no line: from the header's count; 0 after a completed attempt; else null. */
export function unjournaledCount(run: CountedRun): number | null {
  const units = unitsOf(run);
  if (units !== undefined) return Math.max(0, units - journaledCount(run));
  return run.end?.reason === 'completed' ? 0 : null;
}

export function reportItemOf(record: RunFacts, history: Omit<ResumeView, 'maybeApplied'>): ReportItem {
  const outcome = history.outcome;
  // Withdrawn: never sent, or stopped by a target failure at it (the run's own report's words).
  if (outcome === undefined && !history.inFlight)
    return skippedItem(history.ref, ErrorCode.NotSentRunStopped, history.withdrawn ?? notSent(record));
  // An item that had none, in a run that chose ids: the id examctl chose (created, or in doubt).
  const chosen =
    record.header.chosenIds === true && history.ref.id === null ? chosenId(record.id, history.ref.n) : null;
  const doubt = chosen === null ? {} : { inDoubt: true, id: chosen };
  if (history.inFlight || outcome === undefined) {
    // docs/runs.md, "Sent ahead": a kill leaves no way to tell whether it went out.
    return skippedItem(
      history.ref,
      ErrorCode.NoDefiniteAnswer,
      `sent (or about to be) when the run stopped, no answer recorded: it may have been applied (examctl runs resume ${record.id} sends it again)`,
      doubt,
    );
  }
  if (outcome.transient)
    return skippedItem(
      history.ref,
      ErrorCode.NoDefiniteAnswer,
      noDefiniteAnswerReason(outcome.errors.map((problem) => problem.message).join('; '), record.id),
      doubt,
    );
  const item: ReportItem = {
    source: history.ref.source,
    id: outcome.id ?? (outcome.status === 'failed' ? null : chosen),
    status: outcome.status,
    errors: outcome.errors,
  };
  if (outcome.action !== undefined) item.action = outcome.action;
  if (outcome.note !== undefined) item.note = outcome.note;
  if (Array.isArray(outcome.removed) && outcome.removed.every((entry) => typeof entry === 'string'))
    item.removed = outcome.removed;
  return item;
}

interface RunListing extends Pick<RunHeaderLine, 'id' | 'command' | 'target' | 'startedAt'> {
  endedAt?: string;
  state: RunState;
  summary: ReportSummary;
  input: string | null;
  /** False without the run's unit count (a `schedule push` killed early): `runs show` can count more. */
  totalKnown?: false;
}

/** `runs list`'s runs started at or after `from` (ms); `older` counts the rest; one unread is listed by its id. */
export async function listRuns(runsDir: string, trust?: RunTrust, from = -Infinity) {
  const all = await runIds(runsDir);
  const ids = all.filter((id) => !(startOf(id) < from));
  const runs: RunListing[] = [];
  const unreadable: { id: string; reason: string }[] = [];
  for (const id of ids) {
    const refused = await runProblem(runsDir, id, trust);
    if (refused !== undefined) {
      unreadable.push({ id, reason: `skipped: ${refused}` });
      continue;
    }
    try {
      const quick = await quickRun(runsDir, id);
      const finished = quick?.finished;
      const record = finished === undefined ? await scanCounts(runsDir, id) : undefined;
      const { command, target, startedAt, input } = record?.header ?? quick!.header;
      const endedAt = finished?.endedAt ?? record?.end?.at;
      runs.push({
        id,
        command,
        target,
        startedAt,
        ...(endedAt !== undefined ? { endedAt } : {}),
        state: record === undefined ? 'finished' : await runState(runsDir, record),
        summary: finished?.summary ?? summarize(record!),
        input: input?.path ?? null,
        ...(record !== undefined && unjournaledCount(record) === null ? { totalKnown: false as const } : {}),
      });
    } catch (error) {
      unreadable.push({ id, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return { runs, unreadable, older: all.length - ids.length };
}

/** Run ids in the directory, newest first (ids sort by start time). */
async function runIds(runsDir: string): Promise<string[]> {
  const names = await readdir(runsDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw new RunJournalError(`cannot read the runs directory ${runsDir}: ${describeSystemError(error, 'directory')}`);
  });
  return names.filter(isRunId).sort().reverse();
}

/** The headers of the runs of `command` on `target` for `population` after run `after`, newest first. */
export async function* laterRunsOf(
  runsDir: string,
  after: string,
  of: Pick<RunHeaderLine, 'command' | 'target'> & { population: unknown },
): AsyncGenerator<{ id: string } & QuickRun> {
  for (const id of await runIds(runsDir)) {
    if (id <= after) break;
    if ((await runProblem(runsDir, id, currentTrust())) !== undefined) continue;
    const run = await quickRun(runsDir, id);
    const header = run?.header;
    if (
      header !== undefined &&
      header.command === of.command &&
      targetIdentity(header.target) === targetIdentity(of.target) &&
      header.options.population === of.population
    )
      yield { id, ...run! };
  }
}

/** Later runs (same command, target, population, memory) that may have changed it, oldest first: docs/sync.md. */
export async function laterFeedingRuns(
  runsDir: string,
  wanted: Pick<RunHeaderLine, 'command' | 'target' | 'syncDir'> & {
    after: string;
    population: string | undefined;
    except?: string;
  },
): Promise<{ id: string; startedAt: string }[]> {
  const found: { id: string; startedAt: string }[] = [];
  for await (const { id, header, finished } of laterRunsOf(runsDir, wanted.after, wanted)) {
    if (id === wanted.except || header.options.dryRun === true || header.options.syncDir !== wanted.syncDir) continue;
    if (finished !== undefined && finished.summary.ok + finished.summary.partial === 0) continue;
    // Unfinished with no item on record: it stopped before anything was sent.
    if (finished === undefined && (await scanCounts(runsDir, id).catch(() => undefined))?.journaled === 0) continue;
    found.push({ id, startedAt: header.startedAt });
  }
  return found.reverse();
}

export async function finishedRunStart(runsDir: string, id: string): Promise<string | undefined> {
  if (!isRunId(id) || (await runProblem(runsDir, id, currentTrust())) !== undefined) return undefined;
  const run = await quickRun(runsDir, id);
  return run?.finished && run.header.startedAt;
}

/** A run's state for choosing or pruning it (damaged: why); an unreadable lock counts as running. */
async function stateOf(runsDir: string, id: string): Promise<RunState | Error> {
  if ((await quickRun(runsDir, id))?.finished !== undefined) return 'finished';
  const record = await scanCounts(runsDir, id).catch((error: Error) => error);
  return record instanceof Error ? record : runState(runsDir, record).catch(() => 'running' as const);
}

/** `last`: the newest run; `unfinished`: the newest if interrupted (exit 2 if an older one is or one is unreadable). */
export async function resolveRunId(
  runsDir: string,
  wanted: string | 'last' | 'unfinished',
  trust?: RunTrust,
): Promise<string> {
  if (wanted !== 'last' && wanted !== 'unfinished') return wanted;
  const ids: string[] = [];
  for (const id of await runIds(runsDir)) if ((await runProblem(runsDir, id, trust)) === undefined) ids.push(id);
  if (wanted === 'last') {
    if (ids.length === 0) throw new RunJournalError(`no runs in ${runsDir}`);
    return ids[0] as string;
  }
  for (const id of ids) {
    const state = await stateOf(runsDir, id);
    if (state instanceof Error && !(state instanceof NoRunError)) throw state;
    if (state !== 'interrupted') continue;
    if (id === ids[0]) return id;
    throw new RunJournalError(
      `the newest run, ${ids[0]}, is not interrupted; the newest interrupted one is ${id}: examctl runs resume ${id} finishes it, if it is the run you mean`,
    );
  }
  throw new NothingToResumeError(
    `no interrupted run to resume in ${runsDir}: nothing to do (examctl runs list shows the runs and their states)`,
  );
}

/** The newest unfinished run that reads `isInput` (its input, or a file kept with its digest as `xSha256`). */
export async function unfinishedRunOf(
  runsDir: string,
  isInput: (path: string) => Promise<boolean>,
): Promise<string | undefined> {
  for (const id of await runIds(runsDir).catch((): string[] => [])) {
    const run = await quickRun(runsDir, id);
    if (run === undefined || run.finished !== undefined) continue;
    const files = [run.header.input?.path, ...digestedFiles(run.header).map(({ path }) => path)];
    for (const file of files) if (file !== undefined && (await isInput(file))) return id;
  }
  return undefined;
}

/** Retention (docs/runs.md, "runs prune"); `all`: interrupted runs and damaged journals too, never a running one. */
interface PrunePolicy {
  readonly maxAgeMs?: number;
  readonly keepFinished?: number;
  readonly all?: boolean;
}

const DAY_MS = 24 * 60 * 60 * 1000;

function startOf(id: string): number {
  // 20261122T110502.481Z -> 2026-11-22T11:05:02.481Z
  return Date.parse(
    `${id.slice(0, 4)}-${id.slice(4, 6)}-${id.slice(6, 8)}T${id.slice(9, 11)}:${id.slice(11, 13)}:${id.slice(13, 19)}Z`,
  );
}

/** Removes runs past the policy; says what it removed, kept (interrupted) and left alone (run-trust.ts: why). */
export async function pruneRuns(
  runsDir: string,
  { maxAgeMs = PRUNE_MAX_AGE_DAYS * DAY_MS, keepFinished = PRUNE_KEEP_FINISHED, all = false }: PrunePolicy = {},
  now: Date = new Date(),
  trust: RunTrust = currentTrust(),
) {
  const removed: string[] = [];
  const keptUnfinished: string[] = [];
  const leftAlone: { id: string; reason: string }[] = [];
  const cutoff = now.getTime() - maxAgeMs;
  let finishedSeen = 0;
  let unfinishedSeen = 0;
  const unsafe = await runsDirProblem(runsDir, trust);
  if (unsafe !== undefined) throw new RunJournalError(`${unsafe}; nothing pruned`, { code: 'E2400' });
  for (const id of await runIds(runsDir)) {
    const refusal = await runProblem(runsDir, id, trust);
    if (refusal !== undefined) {
      leftAlone.push({ id, reason: refusal });
      continue;
    }
    const state = await stateOf(runsDir, id);
    if (state === 'running') continue;
    // A refused run sent nothing: kept as long as a finished one.
    const finished = state === 'finished' || state === 'refused';
    const rank = finished ? finishedSeen++ : unfinishedSeen++;
    const expired = startOf(id) < cutoff || rank >= keepFinished;
    if (!finished && !all) {
      keptUnfinished.push(id);
      continue;
    }
    if (!expired) continue;
    // Taken by a resume meanwhile, or no longer a directory to lock in: left.
    const lock = await lockRun(join(runsDir, id), id).catch(() => undefined);
    if (lock === undefined) continue;
    // The lock lives inside the directory: removing the directory removes it; a run left keeps no stray LOCK.
    try {
      await rm(join(runsDir, id), { recursive: true, force: true, ...RM_RETRY });
      removed.push(id);
    } catch (error) {
      await lock.release().catch(() => undefined);
      leftAlone.push({ id, reason: `cannot remove it: ${describeSystemError(error)}` });
    }
  }
  return { removed, keptUnfinished, leftAlone };
}

/** Far above any header line (the recorded options and the input's path). */
const MAX_HEADER_BYTES = 4 * 1024 * 1024;
/** Far above any end line: a longer last line is not one. */
const MAX_END_BYTES = 64 * 1024;

type QuickRun = { header: RunHeaderLine; finished?: { endedAt: string; summary: ReportSummary } };

/**
 * A run's header and, when its last line finishes the run, its end (docs/runs.md, "Run summaries"): else read it
 * whole.
 */
async function quickRun(runsDir: string, id: string): Promise<QuickRun | undefined> {
  const handle = await openRegularFile(journalPath(runsDir, id)).catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    const size = (await handle.stat()).size;
    const first = new LineReader(handle, Math.min(size, MAX_HEADER_BYTES)).lineAt(0);
    const header = first === undefined ? undefined : checkJournalLine(first, true);
    if (typeof header !== 'object' || header.t !== 'run') return undefined;
    const tail = Buffer.alloc(Math.min(size, MAX_END_BYTES));
    const { bytesRead } = await handle.read(tail, 0, tail.length, size - tail.length);
    // A torn last line (no newline), or one longer than the tail: no end line to go by.
    const start = tail.lastIndexOf(10, bytesRead - 2) + 1;
    if (bytesRead !== tail.length || tail[bytesRead - 1] !== 10 || (start === 0 && tail.length < size))
      return { header };
    const line = checkJournalLine(tail.subarray(start, bytesRead - 1), false);
    if (typeof line !== 'object' || line.t !== 'end' || !finishesRun(line.reason)) return { header };
    const { total, ok, partial, failed, skipped } = line.summary;
    if (![total, ok, partial, failed, skipped].every(isCount)) return { header };
    return { header, finished: { endedAt: line.at, summary: { total, ok, partial, failed, skipped } } };
  } catch {
    return undefined;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** 1 MiB of blocks: a few interleaved attempts of a resumed run still read each block about once. */
const BLOCK_SIZE = 64 * 1024;
const MAX_BLOCKS = 16;

/** Lines at offsets below `limit`, read synchronously: a resume decides in the dispatcher's turn. Never a FIFO. */
class LineReader {
  private readonly blocks = new Map<number, Buffer>();

  constructor(
    private readonly handle: FileHandle,
    private readonly limit: number,
  ) {}

  /** The line starting at `offset`, without its newline; undefined when no newline ends it below the limit. */
  lineAt(offset: number): Buffer | undefined {
    const parts: Buffer[] = [];
    for (let position = offset; position < this.limit; ) {
      const index = Math.floor(position / BLOCK_SIZE);
      const block = this.block(index);
      const from = position - index * BLOCK_SIZE;
      if (from >= block.length) return undefined;
      const newline = block.indexOf(10, from);
      if (newline >= 0) {
        parts.push(block.subarray(from, newline));
        return parts.length === 1 ? parts[0] : Buffer.concat(parts);
      }
      // Copied: reading the next block may reuse this one's memory.
      parts.push(Buffer.from(block.subarray(from)));
      position = (index + 1) * BLOCK_SIZE;
    }
    return undefined;
  }

  private block(index: number): Buffer {
    const cached = this.blocks.get(index);
    if (cached !== undefined) {
      // Most recently used last: the first key is the one to drop.
      this.blocks.delete(index);
      this.blocks.set(index, cached);
      return cached;
    }
    const start = index * BLOCK_SIZE;
    // Reused (a line is decoded before the next read): left to the collector, blocks would pile up.
    const dropped = this.blocks.size >= MAX_BLOCKS ? (this.blocks.keys().next().value as number) : undefined;
    const reused = dropped === undefined ? undefined : this.spare(dropped);
    const block = (reused ?? Buffer.allocUnsafe(BLOCK_SIZE)).subarray(
      0,
      Math.max(0, Math.min(BLOCK_SIZE, this.limit - start)),
    );
    let filled = 0;
    while (filled < block.length) {
      const bytesRead = readSync(this.handle.fd, block, filled, block.length - filled, start + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const read = block.subarray(0, filled);
    this.blocks.set(index, read);
    return read;
  }

  private spare(index: number): Buffer {
    const block = this.blocks.get(index) as Buffer;
    this.blocks.delete(index);
    return Buffer.from(block.buffer, block.byteOffset, BLOCK_SIZE);
  }
}

/** Units a `--changed-only` run did not send (`unchanged` lines): costs per run of positions, not per unit. */
export class UnchangedPositions {
  /** Sorted, disjoint: first position, count, the run it matched. */
  private starts: number[] = [];
  private counts: number[] = [];
  private sinces: string[] = [];
  count = 0;

  /** Adds the runs of one journal line; false when a position of it is in a run already. */
  addLine(line: UnchangedLine): boolean {
    const { r, since } = line;
    for (let k = 0; k + 2 < r.length; k += 3) {
      const from = r[k]!;
      const count = r[k + 1]!;
      const run = since[r[k + 2]!];
      if (run === undefined) continue;
      const at = this.firstEndingAfter(from);
      if (at < this.starts.length && this.starts[at]! < from + count) return false;
      // Joined to the run before when it continues it with the same `since` (one attempt's groups).
      const before = at - 1;
      if (before >= 0 && this.starts[before]! + this.counts[before]! === from && this.sinces[before] === run)
        this.counts[before]! += count;
      else {
        this.starts.splice(at, 0, from);
        this.counts.splice(at, 0, count);
        this.sinces.splice(at, 0, run);
      }
      this.count += count;
    }
    return true;
  }

  /** Takes position `n` out of its run (a resume sent it again); false when it is not one of these. */
  release(n: number): boolean {
    const k = this.firstEndingAfter(n);
    if (k >= this.starts.length || this.starts[k]! > n) return false;
    const start = this.starts[k]!;
    const end = start + this.counts[k]!;
    const pieces = [
      [start, n - start],
      [n + 1, end - n - 1],
    ].filter(([, count]) => count! > 0);
    this.starts.splice(k, 1, ...pieces.map(([from]) => from!));
    this.counts.splice(k, 1, ...pieces.map(([, count]) => count!));
    this.sinces.splice(k, 1, ...pieces.map(() => this.sinces[k]!));
    this.count -= 1;
    return true;
  }

  /** The run a position matched, or undefined when it is not one of these. */
  since(n: number): string | undefined {
    const k = this.firstEndingAfter(n);
    return k < this.starts.length && this.starts[k]! <= n ? this.sinces[k] : undefined;
  }

  countBelow(total: number): number {
    let below = 0;
    for (let k = 0; k < this.starts.length && this.starts[k]! < total; k++)
      below += Math.min(this.counts[k]!, total - this.starts[k]!);
    return below;
  }

  /** Index of the first run whose last position is at or after `n`. */
  private firstEndingAfter(n: number): number {
    let low = 0;
    let high = this.starts.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.starts[mid]! + this.counts[mid]! <= n) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
