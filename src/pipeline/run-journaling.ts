import { ErrorCode } from '../domain/codes.js';
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { problem, type Problem } from '../domain/problem.js';
import { pipedInputWay, stoppedItemReason, type ReportEntry, type ReportSummary } from '../report/run-report.js';
import type { ResolvedTarget } from '../context/resolved-target.js';
import { MOST_ASKED_HEADS, type IntegrationApi, type StoreHead, type StoreKeyKind } from '../port/integration-api.js';
import { localDirectoryOf } from '../port/local-directory.js';
import { APPLIED_BEFORE_INTERRUPT, digestKey, type EndReason, type ItemRef } from '../runs/journal-lines.js';
import {
  headsToJudge,
  appliedItem,
  fingerprintInput,
  keptButLost,
  recordedFlags,
  settleInFlight,
  type OpenedResume,
  type ResumeDecision,
} from '../runs/resume-plan.js';
import { currentTrust, runsDirProblem } from '../runs/run-trust.js';
import { laterRunsOf } from '../runs/read-run.js';
import { RunJournal } from '../runs/run-journal.js';
import { recordedOptions } from '../runs/recorded-options.js';
import { resolveRunsDir } from '../runs/runs-dir.js';
import { InternalError, StoreReplacedError, TargetError, TransientTargetError, UsageError } from '../system/errors.js';
import { RunJournalError } from '../runs/run-errors.js';
import type { CommandDeps } from '../context/command-deps.js';
import type { GlobalOptions } from '../flags/global-options.js';
import { counted, formatCount, namedFirst } from '../formats/number-format.js';
import type { Outcome, RecordJob, RunOptions, Unit } from './record-job.js';
import { describeSystemError } from '../system/system-error-words.js';
import { say } from '../formats/terminal-text.js';
import { givenSyncDir, isStateAddress } from '../context/state-http.js';
import { resolveSettings } from '../context/settings.js';
import { defaultSyncDir, storeHead, storeInstance } from '../context/target.js';
import { chosenId } from '../runs/run-id.js';
import { FILES_READ, PROFILE_READ } from './command-input.js';
import type { Env } from '../system/env-values.js';

/** The pipeline's side of a run journal (docs/runs.md): units keyed by their position, as a resume matches. */
export interface RunJournaling {
  readonly id: string;
  /** On a resume, the recorded report entry of a unit whose outcome stands; else undefined. */
  kept(n: number, unit: Unit<unknown>): ReportEntry | undefined;
  /** Resolves once the unit is on record as sent; the units of one turn share one fsync. */
  sending(n: number, unit: Unit<unknown>): Promise<void>;
  /** `count` units on record as sent, the memory's intents too: the crash rehearsal's `sent` point. */
  onRecord?(count: number): void;
  /** On a resume: kept unit `n` is in the store by its own word (its key changed after the run began): it stands. */
  inStore?(n: number): boolean;
  /** On a resume: unit `n`, applied by an earlier attempt, was lost by a restore since: sent again, memory or not. */
  lost?(n: number, unit: Unit<unknown>): boolean;
  /** A new run whose resume asks the store (`storeKeys`): the store's head as it began, in its journal's header. */
  readonly startHead?: string;
  /** The store says where it stands: each answer's commit head (CallOptions.onCommitted) is journaled with it. */
  readonly commitHeads?: true;
  /**
   * Journals the answer, with the head after the commit that holds its changes (`committed`); on a resume, an
   * "already exists" for a unit in flight before is ok with a note.
   */
  answered(n: number, unit: Unit<unknown>, outcome: Outcome, committed?: string): Outcome;
  /** Journals a unit --changed-only did not send (unchanged since run `since`), compactly. */
  unchanged(n: number, since: string): void;
  refused(n: number, unit: Unit<unknown>, problems: Problem[]): void;
  /** A send that threw: transient (network, 429, 5xx) or sent without an answer; resent as maybe applied. */
  unanswered(n: number, unit: Unit<unknown>, error: unknown): void;
  /** Ends the attempt (units sent without an answer withdrawn); `nothingSent`: a lock refusal marks it `refused`. */
  end(reason: EndReason, summary: ReportSummary, stopError?: unknown, nothingSent?: boolean): Promise<void>;
  close(): Promise<void>;
  /** A new run that sent nothing and will not: removed (a resumed run is only closed). */
  discard(): Promise<void>;
}

