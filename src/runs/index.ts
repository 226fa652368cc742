/**
 * Run journals (docs/runs.md): what the run pipeline calls to keep every run accounted for,
 * and what `runs list|show|resume|prune` read.
 */
export { newRunId, isRunId } from './run-id.js';
export { resolveRunsDir } from './runs-dir.js';
export { recordedOptions, redactUrl, RECORDED_OPTIONS, type RecordedValue } from './recorded-options.js';
export type { EndReason, InputFingerprint, ItemRef, OutcomeLine, RunHeaderLine } from './journal-lines.js';
export { RunJournal, DEFAULT_GROUP_COMMIT, journalPath, type GroupCommit, type NewRunHeader } from './run-journal.js';
export {
  readRun,
  runState,
  summarize,
  rebuildReport,
  reportItemOf,
  notReachedItem,
  unjournaledCount,
  journaledItems,
  listRuns,
  resolveRunId,
  pruneRuns,
  DEFAULT_PRUNE_POLICY,
  type ItemHistory,
  type PrunePolicy,
  type RunListing,
  type RunRecord,
  type RunState,
} from './read-run.js';
export { changedScheduleFile, fingerprintInput, inputChange, planResume, isRefusal, settleInFlight, openResume, type OpenedResume, type ResumeDecision, type ResumePlan, type ResumeRefusal } from './resume-plan.js';
export { RunJournalError, RunJournalWriteError } from './run-errors.js';
export { assertTrustedRun, assertTrustedRunsDir, currentTrust, runsDirProblem, type RunTrust } from './run-trust.js';
