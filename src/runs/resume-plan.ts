import { createHash } from 'node:crypto';
import { openRegularFile } from '../system/regular-file.js';
import {
  APPLIED_BEFORE_INTERRUPT,
  digestedFiles,
  digestKey,
  finishesRun,
  isUnchangedNote,
  type InputFingerprint,
  type ItemRef,
  type OutcomeLine,
} from './journal-lines.js';
import type { ReportItem } from '../report/run-report.js';
import { NothingToResumeError, RunJournalError } from './run-errors.js';
import { flagOf, type RecordedValue } from './recorded-options.js';
import { RunJournal } from './run-journal.js';
import { assertRunHere, reportItemOf, scanRun, unlinedItem, type JournalHead, type RunIndex } from './read-run.js';

/** Size and SHA-256 of an input file, streamed (any size, constant memory), or as `read` noted them. */
export async function fingerprintInput(
  path: string,
  read?: { stat?: string; sha256?: string },
): Promise<InputFingerprint> {
  if (read?.sha256) return { path, size: Number(read.stat?.split(':')[2]), sha256: read.sha256 };
  // A regular file (or a link to one): an input swapped for a FIFO since the run would hang a resume.
  const handle = await openRegularFile(path, { followLinks: true });
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of handle.createReadStream({ highWaterMark: 1 << 20 })) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { path, size, sha256: hash.digest('hex') };
}

/** Why the input read now would not give the run's items (their positions are their keys): gone, or other bytes. */
export function inputChange(recorded: InputFingerprint, now: InputFingerprint | 'missing'): string | undefined {
  if (now === 'missing') return `its input file ${recorded.path} cannot be read any more`;
  if (now.size === recorded.size && now.sha256 === recorded.sha256) return undefined;
  const what =
    now.size !== recorded.size
      ? `its size changed (${recorded.size} -> ${now.size} bytes)`
      : 'its content changed (SHA-256 differs)';
  return `its input file ${recorded.path} changed since the run started: ${what}`;
}

export type ResumeDecision =
  /** Its outcome stands (ok, partial, a rule or validation failure: --only-failed fixes those). */
  | { action: 'keep'; item: ReportItem }
  /** Send it: never sent, its answer lost, or answered transiently; `maybeApplied`: ResumeView's. */
  | { action: 'send'; maybeApplied: boolean };

interface ResumePlan {
  decide(ref: ItemRef): ResumeDecision;
  /** Units numbered below `total` whose outcome stands (the "settled, kept" of a resume's confirmation). */
  keptBelow(total: number): number;
}

/** The way on when a run's input changed (not --only-failed: a kill -9 leaves no report to give it). */
export const CHANGED_INPUT_ADVICE =
  'put the original back and resume, or run the command again on the file as it is now (a job that can run twice loses nothing: user sync, --upsert, --missing-ok, --existing ok; docs/ci.md, "A job that runs twice")';

/** How a run is resumed; exit 2 for an input missing or changed: items are keyed by their position in it. */
export function planResume(
  record: Pick<RunIndex, 'id' | 'header' | 'end' | 'unchanged' | 'keptBelow' | 'historyAt'>,
  input: InputFingerprint | 'missing' | null,
): ResumePlan {
  const id = record.id;
  const recorded = record.header.input;
  const changed = recorded === null ? undefined : inputChange(recorded, input ?? 'missing');
  if (changed !== undefined)
    throw new RunJournalError(
      `run ${id}: ${changed}${input === 'missing' || input === null ? '' : `; ${CHANGED_INPUT_ADVICE}`}`,
    );
  return {
    // Judged unchanged (--changed-only) and journaled compactly: kept, like any settled outcome.
    keptBelow: (total) => record.keptBelow(total) + record.unchanged.countBelow(total),
    decide(ref) {
      const history = record.historyAt(ref.n, ref);
      if (history === undefined)
        return record.unchanged.since(ref.n) === undefined
          ? { action: 'send', maybeApplied: false }
          : { action: 'keep', item: unlinedItem(record, ref) };
      const outcome = history.outcome;
      // Sent again: in flight, withdrawn with no earlier answer, or answered transiently.
      return outcome === undefined || history.inFlight || outcome.transient
        ? { action: 'send', maybeApplied: history.maybeApplied }
        : { action: 'keep', item: reportItemOf(record, history) };
    },
  };
}