function pinDigest(pin: string): string {
  return createHash('sha256').update(pin, 'utf8').digest('hex');
}

const refOf = (n: number, unit: Unit<unknown>): ItemRef => ({ n, source: unit.source, id: unit.id });

/** A runs directory failing the trust rule refuses a new run (exit 2): it could not be resumed. */
export async function refuseUntrustedRunsDir(options: RunOptions, deps: CommandDeps): Promise<void> {
  const problem = await runsDirProblem(resolveRunsDir(options.runsDir, deps.env), currentTrust());
  if (problem !== undefined)
    throw new RunJournalError(
      `${problem}; a run journaled there could not be resumed, so none is started: nothing was sent`,
      { code: 'E2400' },
    );
}

/** What the journal keeps of the job (choosesIds: RecordJob.withChosenId; headSeen: RecordJob.headSeen's answer). */
export type JournaledTraits = Pick<RecordJob<unknown>, 'lostAttemptDid' | 'storeKeys' | 'holds'> & {
  choosesIds?: boolean;
  headSeen?: string | undefined;
};

/** Starts a new run's journal, or continues a resume's (docs/runs.md, "What a journal keeps"). */
export async function startJournaling(
  command: string,
  target: ResolvedTarget,
  units: number | undefined,
  options: RunOptions,
  deps: CommandDeps,
  { lostAttemptDid, choosesIds, storeKeys, holds, headSeen }: JournaledTraits = {},
  api?: IntegrationApi | null,
): Promise<RunJournaling> {
  const testSignal = testSignalFrom(deps.env);
  // Left set in a job's environment it kills every run: said, so the kill is never a mystery.
  const rehearsal = deps.env.EXAMCTL_TEST_SIGNAL_AFTER;
  if (rehearsal)
    await say(
      deps,
      `examctl: EXAMCTL_TEST_SIGNAL_AFTER=${rehearsal} is set: this run signals itself (a crash rehearsal, docs/runs.md)`,
    );
  const resumed = deps.resume;
  // The store's head as an attempt begins (a local store's, `local serve`'s; none from the platform), durable before
  // its first request: a later resume asks what the store changed since (storeSinceStart, keptButLost).
  const startHead = async () =>
    storeKeys === undefined ? undefined : (headSeen ?? (await api?.storeHead?.([]))?.head);
  if (resumed !== undefined) {
    const { journal, plan, record } = resumed;
    const decisions = new Map<number, ResumeDecision>();
    const { applied, lost } = storeKeys
      ? await storeSinceStart((asked) => storeHead(target, asked, true), record, storeKeys)
      : NOTHING_KNOWN;
    const attemptHead = await startHead();
    if (attemptHead !== undefined) await journal.attemptHead(attemptHead);
    if (lost.size > 0) await say(deps, `note: ${lostWords(record.id, lost.size, applied !== undefined)}`);
    // Whether the store holds what a unit of a key it changed since the run began would write: then that change is
    // the run's. A served store cannot be read: there the key decides (undefined).
    const directory = target.kind === 'local' ? localDirectoryOf(api) : undefined;
    const heldBy = (unit: Unit<unknown>, key: string): boolean | undefined =>
      directory === undefined || holds === undefined || !unit.prepared.ok
        ? undefined
        : holds(directory, unit.prepared.value, key);
    // Kept units the store holds (it changed their keys after the run began, to what they wrote): they stand.
    const inStore = new Set<number>();
    // Kept ok units of a key the store changed since the run began, to other values: sent again.
    const otherValues = new Set<number>();
    // Decided once per unit, whichever of `lost` and `kept` asks first (each asks in position order).
    let early: [n: number, decision: ResumeDecision] | undefined;
    let keptAsked = -1;
    // A unit without an id of its own was sent with the one examctl chose (run-id.ts, chosenId).
    const keyOf = (n: number, unit: Unit<unknown>) =>
      unit.id ?? (record.header.chosenIds === true ? chosenId(record.id, n) : null);
    const decide = (n: number, unit: Unit<unknown>): ResumeDecision => {
      if (early?.[0] === n) return early[1];
      const decision = plan.decide(refOf(n, unit));
      early = [n, decision];
      if (decision.action === 'keep' && applied !== undefined) {
        const { id, status, action } = decision.item;
        // Ok (applied, or judged unchanged) with its key changed since to other values: sent again. A partial one
        // never held all it writes: the key decides.
        if (id !== null && status === 'ok' && action !== 'left' && applied.has(id) && heldBy(unit, id) === false)
          otherValues.add(n);
        else if (appliedItem(decision.item)) inStore.add(n);
      }
      return decision;
    };
    const resent = (n: number, unit: Unit<unknown>): boolean => {
      if (lost.has(n)) return true;
      if (n > keptAsked) decide(n, unit);
      return otherValues.has(n);
    };
    const journaled = journaling(
      journal,
      {
        kept(n, unit) {
          if (lost.has(n)) return undefined;
          const decision = decide(n, unit);
          keptAsked = n;
          early = undefined;
          if (otherValues.has(n)) return undefined;
          if (decision.action === 'keep') return { item: decision.item, rows: unit.rows };
          const key = keyOf(n, unit);
          // A unit the memory does not send (acknowledged to this run: its own words) is left to it.
          if (
            decision.maybeApplied &&
            unit.unsent === undefined &&
            key !== null &&
            applied?.has(key) === true &&
            heldBy(unit, key) !== false
          ) {
            const outcome = appliedBeforeInterrupt(record.id, directory !== undefined);
            journal.outcome({ n, source: unit.source, id: unit.id, transient: false, ...outcome });
            inStore.add(n);
            return { item: { source: unit.source, id: key, ...outcome }, rows: unit.rows };
          }
          if (decision.maybeApplied) decisions.set(n, decision);
          return undefined;
        },
        inStore: (n) => inStore.has(n),
        lost: resent,
        settle(n, unit, outcome) {
          // A resend the store found unchanged had lost nothing.
          if (
            (lost.has(n) || otherValues.has(n)) &&
            outcome.status !== 'failed' &&
            outcome.action !== 'unchanged' &&
            // Its own words, not the memory's (sent-memory.ts, sentAgainWhy): the resume knows which attempt's.
            (outcome.note === undefined || outcome.note.startsWith('sent again: '))
          )
            return {
              ...outcome,
              note: lost.has(n)
                ? `sent again: the store lost what an earlier attempt of run ${record.id} applied (restored since)`
                : `sent again: the store holds other values than the row's (another writer changed it after run ${record.id} began, or a restore undid it)`,
            };
          const decision = decisions.get(n);
          if (decision === undefined) return outcome;
          decisions.delete(n);
          // The store changed its key in none of the run's attempts: none applied it, so this answer is exact.
          const key = keyOf(n, unit);
          if (applied !== undefined && key !== null && !applied.has(key)) return outcome;
          const settled = settleInFlight(
            record.id,
            decision,
            outcome,
            lostAttemptDid,
            record.header.chosenIds === true && unit.id === null,
          );
          return { ...outcome, ...settled };
        },
      },
      testSignal,
    );
    return attemptHead === undefined ? journaled : { ...journaled, commitHeads: true };
  }
  const invocation: Record<string, unknown> = { ...(deps.invocation ?? options) };
  let input = null;
  const read = (path: string) => FILES_READ.get(deps.stderr)?.get(path);
  if (typeof invocation.file === 'string' && invocation.file !== '-') {
    const file = resolve(deps.cwd, invocation.file);
    input = await fingerprintInput(file, read(file)).catch((error: NodeJS.ErrnoException) => {
      throw new RunJournalError(`cannot read ${file} for the run journal: ${describeSystemError(error, 'file')}`);
    });
    // A copy read under the name given (apply's kept copy, docs/plan.md): a resume and `runs show` name it so too.
    if (deps.pipedFile !== undefined) input.name = deps.pipedFile;
  }
  if (typeof invocation.store === 'string') invocation.store = resolve(deps.cwd, invocation.store);
  if (typeof invocation.report === 'string') invocation.report = resolve(deps.cwd, invocation.report);
  // The sync memory's place as this run used it: a resume feeds it, a later night compares it (sent-memory.ts).
  const givenSyncDir = journaledSyncDir(invocation.syncDir, deps);
  if (givenSyncDir !== undefined) invocation.syncDir = givenSyncDir;
  if (deps.keptOptions === undefined)
    throw new InternalError(`${command}: no kept options for the run journal (run it through the command tree)`);
  const recorded = recordedOptions(invocation, deps.keptOptions.names);
  if (typeof invocation.pin === 'string') recorded.pinSha256 = pinDigest(invocation.pin);
  // A file that shapes every request as --file does (--schedule, a map file): its digest is kept for a resume.
  const digestOf = (path: string) =>
    fingerprintInput(path, read(path)).then(
      ({ sha256 }) => sha256,
      () => undefined,
    );
  for (const name of deps.keptOptions.digested) {
    const path = invocation[name];
    const digest = typeof path === 'string' ? await digestOf(resolve(deps.cwd, path)) : undefined;
    if (digest !== undefined) recorded[digestKey(name)] = digest;
  }
  recorded.cwd = deps.cwd;
  const runsDir = resolveRunsDir(options.runsDir, deps.env);
  // The profile the input was read with (before any prompt; else as it is now): a rebuild or a resume reads the same.
  const noted = PROFILE_READ.get(deps.stderr);
  const settings =
    noted?.settings ?? (await resolveSettings(invocation, deps, deps.runProfile, deps.cwd).catch(() => undefined));
  const active = settings?.profile;
  const profiled = settings?.record?.name === active?.name ? settings?.record?.baseUrl : undefined;
  const mapFile = active?.defaults.mapFile && resolve(active.configDir, active.defaults.mapFile);
  // Whether its map file shaped anything, judged as the input was read (no read noted: kept and checked).
  const mapped = mapFile && (noted?.shapes ?? true) ? await digestOf(mapFile) : undefined;
  const profile =
    active === undefined
      ? null
      : {
          name: active.name,
          defaults: { ...active.defaults },
          configDir: active.configDir,
          ...(profiled ? { baseUrl: profiled } : {}),
          mapFileSha256: mapped,
        };
  const fed = givenSyncDir ?? defaultSyncDir(options.runsDir, deps);
  const syncDir = deps.keptOptions.names.includes('syncDir') ? fed : undefined;
  const instance = await storeInstance(target.report);
  const head = await startHead();
  const journal = await RunJournal.start(runsDir, {
    command,
    options: recorded,
    target: target.report,
    origin: target.note,
    input,
    profile,
    syncDir,
    instance,
    ...(head === undefined ? {} : { storeHead: head }),
    ...(deps.applying === undefined ? {} : { plan: deps.applying.plan }),
    ...(choosesIds === true ? { chosenIds: true as const } : {}),
    ...(units === undefined ? {} : { units }),
  });
  const journaled = journaling(journal, { kept: () => undefined, settle: (_n, _unit, outcome) => outcome }, testSignal);
  return head === undefined ? journaled : { ...journaled, startHead: head, commitHeads: true };
}

