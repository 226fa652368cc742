/**
 * Run journals (docs/runs.md): what the run pipeline calls to keep every run accounted for,
 * and what `runs list|show|resume|prune` read.
 */
export { newRunId } from './run-id.js';
export { resolveRunsDir } from './runs-dir.js';
export { recordedOptions } from './recorded-options.js';
export type { EndReason, ItemRef } from './journal-lines.js';
export { APPLIED_BEFORE_INTERRUPT } from './journal-lines.js';
export { RunJournal, journalPath, type NewRunHeader } from './run-journal.js';
export {
  scanRun,
  runState,
  summarize,
  unlinedItem,
  unjournaledCount,
  unitsOf,
  listRuns,
  laterRunsOf,
  resolveRunId,
  pruneRuns,
  type JournalHead,
  type RunIndex,
} from './read-run.js';
export {
  CHANGED_INPUT_ADVICE,
  changedDigestedFile,
  digestKey,
  recordedFlags,
  fingerprintInput,
  inputChange,
  planResume,
  appliedItem,
  keptButLost,
  appliedHeads,
  settleInFlight,
  openResume,
  type OpenedResume,
  type ResumeDecision,
} from './resume-plan.js';
export { NothingToResumeError, RunJournalError, RunJournalWriteError } from './run-errors.js';
export { assertTrustedRun, assertTrustedRunsDir, currentTrust, type RunTrust } from './run-trust.js';