/** Whether a kept item was applied (a restore of the store can take it back): ok or partial, and sent. */
export function appliedItem(item: ReportItem): boolean {
  return (item.status === 'ok' || item.status === 'partial') && item.action !== 'left' && !isUnchangedNote(item.note);
}

/** The head a kept item is judged against: its attempt's, or the run's where a resume found it applied before. */
const headOf = (record: Pick<RunIndex, 'headBefore' | 'header'>, n: number, item: ReportItem): string | undefined =>
  item.note?.startsWith(APPLIED_BEFORE_INTERRUPT) === true ? record.header.storeHead : record.headBefore(n);

/**
 * What keptButLost asks the store: the commit heads of the kept items whose answers carried one, and the start heads
 * of the attempts that applied the others.
 */
export function headsToJudge(record: Pick<RunIndex, 'keptItems' | 'headBefore' | 'header'>): {
  starts: Set<string>;
  commits: Set<string>;
} {
  const starts = new Set<string>();
  const commits = new Set<string>();
  for (const [n, item, committed] of record.keptItems()) {
    if (!appliedItem(item)) continue;
    if (committed !== undefined) commits.add(committed);
    else {
      const head = headOf(record, n, item);
      if (head !== undefined) starts.add(head);
    }
  }
  return { starts, commits };
}

/**
 * The kept items a store restored under the run no longer holds (docs/runs.md, "A store restored under a run"). One
 * whose answer carried the head after the commit that holds its changes is lost exactly when the store does not hold
 * that head (`held`: those it holds). Any other is judged against the head the attempt that applied it began at:
 * `changedSince` gives, for each such head the store holds, the keys it changed after it. Lost: an applied one whose
 * head the store does not hold (restored to before that attempt began), or whose key it did not change since. Sent
 * again, as never sent. An `unchanged` answer (a no-op update) wrote nothing, so a store holding that head holds it
 * as it was.
 */
export function keptButLost(
  record: Pick<RunIndex, 'keptItems' | 'headBefore' | 'header'>,
  changedSince: ReadonlyMap<string, ReadonlySet<string>>,
  held: ReadonlySet<string>,
): Set<number> {
  const lost = new Set<number>();
  for (const [n, item, committed] of record.keptItems()) {
    if (!appliedItem(item)) continue;
    if (committed !== undefined) {
      if (!held.has(committed)) lost.add(n);
      continue;
    }
    const head = headOf(record, n, item);
    if (head === undefined) continue;
    const changed = changedSince.get(head);
    if (changed === undefined || (changedHere(item) && !changed.has(item.id!))) lost.add(n);
  }
  return lost;
}

/** Whether the store records a change of a kept item's key: an item with one, answered other than `unchanged`. */
const changedHere = (item: ReportItem): boolean => item.id !== null && item.action !== 'unchanged';

export type ResentOutcome = Pick<OutcomeLine, 'status' | 'errors' | 'action' | 'note'>;

/** What a refused resend says a lost attempt did: `created` (it exists), `removed` (it is gone), or undefined. */
export type LostAttemptDid = (answer: ResentOutcome) => 'created' | 'removed' | undefined;