/** What the store says of a resumed run: the keys it changed since the run began (if known), the kept units it lost. */
interface SinceStart {
  applied: ReadonlySet<string> | undefined;
  lost: ReadonlySet<number>;
}

const NOTHING_KNOWN: SinceStart = { applied: undefined, lost: new Set() };

/** How many kept units of a run the store lost (restored since it applied them): a finished run goes on for them. */
export async function lostByStore(
  ask: StoreAsker,
  record: Pick<OpenedResume['record'], 'header' | 'keptItems' | 'headBefore'>,
  collection: StoreKeyKind,
): Promise<number> {
  return (await storeSinceStart(ask, record, collection)).lost.size;
}

/** Where the store stands, and which of `asked` heads it holds (context/target.ts, storeHead). */
type StoreAsker = (asked: readonly string[]) => Promise<StoreHead | undefined>;

/** The store against the run's start head (docs/runs.md, "A store restored under a run"); none: the journal stands. */
async function storeSinceStart(
  ask: StoreAsker,
  record: Pick<OpenedResume['record'], 'header' | 'keptItems' | 'headBefore'>,
  collection: StoreKeyKind,
): Promise<SinceStart> {
  const head = record.header.storeHead;
  if (head === undefined) return NOTHING_KNOWN;
  const prefix = `${collection}:`;
  const changedSince = new Map<string, ReadonlySet<string>>();
  const { starts, commits } = headsToJudge(record);
  for (const at of new Set([head, ...starts])) {
    const standing = await ask([at]).catch(() => undefined);
    if (standing === undefined) return NOTHING_KNOWN;
    if (standing.holds.includes(at))
      changedSince.set(
        at,
        new Set(standing.changed.filter((key) => key.startsWith(prefix)).map((key) => key.slice(prefix.length))),
      );
  }
  // The commit heads the store holds, asked at most MOST_ASKED_HEADS at a time (`local serve` answers no more).
  const held = new Set<string>();
  const asked = [...commits];
  for (let from = 0; from < asked.length; from += MOST_ASKED_HEADS) {
    const standing = await ask(asked.slice(from, from + MOST_ASKED_HEADS)).catch(() => undefined);
    if (standing === undefined) return NOTHING_KNOWN;
    for (const one of standing.holds) held.add(one);
  }
  // Undefined: restored to before the run began.
  return { applied: changedSince.get(head), lost: keptButLost(record, changedSince, held) };
}

function lostWords(run: string, count: number, sinceStart: boolean): string {
  return (
    `run ${run}: ${counted(count, 'row')} an earlier attempt applied ${count === 1 ? 'is' : 'are'} not in the store ` +
    `(restored ${sinceStart ? 'since the run began' : 'to before the run began'}): sent again`
  );
}

/** A unit the interrupted attempt sent whose key the store changed since (`read`: to what it writes): done. */
function appliedBeforeInterrupt(run: string, read: boolean): Pick<Outcome, 'status' | 'errors' | 'action' | 'note'> {
  return {
    status: 'ok',
    errors: [],
    action: 'sent',
    note: `${APPLIED_BEFORE_INTERRUPT}${run} before the interrupt (the store changed it after the run began${read ? ', to what it writes' : ''}): not sent again`,
  };
}

function journaling(
  journal: RunJournal,
  resume: Pick<RunJournaling, 'kept' | 'inStore' | 'lost'> & {
    settle(n: number, unit: Unit<unknown>, outcome: Outcome): Outcome;
  },
  testSignal: TestSignal,
): RunJournaling {
  let batch: ItemRef[] = [];
  let batchDurable: Promise<void> | undefined;
  // Units on record as sent with no answer: withdrawn at the attempt's end (they never went out).
  const unanswered = new Map<number, ItemRef & { reason?: string }>();
  return {
    id: journal.id,
    kept: resume.kept,
    inStore: resume.inStore,
    lost: resume.lost,
    sending(n, unit) {
      const ref = refOf(n, unit);
      batch.push(ref);
      unanswered.set(n, ref);
      // One sent() per turn: a job that sends its units together (one DELETE for a list) sees them in one write.
      batchDurable ??= Promise.resolve().then(() => {
        const refs = batch;
        batch = [];
        batchDurable = undefined;
        return journal.sent(refs);
      });
      return batchDurable;
    },
    onRecord: (count) => testSignal.counted('sent', count),
    answered(n, unit, outcome, committed) {
      unanswered.delete(n);
      const settled = resume.settle(n, unit, outcome);
      // What a mover's request removed (docs/sync.md) stays on its item in `runs show` and a resume's report.
      const removed = settled.status === 'failed' ? undefined : unit.membership?.removed;
      journal.outcome({
        n,
        source: unit.source,
        id: unit.id,
        status: settled.status,
        errors: settled.errors,
        transient: false,
        action: settled.action,
        removed,
        note: settled.note,
        committed,
      });
      testSignal.counted('outcome');
      return settled;
    },
    unchanged(n, since) {
      journal.unchanged(n, since);
      testSignal.counted('outcome');
    },
    refused(n, unit, problems) {
      journal.outcome({ n, source: unit.source, id: unit.id, status: 'failed', errors: problems, transient: false });
      testSignal.counted('outcome');
    },
    unanswered(n, unit, error) {
      // Of a store replaced under the run: as never reached, its check let nothing land (docs/runs.md).
      if (error instanceof StoreReplacedError) return;
      // A definite failure, or never reached: withdrawn in the report's words (docs/runs.md, "Transient outcomes").
      if (error instanceof TargetError && !(error instanceof TransientTargetError)) {
        unanswered.set(n, { ...refOf(n, unit), reason: stoppedItemReason(error) });
        return;
      }
      unanswered.delete(n);
      if (!(error instanceof TransientTargetError)) return;
      try {
        const errors = [problem('', ErrorCode.NoDefiniteAnswer, error.message)];
        journal.outcome({ ...refOf(n, unit), status: 'failed', errors, transient: true });
      } catch {
        // The journal failed: the unit stays sent without an answer (resent all the same); the end says why.
      }
    },
    end(reason, summary, stopError, nothingSent) {
      if (unanswered.size > 0) journal.unsent([...unanswered.values()].sort((a, b) => a.n - b.n));
      return journal.end(reason, summary, stopError, nothingSent);
    },
    close: () => journal.close(),
    discard: () => journal.discard(),
  };
}