/** A maybe-applied item's resend settled as docs/runs.md says after "An id examctl chooses". */
export function settleInFlight(
  runId: string,
  decision: ResumeDecision,
  answer: ResentOutcome,
  lostAttemptDid: LostAttemptDid | undefined,
  chosenId = false,
): ResentOutcome {
  if (decision.action !== 'send' || !decision.maybeApplied) return answer;
  // The resend changed nothing: "unchanged" alone would hide that this run may have applied it. An answer that
  // says why itself keeps it, unless the why is what a lost attempt would leave (--missing-ok's "not an invigilator").
  if (
    answer.status === 'ok' &&
    answer.action === 'unchanged' &&
    (answer.note === undefined || lostAttemptDid?.(answer) === 'removed')
  ) {
    return {
      ...answer,
      action: 'sent',
      note: `the resend changed nothing: the interrupted attempt of run ${runId} may have applied it (its answer was lost), or it was so before the run`,
    };
  }
  if (answer.status === 'ok') return answer;
  const did = lostAttemptDid?.(answer);
  if (did === undefined) return answer;
  if (did === 'created' && chosenId) {
    return {
      status: 'ok',
      errors: [],
      action: 'created',
      note: `created by the interrupted attempt of run ${runId}, whose answer was lost (the id examctl chose for it is this run's alone)`,
    };
  }
  const before = did === 'created' ? 'created it, or it existed before the run' : 'removed it, or it was never there';
  return {
    ...answer,
    note: `the interrupted attempt of run ${runId} may have ${before}: that request was on record as sent and its answer was lost, so examctl cannot tell which; check it`,
  };
}

/** Why a file the run read besides its input (kept with its digest: --schedule, a map file) changed, if one did. */
export async function changedDigestedFile(record: Pick<JournalHead, 'header'>): Promise<string | undefined> {
  const { profile } = record.header;
  for (const { option, path, digest } of digestedFiles(record.header)) {
    const flag = option === undefined ? `profile ${profile?.name}'s map` : flagOf(option);
    const now = await fingerprintInput(path).catch(() => undefined);
    if (now === undefined) return `its ${flag} file ${path} cannot be read any more`;
    if (now.sha256 !== digest) return `its ${flag} file ${path} changed since the run started (SHA-256 differs)`;
  }
  return undefined;
}

/** The options a resume takes from the journal: the recorded ones, without the digests and directory beside them. */
export function recordedFlags(
  options: Record<string, RecordedValue>,
  digested: readonly string[],
): Record<string, RecordedValue> {
  const { cwd: _cwd, pinSha256: _pin, ...flags } = options;
  for (const name of digested) delete flags[digestKey(name)];
  return flags;
}

export interface OpenedResume {
  journal: RunJournal;
  /** The run's index, open: its lines are read back as they are decided (`close` it after the journal). */
  record: JournalHead & Pick<RunIndex, 'items' | 'countFrom' | 'keptItems' | 'headBefore'> & { close(): Promise<void> };
  plan: ResumePlan;
  /** runs resume's refusals, made again once the run holds its sync memory (sent-memory.ts). */
  check?: (held?: { name: string; populations: ReadonlyMap<string, { run: string }> }) => Promise<void>;
}

/**
 * `runs resume` takes the run over: lock, journal read again, plan (RunJournalError, exit 2, if it cannot). A
 * finished run only where `storeLost` says its store lost what it applied (restored since: docs/runs.md, "runs resume").
 */
export async function openResume(
  runsDir: string,
  id: string,
  storeLost?: (record: RunIndex) => Promise<boolean>,
): Promise<OpenedResume> {
  await assertRunHere(runsDir, id);
  const held = await RunJournal.lockForResume(runsDir, id);
  let record: RunIndex | undefined;
  try {
    // Streamed, not held whole: 9 bytes an item (docs/runs.md, "runs resume").
    record = await scanRun(runsDir, id);
    if (record.end !== undefined && finishesRun(record.end.reason) && (await storeLost?.(record)) !== true) {
      throw new NothingToResumeError(
        `run ${id} is finished; nothing to resume (its report follows; fix failures with --only-failed on it)`,
        id,
      );
    }
    const recorded = record.header.input;
    const plan = planResume(
      record,
      recorded === null ? null : await fingerprintInput(recorded.path).catch(() => 'missing' as const),
    );
    const journal = await held.reopen(record.validLength);
    return { journal, record, plan };
  } catch (error) {
    await record?.close();
    await held.release();
    throw error;
  }
}