/** `--sync-dir`, else EXAMCTL_SYNC_DIR, as journaled: an address as given (state-http.ts), a directory resolved. */
export function journaledSyncDir(flag: unknown, deps: Pick<CommandDeps, 'env' | 'cwd'>): string | undefined {
  const given = givenSyncDir(flag, deps.env);
  if (given === undefined) return undefined;
  return isStateAddress(given) ? given : resolve(deps.cwd, given);
}

/** Flags of `runs resume` that apply to the resumed run: output, prompts and pacing, never what is sent. */
const RESUME_OVERRIDES = [
  'json',
  'report',
  'yes',
  'input',
  'debug',
  'concurrency',
  'rate',
  'tokenFile',
  'profile',
  'allowInsecureHttp',
] as const;

/** A resume under a later run is refused unless --over-later-runs (docs/runs.md, "runs resume"). */
export async function refuseOverLaterRuns(runsDir: string, header: OpenedResume['record']['header']): Promise<void> {
  const later: string[] = [];
  for await (const { id } of laterRunsOf(runsDir, header.id, { ...header, population: header.options.population }))
    later.push(id);
  if (later.length === 0) return;
  const named = namedFirst(later, 3);
  throw new RunJournalError(
    `run ${header.id}: ${later.length === 1 ? 'a later run' : `${formatCount(later.length)} later runs`} of ${header.command} went to the same target since it started (${named}); ` +
      `resuming would send this run's older rows over what ${later.length === 1 ? 'it' : 'they'} sent. ` +
      "If a later run was this run's own retry (its report with --only-failed) and ended ok, this run's work is done (examctl runs prune --all removes it from runs list); " +
      "else run the command again with today's file (safe where a second run is: user sync, --upsert, --missing-ok, --existing ok), " +
      'or give --over-later-runs if the later runs sent other records',
    { code: 'E2202' },
  );
}

export async function refuseReplacedStore(header: OpenedResume['record']['header']): Promise<void> {
  const { target, instance } = header;
  if (instance === undefined || target.kind !== 'local' || (await storeInstance(target)) === instance) return;
  const what = `no store of the run's at ${target.store} (moved, deleted or replaced since it started)`;
  throw new RunJournalError(
    `run ${header.id}: ${what}. Nothing was sent. Put it back there (a resume takes the recorded store, not --store), or run the file again as a new run`,
  );
}

/** A resumed run's options: its recorded flags and target, the PIN checked against its digest, given output flags. */
export function resumedOptions(
  opened: OpenedResume,
  given: GlobalOptions,
  pin: string | undefined,
  digested: readonly string[],
): Record<string, unknown> {
  const { header } = opened.record;
  const { pinSha256 } = header.options;
  const recorded = recordedFlags(header.options, digested);
  // stdin was copied to a temp file that lived only as long as that run: nothing to read again.
  if (recorded.file === '-') {
    throw new RunJournalError(`run ${header.id} ${pipedInputWay(header.id)}`);
  }
  const options: Record<string, unknown> = { ...recorded };
  if (typeof pinSha256 === 'string') {
    if (pin === undefined)
      throw new RunJournalError(
        `run ${header.id} was started with a PIN; give the same PIN again with --pin-file, EXAMCTL_PIN or --pin (the journal keeps only its hash)`,
      );
    if (pinDigest(pin) !== pinSha256)
      throw new RunJournalError(
        `run ${header.id}: the PIN given differs from the one the run was started with; give the same PIN`,
      );
    options.pin = pin;
  } else if (pin !== undefined) {
    throw new UsageError(`run ${header.id} was started without --pin; a resume sends what the run sent`);
  }
  options.target = header.target.kind;
  if (header.syncDir !== undefined) options.syncDir = header.syncDir;
  // A flag of the run naming the other target (recorded before two were refused) names none here.
  delete options[header.target.kind === 'local' ? 'baseUrl' : 'store'];
  if (header.target.kind === 'local') options.store = header.target.store;
  else options.baseUrl = typeof recorded.baseUrl === 'string' ? recorded.baseUrl : header.target.baseUrl;
  for (const name of RESUME_OVERRIDES) {
    const value = (given as Record<string, unknown>)[name];
    if (value !== undefined) options[name] = value;
  }
  options.runsDir = given.runsDir;
  delete options.dryRun;
  return options;
}

/* `EXAMCTL_TEST_SIGNAL_AFTER=<sent|outcome|parse>:<N>:<SIGNAL>`: docs/runs.md, "Rehearsing a crash". */
type TestSignalEvent = 'sent' | 'outcome' | 'parse';

interface TestSignal {
  counted(event: TestSignalEvent, count?: number): void;
}

const NO_SIGNAL: TestSignal = { counted() {} };
const VARIABLE = 'EXAMCTL_TEST_SIGNAL_AFTER';
const SIGNALS: readonly NodeJS.Signals[] = ['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGHUP', 'SIGSTOP'];

export function testSignalFrom(
  env: Env,
  signalSelf: (signal: NodeJS.Signals) => void = (signal) => process.kill(process.pid, signal),
): TestSignal {
  const value = env[VARIABLE];
  if (value === undefined || value === '') return NO_SIGNAL;
  const markers = value.split(',').map((one) => {
    const match = /^(sent|outcome|parse):([1-9]\d{0,8}):(SIG[A-Z]+)$/.exec(one);
    const signal = match?.[3] as NodeJS.Signals | undefined;
    if (match === null || signal === undefined || !SIGNALS.includes(signal)) {
      throw new UsageError(
        `${VARIABLE}: "${value}": expected <sent|outcome|parse>:<N>:<${SIGNALS.join('|')}>, comma-separated, e.g. outcome:100:SIGKILL`,
      );
    }
    return { event: match[1] as TestSignalEvent, after: Number(match[2]), signal, seen: 0, sent: false };
  });
  return {
    counted(counted, count = 1) {
      for (const marker of markers) {
        if (counted !== marker.event || marker.sent) continue;
        marker.seen += count;
        if (marker.seen < marker.after) continue;
        marker.sent = true;
        signalSelf(marker.signal);
      }
    },
  };
}
